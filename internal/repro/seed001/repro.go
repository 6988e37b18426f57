package seed001

// Seed 001: "ipv4: Don't promote secondaries when flushing addresses"
// (2018 RFC). One experiment: `ip addr flush` of 40,000 addresses on one
// dummy, 30.596 s with promote_secondaries (before) and 7.601 s with the
// RFC's IFA_F_FLUSH (after: no promotion).
//
// The model (Flush) puts the addresses in one /8 on an UP
// device, as the thread implies (every address after the first a
// secondary of it). Its counts at 40,000 are too many to simulate (with
// promotion, list steps grow as N^3: 2e13), so they come from exact
// polynomials: the count of each step FlushPrices prices is taken at four sizes, the polynomial
// through them is checked to be exact at two more, and evaluated at
// 40,000 (polyCounts). The prices: FlushPrices, this machine's fit (request
// 13.0 us, list step 5 ns, FIB operation 1.31 us) times one factor, fitted to the "after" row. The
// "before" row is the prediction, and it is off by orders of magnitude:
// this kernel shows that 30.6 s cannot be one /8 on this kernel (the promote
// flush is cubic there: 4,000 addresses took 145 s). The thread does not
// say how its addresses were laid out, so the layout search (search.go)
// sweeps the splits into equal subnets and reports those that fit both
// figures, in a note and, with Options.Layouts, a table.
//
// Kernel sizes: seed001Sizes (the keys of Options.KernelSizes and --size).

import (
	"context"
	"fmt"
	"math"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/internal/kmeasure"
	"github.com/rtnlsim/rtnlsim/internal/repro"
	"github.com/rtnlsim/rtnlsim/rtnl"
)

func init() {
	repro.Register(repro.Seed{
		ID:      "001",
		Source:  repro.Source{List: "netdev", Date: "2018-06-07", Subject: "[RFC net-next] ipv4: Don't promote secondaries when flushing addresses", Author: "Jakub Sitnicki; replies by Michal Kubecek, Phil Sutter"},
		Title:   "ipv4: Don't promote secondaries when flushing addresses (2018 RFC)",
		Summary: "flush of 40,000 addresses: 30.6 s with promote_secondaries vs 7.6 s with IFA_F_FLUSH",
		Rows:    seed001Rows,
		Sizes:   seed001Sizes,
		Layouts: true,
	})
}

var seed001Sizes = []repro.Size{
	{Key: "001/promote", Default: 1000, What: "addresses in one /8 flushed with promote_secondaries=1"},
	{Key: "001/no-promote", Default: 2000, What: "addresses in one /8 flushed with promote_secondaries=0 (this kernel has no IFA_F_FLUSH)"},
}

// The experiment: addresses, published times (s), and the tolerance of
// the layout search (percent).
const (
	seed001N      = 40000
	seed001Before = 30.596
	seed001After  = 7.601
	seed001Tol    = 25
)

// seed001Counts is the flush's counts for case c at size n of the steps
// FlushPrices prices (seed001Params): the trie's counts, such as the tnodes
// its inflates and halves build, follow the addresses' bits and are not
// polynomials in N.
func seed001Counts(c Case) func(n int) (map[string]int64, error) {
	return func(n int) (map[string]int64, error) {
		c.N = n
		r, err := Flush(c)
		if err != nil {
			return nil, err
		}
		out := map[string]int64{}
		for _, s := range seed001Params {
			if k := r.Work.Count(s); k != 0 {
				out[s.String()] = k
			}
		}
		return out, nil
	}
}

// priceCounts prices step counts at p, in seconds.
func priceCounts(counts map[string]float64, p cost.Params) float64 {
	ns := 0.0
	for _, s := range cost.Steps() {
		ns += counts[s.String()] * float64(p.Cost(s))
	}
	return ns / 1e9
}

// seed001Scenario is the flush of n addresses in one /8 of an UP ifb,
// with promote_secondaries on or off, as a kernel scenario (IPv6 off:
// the device carries IPv4 addresses only).
func seed001Scenario(n int, promote bool) (kmeasure.Scenario, error) {
	setup, err := kmeasure.Setup(kmeasure.Config{N: n, Promote: promote, Up: true})
	if err != nil {
		return kmeasure.Scenario{}, err
	}
	return kmeasure.Scenario{
		Name:    fmt.Sprintf("addr flush, %d in one /8, promote=%d", n, b2i(promote)),
		Sysctls: map[string]string{"net.ipv6.conf.all.disable_ipv6": "1", "net.ipv6.conf.default.disable_ipv6": "1"},
		Setup:   setup,
		Timed:   [][]rtnl.Request{{kmeasure.Flush}},
	}, nil
}

