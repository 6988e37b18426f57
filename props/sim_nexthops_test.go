package props

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/internal/differ"
	"github.com/rtnlsim/rtnlsim/rtnl"
)

// TestSimNexthopsMatchKernel is the differential property of nexthop
// objects (sim/nexthop.go, sim/route6nh.go): random scripts of `nexthop
// add|replace` (an IPv4 or IPv6 gateway through a device, a device alone,
// IPv4 onlink, a blackhole of either family, mpath groups with weights
// whose members may be of both families, and the refused kinds: no
// device, an unreachable or local gateway, an unknown device, -6 with a
// group, nested groups, members twice or missing, a blackhole among
// others), `nexthop del` and `nexthop flush`, mixed with IPv4 and IPv6
// routes that use them (`nhid`, in main and another table, with a metric,
// a scope, or a device too; add, replace, append, prepend, change), plain
// routes beside them, their deletes, and with devices going down, up,
// losing their carrier (a veth whose peer goes down), deleted and made
// again, IPv6 disabled and enabled on one, run with `rtnlsim diff
// --ipv6`'s comparison (differ.Run): every line's errno, the routes and
// `ip -j nexthop`, fib_trie and every notification, request by request.
// TestNexthopScriptGenTakesEveryBranch checks the generator's branches.
// A failure is shrunk and written to a file that `rtnlsim diff` replays.
// RTNLSIM_SIM_NEXTHOPS_BATCHES sets the number of batches.
func TestSimNexthopsMatchKernel(t *testing.T) {
	diffProperty(t, "sim and kernel agree on errnos, nexthops, routes, fib_trie and notifications", "RTNLSIM_SIM_NEXTHOPS_BATCHES", 16,
		nexthopScriptGen(10, 28), "rtnlsim-nexthops-counterexample-*.ip", nexthopsCase,
		"nexthop add ok", "nexthop6 add ok", "route nhid ok", "route6 nhid ok", "group left")
}

// nexthopsPrologue makes the devices the nexthops go through: two ifb
// devices and a veth whose peer gives it its carrier.
var nexthopsPrologue = []string{
	"link set lo up", "link add i0 type ifb", "link add i1 type ifb", "link add v0 type veth peer name v1",
	"link set i0 up", "link set i1 up", "link set v1 up", "link set v0 up",
	"addr add 10.0.0.1/24 dev i0", "addr add 10.1.0.1/24 dev i1", "addr add 10.2.0.1/24 dev v0",
	"addr add 2001:db8::1/64 dev i0 nodad", "addr add 2001:db8:1::1/64 dev i1 nodad", "addr add 2001:db8:2::1/64 dev v0 nodad",
}

