package calib

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/rtnlsim/rtnlsim/cost"
)

// Row is one calibration measurement: the sim's count of every step the
// timed requests make (one thread: the time is linear in the prices) and
// the kernel's time.
type Row struct {
	Name   string
	Counts map[cost.Step]int64
	Ns     int64
}

// StepStatus says how the calibration determined a step's price.
type StepStatus int

const (
	// Fitted: the calibration set determines the price.
	Fitted StepStatus = iota
	// NotExercised: no calibration scenario makes the step (MinCount
	// times); the price is the base's (the prior prices), not measured.
	NotExercised
	// NotIdentified: the step's column lies within MinDistance of the
	// span of the fitted columns (With names those it is nearly a
	// combination of): the data cannot tell its price from theirs. It
	// keeps the base's price, charged at that price in the fit.
	NotIdentified
)

func (s StepStatus) String() string {
	switch s {
	case Fitted:
		return "fitted"
	case NotExercised:
		return "not exercised (prior price kept)"
	case NotIdentified:
		return "not identified (prior price kept)"
	}
	return fmt.Sprintf("StepStatus(%d)", int(s))
}

// StepFit is one step's price and how it was found.
type StepFit struct {
	Step   cost.Step
	Ns     float64
	Status StepStatus
	// Distance is the step's column's distance from the span of the other
	// exercised columns in the full design (Fit.Design); 0 when not
	// exercised.
	Distance float64
	// FittedDistance is the same in the design of the fitted columns
	// (Fit.Fitted), for a Fitted step.
	FittedDistance float64
	// With are the steps a NotIdentified step is nearly a combination of.
	With []cost.Step
}

// RowFit is one calibration scenario, measured and fitted.
type RowFit struct {
	Name       string
	MeasuredNs int64
	FittedNs   int64
	Residual   float64 // (fitted - measured) / measured
}

// Fit is the outcome of FitPrices.
type Fit struct {
	Params cost.Params
	Steps  []StepFit
	Rows   []RowFit
	// Design is the analysis of every exercised step's column; Fitted of
	// the columns whose prices were fitted (the not identified ones left
	// out one at a time, least pinned first, until each remaining column
	// is at least MinDistance from the others).
	Design, Fitted Identifiability
}

// Undetermined lists the steps whose price the calibration did not fit,
// with the reason, for the profile's provenance.
func (f Fit) Undetermined() []string {
	var out []string
	for _, s := range f.Steps {
		switch s.Status {
		case NotExercised:
			out = append(out, fmt.Sprintf("%s: not exercised by the calibration set; prior price %s kept", s.Step, nsText(s.Ns)))
		case NotIdentified:
			out = append(out, fmt.Sprintf("%s: not identified (column %.3f from the span of the others, under %.2f; nearly a combination of %s); prior price %s kept",
				s.Step, s.Distance, MinDistance, stepNames(s.With), nsText(s.Ns)))
		}
	}
	return out
}

func stepNames(ss []cost.Step) string {
	var n []string
	for _, s := range ss {
		n = append(n, s.String())
	}
	return strings.Join(n, ", ")
}

// RoundPrice rounds a fitted price for the profile: to the nanosecond from
// 100 ns up, to a hundredth of one below (a list step of 4.4 ns is not
// 4 ns: the rounding alone would move it by 10%).
func RoundPrice(ns float64) float64 {
	if ns >= 100 {
		return math.Round(ns)
	}
	return math.Round(ns*100) / 100
}

// MinCount is how many times some calibration row must make a step for
// the fit to price it: a step made only a handful of times (ipv6_walk_far
// gets 2 entries from a 2,000-device group delete or link up, whose walks
// just pass IPv6WalkCacheEntries) would take whatever price absorbs those
// rows' noise, and a prediction that makes it thousands of times (a
// 2,000-device group move: 4,000) would carry that price. Such a step is
// NotExercised.
const MinCount = 10

