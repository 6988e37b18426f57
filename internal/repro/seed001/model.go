package seed001

// Seed 001 in counters and virtual time: `ip addr flush dev D` of N IPv4
// addresses in one /8 on one device, with promote_secondaries 0 or 1, and
// under the +ifa-flush profile.
//
// The first address is the primary, the others its secondaries. The
// client reads the whole dump, then deletes in dump order (FlushWholeDump;
// iproute2 interleaves its deletes with its reads, Case.IPFlush). With promotion every delete
// removes the current primary and promotes the next secondary. Before
// that, __inet_del_ifa removes the routes of each of the m remaining
// secondaries (fib_del_ifaddr(ifa, ifa1)). Each such call scans the whole
// list. After the promotion it adds their routes back (fib_add_ifaddr). So
// every delete costs about 2m FIB operations and m^2 list steps: over the
// flush, fib operations grow as N^2 and list steps as N^3.
// Without promotion the first delete takes every secondary with it. Each
// one's NETDEV_DOWN runs fib_del_ifaddr, whose scan is O(m): N^2 list
// steps. The other N-1 deletes find nothing (EADDRNOTAVAIL), one request
// each. +ifa-flush's one-request flush (the thread's suggestion) leaves
// the list steps of the secondaries' scans but not the requests.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/internal/calib"
	"github.com/rtnlsim/rtnlsim/internal/kmeasure"
	"github.com/rtnlsim/rtnlsim/internal/repro"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/sim"
)

// Case is one flush scenario.
type Case struct {
	N       int  // addresses
	Promote bool // promote_secondaries on the device
	Up      bool // the device is up (prefix and broadcast routes exist)
	// IfaFlush is the +ifa-flush profile (promotion then changes nothing).
	IfaFlush bool
	// Layout, when set, places the addresses (N is then Layout.N());
	// the zero Layout is one /8.
	Layout Layout
	// IPFlush flushes as iproute2 does, its deletes interleaved with its
	// reads of the chunked dump (sim/ipflush.go), as the kernel target
	// (and so internal/kmeasure) now runs it; otherwise the client reads
	// the whole dump first, as the project's own client did when the
	// seed's kernel table in docs/seeds.md was measured, and the counts
	// are exact polynomials in N (the repro's extrapolation needs that).
	IPFlush bool
}

