// Package calib calibrates the cost model on this machine's kernel: it
// runs a documented set of scenarios (internal/kmeasure.Scenario) on the
// kernel and on the sim, fits the price of every cost step (sim.CostSteps)
// to the kernel's times by non-negative least squares, and predicts
// scenarios outside the set from the fitted prices.
package calib

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/rtnlsim/rtnlsim/internal/kmeasure"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/sim"
)

// SimRun is a scenario run on the sim: the cost work of each timed
// thread's requests, in order.
type SimRun struct {
	Threads [][]sim.CostWork
	// Ignored lists the scenario's sysctls the sim does not model (IPv6
	// configuration: the model has no IPv6 addresses or routes).
	Ignored []string
}

// Counts sums every thread's step calls.
func (r SimRun) Counts() map[sim.CostStep]int64 {
	out := map[sim.CostStep]int64{}
	for _, th := range r.Threads {
		for _, w := range th {
			for _, s := range sim.CostSteps() {
				if n := w.Count(s); n > 0 {
					out[s] += n
				}
			}
		}
	}
	return out
}

// Simulate runs the timed threads through the cost engine at prices p
// (rtnl_lock a virtual mutex, rcu_barrier shared as the kernel shares it).
func (r SimRun) Simulate(p sim.CostParams) (sim.CostResult, error) {
	return sim.SimulateCost(p, r.Threads)
}

// SimWork runs s on a fresh sim target of profile p: its sysctls, its
// Setup, then each timed thread's requests (thread 0's first, then thread
// 1's, ...: the threads of a scenario touch disjoint objects, so the order
// changes no request's work), and returns each timed thread's work. A
// request the sim refuses fails the run, as it fails the kernel
// measurement.
func SimWork(p sim.Profile, s kmeasure.Scenario) (SimRun, error) {
	var run SimRun
	t := sim.New(p.Options(0))
	defer t.Close()
	ctx := context.Background()
	keys := make([]string, 0, len(s.Sysctls))
	for k := range s.Sysctls {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		key := strings.ReplaceAll(strings.TrimPrefix(k, "/proc/sys/"), "/", ".")
		err := t.Apply(ctx, rtnl.Request{Op: rtnl.Sysctl{Key: key, Value: s.Sysctls[k]}})
		if err != nil {
			if strings.HasPrefix(key, "net.ipv6.") && (errors.Is(err, sim.ErrNotModelled) || rtnl.Errno(err) != 0) {
				run.Ignored = append(run.Ignored, key)
				continue
			}
			return run, fmt.Errorf("calib: sim: scenario %s: sysctl %s: %w", s.Name, key, err)
		}
	}
	for i, r := range s.Setup {
		if err := t.Apply(ctx, r); err != nil {
			return run, fmt.Errorf("calib: sim: scenario %s: setup request %d (%s): %w", s.Name, i+1, reqText(r), err)
		}
	}
	done := len(t.Work())
	for i, th := range s.Timed {
		for j, r := range th {
			if err := t.Apply(ctx, r); err != nil {
				return run, fmt.Errorf("calib: sim: scenario %s: thread %d request %d (%s): %w", s.Name, i, j+1, reqText(r), err)
			}
		}
		w := t.Work()
		run.Threads = append(run.Threads, w[done:])
		done = len(w)
	}
	return run, nil
}

func reqText(r rtnl.Request) string {
	if r.Text != "" {
		return r.Text
	}
	return r.Op.Verb()
}
