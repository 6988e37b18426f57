package ipbatch

import (
	"context"
	"fmt"
	"time"

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
// wall clock and prices it over threads user threads.
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
	c, err := tg.Cost(threads)
	if err != nil {
		return res, fmt.Errorf("model: cost: %w", err)
	}
	res.VirtualNs = c.VirtualNs
	return res, nil
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
