package cost

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTimelineTwoThreadsExactSpans(t *testing.T) {
	// Each request: 10 ns of request work, one expedited grace period
	// (20 ns) under the lock, then 5 ns of synchronize_net and one
	// rcu_barrier (100 ns) after it. Thread 0 holds the lock [0,30) and
	// calls rcu_barrier at 35: its barrier runs [35,135). Thread 1 waits
	// for the lock [0,30), holds it [30,60), calls rcu_barrier at 65, inside
	// the 50 ns window after that barrier started: it returns with it.
	var w Work
	w.AddLocked(StepRequest, 1)
	w.AddLocked(StepSynchronizeNetExpedited, 1)
	w.AddUnlocked(StepSynchronizeNet, 1)
	w.AddUnlocked(StepRCUBarrier, 1)
	p := Params{RequestNs: 10, SynchronizeNetExpeditedNs: 20, SynchronizeNetNs: 5,
		RCUBarrierNs: 100, RCUBarrierShareWindowNs: 50}
	res, tl, err := SimulateTimeline(p, [][]Work{{w}, {w}})
	require.NoError(t, err)
	require.Equal(t, [][]Span{
		{
			{Kind: SpanWork, Start: 0, End: 10, Request: 0, Locked: true},
			{Kind: SpanSynchronizeNetExpedited, Start: 10, End: 30, Request: 0, Locked: true},
			{Kind: SpanSynchronizeNet, Start: 30, End: 35, Request: 0},
			{Kind: SpanRCUBarrier, Start: 35, End: 135, Request: 0, BarrierStart: 35},
		},
		{
			{Kind: SpanLockWait, Start: 0, End: 30, Request: 1},
			{Kind: SpanWork, Start: 30, End: 40, Request: 1, Locked: true},
			{Kind: SpanSynchronizeNetExpedited, Start: 40, End: 60, Request: 1, Locked: true},
			{Kind: SpanSynchronizeNet, Start: 60, End: 65, Request: 1},
			{Kind: SpanRCUBarrier, Start: 65, End: 135, Request: 1, Shared: true, BarrierStart: 35},
		},
	}, tl)
	plain, err := Simulate(p, [][]Work{{w}, {w}})
	require.NoError(t, err)
	require.Equal(t, plain, res, "the timeline does not change the result")
}

func TestTimelineBarrierOfItsOwnAfterARunningOne(t *testing.T) {
	// No window: thread 1 calls rcu_barrier at 20 while thread 0's runs
	// [10,110); it needs the next one, which runs [110,210): its span is
	// the whole wait, and not shared; its barrier started at 110.
	w := simpleWork()
	_, tl, err := SimulateTimeline(simpleParams(10, 100), [][]Work{{w}, {w}})
	require.NoError(t, err)
	require.Equal(t, []Span{
		{Kind: SpanLockWait, Start: 0, End: 10, Request: 1},
		{Kind: SpanWork, Start: 10, End: 20, Request: 1, Locked: true},
		{Kind: SpanRCUBarrier, Start: 20, End: 210, Request: 1, BarrierStart: 110},
	}, tl[1])
}

// TestTimelineBarrierUpLengthensTheBarrier: a deletion that closed an UP
// device runs a barrier rcu_barrier_up longer, one span; a second thread
// arriving while it runs waits for it, then runs its own of the usual
// length.
func TestTimelineBarrierUpLengthensTheBarrier(t *testing.T) {
	up := simpleWork()
	up.AddUnlocked(StepRCUBarrierUp, 1)
	p := simpleParams(10, 100)
	p.RCUBarrierUpNs = 30
	res, tl, err := SimulateTimeline(p, [][]Work{{up}, {simpleWork()}})
	require.NoError(t, err)
	require.Equal(t, []Span{
		{Kind: SpanWork, Start: 0, End: 10, Request: 0, Locked: true},
		{Kind: SpanRCUBarrier, Start: 10, End: 140, Request: 0, BarrierStart: 10},
	}, tl[0])
	require.Equal(t, []Span{
		{Kind: SpanLockWait, Start: 0, End: 10, Request: 1},
		{Kind: SpanWork, Start: 10, End: 20, Request: 1, Locked: true},
		{Kind: SpanRCUBarrier, Start: 20, End: 240, Request: 1, BarrierStart: 140},
	}, tl[1])
	require.EqualValues(t, 240, res.VirtualNs)
	require.EqualValues(t, 1, res.Counters.RCUBarrierUp)
	require.EqualValues(t, 140, up.PlainNs(p))
}

// TestTimelineTilesEachThread: on random work, each thread's spans run back
// to back from 0 to its end and add up to each request's lock wait, locked
// and unlocked times; the shared barrier spans are the shared calls; a
// barrier call after rtnl_unlock returns one barrier after its BarrierStart,
// which is not before the call unless the call shared it.
func TestTimelineTilesEachThread(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for round := range 30 {
		in := make([][]Work, 1+r.IntN(6))
		for i := range in {
			for range r.IntN(12) {
				in[i] = append(in[i], randomWork(r))
			}
		}
		p := testParams
		p.RCUBarrierShareWindowNs = int64(r.IntN(300))
		res, tl, err := SimulateTimeline(p, in)
		require.NoError(t, err)
		require.Len(t, tl, len(in))
		type sums struct{ wait, locked, unlocked, shared int64 }
		got := make([]sums, len(res.Requests))
		for th, spans := range tl {
			at := int64(0)
			for _, s := range spans {
				require.Equal(t, at, s.Start, "round %d thread %d: spans back to back", round, th)
				require.Less(t, s.Start, s.End)
				require.Equal(t, th, res.Requests[s.Request].Thread)
				at = s.End
				g := &got[s.Request]
				switch {
				case s.Kind == SpanLockWait:
					g.wait += s.End - s.Start
				case s.Locked:
					g.locked += s.End - s.Start
				default:
					g.unlocked += s.End - s.Start
				}
				if s.Shared {
					require.Equal(t, SpanRCUBarrier, s.Kind)
					g.shared++
				}
				if s.Kind == SpanRCUBarrier && !s.Locked {
					require.Equal(t, p.Times(1, StepRCUBarrier), s.End-s.BarrierStart, "round %d thread %d", round, th)
					if !s.Shared {
						require.LessOrEqual(t, s.Start, s.BarrierStart)
					}
				} else {
					require.Zero(t, s.BarrierStart)
				}
			}
			require.Equal(t, res.ThreadEnd[th], at, "round %d thread %d ends at its end", round, th)
		}
		for i, q := range res.Requests {
			require.Equal(t, sums{q.LockWait, q.Locked, q.Unlocked, q.BarriersShared}, got[i], "round %d request %d", round, i)
		}
		plain, err := Simulate(p, in)
		require.NoError(t, err)
		require.Equal(t, plain, res)
	}
}

func TestSpanKindNames(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range SpanKinds() {
		require.NotContains(t, k.String(), "SpanKind(")
		require.False(t, seen[k.String()])
		seen[k.String()] = true
	}
}
