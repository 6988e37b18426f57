package props

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rtnlsim/rtnlsim/internal/calib"
	"github.com/rtnlsim/rtnlsim/internal/testseed"
	"github.com/rtnlsim/rtnlsim/sim"
)

// TestCalibratePredictsUnfitted calibrates the
// cost model on this machine's kernel at the --quick sizes (calib.QuickSizes,
// 3 rounds through ip -b, the median kept), then predict from the
// fitted prices four groups of scenarios the fit never saw (parallel
// one-by-one deletion with 2 and 4 threads, group move UP vs DOWN,
// deleting devices that hold addresses, a route flush at an uncalibrated
// size) and require each prediction within 25% of the kernel's time. The
// table is logged. About 2.5-3.5 minutes of wall time on this 2-core
// machine (3m20s measured while other jobs loaded it). It runs only with
// RTNLSIM_KMEASURE=1 (make fidelity-tests).
func TestCalibratePredictsUnfitted(t *testing.T) {
	testseed.NeedKMeasure(t, "calibrate's unfitted predictions")
	testseed.NeedKernel(t)
	start := time.Now()
	res, err := calib.Run(context.Background(), calib.Options{Sizes: calib.QuickSizes, Repeat: 3, Predict: true})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	res.WriteSummary(&b)
	t.Logf("calibration and predictions (%v wall):\n%s", time.Since(start).Round(time.Second), b.String())

	// Every prediction group has a prediction within 25% of the
	// kernel, and every prediction not marked as a known gap is.
	groups := map[string]int{}
	for _, p := range res.Predictions {
		if p.MeasuredNs <= 0 || p.PredictedNs <= 0 {
			t.Errorf("%s: predicted %d ns, measured %d ns", p.Name, p.PredictedNs, p.MeasuredNs)
			continue
		}
		if p.Gap != "" {
			// A known gap of the model, printed with its reason: the
			// group it belongs to still needs a prediction held to 25%.
			continue
		}
		groups[p.Group]++
		if p.Error > 0.25 || p.Error < -0.25 {
			t.Errorf("%s (%s): predicted %.1f ms, measured %.1f ms: error %+.1f%% (limit 25%%)",
				p.Name, p.Group, float64(p.PredictedNs)/1e6, float64(p.MeasuredNs)/1e6, 100*p.Error)
		}
	}
	for _, g := range []string{calib.GroupThreads, calib.GroupMoveUp, calib.GroupAddressed, calib.GroupFlushSize} {
		if groups[g] == 0 {
			t.Errorf("no prediction of %q", g)
		}
	}

	// The profile file round-trips into a sim target's prices.
	path := filepath.Join(t.TempDir(), "profile.json")
	if err := sim.WriteProfileFile(path, res.ProfileFile()); err != nil {
		t.Fatal(err)
	}
	p, err := sim.LoadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	if p.Cost == nil || *p.Cost != res.Fit.Params || p.Options(0).Cost == nil || *p.Options(0).Cost != res.Fit.Params {
		t.Errorf("profile file %s does not carry the fitted prices", path)
	}
	if len(p.Provenance.Scenarios) != len(res.Fit.Rows) {
		t.Errorf("provenance has %d scenarios, the fit %d", len(p.Provenance.Scenarios), len(res.Fit.Rows))
	}
}
