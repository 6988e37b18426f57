package sim

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
)

// tracePrices gives every step a distinct non-zero price, so a step
// priced twice, or not at all, changes the totals.
var tracePrices = cost.Params{RequestNs: 13000, RCUBarrierNs: 16_000_000, SynchronizeNetNs: 3_000_000,
	SynchronizeNetExpeditedNs: 1_500_000, UnregisterDeviceNs: 3_000_000, NotifierCallNs: 700,
	NotificationNs: 1100, IfaWalkNs: 5, FibOpNs: 1310, FibFlushLeafNs: 90, TrieSuffixVisitNs: 40}

func traceRun(t *testing.T, opts Options, src string, threads int) (*Target, Trace) {
	t.Helper()
	reqs, err := script.ParseString(src)
	require.NoError(t, err)
	tg := New(opts)
	tg.StartTrace()
	_, err = rtnl.Run(context.Background(), tg, reqs, rtnl.Show{}, nil)
	require.NoError(t, err)
	tr, err := tg.Trace(threads)
	require.NoError(t, err)
	return tg, tr
}

// requireInOrder checks that want is a subsequence of got.
func requireInOrder(t *testing.T, want, got []string) {
	t.Helper()
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	require.Equal(t, len(want), i, "want %v in order within %v", want, got)
}

func eventNames(evs []TraceEvent) []string {
	out := []string{}
	for _, e := range evs {
		out = append(out, e.Name)
	}
	return out
}

func stepNames(steps []TraceStep) []string {
	out := []string{}
	for _, s := range steps {
		out = append(out, s.Step)
	}
	return out
}

const traceSmall = "link add d0 type ifb\nlink set d0 up\naddr add 10.0.0.1/24 dev d0\nroute add 10.1.0.0/16 via 10.0.0.2 dev d0\nlink del d0\n"

// The trace of a small script names each request's steps and events in
// the order the model takes them, and its times are the cost engine's.
func TestTraceSmallScript(t *testing.T) {
	p := tracePrices
	tg, tr := traceRun(t, Options{Seed: 1, Cost: &p}, traceSmall, 1)
	require.Len(t, tr.Requests, 5)
	q := tr.Requests
	require.Equal(t, []string{"NETDEV_POST_INIT", "NETDEV_REGISTER"}, eventNames(q[0].NetdevEvents))
	require.Equal(t, []string{"NETDEV_PRE_UP", "NETDEV_UP"}, eventNames(q[1].NetdevEvents))
	require.Empty(t, q[2].NetdevEvents)
	require.EqualValues(t, 1, q[2].Fib.InetaddrUp)
	require.Equal(t, TraceCount{Name: "RTM_NEWADDR", Count: 1}, q[2].Notifications[0])
	require.EqualValues(t, 3, q[2].Fib.Inserts) // fib_add_ifaddr: local, prefix, broadcast
	require.EqualValues(t, 1, q[3].Fib.Inserts)
	require.Equal(t, []TraceCount{{Name: "RTM_NEWROUTE", Count: 1}}, q[3].Notifications)
	require.Equal(t, []string{"NETDEV_GOING_DOWN", "NETDEV_DOWN", "NETDEV_UNREGISTER", "NETDEV_PRE_UNINIT"}, eventNames(q[4].NetdevEvents))
	require.Equal(t, []string{"d0"}, q[4].NetdevEvents[2].Devices)
	require.Contains(t, q[4].Notifications, TraceCount{Name: "RTM_DELLINK", Count: 1})
	require.EqualValues(t, 1, q[4].Fib.InetaddrDown)
	require.EqualValues(t, 1, q[4].Fib.Flushes)
	require.EqualValues(t, 3, q[4].SynchronizeNetExpedited)
	require.EqualValues(t, 1, q[4].RCUBarriers)
	// dev_close_many's NETDEV_GOING_DOWN and expedited grace period come
	// before unregister_netdevice_many's per-device work; rcu_barrier is
	// netdev_run_todo's, after rtnl_unlock, with the longer wait that
	// closing an UP device adds.
	// (In order, other steps allowed between: the model may grow steps.)
	requireInOrder(t, []string{"request", "notifier_call", "synchronize_net_expedited", "notification",
		"notifier_call", "synchronize_net_expedited", "unregister_device", "notifier_call", "notification",
		"synchronize_net_expedited", "fib_op", "fib_flush_leaf", "trie_suffix_visit"}, stepNames(q[4].Locked))
	require.Equal(t, []string{"rcu_barrier", "rcu_barrier_up"}, stepNames(q[4].Unlocked))
	require.Equal(t, "update_suffix", q[4].Locked[len(q[4].Locked)-1].Function)
	requireInOrder(t, []string{"request", "notifier_call", "notification"}, stepNames(q[0].Locked))
	requireInOrder(t, []string{"request", "fib_op"}, stepNames(q[3].Locked))

	c, err := tg.Cost(1)
	require.NoError(t, err)
	require.Equal(t, c.VirtualNs, tr.VirtualNs)
	require.Equal(t, c.LockHeldNs, tr.LockHeldNs)
	var sum int64
	for i, r := range tr.Requests {
		e := c.Requests[i]
		require.Equal(t, e.End-e.Arrive, r.TotalNs, "request %d", i)
		require.Equal(t, r.LockWaitNs+r.LockedNs+r.UnlockedNs, r.TotalNs)
		var locked, unlocked int64
		for _, s := range r.Locked {
			require.Equal(t, int64(math.Round(float64(s.Count)*s.UnitNs)), s.CostNs)
			locked += s.CostNs
		}
		for _, s := range r.Unlocked {
			unlocked += s.CostNs
		}
		require.Equal(t, e.Locked, locked, "request %d", i)
		require.Equal(t, e.Unlocked, unlocked, "request %d: one thread, nothing to share", i)
		sum += r.TotalNs
	}
	require.Equal(t, c.VirtualNs, sum, "one thread: the requests follow each other")
}

