// Package calib calibrates the cost model on this machine's kernel: it
// runs a documented set of scenarios (internal/kmeasure.Scenario) on the
// kernel and on the sim, fits the price of every cost step (cost.Steps)
// to the kernel's times by non-negative least squares, and predicts
// scenarios outside the set from the fitted prices.
package calib

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/internal/ipbatch"
	"github.com/rtnlsim/rtnlsim/internal/kmeasure"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/sim"
)

// SimRun is a scenario run on the sim: the cost work of each timed
// thread's requests, in order.
type SimRun struct {
	Threads [][]cost.Work
	// Ignored lists the scenario's net.ipv6 sysctls the sim does not take
	// (it has the sysctls of the IPv6 the kernel configures by itself:
	// disable_ipv6, accept_dad).
	Ignored []string
}

// Counts sums every thread's step calls.
func (r SimRun) Counts() map[cost.Step]int64 {
	out := map[cost.Step]int64{}
	for _, th := range r.Threads {
		for _, w := range th {
			for _, s := range cost.Steps() {
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
func (r SimRun) Simulate(p cost.Params) (cost.Result, error) {
	return cost.Simulate(p, r.Threads)
}

// SimWork runs s on a fresh sim target of profile p: its sysctls, its
// Setup, then each timed thread's requests (thread 0's first, then thread
// 1's, ...: the threads of a scenario touch disjoint objects, so the order
// changes no request's work), and returns each timed thread's work. A
// request the sim refuses fails the run, as it fails the kernel
// measurement.
func SimWork(p sim.Profile, s kmeasure.Scenario) (SimRun, error) {
	return SimWorkFor(p, s, KernelTargetClient)
}

// Client is the program whose requests a kernel time includes: its name
// lookups are kernel requests the sim does not make by itself.
type Client int

const (
	// KernelTargetClient is the project's kernel target (kmeasure): one
	// lookup per request that names a device (Lookups).
	KernelTargetClient Client = iota
	// IPClient is iproute2's `ip -b`, one process per thread: one lookup
	// per device name the process has not resolved before (IPLookups).
	IPClient
)

// SimWorkFor is SimWork with the name lookups client makes.
func SimWorkFor(p sim.Profile, s kmeasure.Scenario, client Client) (SimRun, error) {
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
		key := strings.ReplaceAll(kmeasure.SysctlPath(k), "/", ".") // the sim takes dotted keys
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
			return run, fmt.Errorf("calib: sim: scenario %s: setup request %d (%s): %w", s.Name, i+1, kmeasure.RequestText(r), err)
		}
	}
	done := len(t.Work())
	for i, th := range s.Timed {
		for j, r := range th {
			if err := t.Apply(ctx, r); err != nil {
				return run, fmt.Errorf("calib: sim: scenario %s: thread %d request %d (%s): %w", s.Name, i, j+1, kmeasure.RequestText(r), err)
			}
		}
		w, src := t.Work(), t.CostSources()
		byReq, err := workByRequest(th, w[done:], src[done:])
		if err != nil {
			return run, fmt.Errorf("calib: sim: scenario %s: thread %d: %w", s.Name, i, err)
		}
		run.Threads = append(run.Threads, withLookups(client, th, byReq))
		done = len(w)
	}
	return run, nil
}

// workByRequest groups the work the sim recorded for reqs by request (src
// says which applied request each entry came from; a request the sim
// splits records several).
func workByRequest(reqs []rtnl.Request, work []cost.Work, src []sim.CostSource) ([][]cost.Work, error) {
	out := make([][]cost.Work, len(reqs))
	k := 0
	for j, r := range reqs {
		if k >= len(work) {
			return nil, fmt.Errorf("request %d (%s) recorded no work", j+1, kmeasure.RequestText(r))
		}
		first := src[k].Request
		for k < len(work) && src[k].Request == first {
			out[j] = append(out[j], work[k])
			k++
		}
	}
	if k != len(work) {
		return nil, fmt.Errorf("%d work entries for %d requests", len(work), len(reqs))
	}
	return out, nil
}

// withLookups is the work of reqs as client sends them: ip's
// (ipbatch.ProcessWork), or the kernel target's, whose lookups
// (ipbatch.Lookups, LookupWork each) come before every request that names
// a device.
func withLookups(client Client, reqs []rtnl.Request, byReq [][]cost.Work) []cost.Work {
	if client == IPClient {
		return ipbatch.ProcessWork(reqs, byReq)
	}
	var out []cost.Work
	for j, r := range reqs {
		for range ipbatch.Lookups(r) {
			out = append(out, ipbatch.LookupWork())
		}
		out = append(out, byReq[j]...)
	}
	return out
}
