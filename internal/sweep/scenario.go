package sweep

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/fibtrie"
	"github.com/rtnlsim/rtnlsim/internal/repro/seed000"
	"github.com/rtnlsim/rtnlsim/internal/repro/seed001"
	"github.com/rtnlsim/rtnlsim/internal/repro/seed003"
	"github.com/rtnlsim/rtnlsim/sim"
)

// SeedEra is the profile name that stands for the scenario's own seed:
// its kernel era and the prices fitted to it (see each scenario).
const SeedEra = "seed-era"

// Seed001MachinePrices are seed 001's flush prices fitted to this
// machine's kernel (seed001.FlushPrices); a profile file from `rtnlsim
// calibrate` replaces them (--profile FILE).
var Seed001MachinePrices = seed001.FlushPrices

// Result is what one point of a sweep cost in the model.
type Result struct {
	VirtualNs  int64
	LockHeldNs int64
	Counters   cost.Counters
}

// simulate prices a point's work with the cost engine.
func simulate(prices cost.Params, in [][]cost.Work) (Result, error) {
	r, err := cost.Simulate(prices, in)
	return Result{VirtualNs: r.VirtualNs, LockHeldNs: r.LockHeldNs, Counters: r.Counters}, err
}

// Curve is one line of a sweep: a method under a profile at its prices.
type Curve struct {
	// Name is the curve's label in the CSV and the chart's legend.
	Name string
	// Profile is the profile's label (SeedEra, a profile name, or a name
	// with its file).
	Profile string
	// Prices names the prices and lists the non-zero ones.
	Prices string
	// MaxN, when not 0, is the largest size the curve runs; points above
	// it are written as skipped, with SkipNote.
	MaxN     int
	SkipNote string

	run func(ctx context.Context, n int, seed int64) (Result, error)
}

// Options are the scenario switches a sweep passes on.
type Options struct {
	// Threads: seed000's one-by-one curves, one per thread count
	// (default 1).
	Threads []int
	// Promote1MaxN: seed001's promote=1 curve stops above it (0: the
	// default, DefaultPromote1MaxN).
	Promote1MaxN int
	// Rc3MaxN: seed003's linux-4.2-rc3 curve stops above it (0: the
	// default, DefaultRc3MaxN).
	Rc3MaxN int
}

// DefaultRc3MaxN is where seed003's linux-4.2-rc3 curve stops by default:
// deleting all N devices under rc3 makes about N^3.5 update_suffix visits
// in the sim; measured on this machine (2 cores, shared), N = 2000 takes
// 11 s and 4000 takes 144 s of wall time.
const DefaultRc3MaxN = 3200

// DefaultPromote1MaxN is where seed001's promote=1 curve stops by default.
// The flush is iproute2's, whose deletes skip ahead of its chunked dump,
// so only some deletes promote, but each promotion still deletes and
// re-adds every remaining secondary's routes, which the sim makes one by
// one: measured on this machine (2 cores, shared), the three curves at
// N = 16,000 take 9.7 s of wall time and at 32,000 37 s.
const DefaultPromote1MaxN = 20000

// Scenario is a sweepable workload.
type Scenario struct {
	Name string
	// Title is the chart title's first line.
	Title string
	// Unit is what N counts ("devices").
	Unit string
	// About is the help text's line.
	About string
	// Counters are the step counters the CSV has a column for (step
	// names, and RCUBarrierExecuted), a fixed list so that a CSV's columns
	// do not depend on its rows.
	Counters []string
	// curves builds the curves for the profiles (resolved, in order).
	curves func(o Options, profiles []profile) ([]Curve, error)
	// seedPrices are the prices fitted to the scenario's seed, and their
	// name; called only when a profile needs them (seed003's fit takes
	// seconds).
	seedPrices func() (cost.Params, string, error)
}

