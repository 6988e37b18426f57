package compare

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// Addrs compares two `ip -j addr show` lists exactly, in order: for every
// element the device (ifindex and name) and its addr_info array, every
// field of every address (flags, label, broadcast, scope, lifetimes). The
// rest of each element is its link header, which Links compares (with MAC
// addresses up to renaming), so it is left out here. "" when equal.
func Addrs(sim, kern []rtnl.LinkAddrs) string {
	return Lines("addresses", AddrLines(sim), AddrLines(kern))
}

// AddrLines is one line per device header and per address: the device as
// "IFINDEX: NAME", then its addresses as their addr_info JSON.
func AddrLines(l []rtnl.LinkAddrs) []string {
	var out []string
	for _, la := range l {
		out = append(out, fmt.Sprintf("%d: %s", la.Ifindex, la.Ifname))
		for _, a := range la.AddrInfo {
			out = append(out, "    "+jsonLine(a))
		}
	}
	return out
}

// Routes compares two `ip -j route show table all` lists exactly, in
// order, but for one thing the kernel does not fix: the order of the
// IPv6 routes that share a fib6 node's list (same table, prefix, type and
// metric: fe80::/64 and ff00::/8 of several devices), which is the order
// they went in, and devices that get their carrier in one linkwatch run
// get them in the order the linkwatch work and the kernel target's
// per-device sync happen to process them. Such runs compare sorted by
// device. "" when equal.
func Routes(sim, kern []rtnl.RouteEntry) string {
	return Lines("routes", RouteLines(canonRoutes6(sim)), RouteLines(canonRoutes6(kern)))
}

// Rules compares two rule lists (`ip -j rule show`, then IPv6's)
// exactly, in order, one rule per line in its JSON. "" when equal.
func Rules(sim, kern []rtnl.RuleEntry) string {
	lines := func(rs []rtnl.RuleEntry) []string {
		out := make([]string, 0, len(rs))
		for _, r := range rs {
			out = append(out, jsonLine(r))
		}
		return out
	}
	return Lines("rules", lines(sim), lines(kern))
}

// Nexthops compares two `ip -j nexthop show` lists exactly, in order,
// one nexthop per line in its JSON (none and an empty list alike). ""
// when equal.
func Nexthops(sim, kern []rtnl.NexthopEntryObj) string {
	lines := func(ns []rtnl.NexthopEntryObj) []string {
		out := make([]string, 0, len(ns))
		for _, e := range ns {
			out = append(out, jsonLine(e))
		}
		return out
	}
	return Lines("nexthops", lines(sim), lines(kern))
}

// canonRoutes6 sorts each run of IPv6 routes of one fib6 node list by
// device, in a copy.
func canonRoutes6(rs []rtnl.RouteEntry) []rtnl.RouteEntry {
	node := func(r rtnl.RouteEntry) string {
		m := -1
		if r.Metric != nil {
			m = int(*r.Metric)
		}
		return fmt.Sprintf("%s|%s|%s|%d", r.Table, r.Dst, r.Type, m)
	}
	out := slices.Clone(rs)
	for i := 0; i < len(out); {
		j := i + 1
		if strings.Contains(out[i].Dst, ":") {
			for j < len(out) && node(out[j]) == node(out[i]) {
				j++
			}
			slices.SortStableFunc(out[i:j], func(a, b rtnl.RouteEntry) int { return strings.Compare(a.Dev, b.Dev) })
		}
		i = j
	}
	return out
}

// RouteLines is one line per route, as `ip route show table all` prints
// it (rtnl.RouteText, which names every field), marked when its flags are
// null rather than an empty list, so that equal lines mean equal JSON.
func RouteLines(rs []rtnl.RouteEntry) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		l := rtnl.RouteText(r)
		if r.Flags == nil {
			l += " (flags: null)"
		}
		for _, nh := range r.Nexthops {
			if nh.Flags == nil {
				l += " (nexthop flags: null)"
			}
		}
		out = append(out, l)
	}
	return out
}

