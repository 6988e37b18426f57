package calib

import (
	"testing"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/internal/ipbatch"
	"github.com/rtnlsim/rtnlsim/sim"
)

// synth makes rows of counts (one map per row over steps) timed exactly
// at the truth prices.
func synth(steps []cost.Step, counts [][]int64, truth []int64) []Row {
	rows := make([]Row, len(counts))
	for i, c := range counts {
		rows[i] = Row{Name: string(rune('a' + i)), Counts: map[cost.Step]int64{}}
		for j, s := range steps {
			rows[i].Counts[s] = c[j]
			rows[i].Ns += c[j] * truth[j]
		}
	}
	return rows
}

// An identifiable design recovers the planted prices, and every column is
// reported pinned.
func TestIdentifiableDesignRecoversPlanted(t *testing.T) {
	steps := []cost.Step{cost.StepRequest, cost.StepUnregisterDevice, cost.StepNotification, cost.StepFibOp, cost.StepIfaWalk}
	truth := []int64{20_000, 120_000, 300, 1_500, 4}
	counts := [][]int64{
		{100, 100, 300, 0, 0},
		{200, 200, 600, 0, 1000},
		{1, 1000, 3000, 0, 0},
		{1000, 0, 1000, 1000, 0},
		{2000, 0, 2000, 2000, 500_000},
		{10, 0, 5000, 10, 0},
		{500, 0, 0, 0, 2_000_000},
	}
	rows := synth(steps, counts, truth)
	d := AnalyzeDesign(rows, steps)
	if d.Rank != len(steps) {
		t.Fatalf("rank %d, want %d", d.Rank, len(steps))
	}
	for j, s := range steps {
		if !d.Identified(j) {
			t.Errorf("%s: distance %.4f, want identified", s, d.Distance[j])
		}
	}
	fit, err := FitPrices(cost.Params{}, rows)
	if err != nil {
		t.Fatal(err)
	}
	for j, s := range steps {
		if got := fit.Params.Cost(s); got < float64(truth[j])*0.99 || got > float64(truth[j])*1.01 {
			t.Errorf("%s: fitted %g, planted %d", s, got, truth[j])
		}
	}
	// Every repeat of the same times fits the same prices.
	again, err := fit.Refit(cost.Params{}, rows)
	if err != nil {
		t.Fatal(err)
	}
	if again.Params != fit.Params {
		t.Errorf("refit %+v, fit %+v", again.Params, fit.Params)
	}
}

// A collinear pair (exactly, and within 1%) is reported not identified:
// both columns lie in the span of the other, the later one keeps its
// prior price, the other carries the pair, and the rest are recovered.
func TestCollinearPairNotIdentified(t *testing.T) {
	steps := []cost.Step{cost.StepRequest, cost.StepNotifierCall, cost.StepNotification, cost.StepFibOp}
	truth := []int64{20_000, 500, 300, 1_500}
	for _, wobble := range []int64{0, 1} {
		// notification is 3x notifier_call, give or take wobble%.
		counts := [][]int64{
			{100, 200, 600, 0},
			{1000, 0, 0, 1000},
			{2000, 0, 0, 2000 * 3},
			{1, 2000, 6000 + 60*wobble, 0},
			{50, 100, 300, 50},
			{500, 10_000, 30_000 - 300*wobble, 0},
		}
		rows := synth(steps, counts, truth)
		d := AnalyzeDesign(rows, steps)
		for j, s := range steps {
			pair := s == cost.StepNotifierCall || s == cost.StepNotification
			if d.Identified(j) == pair {
				t.Errorf("wobble %d%%: %s: distance %.4f, identified %v", wobble, s, d.Distance[j], d.Identified(j))
			}
		}
		if wobble == 0 && (d.Rank != len(steps)-1 || d.Condition < 1e12) {
			t.Errorf("exact pair: rank %d, condition %g; want %d and infinite", d.Rank, d.Condition, len(steps)-1)
		}
		prior := cost.Params{NotifierCallNs: 400, NotificationNs: 250}
		fit, err := FitPrices(prior, rows)
		if err != nil {
			t.Fatal(err)
		}
		st := map[cost.Step]StepFit{}
		for _, s := range fit.Steps {
			st[s.Step] = s
		}
		// Of a pair this close the later step is left out.
		if s := st[cost.StepNotification]; s.Status != NotIdentified || s.Ns != 250 || len(s.With) != 1 || s.With[0] != cost.StepNotifierCall {
			t.Errorf("wobble %d%%: notification %+v, want not identified at the prior 250 ns, with notifier_call", wobble, s)
		}
		if s := st[cost.StepNotifierCall]; s.Status != Fitted || s.FittedDistance < MinDistance {
			t.Errorf("wobble %d%%: notifier_call %+v, want fitted once notification is left out", wobble, s)
		}
		for _, s := range []cost.Step{cost.StepRequest, cost.StepFibOp} {
			want := truth[map[cost.Step]int{cost.StepRequest: 0, cost.StepFibOp: 3}[s]]
			if got := fit.Params.Cost(s); got < float64(want)*0.97 || got > float64(want)*1.03 {
				t.Errorf("wobble %d%%: %s fitted %g, planted %d", wobble, s, got, want)
			}
		}
		if len(fit.Undetermined()) == 0 {
			t.Error("Undetermined does not name the pair")
		}
	}
}