// Scenarios lists the scenarios, by name.
var Scenarios = []Scenario{
	{
		Name:  "seed000",
		Title: "seed 000: deleting N UP devices with an IPv6 link-local address",
		Unit:  "devices",
		About: "delete N UP devices (IPv6 LLA) one by one from T threads (--threads), by one group request, by one list request (+bulk-ifindex)",
		Counters: []string{"request", "rcu_barrier", RCUBarrierExecuted, "synchronize_net_expedited", "unregister_device",
			"notifier_call", "notification", "rcu_barrier_up"},
		curves: seed000Curves,
		seedPrices: func() (cost.Params, string, error) {
			p, err := seed000.Fit(seed000.DefaultFit)
			return p, "seed 000 fit (seed000.Fit)", err
		},
	},
	{
		Name:     "seed001",
		Title:    "seed 001: flushing N IPv4 addresses of one /8 on one UP device",
		Unit:     "addresses",
		About:    "ip addr flush of N addresses in one /8 on one UP device: promote_secondaries 0, 1 (stops at --promote1-max-n), and +ifa-flush",
		Counters: []string{"request", "ifa_walk", "fib_op", "notifier_call", "notification"},
		curves:   seed001Curves,
		seedPrices: func() (cost.Params, string, error) {
			return Seed001MachinePrices, "seed 001 flush fit to this machine's kernel", nil
		},
	},
	{
		Name:  "seed003",
		Title: "seed 003: deleting all N dummy devices, each UP with one IPv4 /24, one by one",
		Unit:  "devices",
		About: "set up N dummies (72.j.k.1/24, up), then delete them all one by one, under the linux-4.2-rc3 FIB (stops at --rc3-max-n) and the fix (linux-4.2); sim target",
		Counters: []string{"request", "rcu_barrier", "unregister_device", "notification", "fib_op", "fib_flush_leaf",
			"trie_suffix_visit"},
		curves: seed003Curves,
		seedPrices: func() (cost.Params, string, error) {
			p, err := seed003Prices()
			return p, "seed 000 fit + seed 003 fit (FitSeed003)", err
		},
	},
}

// ScenarioNames lists the scenario names.
func ScenarioNames() []string {
	var out []string
	for _, s := range Scenarios {
		out = append(out, s.Name)
	}
	return out
}

// LookupScenario returns the named scenario.
func LookupScenario(name string) (Scenario, error) {
	for _, s := range Scenarios {
		if s.Name == name {
			return s, nil
		}
	}
	return Scenario{}, fmt.Errorf("unknown scenario %q (known: %s)", name, strings.Join(ScenarioNames(), ", "))
}

// profile is a --profile argument resolved for a scenario.
type profile struct {
	label  string
	seedEr bool        // SeedEra: the scenario's own era and prices
	p      sim.Profile // the model's profile (for SeedEra: the scenario's stand-in)
	prices cost.Params
	priceS string
}

// resolveProfile reads one --profile argument: SeedEra, a profile name or
// a profile file (sim.LoadProfile). A name has no prices of its own: it
// takes the scenario's seed-era prices, and the label says so.
func resolveProfile(arg string, seedPrices func() (cost.Params, string, error)) (profile, error) {
	arg = strings.TrimSpace(arg)
	if arg == "" || arg == SeedEra {
		sp, name, err := seedPrices()
		if err != nil {
			return profile{}, err
		}
		return profile{label: SeedEra, seedEr: true, p: sim.MustParseProfile(sim.DefaultProfile),
			prices: sp, priceS: describePrices(name, sp)}, nil
	}
	p, err := sim.LoadProfile(arg)
	if err != nil {
		return profile{}, fmt.Errorf("--profile: %w", err)
	}
	if p.Cost != nil {
		name := "profile file " + filepath.Base(p.File)
		if pv := p.Provenance; pv != nil && (pv.Kernel != "" || pv.Date != "") {
			name += fmt.Sprintf(" (calibrated on %s, %s)", pv.Kernel, pv.Date)
		}
		return profile{label: p.Name + " (" + filepath.Base(p.File) + ")", p: p, prices: *p.Cost,
			priceS: describePrices(name, *p.Cost)}, nil
	}
	sp, name, err := seedPrices()
	if err != nil {
		return profile{}, err
	}
	return profile{label: p.Name, p: p, prices: sp,
		priceS: describePrices(name+" (the profile has no prices of its own)", sp)}, nil
}

