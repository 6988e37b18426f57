package cost

import "testing"

// Every step has a Params field Set can reach (the calibration sets every
// fitted price with it).
func TestParamsSetEveryStep(t *testing.T) {
	var p Params
	for i, s := range Steps() {
		if err := p.Set(s, int64(1000+i)); err != nil {
			t.Fatal(err)
		}
		if p.Cost(s) != int64(1000+i) {
			t.Fatalf("%s: %d", s, p.Cost(s))
		}
	}
}
