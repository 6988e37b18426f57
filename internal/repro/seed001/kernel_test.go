package seed001

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/internal/kmeasure"
	"github.com/rtnlsim/rtnlsim/internal/testseed"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/stretchr/testify/require"
)

// TestKernelSeed001Prediction is seed 001 on this machine: `ip addr flush`
// of N addresses in one /8 on one UP ifb, promote_secondaries 0 and 1. The
// kernel's flush time is measured in fresh namespaces, with no listener
// joined to any notification group (the minimum of a few runs, taken
// round-robin over the cases: the machine is shared). The model's three
// prices the fit sets (request, address-list step, FIB operation;
// Fit) are fitted at two sizes, N = 500 and 2000, both promote
// settings. The model then predicts the other sizes: N = 250, 1000 and
// 1500 with and without promotion. Each prediction must be within 25% of
// the measured time. The table of predicted vs measured times is printed.
//
// It runs only with RTNLSIM_KMEASURE=1 (make fidelity-tests).
// RTNLSIM_SEED001_REPEATS sets the runs per size (3).
func TestKernelSeed001Prediction(t *testing.T) {
	testseed.NeedKMeasure(t, "seed 001 predicted against this kernel")
	testseed.NeedRoot(t)
	repeats := testseed.EnvInt(t, "RTNLSIM_SEED001_REPEATS", 3, 1)
	ctx := context.Background()
	fitSizes := map[int]bool{500: true, 2000: true}
	// Round-robin (kmeasure.MinRoundRobin): a CI run that measured each
	// case's runs back to back had all nine runs of N=1500 promote 0 above
	// N=2000's minimum.
	// The kernel target runs ip's own flush, so each time includes
	// starting nsenter and ip and ip's name lookup, which the model does
	// not price: the fastest flush of no address, run with the others, is
	// taken off every time.
	empty := &kmeasure.Runs{Config: kmeasure.Config{N: 0, Up: true, Quiet: true}, K: 3 * repeats}
	cases := []*kmeasure.Runs{empty}
	for _, promote := range []bool{false, true} {
		for _, n := range []int{250, 500, 1000, 1500, 2000} {
			k := repeats
			switch {
			case !promote:
				k = 3 * repeats // a few ms a run: the noise of a shared machine is large
			case n >= 1500:
				k = min(k, 2) // 10-20 s a run
			}
			cases = append(cases, &kmeasure.Runs{Config: kmeasure.Config{N: n, Promote: promote, Up: true, Quiet: true}, K: k})
		}
	}
	if err := kmeasure.MinRoundRobin(ctx, cases); err != nil {
		t.Fatalf("kernel: %v", err)
	}
	var fit, check []Measured
	base := empty.Best.Flush.Nanoseconds()
	t.Logf("kernel: a flush of no address (process start, lookup, one empty dump) took at best %v; taken off every time", empty.Best.Flush)
	for _, kc := range cases[1:] {
		t.Logf("kernel %s: runs %v", kc.Config, kc.All)
		sc := Case{N: kc.Config.N, Promote: kc.Config.Promote, Up: true, IPFlush: true}
		m := Measured{Case: sc, Ns: kc.Best.Flush.Nanoseconds() - base}
		if fitSizes[kc.Config.N] {
			fit = append(fit, m)
		} else {
			check = append(check, m)
		}
	}
	cache := Cache{}
	p, err := Fit(cost.Params{}, fit, cache)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "fitted at N=500,2000: request %.0f ns, ifa_walk %.0f ns, fib_op %.0f ns\n", p.RequestNs, p.IfaWalkNs, p.FibOpNs)
	fmt.Fprintf(&b, "%-22s %6s %12s %12s %12s %8s\n", "case", "role", "ifa_walk", "fib_ops", "model", "kernel")
	var bad []string
	for _, rows := range [][]Measured{fit, check} {
		for _, m := range rows {
			pred, res, err := Predict(p, m.Case, cache)
			if err != nil {
				t.Fatal(err)
			}
			role := "check"
			if fitSizes[m.Case.N] {
				role = "fit"
			}
			errPct := 100 * (float64(pred) - float64(m.Ns)) / float64(m.Ns)
			fmt.Fprintf(&b, "%-22s %6s %12d %12d %11.4fs %7.4fs  %+5.1f%%\n", m.Case, role, res.IfaWalk, res.FibOps,
				float64(pred)/1e9, float64(m.Ns)/1e9, errPct)
			if role == "check" && math.Abs(errPct) > 25 {
				bad = append(bad, fmt.Sprintf("%s: model %.4fs, kernel %.4fs (%+.1f%%)", m.Case, float64(pred)/1e9, float64(m.Ns)/1e9, errPct))
			}
		}
	}
	t.Logf("seed 001 on this machine, predicted vs measured:\n%s", b.String())
	if len(bad) > 0 {
		t.Errorf("predictions off by more than 25%%:\n%s", strings.Join(bad, "\n"))
	}
}