// describePrices names a price set and lists its non-zero prices.
func describePrices(name string, p cost.Params) string {
	var parts []string
	for _, s := range cost.Steps() {
		if c := p.Cost(s); c != 0 {
			parts = append(parts, s.String()+" "+fmtNs(float64(c)))
		}
	}
	if len(parts) == 0 {
		return name + ": every price 0"
	}
	return name + ": " + strings.Join(parts, ", ")
}

// fmtNs writes a duration in ns with a unit and three significant digits.
func fmtNs(ns float64) string {
	units := []struct {
		div  float64
		name string
	}{{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}}
	for _, u := range units {
		if math.Abs(ns) >= u.div || u.div == 1 {
			return fmt.Sprintf("%.3g %s", ns/u.div, u.name)
		}
	}
	return ""
}

// curve is a method's curve under the profile (NewPlan adds the
// profile's label to the name when the sweep has several).
func (pr profile) curve(method string, run func(ctx context.Context, n int, seed int64) (Result, error)) Curve {
	return Curve{Name: method, Profile: pr.label, Prices: pr.priceS, run: run}
}

// curveLimit is the MaxN of a curve that stops early: v, or def for 0.
func curveLimit(flag string, v, def int) (int, error) {
	switch {
	case v == 0:
		return def, nil
	case v < 0:
		return 0, fmt.Errorf("--%s %d: must be at least 1 (or 0 for the default, %d)", flag, v, def)
	}
	return v, nil
}

// seed000Curves: one-by-one from each thread count, group, list.
//
// The points are built with the unregister work builders (seed000.Devices,
// sim.UnregisterOneByOne, UnregisterBatch, ListDeleteBatch,
// UnregisterRequestWork) and priced by cost.Simulate, not by running a
// script on the sim target: the builders are exactly what the seed 000
// table (seed000.Rows) prices, so the curves pass through its rows at
// N = 10,000, and they are cheap (100,000 one-by-one requests: about
// 60 ms). sim's TestUnregisterBuildersIPv6MatchSimTarget checks that the
// sim target records the same work for UP devices with IPv6.
func seed000Curves(o Options, profs []profile) ([]Curve, error) {
	threads := o.Threads
	if len(threads) == 0 {
		threads = []int{1}
	}
	for _, t := range threads {
		if t < 1 {
			return nil, fmt.Errorf("--threads %d: must be at least 1", t)
		}
	}
	var out []Curve
	for _, pr := range profs {
		steps := pr.p.Unregister
		if pr.seedEr {
			// The seed's kernel (net-next, December 2021).
			steps = sim.UnregisterStepsV516()
		}
		prices := pr.prices
		add := func(method string, build func(devs []sim.UnregDev) ([][]cost.Work, error)) {
			out = append(out, pr.curve(method, func(ctx context.Context, n int, _ int64) (Result, error) {
				in, err := build(seed000.Devices(n))
				if err != nil {
					return Result{}, err
				}
				return simulate(prices, in)
			}))
		}
		for _, t := range threads {
			name := fmt.Sprintf("one by one, %d threads", t)
			if t == 1 {
				name = "one by one, 1 thread"
			}
			add(name, func(devs []sim.UnregDev) ([][]cost.Work, error) {
				return sim.UnregisterOneByOne(steps, devs, t), nil
			})
		}
		add("group", func(devs []sim.UnregDev) ([][]cost.Work, error) {
			return sim.UnregisterBatch(steps, devs), nil
		})
		add("list (+bulk-ifindex)", func(devs []sim.UnregDev) ([][]cost.Work, error) {
			return seed000.ListAll(steps, devs)
		})
	}
	return out, nil
}

