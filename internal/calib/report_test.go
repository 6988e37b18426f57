package calib

import (
	"strings"
	"testing"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/internal/ipbatch"
)

// The process start is taken off every time, and a time not longer
// than it is refused, not clamped.
func TestSubtract(t *testing.T) {
	m := Measurement{Name: "x", All: []int64{12, 30, 14}}
	if err := m.subtract(2); err != nil {
		t.Fatal(err)
	}
	if len(m.Net) != 3 || m.Net[0] != 10 || m.Net[1] != 28 || m.Net[2] != 12 || m.Ns != 12 {
		t.Errorf("net %v, median %d", m.Net, m.Ns)
	}
	m = Measurement{Name: "short", All: []int64{12, 2}}
	if err := m.subtract(2); err == nil || !strings.Contains(err.Error(), "too short") {
		t.Errorf("a time equal to the process start: %v", err)
	}
}

// The summary and the profile say what was subtracted, how each price was
// found, its interval, and the design's rank and condition.
func TestReportSaysSubtractionAndIdentifiability(t *testing.T) {
	steps := []cost.Step{cost.StepRequest, cost.StepNotifierCall, cost.StepNotification, cost.StepFibOp}
	counts := [][]int64{{100, 200, 600, 0}, {1000, 0, 0, 1000}, {2000, 0, 0, 6000}, {1, 2000, 6000, 0}, {50, 100, 300, 50}}
	rows := synth(steps, counts, []int64{20_000, 500, 300, 1_500})
	fit, err := FitPrices(cost.Params{NotificationNs: 250}, rows)
	if err != nil {
		t.Fatal(err)
	}
	var repeats []Fit
	for _, k := range []int64{95, 105} {
		rr := append([]Row(nil), rows...)
		for i := range rr {
			rr[i].Ns = rr[i].Ns * k / 100
		}
		f, err := fit.Refit(cost.Params{NotificationNs: 250}, rr)
		if err != nil {
			t.Fatal(err)
		}
		repeats = append(repeats, f)
	}
	var calib []Measurement
	for _, r := range rows {
		calib = append(calib, Measurement{Name: r.Name, Threads: 1, Client: ipClient, All: []int64{r.Ns + 2_600_000}, Net: []int64{r.Ns}, Ns: r.Ns})
	}
	res := Result{Profile: "linux-6.18", Fit: fit, Repeats: repeats, Calibration: calib, Repeat: 2, IPVersion: "ip 6.1",
		ProcessStart: map[int]ipbatch.Stats{1: {MedianNs: 2_600_000, MinNs: 2_500_000, MaxNs: 4_900_000, AllNs: []int64{2_500_000, 2_600_000, 4_900_000}}},
		Predictions:  []PredictionRow{{Group: "g", Name: "p", PredictedNs: 10e6, PredictedLo: 9e6, PredictedHi: 12e6, MeasuredNs: 11e6, MeasuredLo: 10e6, MeasuredHi: 13e6, Runs: 2}}}
	var b strings.Builder
	res.WriteSummary(&b)
	text := b.String()
	for _, want := range []string{"SUBTRACTED from every kernel time", "1 thread(s) 2.6 ms (2.5 ms..4.9 ms, 3 runs)",
		"rank 3, condition infinite", "not identified (prior price kept): nearly a combination of notifier_call", "(250 ns)",
		"9.0 ms .. 12.0 ms", "10.0 ms .. 13.0 ms"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	f := res.ProfileFile()
	if !f.Provenance.ProcessStartSubtracted || len(f.Provenance.ProcessStart) != 1 || f.Provenance.ProcessStart[0].MedianNs != 2_600_000 {
		t.Errorf("process start in the profile: %v %+v", f.Provenance.ProcessStartSubtracted, f.Provenance.ProcessStart)
	}
	if d := f.Provenance.Design; d == nil || d.Rank != 3 || d.Columns != 4 || d.FittedColumns != 3 || d.Condition != 0 || d.FittedCondition <= 0 {
		t.Errorf("design in the profile: %+v", d)
	}
	got := map[string]string{}
	for _, p := range f.Provenance.Prices {
		got[p.Step] = p.Status
		if p.Step == "request" && (p.LoNs == 0 || p.HiNs < p.LoNs) {
			t.Errorf("request's interval %+v", p)
		}
	}
	if got["notification"] != NotIdentified.String() || got["request"] != Fitted.String() {
		t.Errorf("statuses %v", got)
	}
	if len(f.Provenance.Predictions) != 1 || f.Provenance.Predictions[0].PredictedHiNs != 12e6 {
		t.Errorf("predictions %+v", f.Provenance.Predictions)
	}
}
