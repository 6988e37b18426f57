package seed002

// Seed 002: "net: store netdevs in an xarray" (2023). Two things:
//
//   - the per-lookup cost of dev_get_by_index through the 256-bucket hash
//     and through the xarray, for 2..8192 devices (Jakub Kicinski's
//     microbenchmark on Skylake, ifindexes looked up in order). The model
//     counts lookup work but has no per-lookup price: hash chain entries
//     visited and xarray node visits per lookup (package netdevindex). One price
//     per method, fixed + per step, is fitted to the seed's table at two
//     sizes (2 and 1024 devices: both in the regime where the kernel's
//     structures stay in cache, and the seed's crossover is near 1024);
//     the other sizes are predictions.
//   - dump consistency: chunked link dumps over the hash can miss a device
//     present before and after the dump ([A,B,C], B deleted between chunks,
//     C missed); over the xarray they cannot, though they may return a set
//     that never existed ([A]); and xa_alloc_cyclic returns 1 after
//     wrapping. These are run on the model's index (qualitative rows).
//
// Kernel: the lookups are not measurable from user space (see the rows);
// the dump rows run the seed's case on this kernel (6.18 dumps the
// xarray): a dump read 4 KiB at a time, a device the first chunk returned
// deleted before the next is read.

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rtnlsim/rtnlsim/internal/repro"
	"github.com/rtnlsim/rtnlsim/kernel"
	"github.com/rtnlsim/rtnlsim/netdevindex"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/xarray"
)

func init() {
	repro.Register(repro.Seed{
		ID:      "002",
		Source:  repro.Source{List: "netdev", Date: "2023-07-24", Subject: "Re: [PATCH net-next 1/2] net: store netdevs in an xarray", Author: "Leon Romanovsky, replying to Jakub Kicinski"},
		Title:   "net: store netdevs in an xarray (2023)",
		Summary: "per-lookup ns, hash vs xarray, 2..8192 devices (541.3 vs 33.5 at 8192); chunked dumps over the hash miss a device, over the xarray not",
		Rows:    seed002Rows,
	})
}

// seed002Lookup is one line of the thread's lookup-cost table.
type seed002Lookup struct {
	devs     int
	line     int
	quote    string
	hash, xa float64
}

// ns is the seed's time per lookup for method m (0: hash, 1: xarray).
func (r seed002Lookup) ns(m int) float64 {
	if m == 1 {
		return r.xa
	}
	return r.hash
}

var seed002Table = []seed002Lookup{
	{2, 56, "2  | 18.3 | 20.1 | + 9.8%", 18.3, 20.1},
	{16, 57, "16  | 18.3 | 20.1 | + 9.5%", 18.3, 20.1},
	{64, 58, "64  | 18.3 | 26.3 | +43.8%", 18.3, 26.3},
	{128, 59, "128  | 20.4 | 26.3 | +28.6%", 20.4, 26.3},
	{256, 60, "256  | 20.0 | 26.4 | +32.1%", 20.0, 26.4},
	{1024, 61, "1024  | 26.6 | 26.7 | + 0.2%", 26.6, 26.7},
	{8192, 62, "8192  |541.3 | 33.5 | -93.8%", 541.3, 33.5},
}

// seed002FitDevs are the sizes the lookup prices are fitted at.
var seed002FitDevs = [2]int{2, 1024}

// Steps is the model's work per lookup with devs devices plus lo
// (ifindex 1, as the seed counts: "not counting loopback"), every device
// looked up once in ifindex order: hash chain entries visited, xarray
// node visits.
func Steps(devs int) (hash, xa float64, err error) {
	h := netdevindex.NewHash[int]()
	x := netdevindex.NewXarray[int]()
	for i := 0; i <= devs; i++ {
		if _, err := h.Add(0, i); err != nil {
			return 0, 0, err
		}
		if _, err := x.Add(0, i); err != nil {
			return 0, 0, err
		}
	}
	h.ResetSteps()
	x.ResetSteps()
	for ix := uint32(2); ix <= uint32(devs+1); ix++ {
		if _, ok := h.Lookup(ix); !ok {
			return 0, 0, fmt.Errorf("hash: ifindex %d missing", ix)
		}
		if _, ok := x.Lookup(ix); !ok {
			return 0, 0, fmt.Errorf("xarray: ifindex %d missing", ix)
		}
	}
	return float64(h.Steps()) / float64(devs), float64(x.Steps()) / float64(devs), nil
}

