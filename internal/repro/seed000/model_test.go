package seed000

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/sim"
)

func TestSeed000Table(t *testing.T) {
	rows, p, err := Table()
	require.NoError(t, err)
	t.Logf("fitted parameters (1-thread and group rows; expedited/rcu_barrier = 1/11 assumed): %+v", p)
	t.Logf("seed 000, %d devices UP with IPv6 LLA:\n%s", DefaultFit.Devices, FormatTable(rows))
	require.Len(t, rows, 5)
	n := int64(DefaultFit.Devices)
	for _, r := range rows {
		require.Positive(t, r.PredictedNs, r.Scenario)
		require.False(t, math.IsNaN(r.ErrorPct), r.Scenario)
		if r.Fitted {
			// Parameters are whole nanoseconds: the fit reproduces its rows
			// up to rounding (well under a millisecond in minutes).
			require.InDelta(t, r.SeedNs, r.PredictedNs, 1e6, r.Scenario)
		}
	}
	// One by one: one rcu_barrier call per request, whatever the threads;
	// from more threads, calls share barriers.
	for _, r := range rows[:3] {
		require.Equal(t, n, r.Counters.RCUBarrier, r.Scenario)
		require.Equal(t, n, r.Counters.Request, r.Scenario)
		require.Equal(t, 3*n, r.Counters.SynchronizeNetExpedited, r.Scenario)
		require.Equal(t, n, r.Counters.UnregisterDevice, r.Scenario)
	}
	require.Equal(t, n, rows[0].Counters.RCUBarrierExecuted)
	// Group and list: one batch, one barrier, the same time.
	for _, r := range rows[3:] {
		require.Equal(t, int64(1), r.Counters.RCUBarrier, r.Scenario)
		require.Equal(t, int64(1), r.Counters.RCUBarrierExecuted, r.Scenario)
		require.Equal(t, int64(3), r.Counters.SynchronizeNetExpedited, r.Scenario)
		require.Equal(t, n, r.Counters.UnregisterDevice, r.Scenario)
	}
	require.Equal(t, rows[3].PredictedNs, rows[4].PredictedNs)
}

// TestSeed000Sensitivity logs the predictions under other values of the one
// assumed ratio. Nothing here is fitted to the 10- and 50-thread rows; it
// shows how much the prediction hangs on the assumption.
func TestSeed000Sensitivity(t *testing.T) {
	for _, r := range []float64{0, 1.0 / 20, 1.0 / 11, 1.0 / 4, 1.0 / 2, 1} {
		o := DefaultFit
		o.ExpeditedOverBarrier = r
		p, err := Fit(o)
		require.NoError(t, err)
		rows, err := Rows(p, o)
		require.NoError(t, err)
		t.Logf("expedited/rcu_barrier=%.3f: rcu_barrier %.3f ms, expedited %.3f ms, per device %.3f ms: 10 threads %.1f s (%+.1f%%), 50 threads %.1f s (%+.1f%%)",
			r, float64(p.RCUBarrierNs)/1e6, float64(p.SynchronizeNetExpeditedNs)/1e6, float64(p.UnregisterDeviceNs)/1e6,
			float64(rows[1].PredictedNs)/1e9, rows[1].ErrorPct, float64(rows[2].PredictedNs)/1e9, rows[2].ErrorPct)
		require.InDelta(t, rows[0].SeedNs, rows[0].PredictedNs, 1e6)
		require.InDelta(t, rows[3].SeedNs, rows[3].PredictedNs, 1e6)
	}
}

func TestSeed000FitRefusesWhatItCannotSolve(t *testing.T) {
	o := DefaultFit
	o.Devices = 1
	_, err := Fit(o)
	require.Error(t, err)
	o = DefaultFit
	o.GroupNs = 300e9 // group slower than one by one: no non-negative solution
	_, err = Fit(o)
	require.Error(t, err)
}

func TestSeed000OneByOneSplit(t *testing.T) {
	in := sim.UnregisterOneByOne(sim.UnregisterStepsV516(), Devices(103), 10)
	require.Len(t, in, 10)
	total := 0
	for i, th := range in {
		if i < 3 {
			require.Len(t, th, 11)
		} else {
			require.Len(t, th, 10)
		}
		total += len(th)
	}
	require.Equal(t, 103, total)
}

// BenchmarkSeed000OneByOne10K runs the engine on the seed's 10K-device
// one-by-one scenario (building the requests' work included).
func BenchmarkSeed000OneByOne10K(b *testing.B) {
	p, err := Fit(DefaultFit)
	if err != nil {
		b.Fatal(err)
	}
	devs := Devices(10000)
	for _, threads := range []int{1, 10, 50} {
		b.Run(map[int]string{1: "threads=1", 10: "threads=10", 50: "threads=50"}[threads], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				in := sim.UnregisterOneByOne(sim.UnregisterStepsV516(), devs, threads)
				if _, err := cost.Simulate(p, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// sim.DefaultPrices is a literal so that the model does not fit anything
// at run time; this is its derivation: the seed's two fitted rows under
// DefaultFit's assumptions.
func TestDefaultPricesAreTheSeedFit(t *testing.T) {
	p, err := Fit(DefaultFit)
	require.NoError(t, err)
	require.Equal(t, p, sim.DefaultPrices())
}