// Pools the nexthop lines draw from, so that requests meet.
var (
	nhSingleIDs = []string{"1", "2", "3", "4", "5"}
	nhGroupIDs  = []string{"10", "11", "12"}
	nhSingles   = []string{"via 10.0.0.2 dev i0", "via 10.1.0.2 dev i1", "dev i0", "dev i1", "via 10.2.0.2 dev v0",
		"via 10.9.0.2 dev i1 onlink", "blackhole", "via 10.0.0.3 dev i0", "dev v0"}
	nhBad = []string{"via 10.0.0.2", "via 10.9.0.2 dev i0", "dev i0 onlink", "dev gone", "via 10.1.0.2 dev i0"}
	// IPv6 gateways (the family from the address), and what -6 makes of a
	// device alone, a blackhole, a group or nothing.
	nhSingles6 = []string{"via 2001:db8::2 dev i0", "via 2001:db8:1::2 dev i1", "via fe80::1 dev i1", "via 2001:db8:2::2 dev v0",
		"via 2001:db8::3 dev i0"}
	nhBad6   = []string{"via 2001:db8:9::2 dev i0", "via 2001:db8::1 dev i0", "via ff02::1 dev i1", "via 2001:db8:1::2 dev i0", "via fe80::1 dev lo"}
	nhMinus6 = []string{"dev i0", "dev i1", "dev v0", "blackhole", "dev lo", "group 1/2", ""}
	nhGroups = []string{"group 1/2", "group 1,3/2,5", "group 2/3/4", "group 5", "group 1/4,2", "group 3/5"}
	nhBadGrp = []string{"group 1/1", "group 10", "group 99", "group 1/10"}
	nhRoutes = []string{"route add 198.51.100.0/24 nhid 1", "route add 198.51.101.0/24 nhid 10",
		"route replace 198.51.100.0/24 nhid 11", "route add 203.0.113.0/24 nhid 2 table 100",
		"route add 198.51.100.0/24 nhid 12 metric 7", "route add 198.51.102.0/24 nhid 3 scope link",
		"route add 198.51.103.0/24 nhid 4", "route add 198.51.104.0/24 nhid 5", "route add 198.51.100.0/24 nhid 2 dev i0",
		"route add 198.51.105.0/24 nhid 99", "route replace 203.0.113.0/24 nhid 10 table 100",
		"route add 198.51.106.0/24 nhid 11 scope host", "route append 198.51.100.0/24 nhid 2",
		"route prepend 198.51.100.0/24 nhid 3", "route change 198.51.100.0/24 nhid 1",
		"route add 198.51.100.0/24 via 10.0.0.2 metric 7", "route append 198.51.101.0/24 nhid 10"}
	nhRoutes6 = []string{"route add 2001:db8:10::/64 nhid 1", "route add 2001:db8:11::/64 nhid 10", "route replace 2001:db8:10::/64 nhid 11",
		"route add 2001:db8:12::/64 nhid 2 table 100", "route append 2001:db8:10::/64 nhid 3", "route add 2001:db8:10::/64 nhid 4 metric 7",
		"route add 2001:db8:13::/64 via 2001:db8::5", "route change 2001:db8:10::/64 nhid 5", "route add 2001:db8:14::/64 nhid 12",
		"route prepend 2001:db8:13::/64 nhid 2", "route add 2001:db8:15::/64 nhid 99", "route add 2001:db8:15::/64 nhid 1 dev i0"}
	nhRouteDels = []string{"route del 198.51.100.0/24", "route del 198.51.100.0/24 nhid 1", "route del 198.51.101.0/24 nhid 11",
		"route del 198.51.101.0/24 dev i0", "route del 203.0.113.0/24 table 100", "route del 198.51.100.0/24 nhid 99",
		"route show", "route show table 100", "nexthop show", "route add 10.5.0.0/16 via 10.0.0.2",
		"route del 198.51.100.0/24 via 10.0.0.2", "route del 198.51.100.0/24 metric 7",
		"route del 2001:db8:10::/64", "route del 2001:db8:10::/64 nhid 1", "route del 2001:db8:11::/64 nhid 11",
		"route del 2001:db8:12::/64 table 100", "route del 2001:db8:10::/64 metric 7", "route del 2001:db8:13::/64 dev i1",
		"route show table all"}
	nhLinks = []string{"link set i0 down", "link set i0 up", "link set i1 down", "link set i1 up", "link set v1 down",
		"link set v1 up", "link del i1", "link add i1 type ifb", "addr add 10.1.0.1/24 dev i1", "addr del 10.0.0.1/24 dev i0",
		"addr add 10.0.0.1/24 dev i0", "link set lo down", "link set lo up", "link set v0 down", "link set v0 up",
		"link del v0", "link add v0 type veth peer name v1", "addr add 10.2.0.1/24 dev v0",
		"addr add 2001:db8:1::1/64 dev i1 nodad", "addr add 2001:db8:2::1/64 dev v0 nodad", "addr add 2001:db8::1/64 dev i0 nodad",
		"sysctl -w net.ipv6.conf.i1.disable_ipv6=1", "sysctl -w net.ipv6.conf.i1.disable_ipv6=0"}
)

