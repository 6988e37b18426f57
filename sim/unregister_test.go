package sim

import (
	"errors"
	"slices"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/internal/testseed"
	"github.com/rtnlsim/rtnlsim/uapi"
)

func TestListDeleteBatchENODEV(t *testing.T) {
	devs := map[int32]UnregDev{2: {Ifindex: 2}, 3: {Ifindex: 3, Peer: 4}, 4: {Ifindex: 4, Peer: 3}}
	b, err := ListDeleteBatch(devs, []int32{2, 9, 3})
	require.True(t, errors.Is(err, uapi.ENODEV))
	require.Nil(t, b)
	b, err = ListDeleteBatch(devs, []int32{3, 3, 4, 2, 3})
	require.NoError(t, err)
	require.Equal(t, []int32{3, 4, 2}, batchIfindexes(b))
}

func TestUnregisterRequestWorkEmptyBatch(t *testing.T) {
	w := UnregisterRequestWork(UnregisterStepsV516(), nil)
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
			for _, st := range []UnregisterSteps{UnregisterStepsV516(), UnregisterStepsV618()} {
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
			st := UnregisterStepsV516()
			if v618 {
				st = UnregisterStepsV618()
			}
			in := UnregisterOneByOne(st, devs, 1)
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

// unregTestPrices price every step the unregister work uses, each differently.
var unregTestPrices = cost.Params{
	RequestNs: 7, RCUBarrierNs: 1000, SynchronizeNetNs: 300, SynchronizeNetExpeditedNs: 90,
	UnregisterDeviceNs: 50, NotifierCallNs: 3, NotificationNs: 11,
}
