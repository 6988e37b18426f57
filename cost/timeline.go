package cost

import "fmt"

// SpanKind is what a thread does during a Span.
type SpanKind uint8

const (
	// SpanLockWait: the thread asked for rtnl_lock while another held it.
	SpanLockWait SpanKind = iota
	// SpanWork: steps other than grace periods and barriers.
	SpanWork
	// SpanSynchronizeNet: synchronize_net() calls, a normal grace period
	// each.
	SpanSynchronizeNet
	// SpanSynchronizeNetExpedited: synchronize_net() calls with RTNL held,
	// an expedited grace period each.
	SpanSynchronizeNetExpedited
	// SpanRCUBarrier: one rcu_barrier() call, from the call to its return
	// (after rtnl_unlock: waits for a running barrier included).
	SpanRCUBarrier

	numSpanKinds
)

var spanKindNames = [numSpanKinds]string{
	SpanLockWait:                "lock_wait",
	SpanWork:                    "work",
	SpanSynchronizeNet:          "synchronize_net",
	SpanSynchronizeNetExpedited: "synchronize_net_expedited",
	SpanRCUBarrier:              "rcu_barrier",
}

// SpanKinds lists every span kind in order.
func SpanKinds() []SpanKind {
	s := make([]SpanKind, numSpanKinds)
	for i := range s {
		s[i] = SpanKind(i)
	}
	return s
}

func (k SpanKind) String() string {
	if k < numSpanKinds {
		return spanKindNames[k]
	}
	return fmt.Sprintf("SpanKind(%d)", uint8(k))
}

// Span is one interval of virtual time of one thread.
type Span struct {
	Kind  SpanKind `json:"kind"`
	Start int64    `json:"start_ns"`
	End   int64    `json:"end_ns"`
	// Request is the index in Result.Requests of the request the thread
	// was making.
	Request int `json:"request"`
	// Locked: the thread held rtnl_lock.
	Locked bool `json:"locked"`
	// Shared: an rcu_barrier call that returned with a barrier another
	// caller started, so ran none of its own.
	Shared bool `json:"shared"`
	// BarrierStart: for an rcu_barrier call after rtnl_unlock, when the
	// barrier it returned with started (after Start when it first waited
	// for a running barrier to end; before it when it shared one).
	BarrierStart int64 `json:"barrier_start_ns,omitempty"`
}

// spanKind is the kind of span a step's time goes to.
func spanKind(s Step) SpanKind {
	switch s {
	case StepSynchronizeNet:
		return SpanSynchronizeNet
	case StepSynchronizeNetExpedited:
		return SpanSynchronizeNetExpedited
	case StepRCUBarrier:
		return SpanRCUBarrier
	}
	// StepRCUBarrierUp lengthens the barrier its request runs (the
	// engine folds it into that barrier's span).
	return SpanWork
}

// SimulateTimeline is Simulate that also records, for each thread, what
// it did when: its spans in time order, back to back from 0 to its
// ThreadEnd (a span of no time is left out; consecutive work steps are one
// span). The Result is Simulate's.
func SimulateTimeline(p Params, threads [][]Work) (Result, [][]Span, error) {
	s := &costSim{spans: make([][]Span, len(threads))}
	res, err := s.run(p, threads)
	if err != nil {
		return Result{}, nil, err
	}
	return res, s.spans, nil
}

// span records th's span [start, end) of kind k for its current request,
// merged into the previous span when it continues it.
func (s *costSim) span(th int32, k SpanKind, start, end int64, locked, shared bool) {
	if s.spans == nil || end <= start {
		return
	}
	var barStart int64
	if k == SpanRCUBarrier && !locked {
		barStart = s.barStart
	}
	req := s.first[th] + s.next[th]
	l := s.spans[th]
	if n := len(l); n > 0 && k == SpanWork && l[n-1].Kind == k && l[n-1].Request == req &&
		l[n-1].Locked == locked && l[n-1].End == start {
		l[n-1].End = end
		return
	}
	s.spans[th] = append(l, Span{Kind: k, Start: start, End: end, Request: req, Locked: locked, Shared: shared, BarrierStart: barStart})
}