// Tracing changes nothing the model does: the same script prices the same
// without the recorder.
func TestTraceIsPassive(t *testing.T) {
	p := tracePrices
	tg, _ := traceRun(t, Options{Seed: 1, Cost: &p}, traceSmall, 1)
	with, err := tg.Cost(2)
	require.NoError(t, err)
	without, err := runSimOpts(t, Options{Seed: 1, Cost: &p}, traceSmall).Cost(2)
	require.NoError(t, err)
	require.Equal(t, without, with)
	require.Equal(t, runSimOpts(t, Options{Seed: 1, Cost: &p}, traceSmall).Work(), tg.Work())

	_, err = runSim(t, traceSmall).Trace(1)
	require.ErrorIs(t, err, ErrTraceNotStarted)
}

// Threads deleting devices one by one: rtnl_lock serialises the locked
// parts, the rcu_barriers outside it overlap, and a caller that arrives
// while a barrier waits to start shares it. That takes three threads: the
// running barrier's caller waits for it, the next caller starts the next
// one, and only a third can share that.
func TestTraceSharedBarrier(t *testing.T) {
	p := tracePrices
	block := func(a, b string) string {
		return "link add " + a + " type ifb\nlink add " + b + " type ifb\nlink del " + a + "\nlink del " + b + "\n"
	}
	src := block("x0", "x1") + block("y0", "y1") + block("z0", "z1")
	_, two := traceRun(t, Options{Seed: 1, Cost: &p}, block("x0", "x1")+block("y0", "y1"), 2)
	for _, r := range two.Requests {
		require.Zero(t, r.BarriersShared, "two threads cannot share a barrier")
	}
	tg, tr := traceRun(t, Options{Seed: 1, Cost: &p}, src, 3)
	c, err := tg.Cost(3)
	require.NoError(t, err)
	var shared, waited int64
	for i, r := range tr.Requests {
		require.Equal(t, c.Requests[i].BarriersShared, r.BarriersShared)
		require.Equal(t, c.Requests[i].End-c.Requests[i].Arrive, r.TotalNs)
		require.Equal(t, c.Requests[i].Thread, r.Thread)
		shared += r.BarriersShared
		waited += r.LockWaitNs
	}
	require.Equal(t, 0, tr.Requests[0].Thread)
	require.Equal(t, 2, tr.Requests[11].Thread)
	require.Positive(t, shared, "some deletion shares another thread's barrier")
	require.Positive(t, waited, "some request waits for rtnl_lock")
	require.Equal(t, c.VirtualNs, tr.VirtualNs)
}