// nexthopGenLine is one nexthop line from r, or a route, a delete or a
// link line; it calls hit with the branch it took.
func nexthopGenLine(r *rand.Rand, hit func(string)) string {
	verb := "add"
	if r.IntN(4) == 0 {
		hit("replace")
		verb = "replace"
	}
	switch n := r.IntN(31); {
	case n < 4:
		hit("single")
		return fmt.Sprintf("nexthop %s id %s %s", verb, pick(r, nhSingleIDs), pick(r, nhSingles))
	case n < 6:
		hit("single6")
		return fmt.Sprintf("nexthop %s id %s %s", verb, pick(r, nhSingleIDs), pick(r, nhSingles6))
	case n < 7:
		hit("bad")
		return fmt.Sprintf("nexthop %s id %s %s", verb, pick(r, nhSingleIDs), pick(r, nhBad))
	case n < 8:
		hit("bad6")
		return fmt.Sprintf("nexthop %s id %s %s", verb, pick(r, nhSingleIDs), pick(r, nhBad6))
	case n < 10:
		hit("-6")
		return strings.TrimSpace(fmt.Sprintf("-6 nexthop %s id %s %s", verb, pick(r, nhSingleIDs), pick(r, nhMinus6)))
	case n < 13:
		hit("group")
		return fmt.Sprintf("nexthop %s id %s %s", verb, pick(r, nhGroupIDs), pick(r, nhGroups))
	case n < 14:
		hit("bad group")
		return fmt.Sprintf("nexthop %s id %s %s", verb, pick(r, nhGroupIDs), pick(r, nhBadGrp))
	case n < 16:
		hit("del")
		return "nexthop del id " + pick(r, append(append([]string{}, nhSingleIDs...), nhGroupIDs...))
	case n < 17:
		hit("flush")
		return "nexthop flush"
	case n < 22:
		hit("route")
		return pick(r, nhRoutes)
	case n < 25:
		hit("route6")
		return pick(r, nhRoutes6)
	case n < 27:
		hit("route del")
		return pick(r, nhRouteDels)
	default:
		hit("link")
		return pick(r, nhLinks)
	}
}

// nexthopGenBranches are the branches TestNexthopScriptGenTakesEveryBranch
// wants taken.
var nexthopGenBranches = []string{"replace", "single", "single6", "bad", "bad6", "-6", "group", "bad group", "del", "flush", "route",
	"route6", "route del", "link"}

func nexthopScriptGen(minLen, maxLen int) gopter.Gen {
	return lineScriptGen(nexthopsPrologue, minLen, maxLen, 9, nexthopGenLine)
}

// TestNexthopScriptGenTakesEveryBranch draws lines and requires every
// branch of nexthopGenLine, and every line of each pool, to come up.
func TestNexthopScriptGenTakesEveryBranch(t *testing.T) {
	hits, lines := drawLines(t, 5, 20000, nexthopGenLine)
	requireDrawn(t, hits, lines, nexthopGenBranches, nhRoutes, nhRoutes6, nhRouteDels, nhLinks)
	for _, pool := range [][]string{nhSingles, nhBad, nhGroups, nhBadGrp, nhSingles6, nhBad6} {
		for _, p := range pool {
			found := false
			for l := range lines {
				found = found || strings.HasSuffix(l, " "+p)
			}
			require.True(t, found, "nexthop %q never drawn", p)
		}
	}
	for _, p := range nhMinus6 {
		found := false
		for l := range lines {
			// "" leaves "-6 nexthop VERB id N" alone.
			found = found || (strings.HasPrefix(l, "-6 ") && (p != "" && strings.HasSuffix(l, " "+p) || p == "" && strings.Count(l, " ") == 4))
		}
		require.True(t, found, "-6 nexthop %q never drawn", p)
	}
}

// nexthopsCase runs one script as `rtnlsim diff` does; "" when the model
// and the kernel agree.
func nexthopsCase(lines []string, seen map[string]int, mu *sync.Mutex) string {
	reqs, out, fail, msg := diffScript(lines, differ.What{Routes: true, FibTrie: true, Events: true, IPv6: true})
	if msg != "" {
		return msg
	}
	mu.Lock()
	refused := countRefused(out.Kernel.Errors, seen)
	for _, r := range reqs {
		if o, ok := r.Op.(rtnl.NexthopAdd); ok && !refused[r.Line] {
			seen["nexthop add ok"]++
			if o.V6 {
				seen["nexthop6 add ok"]++
			}
		}
		if ra, ok := r.Op.(rtnl.RouteAdd); ok && ra.NhID != 0 && !refused[r.Line] {
			if ra.Dst.Addr().Is6() {
				seen["route6 nhid ok"]++
			} else {
				seen["route nhid ok"]++
			}
		}
	}
	for _, nh := range out.Kernel.Nexthops {
		if nh.Group != nil {
			seen["group left"]++
		}
	}
	mu.Unlock()
	if out.Diff != "" {
		return fail(out.Diff)
	}
	return ""
}