// linePrice is fixed + perStep*steps through two points.
type linePrice struct{ fixed, perStep float64 }

func fitLine(s1, t1, s2, t2 float64) (linePrice, error) {
	if s1 == s2 {
		return linePrice{}, fmt.Errorf("the two sizes have the same work per lookup (%.3g steps): no per-step price", s1)
	}
	b := (t2 - t1) / (s2 - s1)
	return linePrice{fixed: t1 - b*s1, perStep: b}, nil
}

func (l linePrice) at(steps float64) float64 { return l.fixed + l.perStep*steps }

// namedIfindex is a device added with an explicit ifindex.
type namedIfindex struct {
	name    string
	ifindex uint32
}

// seed002Dump is one dump scenario on the model's index: devices added
// with explicit ifindexes, a dump in chunks of k, mutations after the
// first chunk. It returns the names dumped, chunk by chunk.
type seed002Dump struct {
	adds  []namedIfindex
	k     int
	after []string // "del NAME" or "add NAME IFINDEX"
}

func (d seed002Dump) run(opts netdevindex.Options) ([][]string, error) {
	idx := netdevindex.NewTable[string](opts)
	ix := map[string]uint32{}
	for _, a := range d.adds {
		id, err := idx.Add(a.ifindex, a.name)
		if err != nil {
			return nil, err
		}
		ix[a.name] = id
	}
	dd := netdevindex.NewDump[string](idx, nil)
	var out [][]string
	for chunk := 0; ; chunk++ {
		ch := dd.Next(d.k)
		var names []string
		for _, e := range ch.Devs {
			names = append(names, e.Dev)
		}
		out = append(out, names)
		if chunk == 0 {
			for _, m := range d.after {
				f := strings.Fields(m)
				switch f[0] {
				case "del":
					if _, ok := idx.Del(ix[f[1]]); !ok {
						return nil, fmt.Errorf("del %s: not present", f[1])
					}
				case "add":
					id, err := strconv.ParseUint(f[2], 10, 32)
					if err != nil {
						return nil, err
					}
					if _, err := idx.Add(uint32(id), f[1]); err != nil {
						return nil, err
					}
				default:
					return nil, fmt.Errorf("seed002Dump: unknown mutation %q (want \"del NAME\" or \"add NAME IFINDEX\")", m)
				}
			}
		}
		if ch.Done {
			return out, nil
		}
		if chunk > 100 {
			return nil, fmt.Errorf("seed002Dump: the dump did not end after %d chunks", chunk+1)
		}
	}
}

func flat(chunks [][]string) []string {
	var out []string
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out
}

func showChunks(chunks [][]string) string {
	var parts []string
	for _, c := range chunks {
		parts = append(parts, "["+strings.Join(c, " ")+"]")
	}
	return strings.Join(parts, " ")
}

func seed002Fig(quote, shown string) repro.Figure {
	return repro.Figure{Quote: quote, Value: math.NaN(), Shown: shown}
}