// A request the target sends as several kernel requests is traced per
// kernel request.
func TestTraceListDeleteParts(t *testing.T) {
	p := tracePrices
	_, tr := traceRun(t, Options{Seed: 1, Cost: &p}, "link add x1 type ifb\nlink add x2 type ifb\nlink del list x1 x2\n", 1)
	require.Len(t, tr.Requests, 4)
	require.Equal(t, CostSource{Request: 2, Part: 1}, tr.Requests[3].Source)
	require.Equal(t, []string{"x1"}, tr.Requests[2].NetdevEvents[0].Devices)
	require.Equal(t, []string{"x2"}, tr.Requests[3].NetdevEvents[0].Devices)
}

// Every step the cost model has, including ones added after the trace was
// written, is narrated with its name, a function and its price.
func TestTraceStepsGeneric(t *testing.T) {
	var w cost.Work
	for i, s := range cost.Steps() {
		w.AddLocked(s, int64(i+1))
	}
	p := tracePrices
	steps := traceSteps(w.Locked, p)
	require.Len(t, steps, len(cost.Steps()))
	for i, s := range cost.Steps() {
		require.Equal(t, s.String(), steps[i].Step)
		require.NotEmpty(t, steps[i].Function)
		require.Equal(t, int64(i+1), steps[i].Count)
		require.Equal(t, p.Times(int64(i+1), s), steps[i].CostNs)
	}
}

// A port joining a bridge raises the upper-device events on the port; the
// bridge's address change follows.
func TestTraceBridgePort(t *testing.T) {
	_, tr := traceRun(t, Options{Seed: 1}, "link add v0 type veth peer name v1\nlink add br0 type bridge\nlink set v1 master br0\nlink set v1 nomaster\n", 1)
	require.Len(t, tr.Requests, 4)
	requireInOrder(t, []string{"NETDEV_PRECHANGEUPPER", "NETDEV_CHANGEUPPER"}, eventNames(tr.Requests[2].NetdevEvents))
	require.Equal(t, []string{"v1"}, tr.Requests[2].NetdevEvents[0].Devices)
	require.Contains(t, tr.Requests[2].Notifications, TraceCount{Name: "RTM_NEWLINK (bridge)", Count: 1})
	requireInOrder(t, []string{"NETDEV_PRECHANGEUPPER", "NETDEV_CHANGEUPPER"}, eventNames(tr.Requests[3].NetdevEvents))
	require.Contains(t, tr.Requests[3].Notifications, TraceCount{Name: "RTM_DELLINK (bridge)", Count: 1})
}

// What linkwatch raises is marked: the kernel runs it later, from a
// workqueue; the model at the end of the request that queued it.
func TestTraceLinkwatchMarked(t *testing.T) {
	_, tr := traceRun(t, Options{Seed: 1}, "link add v0 type veth peer name v1\nlink set v0 up\nlink set v1 up\n", 1)
	q := tr.Requests[2]
	requireInOrder(t, []string{"NETDEV_PRE_UP", "NETDEV_UP", "NETDEV_CHANGE (linkwatch)"}, eventNames(q.NetdevEvents))
	require.Equal(t, []string{"v1", "v0"}, q.NetdevEvents[2].Devices)
	require.Contains(t, q.Notifications, TraceCount{Name: "RTM_NEWLINK (linkwatch)", Count: 2})
	require.Contains(t, q.Notifications, TraceCount{Name: "RTM_NEWLINK", Count: 1})
}