func (c Case) String() string {
	s := fmt.Sprintf("N=%d promote=%d", c.N, b2i(c.Promote))
	if c.Layout.K > 0 {
		s = fmt.Sprintf("N=%d (%d subnets of %d) promote=%d", c.Layout.N(), c.Layout.K, c.Layout.M, b2i(c.Promote))
	}
	if !c.Up {
		s += " down"
	}
	if c.IfaFlush {
		s += " +ifa-flush"
	}
	return s
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Requests is the scenario as a script: IPv6 off (as this machine's
// kernel measures it, internal/kmeasure: the flush would also delete the
// device's link-local address), the device, its promote setting, up or
// not, the N addresses, and the flush as the last request.
func Requests(c Case) []rtnl.Request {
	var b strings.Builder
	b.WriteString("sysctl net.ipv6.conf.all.disable_ipv6=1\nsysctl net.ipv6.conf.default.disable_ipv6=1\n")
	fmt.Fprintf(&b, "link add i0 type ifb\nsysctl net.ipv4.conf.i0.promote_secondaries=%d\n", b2i(c.Promote))
	if c.Up {
		b.WriteString("link set i0 up\n")
	}
	if c.Layout.K > 0 {
		addrs, err := c.Layout.Addrs()
		if err != nil {
			panic(err)
		}
		for _, a := range addrs {
			fmt.Fprintf(&b, "addr add %s dev i0\n", a)
		}
	} else {
		for i := 0; i < c.N; i++ {
			fmt.Fprintf(&b, "addr add %s dev i0\n", kmeasure.Slash8Addr(i))
		}
	}
	b.WriteString("addr flush dev i0\n")
	return repro.MustParse(b.String())
}

// Result is the flush request's work in the model.
type Result struct {
	Case          Case  `json:"case"`
	Requests      int64 `json:"requests"`
	IfaWalk       int64 `json:"ifa_walk"`
	FibOps        int64 `json:"fib_ops"`
	Notifications int64 `json:"notifications"`
	Promotions    int   `json:"promotions"`
	// Work is the flush's cost work.
	Work cost.Work `json:"-"`
}

// Flush runs the scenario on a fresh sim target and returns the
// flush's work. The addresses must all be gone afterwards.
func Flush(c Case) (Result, error) {
	return FlushWith(context.Background(), c, sim.Options{})
}

// Measured is the kernel's time for a case (wall time of the
// flush request).
type Measured struct {
	Case Case  `json:"case"`
	Ns   int64 `json:"ns"`
}

// seed001Params are the parameters the seed 001 fit sets; the others stay
// as they are (zero in the seed 000 fit). Notifications are not separated
// from FIB operations: every FIB operation of a flush sends one, so the
// two grow together and fib_op carries both.
var seed001Params = []cost.Step{cost.StepRequest, cost.StepIfaWalk, cost.StepFibOp}

// Fit fits request_ns, ifa_walk_ns and fib_op_ns to measured flush
// times by least squares on relative error (each row divided by its
// time, so a 10 ms row weighs as much as a 10 s one), non-negative
// (calib.NonNegLeastSquares).
// base gives the other parameters.
func Fit(base cost.Params, rows []Measured, cache Cache) (cost.Params, error) {
	if len(rows) < 2 {
		return base, errors.New("fit seed 001: need at least two measurements")
	}
	x := make([][]float64, len(rows))
	for i, r := range rows {
		res, err := cache.Flush(r.Case)
		if err != nil {
			return base, err
		}
		if r.Ns <= 0 {
			return base, fmt.Errorf("fit seed 001: %s: no time", r.Case)
		}
		for _, s := range seed001Params {
			x[i] = append(x[i], float64(res.Work.Count(s))/float64(r.Ns))
		}
	}
	// The prices are whole nanoseconds, and a list step costs a few: once
	// it is rounded, the other prices are fitted again around it.
	best := calib.NonNegLeastSquares(x, map[int]float64{})
	if best == nil {
		return base, errors.New("fit seed 001: no non-negative solution")
	}
	walk := 1 // index of cost.StepIfaWalk in seed001Params
	if best = calib.NonNegLeastSquares(x, map[int]float64{walk: math.Round(best[walk])}); best == nil {
		return base, errors.New("fit seed 001: no non-negative solution with the list step rounded")
	}
	out := base
	out.RequestNs = math.Round(best[0])
	out.IfaWalkNs = math.Round(best[1])
	out.FibOpNs = math.Round(best[2])
	return out, nil
}

// Cache keeps the model's flush results by case: a promoting
// flush of thousands of addresses takes seconds to simulate (it walks
// N^3 list steps). A nil cache computes every time.
type Cache map[Case]Result

// Flush is Flush through the cache.
func (m Cache) Flush(c Case) (Result, error) {
	if r, ok := m[c]; ok {
		return r, nil
	}
	r, err := Flush(c)
	if err == nil && m != nil {
		m[c] = r
	}
	return r, err
}

// Predict is the model's time for a case under p: the flush's work
// at p's prices.
func Predict(p cost.Params, c Case, cache Cache) (int64, Result, error) {
	res, err := cache.Flush(c)
	if err != nil {
		return 0, res, err
	}
	return res.Work.PlainNs(p), res, nil
}

// Format prints the counters of the cases, one row each.
func Format(rows []Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-28s %10s %14s %12s %14s %11s\n", "case", "requests", "ifa_walk", "fib_ops", "notifications", "promotions")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-28s %10d %14d %12d %14d %11d\n", r.Case, r.Requests, r.IfaWalk, r.FibOps, r.Notifications, r.Promotions)
	}
	return b.String()
}

// FlushPrices are the flush's prices fitted to this machine's 6.18
// kernel (TestKernelSeed001Prediction's measurements at N = 500 and 2000,
// both promote settings; the other prices 0, notifications riding on the
// FIB operations). Kept as a constant because the fit needs the kernel and
// about 100 s; sweep and repro use it as seed 001's prices, and a
// calibrated profile replaces it.
var FlushPrices = cost.Params{RequestNs: 13_000, IfaWalkNs: 5, FibOpNs: 1_310}
