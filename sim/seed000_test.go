package sim

import (
	"errors"
	"math"
	"slices"
	"syscall"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/internal/testseed"
)

func TestSeed000Table(t *testing.T) {
	rows, p, err := Seed000Table()
	require.NoError(t, err)
	t.Logf("fitted parameters (1-thread and group rows; expedited/rcu_barrier = 1/11 assumed): %+v", p)
	t.Logf("seed 000, %d devices UP with IPv6 LLA:\n%s", Seed000DefaultFit.Devices, FormatSeed000Table(rows))
	require.Len(t, rows, 5)
	n := int64(Seed000DefaultFit.Devices)
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
		o := Seed000DefaultFit
		o.ExpeditedOverBarrier = r
		p, err := FitSeed000(o)
		require.NoError(t, err)
		rows, err := Seed000Rows(p, o)
		require.NoError(t, err)
		t.Logf("expedited/rcu_barrier=%.3f: rcu_barrier %.3f ms, expedited %.3f ms, per device %.3f ms: 10 threads %.1f s (%+.1f%%), 50 threads %.1f s (%+.1f%%)",
			r, float64(p.RCUBarrierNs)/1e6, float64(p.SynchronizeNetExpeditedNs)/1e6, float64(p.UnregisterDeviceNs)/1e6,
			float64(rows[1].PredictedNs)/1e9, rows[1].ErrorPct, float64(rows[2].PredictedNs)/1e9, rows[2].ErrorPct)
		require.InDelta(t, rows[0].SeedNs, rows[0].PredictedNs, 1e6)
		require.InDelta(t, rows[3].SeedNs, rows[3].PredictedNs, 1e6)
	}
}

func TestSeed000FitRefusesWhatItCannotSolve(t *testing.T) {
	o := Seed000DefaultFit
	o.Devices = 1
	_, err := FitSeed000(o)
	require.Error(t, err)
	o = Seed000DefaultFit
	o.GroupNs = 300e9 // group slower than one by one: no non-negative solution
	_, err = FitSeed000(o)
	require.Error(t, err)
}

func TestListDeleteBatchENODEV(t *testing.T) {
	devs := map[int32]UnregDev{2: {Ifindex: 2}, 3: {Ifindex: 3, Peer: 4}, 4: {Ifindex: 4, Peer: 3}}
	b, err := ListDeleteBatch(devs, []int32{2, 9, 3})
	require.True(t, errors.Is(err, syscall.ENODEV))
	require.Nil(t, b)
	b, err = ListDeleteBatch(devs, []int32{3, 3, 4, 2, 3})
	require.NoError(t, err)
	require.Equal(t, []int32{3, 4, 2}, batchIfindexes(b))
}

func TestUnregisterRequestWorkEmptyBatch(t *testing.T) {
	w := UnregisterRequestWork(UnregisterStepsSeed000, nil)
	require.Zero(t, w.Count(cost.StepRCUBarrier), "empty todo list: no rcu_barrier")
	require.Zero(t, w.Count(cost.StepSynchronizeNetExpedited))
	require.Equal(t, int64(1), w.Count(cost.StepRequest))
}

func batchIfindexes(devs []UnregDev) []int32 {
	out := make([]int32, len(devs))
	for i, d := range devs {
		out[i] = d.Ifindex
	}
	return out
}

// listScenario is a device table (some pairs are the two ends of a veth)
// and a +bulk-ifindex list over it, duplicates allowed.
type listScenario struct {
	devs map[int32]UnregDev
	list []int32
}

// makeListScenario builds n devices at ifindex 2..n+1; pair k (devices 2k,
// 2k+1) is a veth when veth[k]; picks index the devices (mod n).
func makeListScenario(n int, veth, up []bool, first int, rest []int) listScenario {
	s := listScenario{devs: map[int32]UnregDev{}}
	for i := range n {
		d := UnregDev{Ifindex: int32(i + 2)}
		if i < len(up) {
			d.Up, d.IPv6LLA = up[i], up[i]
		}
		s.devs[d.Ifindex] = d
	}
	for k := 0; 2*k+1 < n && k < len(veth); k++ {
		if veth[k] {
			a, b := s.devs[int32(2*k+2)], s.devs[int32(2*k+3)]
			a.Peer, b.Peer = b.Ifindex, a.Ifindex
			s.devs[a.Ifindex], s.devs[b.Ifindex] = a, b
		}
	}
	for _, p := range append([]int{first}, rest...) {
		s.list = append(s.list, int32(p%n+2))
	}
	return s
}

func seed000PropParams(t *testing.T) *gopter.TestParameters {
	p := gopter.DefaultTestParametersWithSeed(testseed.Get(t, 20211202)) // the patch's date
	p.MinSuccessfulTests = 500
	return p
}

