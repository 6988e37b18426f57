package cost

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// simpleWork is a request holding the lock for locked ns (one StepRequest)
// and then calling rcu_barrier once.
func simpleWork() Work {
	var w Work
	w.AddLocked(StepRequest, 1)
	w.AddUnlocked(StepRCUBarrier, 1)
	return w
}

func simpleParams(locked, barrier int64) Params {
	return Params{RequestNs: float64(locked), RCUBarrierNs: float64(barrier)}
}

// randomWork draws a request with every kind of step, locked and unlocked.
func randomWork(r *rand.Rand) Work {
	var w Work
	w.AddLocked(StepRequest, 1)
	for range r.IntN(4) {
		w.AddLocked(Step(r.IntN(int(numSteps))), int64(r.IntN(5)))
	}
	for range r.IntN(4) {
		w.AddUnlocked(Step(r.IntN(int(numSteps))), int64(r.IntN(3)))
	}
	return w
}

var testParams = Params{
	RequestNs: 7, RCUBarrierNs: 1000, SynchronizeNetNs: 300, SynchronizeNetExpeditedNs: 90,
	UnregisterDeviceNs: 50, NotifierCallNs: 3, NotificationNs: 11,
}

func TestCostOneThreadIsThePlainSum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var reqs []Work
	var sum int64
	var want Counters
	for range 200 {
		w := randomWork(r)
		reqs = append(reqs, w)
		sum += w.PlainNs(testParams)
		for _, s := range Steps() {
			want.Add(s, w.Count(s))
		}
	}
	want.RCUBarrierExecuted = want.RCUBarrier
	res, err := Simulate(testParams, [][]Work{reqs})
	require.NoError(t, err)
	require.Equal(t, sum, res.VirtualNs)
	require.Equal(t, want, res.Counters)
	var prev int64
	for i, rq := range res.Requests {
		require.Equal(t, prev, rq.Arrive, "request %d starts when the previous ends", i)
		require.Zero(t, rq.LockWait)
		require.Zero(t, rq.BarriersShared)
		require.Equal(t, reqs[i].LockedNs(testParams), rq.Locked)
		require.Equal(t, rq.Arrive+rq.Locked+rq.Unlocked, rq.End)
		prev = rq.End
	}
}

func TestCostTwoThreadsSerialiseOnTheLockAndOverlapBarriers(t *testing.T) {
	w := simpleWork()
	for _, c := range []struct {
		name             string
		locked, barrier  int64
		end0, end1, wait int64
	}{
		// Thread 1 holds the lock while thread 0's barrier runs; its own
		// barrier call arrives while that barrier runs, so it waits for
		// barrier_mutex and runs the next: end = L + 2B.
		{"lock shorter than barrier", 10, 100, 110, 210, 10},
		// Thread 1's barrier call comes after thread 0's barrier ended:
		// end = 2L + B.
		{"lock longer than barrier", 100, 30, 130, 230, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := simpleParams(c.locked, c.barrier)
			res, err := Simulate(p, [][]Work{{w}, {w}})
			require.NoError(t, err)
			r0, r1 := res.Requests[0], res.Requests[1]
			require.Zero(t, r0.LockWait)
			require.Equal(t, c.wait, r1.LockWait, "thread 1 waits for rtnl_lock while thread 0 holds it")
			require.Equal(t, c.end0, r0.End)
			require.Equal(t, c.end1, r1.End)
			require.Equal(t, c.end1, res.VirtualNs)
			require.Less(t, res.VirtualNs, 2*w.PlainNs(p), "waits outside the lock overlap")
			require.Equal(t, int64(2), res.Counters.RCUBarrier)
			require.Equal(t, int64(2), res.Counters.RCUBarrierExecuted)
			require.Equal(t, 2*c.locked, res.LockHeldNs)
		})
	}
}

func TestCostBarrierSharing(t *testing.T) {
	// Five threads, one request each: lock 1 ns, barrier 100 ns. Thread i
	// releases the lock at i+1. Thread 0's barrier runs [1,101]; thread 1
	// arrives while it runs and starts the next one at 101; threads 2..4
	// arrive before that start and share it.
	w := simpleWork()
	res, err := Simulate(simpleParams(1, 100), [][]Work{{w}, {w}, {w}, {w}, {w}})
	require.NoError(t, err)
	require.Equal(t, int64(5), res.Counters.RCUBarrier)
	require.Equal(t, int64(2), res.Counters.RCUBarrierExecuted)
	want := []int64{101, 201, 201, 201, 201}
	for i, rq := range res.Requests {
		require.Equal(t, int64(i), rq.LockWait, "FIFO: thread %d waits for the %d before it", i, i)
		require.Equal(t, want[i], rq.End, "thread %d", i)
		if i >= 2 {
			require.Equal(t, int64(1), rq.BarriersShared, "thread %d", i)
		} else {
			require.Zero(t, rq.BarriersShared, "thread %d", i)
		}
	}
	require.Equal(t, int64(201), res.VirtualNs)
}

