package ipbatch

import (
	"context"
	"fmt"
	"time"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/sim"
)

// ModelResult is one run of the model on a scenario.
type ModelResult struct {
	// VirtualNs is the main part's predicted time (sim.Target.Cost over
	// the threads), from a fresh virtual clock.
	VirtualNs int64
	// Wall is the model's own time to apply the main part.
	Wall time.Duration
	// SetupRefused and MainRefused are the lines the model refused, as
	// "line N (text): ERRNO".
	SetupRefused, MainRefused []string
}

// ModelRun applies the setup to a fresh sim target made with opts, forgets
// what it recorded (sim.Target.Forget), then applies the main part under a
// wall clock and prices it as threads ip -b processes run it: the lines
// dealt in contiguous slices as the kernel side deals them, each slice a
// process that resolves each device name it names once (IPLookups; the
// sim resolves names for free), its lookups before the line that needs
// them, and that sends each line on its own (LineWork).
func ModelRun(ctx context.Context, setup, main []rtnl.Request, opts sim.Options, threads int) (ModelResult, error) {
	var res ModelResult
	tg := sim.New(opts)
	defer tg.Close()
	var err error
	if res.SetupRefused, err = apply(ctx, tg, setup); err != nil {
		return res, fmt.Errorf("model: setup %w", err)
	}
	tg.Forget()
	start := time.Now()
	res.MainRefused, err = apply(ctx, tg, main)
	res.Wall = time.Since(start)
	if err != nil {
		return res, fmt.Errorf("model: %w", err)
	}
	p, err := tg.Prices()
	if err != nil {
		return res, fmt.Errorf("model: cost: %w", err)
	}
	c, err := cost.Simulate(p, ipProcessWork(main, threads, tg.Work(), tg.CostSources()))
	if err != nil {
		return res, fmt.Errorf("model: cost: %w", err)
	}
	res.VirtualNs = c.VirtualNs
	return res, nil
}

// ipProcessWork is the work of reqs dealt to threads ip -b processes in
// contiguous slices (cost.SplitInOrder, as Measure deals the lines), with
// each process's name lookups (IPLookupWork) and the line's own round
// trip (LineWork) before the request's work. work and src are the
// target's record of reqs (several entries for a request the sim splits).
func ipProcessWork(reqs []rtnl.Request, threads int, work []cost.Work, src []sim.CostSource) [][]cost.Work {
	byReq := make([][]cost.Work, len(reqs))
	for i, w := range work {
		if r := int(src[i].Request); r < len(reqs) {
			byReq[r] = append(byReq[r], w)
		}
	}
	// SplitInOrder deals both alike: part t of each is the same requests.
	parts, works := cost.SplitInOrder(reqs, threads), cost.SplitInOrder(byReq, threads)
	out := make([][]cost.Work, len(parts))
	for t := range parts {
		out[t] = ProcessWork(parts[t], works[t])
	}
	return out
}

// ProcessWork is the work of one ip -b process that sends reqs in order:
// before each request the name lookups it has not made yet
// (IPLookups, IPLookupWork) and the line's own send and ack (LineWork),
// then the request's own work, byReq[i] for reqs[i]. Calibration fits
// the prices to this and ModelRun predicts with it, so the two count the
// client alike.
func ProcessWork(reqs []rtnl.Request, byReq [][]cost.Work) []cost.Work {
	ip := NewIPLookups()
	var out []cost.Work
	for i, r := range reqs {
		for range ip.Lookups(r) {
			out = append(out, IPLookupWork())
		}
		out = append(out, LineWork())
		out = append(out, byReq[i]...)
	}
	return out
}

// apply applies reqs in order, going past refusals as ip -b -force does;
// what is not a refusal (a request the model does not cover) stops it.
func apply(ctx context.Context, tg rtnl.Target, reqs []rtnl.Request) ([]string, error) {
	var refused []string
	for _, r := range reqs {
		if err := tg.Apply(ctx, r); err != nil {
			errno := rtnl.ErrnoName(rtnl.Errno(err))
			if errno == "" {
				return refused, fmt.Errorf("line %d (%s): %w", r.Line, r.Text, err)
			}
			refused = append(refused, fmt.Sprintf("line %d (%s): %s", r.Line, r.Text, errno))
		}
	}
	return refused, nil
}
