package cost

import (
	"fmt"

	"github.com/google/btree"
)

// Event kinds of the simulation.
const (
	evLock    uint8 = iota // a thread asks for rtnl_lock
	evUnlock               // the holder releases rtnl_lock
	evBarrier              // a thread calls rcu_barrier (outside the lock)
)

type costEvent struct {
	at     int64
	seq    uint64 // order of creation: ties are served first come first
	kind   uint8
	thread int32
	step   int32 // evBarrier: index in Unlocked of the barrier entry
	left   int64 // evBarrier: calls of that entry still to make, this one included
}

// eventBefore orders the queue of pending events by time, ties first come
// first served (by creation order).
func eventBefore(a, b costEvent) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// costSim is the state of one Simulate run.
type costSim struct {
	p       Params
	threads [][]Work
	first   []int // index in res.Requests of each thread's first request
	next    []int // next request of each thread
	res     Result

	q   *btree.BTreeG[costEvent] // pending events, earliest first
	seq uint64

	// rtnl_lock
	held    bool
	waiters []int32 // FIFO of threads
	waitAt  int     // head of waiters

	// rcu_barrier: the latest barrier scheduled (running, or waiting for
	// barrier_mutex to start), if any.
	barrier          bool
	barStart, barEnd int64

	// spans, when not nil, is each thread's timeline (SimulateTimeline).
	spans [][]Span
}

func (s *costSim) push(e costEvent) {
	e.seq = s.seq
	s.seq++
	s.q.ReplaceOrInsert(e)
}

func (s *costSim) cur(th int32) *Request {
	return &s.res.Requests[s.first[th]+s.next[th]]
}

// SplitInOrder deals requests to threads in order: thread t issues a
// contiguous run of them, the first len(requests)%threads threads one more
// (the way a script's requests are split over --threads N).
func SplitInOrder[T any](requests []T, threads int) [][]T {
	threads = max(threads, 1)
	out := make([][]T, threads)
	per, extra := len(requests)/threads, len(requests)%threads
	i := 0
	for t := range out {
		k := per
		if t < extra {
			k++
		}
		out[t] = requests[i : i+k : i+k]
		i += k
	}
	return out
}

// Simulate runs threads[i] (each a list of requests, issued in order by
// user thread i, the first at time 0) and returns per-request costs, totals
// and counters. The same input gives the same result.
func Simulate(p Params, threads [][]Work) (Result, error) {
	return (&costSim{}).run(p, threads)
}

func (s *costSim) run(p Params, threads [][]Work) (Result, error) {
	if err := p.Validate(); err != nil {
		return Result{}, err
	}
	s.p, s.threads = p, threads
	s.first = make([]int, len(threads))
	s.next = make([]int, len(threads))
	total := 0
	for i, reqs := range threads {
		for _, w := range reqs {
			for _, e := range w.Locked {
				if e.N < 0 || e.Step >= numSteps {
					return Result{}, fmt.Errorf("thread %d: bad locked step %v x %d", i, e.Step, e.N)
				}
			}
			for _, e := range w.Unlocked {
				if e.N < 0 || e.Step >= numSteps {
					return Result{}, fmt.Errorf("thread %d: bad unlocked step %v x %d", i, e.Step, e.N)
				}
			}
		}
		s.first[i] = total
		total += len(reqs)
	}
	s.res.Requests = make([]Request, total)
	s.res.ThreadEnd = make([]int64, len(threads))
	s.q = btree.NewG(8, eventBefore)
	for i, reqs := range threads {
		for j := range reqs {
			s.res.Requests[s.first[i]+j] = Request{Thread: i, Index: j}
		}
		if len(reqs) > 0 {
			s.push(costEvent{at: 0, kind: evLock, thread: int32(i)})
		}
	}
	for s.q.Len() > 0 {
		e, _ := s.q.DeleteMin()
		switch e.kind {
		case evLock:
			s.cur(e.thread).Arrive = e.at
			if s.held {
				s.waiters = append(s.waiters, e.thread)
			} else {
				s.acquire(e.thread, e.at)
			}
		case evUnlock:
			s.held = false
			if s.waitAt < len(s.waiters) {
				th := s.waiters[s.waitAt]
				s.waitAt++
				if s.waitAt == len(s.waiters) {
					s.waiters, s.waitAt = s.waiters[:0], 0
				}
				s.acquire(th, e.at)
			}
			s.unlocked(e.thread, e.at, 0)
		case evBarrier:
			// A request's last barrier call followed by StepRCUBarrierUp
			// runs a barrier that long more, should it run one.
			un := s.threads[e.thread][s.next[e.thread]].Unlocked
			next := int(e.step) + 1
			up := e.left == 1 && next < len(un) && un[next].Step == StepRCUBarrierUp
			end, shared := s.rcuBarrier(e.at, up)
			r := s.cur(e.thread)
			if shared {
				r.BarriersShared++
			}
			s.span(e.thread, SpanRCUBarrier, e.at, end, false, shared)
			if e.left > 1 {
				s.push(costEvent{at: end, kind: evBarrier, thread: e.thread, step: e.step, left: e.left - 1})
			} else {
				if up {
					s.res.Counters.Add(StepRCUBarrierUp, un[next].N)
					next++
				}
				s.unlocked(e.thread, end, next)
			}
		}
	}
	for _, t := range s.res.ThreadEnd {
		s.res.VirtualNs = max(s.res.VirtualNs, t)
	}
	return s.res, nil
}

