package calib

import (
	"testing"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/sim"
)

// exactRows makes rows whose time is exactly their counts at the truth
// prices.
func exactRows(truth map[cost.Step]int64) func(name string, c map[cost.Step]int64) Row {
	return func(name string, c map[cost.Step]int64) Row {
		var ns int64
		for s, n := range c {
			ns += n * truth[s]
		}
		return Row{Name: name, Counts: c, Ns: ns}
	}
}

// The fit recovers known prices from exact times, keeps the base price of
// steps no row makes, and names steps it cannot separate.
func TestFitPricesRecovers(t *testing.T) {
	truth := map[cost.Step]int64{cost.StepRequest: 17_000, cost.StepRCUBarrier: 15_000_000, cost.StepUnregisterDevice: 90_000, cost.StepFibOp: 1_500}
	mk := exactRows(truth)
	rows := []Row{
		mk("del1 100", map[cost.Step]int64{cost.StepRequest: 100, cost.StepRCUBarrier: 100, cost.StepUnregisterDevice: 100, cost.StepNotification: 100}),
		mk("group 1000", map[cost.Step]int64{cost.StepRequest: 1, cost.StepRCUBarrier: 1, cost.StepUnregisterDevice: 1000, cost.StepNotification: 1000}),
		mk("group 2000", map[cost.Step]int64{cost.StepRequest: 1, cost.StepRCUBarrier: 1, cost.StepUnregisterDevice: 2000, cost.StepNotification: 2000}),
		mk("route 1000", map[cost.Step]int64{cost.StepRequest: 1000, cost.StepFibOp: 1000}),
		mk("route flush 1000", map[cost.Step]int64{cost.StepRequest: 2, cost.StepFibOp: 1000}),
	}
	base := cost.Params{TrieSuffixVisitNs: 7}
	fit, err := FitPrices(base, rows)
	if err != nil {
		t.Fatal(err)
	}
	for s, want := range truth {
		if got := fit.Params.Cost(s); got < float64(want)*0.99 || got > float64(want)*1.01 {
			t.Errorf("%s: fitted %g, true %d", s, got, want)
		}
	}
	st := map[cost.Step]StepFit{}
	for _, s := range fit.Steps {
		st[s.Step] = s
	}
	if s := st[cost.StepTrieSuffixVisit]; s.Status != NotExercised || s.Ns != 7 {
		t.Errorf("trie_suffix_visit: %+v, want not exercised with the base price", s)
	}
	// notification is unregister_device's exact multiple: the later of
	// the pair is not identified and keeps its prior (0 here), the other
	// carries the pair.
	if s := st[cost.StepNotification]; s.Status != NotIdentified || len(s.With) != 1 || s.With[0] != cost.StepUnregisterDevice || s.Ns != 0 {
		t.Errorf("notification: %+v, want not identified, a combination of unregister_device", s)
	}
	if len(fit.Undetermined()) != len(cost.Steps())-len(truth) {
		t.Errorf("undetermined: %q", fit.Undetermined())
	}
	for _, r := range fit.Rows {
		if r.Residual > 0.01 || r.Residual < -0.01 {
			t.Errorf("%s: residual %v", r.Name, r.Residual)
		}
	}
	if _, err := FitPrices(base, nil); err == nil {
		t.Error("no rows must fail")
	}
}

// SimWork puts the kernel target's name lookups before the requests that
// make them, and the counts follow the scenario.
func TestSimWorkLookups(t *testing.T) {
	run, err := SimWork(sim.MustParseProfile(sim.DefaultProfile), GroupMove(10, false))
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Threads) != 1 || len(run.Threads[0]) != 20 {
		t.Fatalf("want 10 lookups and 10 moves, got %d entries", len(run.Threads[0]))
	}
	if c := run.Counts(); c[cost.StepRequest] != 20 {
		t.Fatalf("requests %d, want 20", c[cost.StepRequest])
	}
	run, err = SimWork(sim.MustParseProfile(sim.DefaultProfile), DelOneByOne(12, 4, false))
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Threads) != 4 {
		t.Fatalf("threads %d", len(run.Threads))
	}
	for i, th := range run.Threads {
		if len(th) != 3 {
			t.Fatalf("thread %d: %d requests, want 3 (deletes by name make no lookup)", i, len(th))
		}
	}
}

// A step some row makes only a few times (under MinCount: ipv6_walk_far's
// 2 entries at 2,000 devices) is not fitted: it keeps the base price, its
// calls are charged at that price, and the other prices come out as if it
// were priced right.
func TestFitPricesFewCallsKeepBase(t *testing.T) {
	truth := map[cost.Step]int64{cost.StepRequest: 17_000, cost.StepIPv6Walk: 30, cost.StepIPv6WalkFar: 500}
	mk := exactRows(truth)
	rows := []Row{
		mk("a", map[cost.Step]int64{cost.StepRequest: 1000, cost.StepIPv6Walk: 5_000_000}),
		mk("b", map[cost.Step]int64{cost.StepRequest: 2000, cost.StepIPv6Walk: 20_000_000, cost.StepIPv6WalkFar: 2}),
		mk("c", map[cost.Step]int64{cost.StepRequest: 500}),
	}
	fit, err := FitPrices(cost.Params{IPv6WalkFarNs: 500}, rows)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range fit.Steps {
		if s.Step == cost.StepIPv6WalkFar && (s.Status != NotExercised || s.Ns != 500) {
			t.Errorf("ipv6_walk_far: %+v, want not exercised at the base price", s)
		}
	}
	for _, s := range []cost.Step{cost.StepRequest, cost.StepIPv6Walk} {
		if got := fit.Params.Cost(s); got != float64(truth[s]) {
			t.Errorf("%s: fitted %g, true %d", s, got, truth[s])
		}
	}
	for _, r := range fit.Rows {
		if r.FittedNs != r.MeasuredNs {
			t.Errorf("%s: fitted %d ns, measured %d ns", r.Name, r.FittedNs, r.MeasuredNs)
		}
	}
}