// FitPrices fits the price of every step of cost.Steps to the rows by
// non-negative least squares on relative error (each row divided by its
// measured time, so a 10 ms scenario weighs as much as a 10 s one). Steps
// no row makes at least MinCount times keep base's price (NotExercised,
// and their few calls in the rows are charged at it). Of the others, a
// step whose column the design does not pin (AnalyzeDesign: within
// MinDistance of the span of the rest) keeps base's price too
// (NotIdentified): the least pinned is left out first, then the design is
// analysed again, until every remaining column is pinned. Small prices
// are kept to a hundredth of a nanosecond (RoundPrice).
func FitPrices(base cost.Params, rows []Row) (Fit, error) {
	if err := checkRows(rows); err != nil {
		return Fit{}, err
	}
	var used []cost.Step
	status := map[cost.Step]StepFit{}
	for _, s := range cost.Steps() {
		u, some := false, false
		for i := range rows {
			u = u || rows[i].Counts[s] >= MinCount
			some = some || rows[i].Counts[s] != 0
		}
		switch {
		case u:
			used = append(used, s)
		case some:
			status[s] = StepFit{Step: s, Ns: base.Cost(s), Status: NotExercised}
		}
	}
	design := AnalyzeDesign(rows, used)
	dist := map[cost.Step]float64{}
	for j, s := range used {
		dist[s] = design.Distance[j]
	}
	cols := append([]cost.Step(nil), used...)
	fitted := design
	for len(cols) > 0 {
		// The least pinned goes first. Distances within a factor of 2 of
		// the least count as a tie, won by the later step in cost.Steps
		// order, so that noise in the times does not flip which of a
		// nearly collinear pair is left out from one calibration to the
		// next.
		least := math.Inf(1)
		for k := range cols {
			if !fitted.Identified(k) {
				least = min(least, fitted.Distance[k])
			}
		}
		j := -1
		for k := range cols {
			if !fitted.Identified(k) && fitted.Distance[k] <= 2*least {
				j = k
			}
		}
		if j < 0 {
			break
		}
		s := cols[j]
		status[s] = StepFit{Step: s, Ns: base.Cost(s), Status: NotIdentified, Distance: dist[s], With: fitted.entangled(rows, j)}
		cols = append(cols[:j:j], cols[j+1:]...)
		fitted = AnalyzeDesign(rows, cols)
	}
	for j, s := range cols {
		status[s] = StepFit{Step: s, Status: Fitted, Distance: dist[s], FittedDistance: fitted.Distance[j]}
	}
	out, err := fitWith(base, rows, status)
	out.Design, out.Fitted = design, fitted
	return out, err
}

// Refit fits rows (another repeat of the same scenarios) with f's choice
// of fitted and kept prices, so that the fits of several repeats differ
// only by their times.
func (f Fit) Refit(base cost.Params, rows []Row) (Fit, error) {
	if err := checkRows(rows); err != nil {
		return Fit{}, err
	}
	status := map[cost.Step]StepFit{}
	for _, s := range f.Steps {
		if s.Status == Fitted || s.Status == NotExercised || s.Status == NotIdentified {
			s.Ns = base.Cost(s.Step)
			status[s.Step] = s
		}
	}
	out, err := fitWith(base, rows, status)
	out.Design, out.Fitted = f.Design, f.Fitted
	return out, err
}

func checkRows(rows []Row) error {
	if len(rows) == 0 {
		return errors.New("calib: no calibration rows")
	}
	for _, r := range rows {
		if r.Ns <= 0 {
			return fmt.Errorf("calib: %s: no time measured (%d ns)", r.Name, r.Ns)
		}
	}
	return nil
}

// fitWith fits the Fitted steps of status, charging the rows' calls of
// the others at base's prices; steps status does not name keep base's
// price (no row makes them).
func fitWith(base cost.Params, rows []Row, status map[cost.Step]StepFit) (Fit, error) {
	out := Fit{Params: base}
	// x is row i's count of step s per measured ns: dividing every row by
	// its time makes the least squares weigh relative error.
	x := func(i int, s cost.Step) float64 { return float64(rows[i].Counts[s]) / float64(rows[i].Ns) }
	var cols, kept []cost.Step
	for _, s := range cost.Steps() {
		sf, ok := status[s]
		switch {
		case !ok:
		case sf.Status == Fitted:
			cols = append(cols, s)
		default:
			kept = append(kept, s)
		}
	}
	if len(cols) > len(rows) {
		return out, fmt.Errorf("calib: %d step prices to fit from only %d calibration scenarios: the fit needs at least one scenario per price", len(cols), len(rows))
	}
	all := append(append([]cost.Step(nil), cols...), kept...)
	xs := make([][]float64, len(rows))
	for i := range rows {
		for _, s := range all {
			xs[i] = append(xs[i], x(i, s))
		}
	}
	fixed := map[int]float64{}
	for k, s := range kept {
		fixed[len(cols)+k] = base.Cost(s)
	}
	best := NonNegLeastSquares(xs, fixed)
	if best == nil {
		return out, errors.New("calib: no set of non-negative step prices fits the calibration rows")
	}
	for c, s := range cols {
		sf := status[s]
		sf.Ns = RoundPrice(best[c])
		status[s] = sf
	}
	for _, s := range cost.Steps() {
		sf, ok := status[s]
		if !ok {
			sf = StepFit{Step: s, Ns: base.Cost(s), Status: NotExercised}
		}
		// cost.Params.Set finds the field by its JSON name, so a new step
		// enters the fit without this package changing.
		if err := out.Params.Set(s, sf.Ns); err != nil {
			return out, err
		}
		out.Steps = append(out.Steps, sf)
	}
	for _, r := range rows {
		var t int64
		for s, n := range r.Counts {
			t += out.Params.Times(n, s)
		}
		out.Rows = append(out.Rows, RowFit{Name: r.Name, MeasuredNs: r.Ns, FittedNs: t,
			Residual: float64(t-r.Ns) / float64(r.Ns)})
	}
	return out, nil
}