// stand-in prices for the calibration set's design (the rows' scaling):
// about this machine's.
var standIn = cost.Params{RequestNs: 20_000, RCUBarrierNs: 17_000_000, SynchronizeNetExpeditedNs: 100_000,
	UnregisterDeviceNs: 120_000, NotifierCallNs: 200, NotificationNs: 250, IfaWalkNs: 3, FibOpNs: 1000,
	FibFlushLeafNs: 15, TrieSuffixVisitNs: 2, IPv6WalkNs: 25, LinkFillNs: 8000, IPv6WalkColdNs: 20,
	IPv6DevConfigNs: 90_000, FibInsertNs: 5000, IPv6RouteListNs: 30, FibFlushTnodeNs: 50, IfaScanCheckNs: 2,
	TrieTnodeNewNs: 460}

// The calibration set pins every price it exercises but two pairs, at
// both sizes, with ip's lookups: notifier_call / notification (1:1 but in
// the link scenarios) and nl_socket / link_fill (ip opens a socket for
// every lookup). Of each pair the later step is left out.
func TestCalibrationSetIdentifies(t *testing.T) {
	p := sim.MustParseProfile(sim.DefaultProfile)
	for name, z := range map[string]Sizes{"quick": QuickSizes, "full": FullSizes} {
		var rows []Row
		for _, s := range CalibrationSet(z) {
			run, err := SimWorkFor(p, s, IPClient)
			if err != nil {
				t.Fatal(err)
			}
			c, err := run.Simulate(standIn)
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, Row{Name: s.Name, Counts: run.Counts(), Ns: c.VirtualNs})
		}
		fit, err := FitPrices(standIn, rows)
		if err != nil {
			t.Fatal(err)
		}
		if fit.Fitted.Condition > 100 {
			t.Errorf("%s: fitted columns' condition %.0f", name, fit.Fitted.Condition)
		}
		for _, s := range fit.Steps {
			want := s.Step != cost.StepNotification && s.Step != cost.StepLinkFill
			if s.Step == cost.StepIPv6WalkFar && name == "full" {
				// Only the largest UP deletions reach it, a few times.
				continue
			}
			if s.Distance == 0 && s.Status == NotExercised {
				continue
			}
			if (s.Status == Fitted) != want {
				t.Errorf("%s: %s is %v (distance %.4f)", name, s.Step, s.Status, s.Distance)
			}
		}
		for _, s := range []cost.Step{cost.StepIPv6WalkCold, cost.StepIPv6RouteList, cost.StepIPv6DevConfig, cost.StepRequest} {
			for j, c := range fit.Design.Steps {
				if c == s && !fit.Design.Identified(j) {
					t.Errorf("%s: %s at distance %.4f in the full design", name, s, fit.Design.Distance[j])
				}
			}
		}
	}
}

// ip resolves each device name once per process, link del's too.
func TestIPLookups(t *testing.T) {
	c := ipbatch.NewIPLookups()
	got := []int{}
	for _, l := range []string{"link del g0", "link set dev g1 up", "route add 11.0.0.0/24 dev r0", "route add 11.0.1.0/24 dev r0",
		"route flush dev r0", "link del group 10", "addr add 10.0.0.1/8 dev g1", "link set dev g1 down"} {
		got = append(got, c.Lookups(parse(l + "\n")[0]))
	}
	want := []int{1, 1, 1, 0, 0, 0, 0, 0}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("lookups %v, want %v", got, want)
		}
	}
	p := sim.MustParseProfile(sim.DefaultProfile)
	run, err := SimWorkFor(p, RouteAdd(10), IPClient)
	if err != nil {
		t.Fatal(err)
	}
	if c := run.Counts(); c[cost.StepLinkFill] != 1 || c[cost.StepNlSocket] != 1 || c[cost.StepRequest] != 11 {
		t.Errorf("route add of 10 through one device: %v, want one lookup", c)
	}
	run, err = SimWorkFor(p, DelOneByOne(6, 2, false), IPClient)
	if err != nil {
		t.Fatal(err)
	}
	if c := run.Counts(); c[cost.StepLinkFill] != 6 {
		t.Errorf("6 link dels: %d lookups, want 6", c[cost.StepLinkFill])
	}
}

// ip can run every timed line of both sets, so none falls back to the
// project's client.
func TestScenariosRunUnderIP(t *testing.T) {
	for _, z := range []Sizes{QuickSizes, FullSizes} {
		set := CalibrationSet(z)
		for _, p := range PredictionSet(z) {
			set = append(set, p.Scenario)
		}
		for _, s := range set {
			if _, err := IPLines(s); err != nil {
				t.Error(err)
			}
		}
	}
}

func TestRanges(t *testing.T) {
	mk := func(req, fib float64, st StepStatus) Fit {
		return Fit{Steps: []StepFit{{Step: cost.StepRequest, Ns: req, Status: Fitted}, {Step: cost.StepFibOp, Ns: fib, Status: st}}}
	}
	r := Result{Fit: mk(20, 5, NotIdentified), Repeats: []Fit{mk(22, 5, NotIdentified), mk(18, 5, NotIdentified), mk(25, 5, NotIdentified)}}
	got := r.Ranges()
	if len(got) != 1 || got[0] != (PriceRange{Step: cost.StepRequest, Lo: 18, Hi: 25}) {
		t.Errorf("ranges %+v", got)
	}
	if got[0].Wide() || !(PriceRange{Lo: 0, Hi: 3}).Wide() || !(PriceRange{Lo: 10, Hi: 21}).Wide() {
		t.Error("Wide")
	}
}