// acquire gives rtnl_lock to th at time at and runs its locked steps.
func (s *costSim) acquire(th int32, at int64) {
	s.held = true
	r := s.cur(th)
	r.LockWait = at - r.Arrive
	s.span(th, SpanLockWait, r.Arrive, at, false, false)
	w := s.threads[th][s.next[th]]
	var d int64
	for _, e := range w.Locked {
		c := s.p.Times(e.N, e.Step)
		s.span(th, spanKind(e.Step), at+d, at+d+c, true, false)
		d += c
		s.res.Counters.Add(e.Step, e.N)
		if e.Step == StepRCUBarrier {
			s.res.Counters.RCUBarrierExecuted += e.N
		}
	}
	r.Locked = d
	s.res.LockHeldNs += d
	s.push(costEvent{at: at + d, kind: evUnlock, thread: th})
}

// unlocked runs th's steps after rtnl_unlock from entry from at time at,
// stopping at an rcu_barrier (an event, so barrier callers are served in
// time order), then finishes the request and issues the next.
func (s *costSim) unlocked(th int32, at int64, from int) {
	w := s.threads[th][s.next[th]]
	for i := from; i < len(w.Unlocked); i++ {
		e := w.Unlocked[i]
		if e.N == 0 {
			continue
		}
		if e.Step == StepRCUBarrier {
			s.push(costEvent{at: at, kind: evBarrier, thread: th, step: int32(i), left: e.N})
			return
		}
		s.res.Counters.Add(e.Step, e.N)
		c := s.p.Times(e.N, e.Step)
		s.span(th, spanKind(e.Step), at, at+c, false, false)
		at += c
	}
	r := s.cur(th)
	r.End = at
	r.Unlocked = at - (r.Arrive + r.LockWait + r.Locked)
	s.res.ThreadEnd[th] = at
	s.next[th]++
	if s.next[th] < len(s.threads[th]) {
		s.push(costEvent{at: at, kind: evLock, thread: th})
	}
}

// rcuBarrier is one rcu_barrier() call arriving at time at: it returns when
// the call returns and whether it shared a barrier another caller started.
// A barrier that up's caller runs lasts StepRCUBarrierUp longer (the
// kernel's barrier waits for the callbacks closing an UP device queued);
// one it shares keeps the length its starter gave it.
func (s *costSim) rcuBarrier(at int64, up bool) (end int64, shared bool) {
	s.res.Counters.RCUBarrier++
	b := s.p.Times(1, StepRCUBarrier)
	if up {
		b += s.p.Times(1, StepRCUBarrierUp)
	}
	switch {
	case s.barrier && at < s.barStart:
		// The next barrier is already queued behind barrier_mutex by a
		// caller that arrived while the running one ran: its snapshot is
		// ours, so its barrier is ours (EarlyExit once we get the mutex).
		return s.barEnd, true
	case s.barrier && at < s.barEnd && at < s.barStart+s.p.RCUBarrierShareWindowNs:
		// A barrier runs but its grace period had not started when our
		// callbacks were queued: they ride on it, and we return with it.
		return s.barEnd, true
	case s.barrier && at < s.barEnd:
		// A barrier runs: we need the next one; we are its first caller,
		// so we run it when the running one ends.
		s.barStart, s.barEnd = s.barEnd, s.barEnd+b
	default:
		// No barrier runs: ours starts now.
		s.barrier = true
		s.barStart, s.barEnd = at, at+b
	}
	s.res.Counters.RCUBarrierExecuted++
	return s.barEnd, false
}
