// Package cost prices kernel work in virtual time.
//
// The model (package sim) describes what each rtnetlink request makes the
// kernel do as a Work: the steps it makes while holding rtnl_lock, in order,
// then the steps it makes after rtnl_unlock (netdev_run_todo in
// net/core/dev.c runs after __rtnl_unlock: rcu_barrier when the todo list is
// not empty, then the wait for the last references). A Step is one named
// kernel operation (an rcu_barrier, an expedited synchronize_net, one
// notifier call, one address looked at by a walk of a device's list, ...);
// Params gives each step a price in virtual nanoseconds.
//
// Simulate runs several user threads, each issuing its requests in order,
// as a deterministic discrete-event simulation:
//
//   - rtnl_lock is a FIFO mutex in virtual time: one holder, waiters served
//     in arrival order (ties by the order the events were made);
//   - work outside the lock (grace-period waits, per-device frees) costs its
//     own thread time only, so it overlaps across threads;
//   - rcu_barrier follows kernel/rcu/tree.c: callers take barrier_mutex one
//     at a time and a caller snapshots barrier_sequence on arrival
//     (rcu_seq_snap): it needs one whole barrier that started after it
//     arrived. A caller arriving while no barrier runs or waits to run
//     starts one at once; a caller arriving while a barrier runs needs the
//     next one, which the first such caller starts when the running one
//     ends and every later arrival before that start shares (they find
//     rcu_seq_done true once they get the mutex: the "EarlyExit" path).
//     Calls and executed barriers are counted apart (Counters);
//   - except within Params.RCUBarrierShareWindowNs of a barrier's start: its
//     grace period has not begun yet, so a caller's callbacks queued by then
//     are done when it ends, and that caller returns with it.
//
// Nothing here reads a clock: the same work and prices give the same Result
// on every machine. Where the prices come from (a literal default set, a
// calibration of this machine's kernel, a seed's published figures) is the
// caller's business; see sim.Profile.
//
// A minimal use:
//
//	var w cost.Work
//	w.AddLocked(cost.StepRequest, 1)
//	w.AddUnlocked(cost.StepRCUBarrier, 1)
//	res, err := cost.Simulate(prices, cost.SplitInOrder([]cost.Work{w, w}, 2))
package cost
