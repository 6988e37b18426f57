package seed001

import (
	"context"
	"errors"
	"fmt"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/sim"
)

// FlushWith runs the scenario on a fresh sim target made with o (a
// profile's Options: its seed, netdev index and FIB era) and returns the
// flush's work; the addresses must all be gone afterwards. c.IfaFlush
// overrides o.IfaFlush: +ifa-flush is one of seed 001's cases, not only a
// profile switch. ctx stops it between requests, so that an interrupted
// `rtnlsim sweep seed001` stops inside a long promoting flush.
func FlushWith(ctx context.Context, c Case, o sim.Options) (Result, error) {
	o.IfaFlush = c.IfaFlush
	o.FlushWholeDump = !c.IPFlush
	if c.Layout.K > 0 {
		if _, err := c.Layout.Addrs(); err != nil {
			return Result{}, fmt.Errorf("seed 001: %w", err)
		}
	}
	t := sim.New(o)
	defer t.Close()
	for _, r := range Requests(c) {
		if err := t.Apply(ctx, r); err != nil {
			return Result{}, fmt.Errorf("seed 001 %s: line %d %q: %w", c, r.Line, r.Text, err)
		}
	}
	n := t.Netns()
	if d := n.ByName("i0"); d == nil || !d.IPv4() || len(d.IPv4Addrs()) != 0 {
		return Result{}, errors.New("seed 001: addresses left after the flush")
	}
	work := t.Work()
	w := work[len(work)-1]
	return Result{Case: c, Requests: w.Count(cost.StepRequest), IfaWalk: w.Count(cost.StepIfaWalk),
		FibOps: w.Count(cost.StepFibOp), Notifications: w.Count(cost.StepNotification),
		Promotions: n.DevinetCounters().Promotions, Work: w}, nil
}
