package cost

import "testing"

// Every step has a Params field Set can reach (the calibration sets every
// fitted price with it).
func TestParamsSetEveryStep(t *testing.T) {
	var p Params
	for i, s := range Steps() {
		if err := p.Set(s, float64(1000+i)+0.25); err != nil {
			t.Fatal(err)
		}
		if p.Cost(s) != float64(1000+i)+0.25 {
			t.Fatalf("%s: %g", s, p.Cost(s))
		}
	}
}
