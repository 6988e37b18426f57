package sim

import (
	"fmt"
	"reflect"
	"strings"
)

// SetCost sets step s's price in p. CostParams has one field per step,
// whose JSON name is the step's name with "_ns" (request_ns, ...), so a
// new step can be set without a list of fields to keep up to date beside
// CostParams.Cost; the result is checked against Cost. The calibration
// sets its fitted prices through it.
func SetCost(p *CostParams, s CostStep, ns int64) error {
	v := reflect.ValueOf(p).Elem()
	want := s.String() + "_ns"
	for i := 0; i < v.NumField(); i++ {
		if tag, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ","); tag == want {
			v.Field(i).SetInt(ns)
			if p.Cost(s) != ns {
				return fmt.Errorf("sim: field %s does not price step %s", want, s)
			}
			return nil
		}
	}
	return fmt.Errorf("sim: CostParams has no field tagged %q for step %s", want, s)
}