// Property (+bulk-ifindex): whatever the list holds (duplicates, one or both
// ends of a veth), one list request unregisters every named device and
// every peer exactly once, in one batch with exactly one rcu_barrier, and
// running it calls and executes one barrier.
func TestPropListDeleteOneBarrier(t *testing.T) {
	props := gopter.NewProperties(seed000PropParams(t))
	props.Property("list delete: one batch, each device once, one rcu_barrier", prop.ForAll(
		func(n int, veth, up []bool, first int, rest []int) string {
			s := makeListScenario(n, veth, up, first, rest)
			batch, err := ListDeleteBatch(s.devs, s.list)
			if err != nil {
				return "unexpected error: " + err.Error()
			}
			want := map[int32]bool{}
			for _, ix := range s.list {
				want[ix] = true
				if p := s.devs[ix].Peer; p != 0 {
					want[p] = true
				}
			}
			got := batchIfindexes(batch)
			sorted := slices.Clone(got)
			slices.Sort(sorted)
			if len(slices.Compact(sorted)) != len(got) {
				return "a device is unregistered twice"
			}
			if len(got) != len(want) {
				return "the batch misses a device or a peer"
			}
			for _, st := range []UnregisterSteps{UnregisterStepsSeed000, UnregisterStepsV618} {
				w := UnregisterRequestWork(st, batch)
				if w.Count(cost.StepRCUBarrier) != 1 {
					return "not exactly one rcu_barrier"
				}
				if w.Count(cost.StepUnregisterDevice) != int64(len(want)) {
					return "per-device work does not match the devices"
				}
				res, err := cost.Simulate(unregTestPrices, [][]cost.Work{{w}})
				if err != nil {
					return err.Error()
				}
				if res.Counters.RCUBarrier != 1 || res.Counters.RCUBarrierExecuted != 1 {
					return "the run did not call and execute exactly one barrier"
				}
			}
			return ""
		},
		gen.IntRange(1, 24),
		gen.SliceOf(gen.Bool()),
		gen.SliceOf(gen.Bool()),
		gen.IntRange(0, 63),
		gen.SliceOf(gen.IntRange(0, 63)),
	))
	props.TestingRun(t)
}

// Property: deleting N devices one request each on one thread costs N
// rcu_barrier calls and N executed barriers, and the virtual time is the
// plain sum of the requests.
func TestPropOneByOneNBarriers(t *testing.T) {
	props := gopter.NewProperties(seed000PropParams(t))
	props.Property("one by one, one thread: N requests, N barriers", prop.ForAll(
		func(n int, up []bool, v618 bool) string {
			devs := make([]UnregDev, n)
			for i := range devs {
				devs[i] = UnregDev{Ifindex: int32(i + 2)}
				if i < len(up) {
					devs[i].Up, devs[i].IPv6LLA = up[i], up[i]
				}
			}
			st := UnregisterStepsSeed000
			if v618 {
				st = UnregisterStepsV618
			}
			in := Seed000OneByOne(st, devs, 1)
			var sum int64
			for _, w := range in[0] {
				sum += w.PlainNs(unregTestPrices)
			}
			res, err := cost.Simulate(unregTestPrices, in)
			if err != nil {
				return err.Error()
			}
			if res.Counters.RCUBarrier != int64(n) || res.Counters.RCUBarrierExecuted != int64(n) {
				return "barriers != requests"
			}
			if res.Counters.Request != int64(n) {
				return "requests miscounted"
			}
			if res.VirtualNs != sum {
				return "one thread is not the plain sum"
			}
			return ""
		},
		gen.IntRange(0, 200),
		gen.SliceOf(gen.Bool()),
		gen.Bool(),
	))
	props.TestingRun(t)
}

func TestSeed000OneByOneSplit(t *testing.T) {
	in := Seed000OneByOne(UnregisterStepsSeed000, Seed000Devices(103), 10)
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
	p, err := FitSeed000(Seed000DefaultFit)
	if err != nil {
		b.Fatal(err)
	}
	devs := Seed000Devices(10000)
	for _, threads := range []int{1, 10, 50} {
		b.Run(map[int]string{1: "threads=1", 10: "threads=10", 50: "threads=50"}[threads], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				in := Seed000OneByOne(UnregisterStepsSeed000, devs, threads)
				if _, err := cost.Simulate(p, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// unregTestPrices price every step the unregister work uses, each differently.
var unregTestPrices = cost.Params{
	RequestNs: 7, RCUBarrierNs: 1000, SynchronizeNetNs: 300, SynchronizeNetExpeditedNs: 90,
	UnregisterDeviceNs: 50, NotifierCallNs: 3, NotificationNs: 11,
}