func TestCostBarrierShareWindow(t *testing.T) {
	// The five threads of TestCostBarrierSharing with a 3 ns window: thread
	// 0's barrier starts at 1, threads 1 and 2 arrive at 2 and 3, inside
	// the window, and return with it at 101; thread 3 arrives at 4, past
	// the window, and starts the next barrier at 101, which thread 4 shares.
	p := simpleParams(1, 100)
	p.RCUBarrierShareWindowNs = 3
	w := simpleWork()
	res, err := Simulate(p, [][]Work{{w}, {w}, {w}, {w}, {w}})
	require.NoError(t, err)
	require.Equal(t, int64(2), res.Counters.RCUBarrierExecuted)
	want := []int64{101, 101, 101, 201, 201}
	wantShared := []int64{0, 1, 1, 0, 1}
	for i, rq := range res.Requests {
		require.Equal(t, want[i], rq.End, "thread %d", i)
		require.Equal(t, wantShared[i], rq.BarriersShared, "thread %d", i)
	}
	// One thread alone is untouched by the window.
	one, err := Simulate(p, [][]Work{{w, w, w}})
	require.NoError(t, err)
	require.Equal(t, int64(3*101), one.VirtualNs)
	p.RCUBarrierShareWindowNs = -1
	require.Error(t, p.Validate())
}

func TestCostBarrierSharingManyThreads(t *testing.T) {
	// 50 threads x 40 requests, lock 1 ns, barrier 100 ns: the lock is far
	// from saturated, so almost every call shares. Barriers run back to
	// back, one per 100 ns, and each request ends at most two barriers after
	// its call.
	const threads, per = 50, 40
	w := simpleWork()
	in := make([][]Work, threads)
	for i := range in {
		for range per {
			in[i] = append(in[i], w)
		}
	}
	res, err := Simulate(simpleParams(1, 100), in)
	require.NoError(t, err)
	require.Equal(t, int64(threads*per), res.Counters.RCUBarrier)
	require.Less(t, res.Counters.RCUBarrierExecuted, res.Counters.RCUBarrier/10)
	var shared int64
	for _, rq := range res.Requests {
		shared += rq.BarriersShared
		require.LessOrEqual(t, rq.Unlocked, int64(200))
		require.GreaterOrEqual(t, rq.Unlocked, int64(1))
	}
	require.Equal(t, res.Counters.RCUBarrier-res.Counters.RCUBarrierExecuted, shared)
	// Barriers run one at a time: the run lasts at least executed x 100.
	require.GreaterOrEqual(t, res.VirtualNs, res.Counters.RCUBarrierExecuted*100)
}

func TestCostUnlockedGracePeriodsOverlap(t *testing.T) {
	// synchronize_net outside the lock is a plain wait per thread: two
	// threads overlap it completely.
	var w Work
	w.AddLocked(StepRequest, 1)
	w.AddUnlocked(StepSynchronizeNet, 1)
	p := Params{RequestNs: 5, SynchronizeNetNs: 1000}
	res, err := Simulate(p, [][]Work{{w}, {w}})
	require.NoError(t, err)
	require.Equal(t, int64(1010), res.VirtualNs)
	require.Equal(t, int64(2), res.Counters.SynchronizeNet)
}

func TestCostDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	in := make([][]Work, 7)
	for i := range in {
		for range 30 {
			in[i] = append(in[i], randomWork(r))
		}
	}
	a, err := Simulate(testParams, in)
	require.NoError(t, err)
	b, err := Simulate(testParams, in)
	require.NoError(t, err)
	require.Equal(t, a, b)
	ja, err := json.Marshal(a)
	require.NoError(t, err)
	jb, err := json.Marshal(b)
	require.NoError(t, err)
	require.Equal(t, ja, jb)
}

func TestParamsJSON(t *testing.T) {
	j, err := json.Marshal(testParams)
	require.NoError(t, err)
	var back Params
	require.NoError(t, json.Unmarshal(j, &back))
	require.Equal(t, testParams, back)
	require.Contains(t, string(j), `"rcu_barrier_ns":1000`)
}

func TestCostRefusesBadInput(t *testing.T) {
	_, err := Simulate(Params{RCUBarrierNs: -1}, nil)
	require.Error(t, err)
	_, err = Simulate(Params{}, [][]Work{{{Locked: []StepN{{Step: numSteps, N: 1}}}}})
	require.Error(t, err)
	res, err := Simulate(testParams, [][]Work{nil, {}})
	require.NoError(t, err)
	require.Zero(t, res.VirtualNs)
}

func TestCostStepNames(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Steps() {
		require.NotEmpty(t, s.String())
		require.False(t, seen[s.String()])
		seen[s.String()] = true
	}
}
