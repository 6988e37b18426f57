package cost_test

import (
	"fmt"

	"github.com/rtnlsim/rtnlsim/cost"
)

// Two user threads each send one request at time 0: 1 µs of work under
// rtnl_lock, then an rcu_barrier (10 µs) after rtnl_unlock. The lock is
// held by one request at a time, so the second waits for the first; the
// barriers run outside it. With no sharing window the second caller
// arrives while the first barrier runs and needs a whole new one; with a
// window of 2 µs it arrives early enough to ride on the first barrier
// (shared: one call more than barriers run).
func ExampleSimulate() {
	var w cost.Work
	w.AddLocked(cost.StepRequest, 1)
	w.AddUnlocked(cost.StepRCUBarrier, 1)
	threads := [][]cost.Work{{w}, {w}}
	for _, window := range []int64{0, 2_000} {
		p := cost.Params{RequestNs: 1_000, RCUBarrierNs: 10_000, RCUBarrierShareWindowNs: window}
		res, err := cost.Simulate(p, threads)
		if err != nil {
			panic(err)
		}
		fmt.Printf("window %d ns: %d ns virtual, lock held %d ns, rcu_barrier calls %d, run %d\n",
			window, res.VirtualNs, res.LockHeldNs, res.Counters.RCUBarrier, res.Counters.RCUBarrierExecuted)
		for _, r := range res.Requests {
			fmt.Printf("  thread %d: lock wait %d, locked %d, unlocked %d, end %d, shared %d\n",
				r.Thread, r.LockWait, r.Locked, r.Unlocked, r.End, r.BarriersShared)
		}
	}
	// Output:
	// window 0 ns: 21000 ns virtual, lock held 2000 ns, rcu_barrier calls 2, run 2
	//   thread 0: lock wait 0, locked 1000, unlocked 10000, end 11000, shared 0
	//   thread 1: lock wait 1000, locked 1000, unlocked 19000, end 21000, shared 0
	// window 2000 ns: 11000 ns virtual, lock held 2000 ns, rcu_barrier calls 2, run 1
	//   thread 0: lock wait 0, locked 1000, unlocked 10000, end 11000, shared 0
	//   thread 1: lock wait 1000, locked 1000, unlocked 9000, end 11000, shared 1
}