// TestKernelSeed001Layouts checks the model away from one /8, where the
// layout search relies on it: N = 4,000 addresses as subnets of 1, 4 and
// 8 on this kernel, promote_secondaries 0 and 1 (round-robin, minimum of
// the runs). It logs the model at FlushPrices (fitted on one /8) against
// them, fits the three prices to them (each fitted case within 25%), and
// requires the layout search at those prices to give the same S range as
// at FlushPrices. The fitted prices are logged: LayoutPrices is one run's.
//
// It runs only with RTNLSIM_KMEASURE=1 (make fidelity-tests).
func TestKernelSeed001Layouts(t *testing.T) {
	testseed.NeedKMeasure(t, "seed 001 layouts predicted against this kernel")
	testseed.NeedRoot(t)
	repeats := testseed.EnvInt(t, "RTNLSIM_SEED001_REPEATS", 3, 1)
	ctx := context.Background()
	type kcase struct {
		c    Case
		sc   kmeasure.Scenario
		k    int
		best time.Duration
		all  []time.Duration
	}
	var cases []*kcase
	for _, promote := range []bool{false, true} {
		for _, m := range []int{1, 4, 8} {
			l := Layout{K: 4000 / m, M: m}
			addrs, err := l.Addrs()
			require.NoError(t, err)
			setup, err := kmeasure.Setup(kmeasure.Config{N: 0, Promote: promote, Up: true})
			require.NoError(t, err)
			for _, a := range addrs {
				setup = append(setup, rtnl.Request{Op: rtnl.AddrAdd{Addr: rtnl.Addr{Prefix: a, Dev: kmeasure.Dev}}})
			}
			k := repeats
			if !promote {
				k = 3 * repeats // a few ms a run: the noise of a shared machine is large
			}
			cases = append(cases, &kcase{c: Case{Promote: promote, Up: true, Layout: l, IPFlush: true}, k: k, sc: kmeasure.Scenario{
				Name:    fmt.Sprintf("addr flush, %s, promote=%d", l, b2i(promote)),
				Sysctls: map[string]string{"net.ipv6.conf.all.disable_ipv6": "1", "net.ipv6.conf.default.disable_ipv6": "1"},
				Setup:   setup,
				Timed:   [][]rtnl.Request{{kmeasure.Flush}},
			}})
		}
	}
	// As in TestKernelSeed001Prediction: a flush of no address, run with
	// the others, measures what starting ip adds; it is taken off.
	emptySetup, err := kmeasure.Setup(kmeasure.Config{N: 0, Up: true})
	require.NoError(t, err)
	empty := &kcase{k: 3 * repeats, sc: kmeasure.Scenario{Name: "addr flush of no address",
		Sysctls: map[string]string{"net.ipv6.conf.all.disable_ipv6": "1", "net.ipv6.conf.default.disable_ipv6": "1"},
		Setup:   emptySetup, Timed: [][]rtnl.Request{{kmeasure.Flush}}}}
	cases = append(cases, empty)
	for round := 0; ; round++ {
		ran := false
		for _, kc := range cases {
			if round >= kc.k {
				continue
			}
			ran = true
			d, err := kmeasure.RunScenario(ctx, kc.sc)
			require.NoError(t, err, "kernel")
			kc.all = append(kc.all, d)
			if round == 0 || d < kc.best {
				kc.best = d
			}
		}
		if !ran {
			break
		}
	}
	cases = cases[:len(cases)-1]
	t.Logf("a flush of no address took at best %v; taken off every time", empty.best)
	var rows []Measured
	for _, kc := range cases {
		t.Logf("%s: kernel runs %v", kc.c, kc.all)
		rows = append(rows, Measured{Case: kc.c, Ns: kc.best.Nanoseconds() - empty.best.Nanoseconds()})
	}
	cache := Cache{}
	p, err := Fit(cost.Params{}, rows, cache)
	require.NoError(t, err)
	var b strings.Builder
	fmt.Fprintf(&b, "fitted here: request %.0f ns, ifa_walk %.0f ns, fib_op %.0f ns\n", p.RequestNs, p.IfaWalkNs, p.FibOpNs)
	fmt.Fprintf(&b, "%-40s %12s %10s %10s %8s %10s %8s %10s\n", "case", "ifa_walk", "fib_ops", "FlushPr.", "error", "fitted", "error", "kernel")
	var bad []string
	for _, m := range rows {
		one, res, err := Predict(FlushPrices, m.Case, cache)
		require.NoError(t, err)
		fit, _, err := Predict(p, m.Case, cache)
		require.NoError(t, err)
		e := func(ns int64) float64 { return 100 * (float64(ns) - float64(m.Ns)) / float64(m.Ns) }
		fmt.Fprintf(&b, "%-40s %12d %10d %9.4fs %+7.1f%% %9.4fs %+7.1f%% %9.4fs\n", m.Case, res.IfaWalk, res.FibOps,
			float64(one)/1e9, e(one), float64(fit)/1e9, e(fit), float64(m.Ns)/1e9)
		if math.Abs(e(fit)) > 25 {
			bad = append(bad, fmt.Sprintf("%s: fitted model %.4fs, kernel %.4fs (%+.1f%%)", m.Case, float64(fit)/1e9, float64(m.Ns)/1e9, e(fit)))
		}
	}
	both, err := SearchLayouts(seed001N, []cost.Params{FlushPrices, p}, seed001Before, seed001After, seed001Tol)
	require.NoError(t, err)
	fmt.Fprintf(&b, "search at FlushPrices: %s\nsearch at the prices fitted here: %s\n", Conclusion(both[0], seed001Tol), Conclusion(both[1], seed001Tol))
	t.Logf("seed 001 layouts on this machine:\n%s", b.String())
	if len(bad) > 0 {
		t.Errorf("fitted predictions off by more than 25%%:\n%s", strings.Join(bad, "\n"))
	}
	f0, l0, _ := FitRange(both[0])
	f1, l1, _ := FitRange(both[1])
	require.Equal(t, []int{f0, l0}, []int{f1, l1}, "the layout search's S range moves with the prices fitted here")
}