// FibTrie compares two /proc/net/fib_trie texts, text for text. "" when
// equal.
func FibTrie(sim, kern string) string {
	if sim == kern {
		return ""
	}
	return Lines("/proc/net/fib_trie", splitLines(sim), splitLines(kern))
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func jsonLine(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// diffContext is how many equal lines are shown around the first
// difference; diffMax how many differing lines of each side.
const (
	diffContext = 3
	diffMax     = 12
)

// Lines compares two texts line by line; "" when equal, otherwise the
// first differing stretch as a unified diff would show it: up to three
// equal lines before it, the sim's lines marked "-" and the kernel's "+"
// (at most twelve of each), then up to three equal lines after it.
func Lines(what string, sim, kern []string) string {
	pre := 0
	for pre < len(sim) && pre < len(kern) && sim[pre] == kern[pre] {
		pre++
	}
	if pre == len(sim) && pre == len(kern) {
		return ""
	}
	// The differing stretch ends where the two sides meet again: the
	// first pair of equal lines after it, searched in a window (this is
	// not a minimal diff, only a readable first difference).
	sEnd, kEnd := len(sim), len(kern)
	const window = 64
	found := false
	for d := 0; d <= 2*window && !found; d++ {
		for i := 0; i <= d; i++ {
			s, k := pre+i, pre+d-i
			if s < len(sim) && k < len(kern) && sim[s] == kern[k] {
				sEnd, kEnd, found = s, k, true
				break
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s differ (- sim, + kernel; %d lines on the sim, %d on the kernel), first at line %d:\n", what, len(sim), len(kern), pre+1)
	for i := max(0, pre-diffContext); i < pre; i++ {
		fmt.Fprintf(&b, "  %s\n", sim[i])
	}
	side := func(mark string, lines []string) {
		for i, l := range lines {
			if i == diffMax {
				fmt.Fprintf(&b, "%s ... (%d more)\n", mark, len(lines)-diffMax)
				break
			}
			fmt.Fprintf(&b, "%s %s\n", mark, l)
		}
	}
	side("-", sim[pre:sEnd])
	side("+", kern[pre:kEnd])
	for i := sEnd; i < len(sim) && i < sEnd+diffContext; i++ {
		fmt.Fprintf(&b, "  %s\n", sim[i])
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// FirstErrnoLine is the script line of the first request whose errno
// differs between two runs, 0 when none does.
func FirstErrnoLine(sim, kern []rtnl.LineError) int {
	s, k := map[int]string{}, map[int]string{}
	for _, e := range sim {
		s[e.Line] = e.Errno
	}
	for _, e := range kern {
		k[e.Line] = e.Errno
	}
	first := 0
	for _, m := range []map[int]string{s, k} {
		for ln := range m {
			if s[ln] != k[ln] && (first == 0 || ln < first) {
				first = ln
			}
		}
	}
	return first
}

// EventCounts compares, request by request, only how many notifications
// of each type and family the two runs sent: for runs whose notifications
// are too many to compare one by one. "" when equal.
func EventCounts(simEv, kernEv []rtnl.Event) string {
	req, msg := FirstEventCountDiff(simEv, kernEv)
	if req == 0 {
		return msg
	}
	return fmt.Sprintf("notification counts of request %d differ: %s", req, msg)
}

// FirstEventCountDiff is EventCounts with the number of the first
// differing request (0 and "" when none differs).
func FirstEventCountDiff(simEv, kernEv []rtnl.Event) (int, string) {
	count := func(evs []rtnl.Event) (map[int]map[string]int, int) {
		m := map[int]map[string]int{}
		last := 0
		for _, e := range evs {
			if m[e.Request] == nil {
				m[e.Request] = map[string]int{}
			}
			m[e.Request][e.Type+" "+e.Family]++
			last = max(last, e.Request)
		}
		return m, last
	}
	s, ls := count(simEv)
	k, lk := count(kernEv)
	if n := len(k[0]); n > 0 {
		return 0, fmt.Sprintf("%d kinds of kernel notifications carry no request number (is SyncLinkwatch on?)", n)
	}
	for r := 1; r <= max(ls, lk); r++ {
		if d := countsDiff(s[r], k[r]); d != "" {
			return r, d
		}
	}
	return 0, ""
}

func countsDiff(s, k map[string]int) string {
	keys := map[string]bool{}
	for x := range s {
		keys[x] = true
	}
	for x := range k {
		keys[x] = true
	}
	var diffs []string
	for x := range keys {
		if s[x] != k[x] {
			diffs = append(diffs, fmt.Sprintf("%s: sim %d, kernel %d", x, s[x], k[x]))
		}
	}
	if len(diffs) == 0 {
		return ""
	}
	sort.Strings(diffs)
	return strings.Join(diffs, "; ")
}
