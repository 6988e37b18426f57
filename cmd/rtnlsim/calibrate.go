package main

import (
	"fmt"

	"github.com/rtnlsim/rtnlsim/sim"
)

// costPricesNote is the line under a cost table saying whose prices it
// used; openTarget sets it from the profile.
var costPricesNote = pricesNote(sim.Profile{})

// pricesNote says where p's prices come from.
func pricesNote(p sim.Profile) string {
	if p.Cost == nil {
		return "(prices: the seed 000 fit, 2021 hardware; see README)"
	}
	if p.Provenance != nil {
		return fmt.Sprintf("(prices: %s, calibrated on kernel %s, %s, %s)", p.File, p.Provenance.Kernel, p.Provenance.Machine, p.Provenance.Date)
	}
	return fmt.Sprintf("(prices: %s)", p.File)
}
