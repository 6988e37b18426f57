package cost

// StepN is n consecutive calls of one step.
type StepN struct {
	Step Step  `json:"step"`
	N    int64 `json:"n"`
}

// Work is the work of one request: the steps made under rtnl_lock, in
// order, then the steps made after rtnl_unlock, in order. Work outside the
// lock is where rcu_barrier belongs (netdev_run_todo); a barrier in Locked
// is charged as plain time (no other thread can be in the kernel's barrier
// path without RTNL in this model, so there is nothing to share).
type Work struct {
	Locked   []StepN `json:"locked"`
	Unlocked []StepN `json:"unlocked"`
}

func addStep(list []StepN, s Step, n int64) []StepN {
	if n <= 0 {
		return list
	}
	if k := len(list); k > 0 && list[k-1].Step == s {
		list[k-1].N += n
		return list
	}
	return append(list, StepN{Step: s, N: n})
}

// AddLocked appends n calls of s to the locked part (merged with the last
// entry when it is the same step).
func (w *Work) AddLocked(s Step, n int64) { w.Locked = addStep(w.Locked, s, n) }

// AddUnlocked appends n calls of s to the part after rtnl_unlock.
func (w *Work) AddUnlocked(s Step, n int64) { w.Unlocked = addStep(w.Unlocked, s, n) }

// Count returns how many times w calls s, locked and unlocked.
func (w Work) Count(s Step) int64 {
	var n int64
	for _, e := range w.Locked {
		if e.Step == s {
			n += e.N
		}
	}
	for _, e := range w.Unlocked {
		if e.Step == s {
			n += e.N
		}
	}
	return n
}

// LockedNs is the time w holds rtnl_lock.
func (w Work) LockedNs(p Params) int64 {
	var t int64
	for _, e := range w.Locked {
		t += p.Times(e.N, e.Step)
	}
	return t
}

// PlainNs is the time of w alone: every step at its cost, no waiting and no
// sharing.
func (w Work) PlainNs(p Params) int64 {
	t := w.LockedNs(p)
	for _, e := range w.Unlocked {
		t += p.Times(e.N, e.Step)
	}
	return t
}
