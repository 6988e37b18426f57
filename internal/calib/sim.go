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
		lookups := make([]int, len(th))
		ip := NewIPLookups()
		for j, r := range th {
			if client == IPClient {
				lookups[j] = ip.Lookups(r)
			} else {
				lookups[j] = Lookups(r)
			}
		}
		work, err := withLookups(client, th, lookups, w[done:], src[done:])
		if err != nil {
			return run, fmt.Errorf("calib: sim: scenario %s: thread %d: %w", s.Name, i, err)
		}
		run.Threads = append(run.Threads, work)
		done = len(w)
	}
	return run, nil
}

// LookupWork is one name lookup as the kernel target makes it
// (kernel/apply.go ifindex): an RTM_GETLINK by IFLA_IFNAME, answered with
// one rtnl_fill_ifinfo, under rtnl_lock (6.18 registers rtnl_getlink
// without RTNL_FLAG_DOIT_UNLOCKED). Measured alone on this machine it
// costs about twice a plain RTM_NEWLINK (33 us against 17.5 us).
// The fill is the step named "link_fill" (one rtnl_fill_ifinfo), when
// the cost model has it.
func LookupWork() cost.Work {
	var w cost.Work
	w.AddLocked(cost.StepRequest, 1)
	if s, ok := StepByName("link_fill"); ok {
		w.AddLocked(s, 1)
	}
	return w
}

// IPLookupWork is one name lookup as ip makes it (iproute2's
// ll_link_get): the kernel target's lookup (LookupWork) on a rtnetlink
// socket opened for it and closed after (socket, bind, getsockname,
// close: nl_socket, outside rtnl_lock). The socket and the fill come
// together in every lookup, so the calibration cannot price them apart.
func IPLookupWork() cost.Work {
	w := LookupWork()
	w.AddUnlocked(cost.StepNlSocket, 1)
	return w
}

// StepByName finds a cost step by its name.
func StepByName(name string) (cost.Step, bool) {
	for _, s := range cost.Steps() {
		if s.String() == name {
			return s, true
		}
	}
	return 0, false
}

// Lookups counts the name lookups the kernel target makes before it sends
// r (kernel/apply.go): the device of link set, addr add/del/flush and
// route requests with a dev, a link's master and lower device, each device
// of a list delete. The sim target resolves names for free, so SimWork
// adds these.
func Lookups(r rtnl.Request) int {
	n := 0
	lookedUp(r, false, func(string) { n++ })
	return n
}

// lookedUp calls f for each device name a client resolves before it sends
// r. ip (iproute2) also resolves the name of `link del NAME`; the kernel
// target resolves each device of a list delete, which ip cannot send.
func lookedUp(r rtnl.Request, ip bool, f func(name string)) {
	named := func(s string) {
		if s != "" {
			f(s)
		}
	}
	master := func(m *string) {
		if m != nil {
			named(*m)
		}
	}
	if rt, ok := rtnl.RouteOf(r.Op); ok {
		named(rt.Dev)
		return
	}
	switch op := r.Op.(type) {
	case rtnl.LinkAdd:
		named(op.Lower)
		master(op.Master)
	case rtnl.LinkSet:
		named(op.Dev)
		master(op.Master)
	case rtnl.LinkDel:
		if ip {
			named(op.Dev)
		}
	case rtnl.LinkDelList:
		if !ip {
			for _, d := range op.Devs {
				f(d)
			}
		}
	case rtnl.AddrAdd:
		named(op.Addr.Dev)
	case rtnl.AddrDel:
		named(op.Addr.Dev)
	case rtnl.AddrFlush:
		named(op.Dev)
	case rtnl.RouteFlush:
		named(op.Dev)
	}
}

// IPLookups counts the name lookups of one `ip -b` process (iproute2
// 6.1, seen with strace): ll_name_to_index sends an RTM_GETLINK by
// IFLA_IFNAME, on a socket of its own (IPLookupWork), for a name not in
// the process's cache and caches the answer, so a batch resolves each device name once. Unlike the kernel
// target, `link del NAME` resolves its name too. Not counted: the one
// RTM_NEWLINK probe of the process's first link command (about one
// request in a whole batch).
type IPLookups struct{ seen map[string]bool }

// NewIPLookups is a fresh process: nothing resolved yet.
func NewIPLookups() *IPLookups { return &IPLookups{seen: map[string]bool{}} }

// Lookups counts r's lookups and remembers the names it resolved.
func (c *IPLookups) Lookups(r rtnl.Request) int {
	n := 0
	lookedUp(r, true, func(name string) {
		if !c.seen[name] {
			c.seen[name] = true
			n++
		}
	})
	return n
}

// withLookups puts each request's lookups (LookupWork, as separate kernel
// requests; lookups[j] of them for reqs[j]) before the work the sim
// recorded for it; src says which applied request each work entry came
// from.
func withLookups(client Client, reqs []rtnl.Request, lookups []int, work []cost.Work, src []sim.CostSource) ([]cost.Work, error) {
	out := make([]cost.Work, 0, len(work))
	lookup := LookupWork()
	if client == IPClient {
		lookup = IPLookupWork()
	}
	k := 0
	for j, r := range reqs {
		if k >= len(work) {
			return nil, fmt.Errorf("request %d (%s) recorded no work", j+1, kmeasure.RequestText(r))
		}
		for range lookups[j] {
			out = append(out, lookup)
		}
		first := src[k].Request
		for k < len(work) && src[k].Request == first {
			out = append(out, work[k])
			k++
		}
	}
	if k != len(work) {
		return nil, fmt.Errorf("%d work entries for %d requests", len(work), len(reqs))
	}
	return out, nil
}
