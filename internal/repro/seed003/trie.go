package seed003

import (
	"fmt"
	"strings"

	"github.com/rtnlsim/rtnlsim/fibtrie"
	"github.com/rtnlsim/rtnlsim/sim"
)

// Seed 003: 10K dummy devices, each with one
// address 72.j.k.1/24 (j = 1..40, k = 1..250). Every address puts three
// routes in the merged local/main trie: the local /32, the /24 prefix and
// the broadcast /32. Deleting one device flushes its routes; in 4.2-rc3
// fib_table_flush then called leaf_pull_suffix for every surviving leaf,
// each of which rescanned the big tnode in update_suffix.

// Routes returns the routes of the first n addresses of the seed, in
// the order fib_add_ifaddr installs them; device l (1-based) has ifindex
// ifindexBase+l.
func Routes(n int, ifindexBase int) []fibtrie.Route {
	out := make([]fibtrie.Route, 0, 3*n)
	for l := 0; l < n; l++ {
		j, k := uint32(l/250+1), uint32(l%250+1)
		out = append(out, fibtrie.IfaddrRoutes(72<<24|j<<16|k<<8|1, 24, ifindexBase+l+1)...)
	}
	return out
}

// seed003FIB is a FIB under opts holding the routes of the seed's first n
// addresses, device l (1-based) on ifindex l+1, so address i (0-based) is
// on ifindex i+2.
func seed003FIB(n int, opts fibtrie.Options) *fibtrie.FIB {
	return mustBuild(opts, Routes(n, 1))
}

// mustBuild is a FIB under opts with routes added in order; they must not
// collide.
func mustBuild(opts fibtrie.Options, routes []fibtrie.Route) *fibtrie.FIB {
	f := fibtrie.New(opts)
	for _, r := range routes {
		if err := f.Add(r); err != nil {
			panic(err)
		}
	}
	return f
}

// TrieRow is one line of the seed 003 table: the work of the flush that
// follows removing one device, with n addresses configured.
type TrieRow struct {
	Prefixes           int    // addresses (each a /24) in the trie
	Profile            string // linux-4.2-rc3, linux-4.2 or linux-6.18
	Removed            int    // routes the flush removed
	UpdateSuffixCalls  uint64 // during the flush
	UpdateSuffixVisits uint64 // child slots update_suffix examined during the flush
	FlushLeafVisits    uint64
	ResizeCalls        uint64
	BigNodeBits        uint8 // bits of the largest tnode, the one the seed's thread talks about
}

// TrieProfiles are the kernels the seed 003 table compares.
func TrieProfiles() []sim.Profile {
	var out []sim.Profile
	for _, name := range []string{"linux-4.2-rc3", "linux-4.2", "linux-6.18"} {
		out = append(out, sim.MustParseProfile(name))
	}
	return out
}

// TrieFlush builds the seed's trie with n addresses under opts, removes
// the device of address victim (0-based) as unregistering it does (its
// nexthops marked dead, then fib_flush over all tables) and returns the
// flush's counters.
func TrieFlush(n, victim int, name string, opts fibtrie.Options) TrieRow {
	f := seed003FIB(n, opts)
	row := TrieRow{Prefixes: n, Profile: name, BigNodeBits: f.LargestTnodeBits()}
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

// TrieTable returns the seed 003 table for the given sizes (nil means
// 1K, 2.5K, 5K, 10K), removing the device two thirds in (as the seed's
// dummy6666 of 10K), for every profile of TrieProfiles.
func TrieTable(sizes []int) []TrieRow {
	if sizes == nil {
		sizes = []int{1000, 2500, 5000, 10000}
	}
	var rows []TrieRow
	for _, n := range sizes {
		for _, p := range TrieProfiles() {
			rows = append(rows, TrieFlush(n, n*2/3, p.Name, p.FIB))
		}
	}
	return rows
}

// FormatTrie renders rows as an aligned text table: us_visits and
// us_calls are update_suffix's slot visits and calls during the flush,
// leafvisit the leaves the flush walks looked at (main and local both walk
// the merged trie), bits the size of the largest tnode.
func FormatTrie(rows []TrieRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-8s %-14s %8s %14s %10s %10s %10s %5s\n", "prefixes", "profile", "removed",
		"us_visits", "us_calls", "leafvisit", "resizes", "bits")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-8d %-14s %8d %14d %10d %10d %10d %5d\n", r.Prefixes, r.Profile, r.Removed,
			r.UpdateSuffixVisits, r.UpdateSuffixCalls, r.FlushLeafVisits, r.ResizeCalls, r.BigNodeBits)
	}
	return b.String()
}

// TrieDeleteAll replays the seed's delete script on n addresses: every
// device is removed in turn (its routes marked dead, then fib_flush), and
// it returns the update_suffix slot visits summed over all the flushes.
func TrieDeleteAll(n int, opts fibtrie.Options) uint64 {
	f := seed003FIB(n, opts)
	f.ResetCounters()
	for l := 0; l < n; l++ {
		f.SyncDownDev(l+2, true)
		f.Flush(nil)
	}
	return f.Counters().UpdateSuffixVisits
}
