package sim

import (
	"context"
	"errors"
	"fmt"

	"github.com/rtnlsim/rtnlsim/cost"
)

// Seed001FlushWith runs the scenario on a fresh sim target made with o (a
// profile's Options: its seed, netdev index and FIB era) and returns the
// flush's work; the addresses must all be gone afterwards. c.IfaFlush
// overrides o.IfaFlush: +ifa-flush is one of seed 001's cases, not only a
// profile switch. ctx stops it between requests, so that an interrupted
// `rtnlsim sweep seed001` stops inside a long promoting flush.
func Seed001FlushWith(ctx context.Context, c Seed001Case, o Options) (Seed001Result, error) {
	o.IfaFlush = c.IfaFlush
	t := New(o)
	defer t.Close()
	for _, r := range Seed001Requests(c) {
		if err := t.Apply(ctx, r); err != nil {
			return Seed001Result{}, fmt.Errorf("seed 001 %s: line %d %q: %w", c, r.Line, r.Text, err)
		}
	}
	n := t.Netns()
	if d := n.ByName("i0"); d == nil || d.in == nil || d.in.head != nil {
		return Seed001Result{}, errors.New("seed 001: addresses left after the flush")
	}
	w := t.work[len(t.work)-1]
	return Seed001Result{Case: c, Requests: w.Count(cost.StepRequest), IfaWalk: w.Count(cost.StepIfaWalk),
		FibOps: w.Count(cost.StepFibOp), Notifications: w.Count(cost.StepNotification),
		Promotions: n.inetCount.Promotions, Work: w}, nil
}
