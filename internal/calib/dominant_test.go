package calib

import (
	"testing"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/internal/kmeasure"
	"github.com/rtnlsim/rtnlsim/sim"
)

// Each scenario made for one small price makes that step as often as its
// design says: a tnode scan of half the /32s per delete, one expedited
// synchronize_net per down, one IPv6 set-up per up, every leaf of the FIB
// (main and local share one trie, walked once per table) per down.
func TestDominantScenariosCount(t *testing.T) {
	p := sim.MustParseProfile(sim.DefaultProfile)
	for _, c := range []struct {
		s    kmeasure.Scenario
		step cost.Step
		min  int64
		max  int64
	}{
		{SuffixToggle(4096, 10), cost.StepTrieSuffixVisit, 10 * 2048, 10 * 2048},
		{SuffixToggle(8192, 10), cost.StepTrieSuffixVisit, 10 * 4096, 10 * 4096},
		{LinkDownBare(20), cost.StepSynchronizeNetExpedited, 20, 20},
		{UpDownToggle(15), cost.StepIPv6DevConfig, 15, 15},
		{DownRoutes(10, 2000), cost.StepFibFlushLeaf, 10 * 2 * 2000, 10 * 2 * (2000 + 3*10)},
	} {
		run, err := SimWorkFor(p, c.s, IPClient)
		if err != nil {
			t.Fatal(err)
		}
		if n := run.Counts()[c.step]; n < c.min || n > c.max {
			t.Errorf("%s: %d x %s, want %d..%d", c.s.Name, n, c.step, c.min, c.max)
		}
	}
}