func seed001Rows(ctx context.Context, o repro.Options) (*repro.Table, error) {
	xs, checks := []int{60, 120, 180, 240}, []int{300, 330}
	o.Progressf("seed 001: step counts of the flush at N=%v (checked at %v), extrapolated to %d ...", xs, checks, seed001N)
	promote := Case{Promote: true, Up: true}
	flush := Case{Promote: true, Up: true, IfaFlush: true}
	cp, err := polyCounts(seed001Counts(promote), xs, checks, seed001N)
	if err != nil {
		return nil, err
	}
	cf, err := polyCounts(seed001Counts(flush), xs, checks, seed001N)
	if err != nil {
		return nil, err
	}
	// One factor on FlushPrices, fitted to the "after" row.
	k := seed001After / priceCounts(cf, FlushPrices)
	era := cost.Params{
		RequestNs: math.Round(k * FlushPrices.RequestNs),
		IfaWalkNs: math.Round(k * FlushPrices.IfaWalkNs),
		FibOpNs:   math.Round(k * FlushPrices.FibOpNs),
	}
	t := &repro.Table{Profile: fmt.Sprintf("this machine's flush prices (request 13.0 us, list step 5 ns, FIB op 1.31 us) x %.3f, "+
		"the one factor fitted to the IFA_F_FLUSH row (rounded to whole ns for the kernel column: request %.1f us, list step %.0f ns, FIB op %.2f us)",
		k, era.RequestNs/1e3, era.IfaWalkNs, era.FibOpNs/1e3)}
	const g = "40,000 addresses on one dummy, `ip -stats addr flush dev dum0` (Jakub Sitnicki)"
	// The rows use the unrounded factor; the rounded prices (era) price
	// the kernel column when no calibrated profile is given.
	before := k * priceCounts(cp, FlushPrices)
	after := k * priceCounts(cf, FlushPrices)
	rows := []repro.Row{
		{Group: g, Scenario: "before: promote_secondaries=1", Unit: "s",
			Seed:  repro.Figure{Quote: "real    0m30.596s", Value: 30.596},
			Model: repro.Cell{Value: &before, Text: fmt.Sprintf("%.1f days", before/86400)}, Role: repro.Predicted,
			Note: fmt.Sprintf("model: all 40,000 in one /8, so every delete promotes the next secondary and re-adds its subnet's routes: %.2g list steps, %.2g FIB ops "+
				"(counts are exact polynomials in N: fitted at N=%v, checked exact at %v). This kernel shows this cubic growth (4,000 addresses: 145 s), so 30.6 s "+
				"cannot be one /8: the thread does not say how its addresses were laid out, and the layout search (below) finds which layouts fit", cp["ifa_walk"], cp["fib_op"], xs, checks)},
		{Group: g, Scenario: "after: IFA_F_FLUSH (no promotion)", Unit: "s",
			Seed:  repro.Figure{Quote: "real    0m7.601s", Value: 7.601},
			Model: repro.Num(after), Role: repro.Fitted,
			Note: fmt.Sprintf("profile +ifa-flush: the flush is one request without promotion (Michal Kubecek's suggestion in the thread); the RFC as posted sends %d requests, "+
				"which the model prices %.2f s more. %.2g list steps: each secondary's fib_del_ifaddr scans the list", seed001N-1,
				float64(seed001N-1)*float64(era.RequestNs)/1e9, cf["ifa_walk"])},
	}
	for i := range rows {
		rows[i].SetError()
	}
	t.Rows = rows
	o.Progressf("seed 001: layout search: the flush of %d addresses in K subnets of M, for every M dividing it ...", seed001N)
	both, err := SearchLayouts(seed001N, []cost.Params{FlushPrices, LayoutPrices}, seed001Before, seed001After, seed001Tol)
	if err != nil {
		return nil, err
	}
	fits := both[0]
	t.Notes = append(t.Notes, "layouts (the thread does not say how its addresses were laid out; --layouts prints the search): "+Conclusion(fits, seed001Tol),
		fmt.Sprintf("layouts at prices fitted to this kernel's flushes of 4,000 addresses in subnets of 1, 4 and 8 (request %.2f us, list step %.0f ns, FIB op %.2f us; the factor again fitted to after): %s",
			LayoutPrices.RequestNs/1e3, LayoutPrices.IfaWalkNs, LayoutPrices.FibOpNs/1e3, Conclusion(both[1], seed001Tol)))
	if o.Layouts {
		t.Sections = append(t.Sections, LayoutTable(fits, seed001Before, seed001After, seed001Tol))
	}
	if o.LayoutsPlot != "" {
		if err := PlotLayouts(fits, seed001Before, seed001Tol, o.LayoutsPlot); err != nil {
			return nil, err
		}
	}
	if o.Kernel {
		for i, c := range []struct {
			key     string
			promote bool
		}{{"001/promote", true}, {"001/no-promote", false}} {
			kc := repro.KernelCase{Key: c.key, N: repro.SizeOf(seed001Sizes, c.key),
				Size: func(n int) string {
					return fmt.Sprintf("N=%d in one /8, promote=%d", n, b2i(c.promote))
				},
				Scenario: func(n int) (kmeasure.Scenario, error) { return seed001Scenario(n, c.promote) }}
			kk, err := repro.MeasureKernel(ctx, o, kc, era, "the seed-001 fit")
			if err != nil {
				return nil, err
			}
			if !c.promote {
				kk.Text = "this kernel has no IFA_F_FLUSH; measured with promote_secondaries=0, the flag's effect (N requests, not one)"
			}
			t.Rows[i].Kernel = kk
		}
	}
	return t, nil
}