func seed002Rows(ctx context.Context, o repro.Options) (*repro.Table, error) {
	t := &repro.Table{}
	// Lookup cost.
	steps := map[int][2]float64{}
	for _, r := range seed002Table {
		h, x, err := Steps(r.devs)
		if err != nil {
			return nil, err
		}
		steps[r.devs] = [2]float64{h, x}
	}
	var fits [2]linePrice
	byDevs := map[int]seed002Lookup{}
	for _, r := range seed002Table {
		byDevs[r.devs] = r
	}
	a, b := byDevs[seed002FitDevs[0]], byDevs[seed002FitDevs[1]]
	for m := 0; m < 2; m++ {
		f, err := fitLine(steps[a.devs][m], a.ns(m), steps[b.devs][m], b.ns(m))
		if err != nil {
			return nil, fmt.Errorf("lookup price, %s: %w", []string{"hash", "xarray"}[m], err)
		}
		fits[m] = f
	}
	t.Profile = fmt.Sprintf("per-lookup prices fitted to the seed's table at %d and %d devices: hash %.2f ns + %.2f ns per chain entry, xarray %.2f ns + %.2f ns per node visit "+
		"(the model counts the work, netdevindex/hash.go and xarray/; it has no per-lookup price of its own)",
		seed002FitDevs[0], seed002FitDevs[1], fits[0].fixed, fits[0].perStep, fits[1].fixed, fits[1].perStep)
	const gLookup = "dev_get_by_index, ns per lookup, 1M lookups in ifindex order (Jakub Kicinski, Skylake)"
	notMeasurable := "not measurable from user space: __dev_get_by_index is an in-kernel call of 20-540 ns; the nearest request, RTM_GETLINK by ifindex, adds a syscall, locking and a message built and copied, microseconds that bury it"
	for m, method := range []string{"hash", "xarray"} {
		for _, r := range seed002Table {
			st := steps[r.devs][m]
			role := repro.Predicted
			if r.devs == seed002FitDevs[0] || r.devs == seed002FitDevs[1] {
				role = repro.Fitted
			}
			unit := "chain entries"
			if m == 1 {
				unit = "node visits"
			}
			row := repro.Row{Group: gLookup, Scenario: fmt.Sprintf("%s, %d devs", method, r.devs), Unit: "ns",
				Seed:  repro.Figure{Quote: r.quote, Value: r.ns(m)},
				Model: repro.Cell{Value: ptr(fits[m].at(st)), Text: fmt.Sprintf("%.3g %s/lookup", st, unit)}, Role: role}
			if method == "hash" && r.devs == 8192 {
				row.Note = "the model's price per chain entry is that of a cached walk (fitted at 2 and 1024 devices); at 8192 the kernel walks 32-entry chains of cold net_devices, several KB apart: cache misses the model does not count"
			}
			if o.Kernel {
				row.Kernel = &repro.Kernel{Size: "-", Text: notMeasurable}
			}
			row.SetError()
			t.Rows = append(t.Rows, row)
		}
	}
	// Crossover: the smallest device count where the hash costs more
	// than the xarray, by bisection on the model's work between the
	// table's sizes where the order flips.
	worse := func(n int) (bool, error) {
		h, x, err := Steps(n)
		return fits[0].at(h) > fits[1].at(x), err
	}
	lo, hi := 0, 0
	for i := 1; i < len(seed002Table); i++ {
		a, err := worse(seed002Table[i-1].devs)
		if err != nil {
			return nil, err
		}
		b, err := worse(seed002Table[i].devs)
		if err != nil {
			return nil, err
		}
		if !a && b {
			lo, hi = seed002Table[i-1].devs, seed002Table[i].devs
			break
		}
	}
	if hi > 0 {
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			w, err := worse(mid)
			if err != nil {
				return nil, err
			}
			if w {
				hi = mid
			} else {
				lo = mid
			}
		}
		t.Notes = append(t.Notes, fmt.Sprintf("crossover: with the fitted prices the hash costs more than the xarray from %d devices on, in ifindex order "+
			"(the seed: 26.6 vs 26.7 ns at 1024; \"if the pattern is more random xa starts to win at 512 devices already\")", hi))
	} else {
		t.Notes = append(t.Notes, "crossover: with the fitted prices the hash never costs more than the xarray at the table's sizes")
	}

	t.Rows = append(t.Rows, repro.Row{Group: gLookup, Scenario: "random order: where the xarray starts to win", Unit: "devs",
		Seed: repro.Figure{Quote: "random xa starts to win at 512 devices already.", Value: 512},
		Model: repro.Cell{Text: fmt.Sprintf("the model's work per lookup is the same in any order (in order the fitted prices cross at %d devices); "+
			"what a random order changes is how much the cache and the prefetcher hide, which the model does not count", hi)},
		Role: repro.NotModelled})
	if o.Kernel {
		t.Rows[len(t.Rows)-1].Kernel = &repro.Kernel{Size: "-", Text: notMeasurable}
	}

	// Dump consistency on the model.
	const gDump = "chunked link dumps with a device deleted between chunks"
	abc := seed002Dump{k: 2, after: []string{"del B"}}
	// The gopter counterexample of netdevindex's TestDumpHashMissesShrinksToSeedCase:
	// B and C share bucket 4 (C first, so B is ahead of it in the chain).
	abc.adds = []namedIfindex{{"C", 260}, {"B", 4}, {"A", 2}}
	hashRun, err := abc.run(netdevindex.Before65())
	if err != nil {
		return nil, err
	}
	xaRun, err := abc.run(netdevindex.Since69())
	if err != nil {
		return nil, err
	}
	missed := func(run [][]string) string {
		if slices.Contains(flat(run), "C") {
			return "C dumped, nothing missed"
		}
		return "C missed"
	}
	never := seed002Dump{k: 1, after: []string{"add C 3", "del B"}}
	never.adds = []namedIfindex{{"A", 2}, {"B", 4}}
	neverRun, err := never.run(netdevindex.Since69())
	if err != nil {
		return nil, err
	}
	wrapID, wrapped, err := seed002Wrap()
	if err != nil {
		return nil, err
	}
	dumpRows := []repro.Row{
		{Group: gDump, Scenario: "hash (linux-6.4): [A,B,C], del B after chunk 1", Seed: seed002Fig("with the hash table we may dump [A, B], missing C completely even", "[A B]: C missed"),
			Model: repro.Cell{Text: showChunks(hashRun) + ": " + missed(hashRun)}, Role: repro.Qualitative, Agrees: repro.Agrees(!slices.Contains(flat(hashRun), "C")),
			Note: "A=2, B=4, C=260 (B and C share bucket 4, B at the chain's head), chunks of 2: the case the netdevindex gopter property shrinks to (go test ./netdevindex -run Dump -v)"},
		{Group: gDump, Scenario: "xarray (linux-6.18): the same", Seed: seed002Fig("can iterate ifindexes in order, without the worry that we'll", "no device skipped"),
			Model: repro.Cell{Text: showChunks(xaRun) + ": " + missed(xaRun)}, Role: repro.Qualitative, Agrees: repro.Agrees(slices.Contains(flat(xaRun), "C"))},
		{Group: gDump, Scenario: "xarray: [A,B], add C between A and B, del B, after chunk 1", Seed: seed002Fig("we may generate a dump of [A], if C got an index between A and B.", "dump [A]"),
			Model: repro.Cell{Text: showChunks(neverRun) + ": dump " + "[" + strings.Join(flat(neverRun), " ") + "]"}, Role: repro.Qualitative,
			Agrees: repro.Agrees(slices.Equal(flat(neverRun), []string{"A"})),
			Note:   "A=2, B=4, C=3, chunks of 1"},
		{Group: "ifindex allocation", Scenario: "xa_alloc_cyclic past INT_MAX", Seed: seed002Fig("Please pay attention that xa_alloc_cyclic() returns 1 if the allocation", "returns 1 after wrapping"),
			Model: repro.Cell{Text: fmt.Sprintf("next ifindex %d, wrapped=%v (the kernel's return value 1)", wrapID, wrapped)}, Role: repro.Qualitative,
			Agrees: repro.Agrees(wrapped),
			Note:   "xarray.AllocCyclic with the cursor at INT_MAX after one allocation there; the sim's ifindex allocation takes a wrap as success"},
	}
	if o.Kernel {
		o.Progressf("seed 002: the dump case on this kernel ...")
		k, err := seed002KernelDump(ctx)
		if err != nil {
			return nil, err
		}
		dumpRows[0].Kernel = &repro.Kernel{Size: "-", Text: "this kernel (6.18) dumps the xarray; the hash-walking dump is gone since 6.9"}
		dumpRows[1].Kernel = k
		dumpRows[2].Kernel = &repro.Kernel{Size: "-", Text: "not run on the kernel: needs an add to land between two chunks at a chosen ifindex between A and B (props/TestKernelDumpConsistency covers adds and deletes between chunks)"}
		dumpRows[3].Kernel = &repro.Kernel{Size: "-", Text: "not reachable from user space in reasonable time: the cursor moves only by allocation, 2^31 device creations"}
	}
	t.Rows = append(t.Rows, dumpRows...)
	return t, nil
}

