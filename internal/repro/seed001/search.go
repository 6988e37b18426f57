package seed001

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/internal/repro"
)

// The layout search: the thread gives the flush's two times but not how
// its 40,000 addresses split into subnets, and the promoting flush's work
// depends on that split (each promotion re-adds the routes of its
// subnet's remaining secondaries). For every split of N into K subnets of
// M (M divides N, so every subnet holds M), the model's counts of both
// flushes are priced, one factor on the prices is fitted to the "after"
// time, and the layouts whose "before" then lands within the tolerance
// are the ones the published pair allows. The factor cancels in the
// before/after ratio, so the answer does not depend on the price level,
// only on the mix of FlushPrices.

// layoutSteps are the steps FlushPrices prices: the only ones counted
// (trie steps depend on the addresses' bits, not only on K and M).
var layoutSteps = []string{cost.StepRequest.String(), cost.StepIfaWalk.String(), cost.StepFibOp.String()}

// Divisors are the subnet sizes M that split n evenly, ascending.
func Divisors(n int) []int {
	var out []int
	for m := 1; m <= n; m++ {
		if n%m == 0 {
			out = append(out, m)
		}
	}
	return out
}

// layoutCount is the flush's step counts for k subnets of m.
func layoutCount(promote, ifaFlush bool) func(k, m int) (map[string]int64, error) {
	return func(k, m int) (map[string]int64, error) {
		return seed001Counts(Case{Promote: promote, Up: true, IfaFlush: ifaFlush, Layout: Layout{K: k, M: m}})(0)
	}
}

// Grid and check points of the layout polynomials. One subnet of one
// address has no secondaries and counts on a curve of its own (no
// promotion), so M = 1 is a polynomial in K alone.
var (
	layoutKs     = []int{1, 2, 3, 4}
	layoutMs     = []int{8, 16, 24, 32, 40}
	layoutChecks = []Layout{{5, 50}, {7, 3}, {6, 2}, {3, 60}, {9, 13}, {1, 300}}
	singleKs     = []int{2, 4, 6, 8}
	singleChecks = []int{10, 13}
)

// LayoutCounts returns the step counts of the flush of n addresses for
// each layout of ms (each M divides n): with promotion (before) and under
// +ifa-flush (after). Exact: polynomials in K and M fitted on small
// direct sim runs and checked exact at others (polyCounts2).
func LayoutCounts(n int, ms []int) (before, after []map[string]float64, err error) {
	var multi []Layout
	for _, m := range ms {
		if m < 1 || n%m != 0 {
			return nil, nil, fmt.Errorf("layout search: %d addresses do not split into subnets of %d", n, m)
		}
		if m > 1 {
			multi = append(multi, Layout{K: n / m, M: m})
		}
	}
	for _, promote := range []bool{true, false} {
		c := layoutCount(true, !promote)
		got, err := polyCounts2(c, layoutKs, layoutMs, layoutChecks, multi, layoutSteps)
		if err != nil {
			return nil, nil, err
		}
		var single map[string]float64
		for _, m := range ms {
			if m == 1 {
				one := func(k int) (map[string]int64, error) { return c(k, 1) }
				all, err := polyCounts(one, singleKs, singleChecks, n)
				if err != nil {
					return nil, nil, err
				}
				single = map[string]float64{}
				for _, s := range layoutSteps {
					single[s] = all[s]
				}
			}
		}
		out := make([]map[string]float64, 0, len(ms))
		for _, m := range ms {
			if m == 1 {
				out = append(out, single)
			} else {
				out = append(out, got[0])
				got = got[1:]
			}
		}
		if promote {
			before = out
		} else {
			after = out
		}
	}
	return before, after, nil
}

// LayoutFit is one layout's flush priced against a published pair.
type LayoutFit struct {
	Layout Layout
	// BeforeX1 and AfterX1 are the two flushes at the base prices, in
	// seconds.
	BeforeX1, AfterX1 float64
	// Factor is the one factor on the base prices that puts the "after"
	// flush on its published time.
	Factor float64
	// Before is the promoting flush at Factor times the base prices.
	Before float64
	// ErrPct is Before against the published "before" time.
	ErrPct float64
	// Fits: |ErrPct| is within the tolerance.
	Fits bool
}

// Ratio is the promoting flush's time over the +ifa-flush one: the
// factor cancels.
func (f LayoutFit) Ratio() float64 { return f.BeforeX1 / f.AfterX1 }

// FitLayouts prices each layout's counts at p, fits the factor to the
// published "after" time and compares "before" with its published time;
// tolPct is the tolerance in percent.
func FitLayouts(layouts []Layout, before, after []map[string]float64, p cost.Params, pubBefore, pubAfter, tolPct float64) []LayoutFit {
	out := make([]LayoutFit, len(layouts))
	for i, l := range layouts {
		f := LayoutFit{Layout: l, BeforeX1: priceCounts(before[i], p), AfterX1: priceCounts(after[i], p)}
		f.Factor = pubAfter / f.AfterX1
		f.Before = f.Factor * f.BeforeX1
		f.ErrPct = 100 * (f.Before - pubBefore) / pubBefore
		f.Fits = math.Abs(f.ErrPct) <= tolPct
		out[i] = f
	}
	return out
}

