package fibtrie

import (
	"fmt"
	"strings"
)

// Seed 003 (shared/seeds/003_*.txt): 10K dummy devices, each with one
// address 72.j.k.1/24 (j = 1..40, k = 1..250). Every address puts three
// routes in the merged local/main trie: the local /32, the /24 prefix and
// the broadcast /32. Deleting one device flushes its routes; in 4.2-rc3
// fib_table_flush then called leaf_pull_suffix for every surviving leaf,
// each of which rescanned the big tnode in update_suffix.

// Seed003Routes returns the routes of the first n addresses of the seed, in
// the order fib_add_ifaddr installs them; device l (1-based) has ifindex
// ifindexBase+l.
func Seed003Routes(n int, ifindexBase int) []Route {
	out := make([]Route, 0, 3*n)
	for l := 0; l < n; l++ {
		j, k := uint32(l/250+1), uint32(l%250+1)
		net := 72<<24 | j<<16 | k<<8
		src := net | 1
		oif := ifindexBase + l + 1
		out = append(out,
			Route{Dst: src, Len: 32, Table: TableLocal, Type: TypeLocal, Scope: ScopeHost, Protocol: 2, PrefSrc: src, OIF: oif},
			Route{Dst: net, Len: 24, Table: TableMain, Type: TypeUnicast, Scope: ScopeLink, Protocol: 2, PrefSrc: src, OIF: oif},
			Route{Dst: net | 255, Len: 32, Table: TableLocal, Type: TypeBroadcast, Scope: ScopeLink, Protocol: 2, PrefSrc: src, OIF: oif},
		)
	}
	return out
}

// seed003FIB is a FIB under opts holding the routes of the seed's first n
// addresses, device l (1-based) on ifindex l+1, so address i (0-based) is
// on ifindex i+2.
func seed003FIB(n int, opts Options) *FIB {
	return mustBuild(opts, Seed003Routes(n, 1))
}

// mustBuild is a FIB under opts with routes added in order; they must not
// collide.
func mustBuild(opts Options, routes []Route) *FIB {
	f := New(opts)
	for _, r := range routes {
		if err := f.Add(r); err != nil {
			panic(err)
		}
	}
	return f
}

// Seed003Row is one line of the seed 003 table: the work of the flush that
// follows removing one device, with n addresses configured.
type Seed003Row struct {
	Prefixes           int    // addresses (each a /24) in the trie
	Profile            string // linux-4.2-rc3, linux-4.2 or linux-6.18
	Removed            int    // routes the flush removed
	UpdateSuffixCalls  uint64 // during the flush
	UpdateSuffixVisits uint64 // child slots update_suffix examined during the flush
	FlushLeafVisits    uint64
	ResizeCalls        uint64
	BigNodeBits        uint8 // bits of the largest tnode, the one the seed's thread talks about
}

// Profile is a named set of Options.
type Profile struct {
	Name string
	Opts Options
}

// Seed003Profiles are the behaviours the seed 003 table compares.
func Seed003Profiles() []Profile {
	return []Profile{
		{"linux-4.2-rc3", Linux42rc3()},
		{"linux-4.2", Linux42()},
		{"linux-6.18", Linux618()},
	}
}

// Seed003Flush builds the seed's trie with n addresses under opts, removes
// the device of address victim (0-based) as unregistering it does (its
// nexthops marked dead, then fib_flush over all tables) and returns the
// flush's counters.
func Seed003Flush(n, victim int, name string, opts Options) Seed003Row {
	f := seed003FIB(n, opts)
	row := Seed003Row{Prefixes: n, Profile: name, BigNodeBits: f.maxBits()}
	f.ResetCounters()
	f.SyncDownDev(victim+2, true)
	row.Removed = f.Flush(nil)
	c := f.Counters()
	row.UpdateSuffixCalls = c.UpdateSuffixCalls
	row.UpdateSuffixVisits = c.UpdateSuffixVisits
	row.FlushLeafVisits = c.FlushLeafVisits
	row.ResizeCalls = c.ResizeCalls
	return row
}

// Seed003Table returns the seed 003 table for the given sizes (nil means
// 1K, 2.5K, 5K, 10K), removing the device two thirds in (as the seed's
// dummy6666 of 10K), for every profile of Seed003Profiles.
func Seed003Table(sizes []int) []Seed003Row {
	if sizes == nil {
		sizes = []int{1000, 2500, 5000, 10000}
	}
	var rows []Seed003Row
	for _, n := range sizes {
		for _, p := range Seed003Profiles() {
			rows = append(rows, Seed003Flush(n, n*2/3, p.Name, p.Opts))
		}
	}
	return rows
}

func (f *FIB) maxBits() uint8 {
	var b uint8
	for _, tb := range f.tables() {
		var walk func(n *node)
		walk = func(n *node) {
			if n == nil || n.isLeaf() {
				return
			}
			b = max(b, n.bits)
			for _, ch := range n.child {
				walk(ch)
			}
		}
		walk(tb.t.root())
	}
	return b
}

// FormatSeed003 renders rows as an aligned text table: us_visits and
// us_calls are update_suffix's slot visits and calls during the flush,
// leafvisit the leaves the flush walks looked at (main and local both walk
// the merged trie), bits the size of the largest tnode.
func FormatSeed003(rows []Seed003Row) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-8s %-14s %8s %14s %10s %10s %10s %5s\n", "prefixes", "profile", "removed",
		"us_visits", "us_calls", "leafvisit", "resizes", "bits")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-8d %-14s %8d %14d %10d %10d %10d %5d\n", r.Prefixes, r.Profile, r.Removed,
			r.UpdateSuffixVisits, r.UpdateSuffixCalls, r.FlushLeafVisits, r.ResizeCalls, r.BigNodeBits)
	}
	return b.String()
}

// Seed003DeleteAll replays the seed's delete script on n addresses: every
// device is removed in turn (its routes marked dead, then fib_flush), and
// it returns the update_suffix slot visits summed over all the flushes.
func Seed003DeleteAll(n int, opts Options) uint64 {
	f := seed003FIB(n, opts)
	f.ResetCounters()
	for l := 0; l < n; l++ {
		f.SyncDownDev(l+2, true)
		f.Flush(nil)
	}
	return f.Counters().UpdateSuffixVisits
}