// seed001Curves: promote 0, promote 1, +ifa-flush, each `ip addr flush`
// as iproute2 runs it on the sim target (seed001.FlushWith) priced by
// cost.Simulate.
func seed001Curves(o Options, profs []profile) ([]Curve, error) {
	capN, err := curveLimit("promote1-max-n", o.Promote1MaxN, DefaultPromote1MaxN)
	if err != nil {
		return nil, err
	}
	var out []Curve
	for _, pr := range profs {
		for _, m := range []struct {
			name              string
			promote, ifaFlush bool
		}{{"promote=0", false, false}, {"promote=1", true, false}, {"+ifa-flush", false, true}} {
			c := pr.curve(m.name, func(ctx context.Context, n int, seed int64) (Result, error) {
				res, err := seed001.FlushWith(ctx, seed001.Case{N: n, Promote: m.promote, Up: true, IfaFlush: m.ifaFlush, IPFlush: true}, pr.p.Options(seed))
				if err != nil {
					return Result{}, err
				}
				return simulate(pr.prices, [][]cost.Work{{res.Work}})
			})
			if m.promote {
				c.MaxN = capN
				c.SkipNote = fmt.Sprintf("not run: each promotion re-adds every remaining secondary's routes in the sim; the curve stops at N=%d (--promote1-max-n; N=16,000 takes about 10 s of wall time, 32,000 about 40 s)", capN)
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// seed003Curves: deleting all N devices one by one on the sim target
// (seed003.Run), under the two FIB eras of the seed. The FIB era is the
// curve's: a --profile gives the prices only (its base's FIB is not used).
func seed003Curves(o Options, profs []profile) ([]Curve, error) {
	capN, err := curveLimit("rc3-max-n", o.Rc3MaxN, DefaultRc3MaxN)
	if err != nil {
		return nil, err
	}
	var out []Curve
	for _, pr := range profs {
		for _, era := range []struct {
			name string
			fib  fibtrie.Options
		}{{"linux-4.2-rc3", fibtrie.Linux42rc3()}, {"linux-4.2 (the fix)", fibtrie.Linux42()}} {
			c := pr.curve(era.name, func(ctx context.Context, n int, _ int64) (Result, error) {
				all := make([]int, n)
				for i := range all {
					all[i] = i + 1
				}
				w, err := seed003.Run(n, era.name, era.fib, all, pr.prices)
				if err != nil {
					return Result{}, err
				}
				return simulate(pr.prices, [][]cost.Work{w.Work})
			})
			if era.fib.FlushPullsLeafSuffix {
				c.MaxN = capN
				c.SkipNote = fmt.Sprintf("not run: under rc3 the sim makes about N^3.5 update_suffix visits; the curve stops at N=%d (--rc3-max-n; N=2000 takes about 11 s of wall time, 4000 about 144 s)", capN)
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// seed003Prices is the seed 000 fit with update_suffix's slot visit
// priced by seed003.Fit (two deletions in 10K devices on the sim
// target: about 30 s, once per process).
var seed003Prices = sync.OnceValues(func() (cost.Params, error) {
	base, err := seed000.Fit(seed000.DefaultFit)
	if err != nil {
		return base, err
	}
	p, _, _, err := seed003.Fit(base)
	return p, err
})

// resolveProfiles resolves the --profile arguments for the scenario (none:
// SeedEra). A profile given twice is an error.
func resolveProfiles(sc Scenario, args []string) ([]profile, error) {
	if len(args) == 0 {
		args = []string{SeedEra}
	}
	var out []profile
	seen := map[string]bool{}
	for _, a := range args {
		pr, err := resolveProfile(a, sc.seedPrices)
		if err != nil {
			return nil, err
		}
		if seen[pr.label] {
			return nil, fmt.Errorf("--profile %q: given twice (as %s)", a, pr.label)
		}
		seen[pr.label] = true
		out = append(out, pr)
	}
	return out, nil
}