// SearchLayouts is the search for n addresses at each of prices: every
// M dividing n, one []LayoutFit per price set (the counts are made once).
func SearchLayouts(n int, prices []cost.Params, pubBefore, pubAfter, tolPct float64) ([][]LayoutFit, error) {
	ms := Divisors(n)
	before, after, err := LayoutCounts(n, ms)
	if err != nil {
		return nil, err
	}
	layouts := make([]Layout, len(ms))
	for i, m := range ms {
		layouts[i] = Layout{K: n / m, M: m}
	}
	out := make([][]LayoutFit, len(prices))
	for i, p := range prices {
		out[i] = FitLayouts(layouts, before, after, p, pubBefore, pubAfter, tolPct)
	}
	return out, nil
}

// LayoutPrices are the flush's prices fitted (Fit) to this machine's
// kernel away from one /8: 4,000 addresses in subnets of 1, 4 and 8,
// both promote settings (TestKernelSeed001Layouts). FlushPrices, fitted
// on one /8, price those flushes 15-47% low; the search is run at both to
// show its answer does not hang on them.
var LayoutPrices = cost.Params{RequestNs: 5_375, IfaWalkNs: 11, FibOpNs: 1_028}

// FitRange is the indexes of the first and last fitting layouts (-1, -1
// when none fits) and whether every layout between them fits.
func FitRange(fits []LayoutFit) (first, last int, contiguous bool) {
	first, last = -1, -1
	for i, f := range fits {
		if f.Fits {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return first, last, false
	}
	contiguous = true
	for _, f := range fits[first : last+1] {
		contiguous = contiguous && f.Fits
	}
	return first, last, contiguous
}

// Conclusion is the search's result in one line: which S fit, the sweep's
// neighbours that do not, and the one-subnet layout (the last).
func Conclusion(fits []LayoutFit, tolPct float64) string {
	all := fits[len(fits)-1]
	one := fmt.Sprintf("all %d in one subnet (S=%d) puts before at %s", all.Layout.N(), all.Layout.S(), pct(all.ErrPct))
	first, last, contiguous := FitRange(fits)
	if first < 0 {
		return fmt.Sprintf("no layout of equal subnets puts before within %g%% of its published time (the factor fitted to after); %s", tolPct, one)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the published pair fits S in [%d, %d] secondaries per subnet", fits[first].Layout.S(), fits[last].Layout.S())
	if !contiguous {
		b.WriteString(" (not every S between)")
	}
	fmt.Fprintf(&b, " (before within %g%%, the factor fitted to after", tolPct)
	if first > 0 {
		fmt.Fprintf(&b, "; S=%d gives %s", fits[first-1].Layout.S(), pct(fits[first-1].ErrPct))
	}
	if last+1 < len(fits) {
		fmt.Fprintf(&b, "; S=%d gives %s", fits[last+1].Layout.S(), pct(fits[last+1].ErrPct))
	}
	b.WriteString("); ")
	if all.Fits {
		b.WriteString("one /8 fits too")
	} else {
		b.WriteString("one /8 does not: " + one)
	}
	return b.String()
}

func pct(p float64) string {
	if math.Abs(p) >= 1e4 {
		return fmt.Sprintf("%+.2g%%", p)
	}
	return fmt.Sprintf("%+.1f%%", p)
}

// LayoutTable is the search as a repro section.
func LayoutTable(fits []LayoutFit, pubBefore, pubAfter, tolPct float64) repro.Section {
	sec := repro.Section{
		Title: fmt.Sprintf("layout search: %d addresses as K subnets of S+1 (S secondaries each; S+1 divides %d), the flush with promotion (before) and under +ifa-flush (after); "+
			"x1 is at this machine's flush prices, the factor puts after on %.3f s, before is then compared with %.3f s (published before/after %.3f; fits: within %g%%)",
			fits[0].Layout.N(), fits[0].Layout.N(), pubAfter, pubBefore, pubBefore/pubAfter, tolPct),
		Header: []string{"S", "subnets", "before x1", "after x1", "before/after", "factor", "before", "error", "fits"},
	}
	for _, f := range fits {
		fit := "no"
		if f.Fits {
			fit = "yes"
		}
		sec.Rows = append(sec.Rows, []string{strconv.Itoa(f.Layout.S()), strconv.Itoa(f.Layout.K),
			repro.FormatValue(f.BeforeX1, "s"), repro.FormatValue(f.AfterX1, "s"), fmt.Sprintf("%.3g", f.Ratio()),
			fmt.Sprintf("%.3f", f.Factor), repro.FormatValue(f.Before, "s"), pct(f.ErrPct), fit})
	}
	return sec
}