func ptr(v float64) *float64 { return &v }

// seed002Wrap allocates at INT_MAX and then once more.
func seed002Wrap() (uint32, bool, error) {
	xa := xarray.New[int](xarray.FlagsAlloc1)
	if _, _, err := xa.AllocCyclic(1, xarray.Limit31b, new(uint32)); err != nil {
		return 0, false, err
	}
	next := uint32(math.MaxInt32)
	if _, _, err := xa.AllocCyclic(2, xarray.Limit31b, &next); err != nil {
		return 0, false, err
	}
	return xa.AllocCyclic(3, xarray.Limit31b, &next)
}

// seed002KernelDump runs the seed's case on this kernel: lo and 12 ifb
// devices, a link dump read 4 KiB at a time. A first dump, unchanged,
// shows the chunks. In the second, after chunk 1 is read (the kernel has
// then built chunk 2 already: its cursor is past chunk 2's last device),
// that last device (B) is deleted; the device after it (C, chunk 3's
// first) must still be dumped, and every other device once.
func seed002KernelDump(ctx context.Context) (*repro.Kernel, error) {
	kt, err := kernel.New(kernel.Options{})
	if err != nil {
		return nil, err
	}
	defer kt.Close()
	const n = 12
	for i := 1; i <= n; i++ {
		if err := kt.Apply(ctx, rtnl.Request{Op: rtnl.LinkAdd{Name: fmt.Sprintf("d%d", i), Kind: rtnl.KindIfb}}); err != nil {
			return nil, err
		}
	}
	names := func(chunks []kernel.DumpChunk) [][]string {
		var out [][]string
		for _, c := range chunks {
			var ns []string
			for _, l := range c.Links {
				ns = append(ns, l.Name)
			}
			if len(ns) > 0 {
				out = append(out, ns)
			}
		}
		return out
	}
	plain, err := kt.LinkDumpChunked(4096, nil)
	if err != nil {
		return nil, err
	}
	pc := names(plain)
	if len(pc) < 3 || len(pc[1]) == 0 || len(pc[2]) == 0 {
		return nil, fmt.Errorf("seed 002 on the kernel: the dump came in %d chunks %v, want at least 3", len(pc), pc)
	}
	b, c := pc[1][len(pc[1])-1], pc[2][0]
	var delErr error
	chunks, err := kt.LinkDumpChunked(4096, func(k int) error {
		if k == 1 {
			delErr = kt.Apply(ctx, rtnl.Request{Op: rtnl.LinkDel{Dev: b}})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if delErr != nil {
		return nil, fmt.Errorf("seed 002 on the kernel: link del %s: %w", b, delErr)
	}
	got := names(chunks)
	seen := map[string]int{}
	for _, n := range flat(got) {
		seen[n]++
	}
	verdict := "C dumped, nothing missed or repeated"
	for _, n := range flat(pc) {
		if n != b && seen[n] != 1 {
			verdict = fmt.Sprintf("%s dumped %d times", n, seen[n])
			break
		}
	}
	if seen[c] == 0 {
		verdict = "C missed"
	}
	return &repro.Kernel{Size: fmt.Sprintf("lo + %d ifb, 4 KiB reads", n),
		Text: fmt.Sprintf("%s; B=%s deleted after chunk 1 (the kernel had built chunk 2), C=%s: %s; model (xarray): C dumped", showChunks(got), b, c, verdict)}, nil
}
