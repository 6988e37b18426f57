package props

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/internal/compare"
	"github.com/rtnlsim/rtnlsim/internal/differ"
	"github.com/rtnlsim/rtnlsim/internal/testseed"
	"github.com/rtnlsim/rtnlsim/kernel"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
	"github.com/rtnlsim/rtnlsim/sim"
)

// TestSimRoutesMatchKernel is the differential property of the sim
// target's user routes (sim/route.go) over the address FIB: random
// scripts of route add / replace / append / prepend / del (types unicast,
// local, broadcast, blackhole, unreachable, prohibit, throw, now and then
// multicast and anycast; gateways in and out of connected subnets, on
// local addresses and broadcast addresses; devices up, down, without
// carrier, without IPv4, missing; tables main, local, 100 and default;
// metric, src, scope, proto, tos; deletes with wildcards) and route
// flushes (by table, device, prefix, protocol, scope, type, match, tos,
// via, src, realms, metric), mixed with devices going up and down and addresses coming and
// going, run on a fresh sim target and a fresh kernel target (IPv6 off),
// and must give the same errno for every line, the same `ip -j route show
// table all` at the end, and the same RTM_NEWROUTE / RTM_DELROUTE
// notifications, request by request, in order.
//
// Each gopter case is a batch of scripts run in parallel goroutines, each
// kernel target in its own namespace. A failure is shrunk line by line
// and the script written to a file that RTNLSIM_SIM_ROUTES_SCRIPT=FILE
// replays (TestSimRoutesReplay). RTNLSIM_SIM_ROUTES_BATCHES sets the
// number of batches (of simRoutesBatch scripts).
func TestSimRoutesMatchKernel(t *testing.T) {
	testseed.NeedKernel(t)
	batches := envInt(t, "RTNLSIM_SIM_ROUTES_BATCHES", 13, 0)
	params := gopterParams(t, batches)
	params.MaxShrinkCount = 0 // shrinkRouteScript shrinks one script, not a batch
	props := gopter.NewProperties(params)
	var mu sync.Mutex
	seen := map[string]int{}
	scripts := 0
	props.Property("sim and kernel agree on errnos, routes and route notifications", prop.ForAll(func(batch [][]string) string {
		fails := runBatch(batch, func(lines []string) string { return simRoutesCase(lines, seen, &mu) })
		mu.Lock()
		scripts += len(batch)
		mu.Unlock()
		for i, f := range fails {
			if f != "" {
				return shrinkRouteScript(batch[i], f, seen, &mu)
			}
		}
		return ""
	}, gen.SliceOfN(simRoutesBatch, routeScriptGen(8, 24))))
	report(t, props)
	t.Logf("%d scripts run on both targets; verbs, errnos and notifications seen: %v", scripts, seen)
}

// simRoutesBatch is how many scripts one gopter case runs in parallel.
const simRoutesBatch = 16

// routePrologue makes the devices the generated lines use: i0 and i1 up
// with addresses, i2 down with one, v0 up without carrier (its peer v1
// down) with one, lo down. i0, i1 and v0 have IPv6 (without DAD), i1 a
// global prefix, for the IPv6 gateways of simVia6Line.
var routePrologue = []string{
	"link add i0 type ifb", "link add i1 type ifb", "link add i2 type ifb",
	"link add v0 type veth peer name v1",
	"sysctl net.ipv6.conf.i0.accept_dad=0", "sysctl net.ipv6.conf.i1.accept_dad=0", "sysctl net.ipv6.conf.v0.accept_dad=0",
	"sysctl net.ipv6.conf.i0.disable_ipv6=0", "sysctl net.ipv6.conf.i1.disable_ipv6=0", "sysctl net.ipv6.conf.v0.disable_ipv6=0",
	"link set i0 up", "link set i1 up", "link set v0 up",
	"addr add 10.0.0.1/24 dev i0", "addr add 10.1.0.1/24 dev i1",
	"addr add 10.2.0.1/24 dev i2", "addr add 10.3.0.1/24 dev v0", "addr add 2001:db8:1::1/64 dev i1 nodad",
}

// Pools the route lines draw from, so that requests meet.
var (
	rtDsts = []string{"10.5.0.0/16", "10.5.0.0/16", "10.5.0.0/16", "10.5.1.0/24", "10.6.0.0/16", "10.6.0.0/16",
		"default", "10.0.0.0/24", "10.0.0.128/25", "10.1.0.0/24", "172.16.0.0/12", "10.7.0.1", "10.0.0.9",
		"10.9.0.0/24", "10.5.0.1/16"}
	rtVias = []string{"10.0.0.2", "10.0.0.2", "10.0.0.3", "10.1.0.2", "10.1.0.2", "10.3.0.2", "10.2.0.2", "10.0.0.1", "10.1.0.1",
		"10.9.0.2", "10.5.0.9", "10.6.0.9", "10.0.0.255", "10.7.0.1", "10.0.0.200", "172.16.0.1"}
	rtDevs   = []string{"i0", "i0", "i0", "i1", "i1", "i1", "v0", "v0", "i2", "lo", "nope"}
	rtTables = []string{"main", "local", "100", "100", "100", "default"}
	rtSrcs   = []string{"10.0.0.1", "10.0.0.1", "10.1.0.1", "10.2.0.1", "10.3.0.1", "10.9.0.1", "10.99.0.1", "10.7.0.1", "10.0.0.9"}
	rtTypes  = []string{"unicast", "local", "local", "broadcast", "blackhole", "blackhole", "unreachable", "prohibit",
		"throw", "multicast", "anycast"}
	rtScopes = []string{"link", "link", "host", "host", "global", "site", "nowhere"}
	rtFlush  = []string{"route flush dev i0", "route flush dev i1", "route flush dev v0", "route flush table 100",
		"route flush table main", "route flush 10.5.0.0/16", "route flush root 10.0.0.0/8", "route flush proto static",
		"route flush table all proto boot", "route flush table local dev i1", "route flush dev nope",
		"route flush root 10.5.0.0/16 table all", "route flush table all",
		"route flush table all type blackhole", "route flush table main scope link", "route flush table local type broadcast",
		"route flush table all scope host type local", "route flush table 100 scope global", "route flush table all scope all"}
	rtOther = []string{"link set i0 down", "link set i0 up", "link set i1 down", "link set i1 up", "link set i2 up",
		"link set i2 down", "link set v1 up\nlink set v0 up", "link set v1 down\nlink set v0 up", "link set v0 down",
		"link set v0 up", "link set lo up",
		"addr add 10.9.0.1/24 dev i1", "addr add 10.9.0.1/24 dev i2", "addr add 10.0.0.9/24 dev i0",
		"addr del 10.0.0.1/24 dev i0", "addr del 10.1.0.1/24 dev i1", "addr add 10.0.0.1/24 dev i0",
		"addr del 10.9.0.1/24 dev i1", "addr add 10.7.0.1/32 dev i2", "link set i2 mtu 60", "link set i2 mtu 1500",
		"link del i2", "link del v1", "link del i1",
		"sysctl net.ipv4.conf.v0.ignore_routes_with_linkdown=1", "sysctl net.ipv4.conf.all.ignore_routes_with_linkdown=1",
		"sysctl net.ipv4.conf.v0.ignore_routes_with_linkdown=0"}
)

// Pools of the multipath lines: the gateway of each nexthop with the
// device it is on (i2 is down, v0 without carrier), and the nexthops
// that fail or stretch the checks.
var (
	mpPairs = [][2]string{{"10.0.0.2", "i0"}, {"10.1.0.2", "i1"}, {"10.0.0.3", "i0"}, {"10.1.0.3", "i1"}, {"10.3.0.2", "v0"},
		{"10.2.0.2", "i2"}}
	mpOdd = []string{"via 10.9.0.2 dev i0", "via 10.0.0.2 dev i1", "via 10.0.0.1 dev i0", "via 10.0.0.255 dev i0",
		"via 10.1.0.2", "via 10.0.0.2", "dev i0", "dev i1", "dev v0", "dev i2", "dev nope", "via 10.9.0.2 dev i0 onlink",
		"via 10.9.0.2 dev i1 onlink", "via 10.9.0.2 dev i2 onlink", "via 10.0.0.255 dev i0 onlink", "dev i0 onlink",
		"via 10.9.0.2 onlink", "via 10.7.0.1 dev i2"}
	mpDsts = []string{"10.5.0.0/16", "10.5.0.0/16", "10.6.0.0/16", "10.6.0.0/16", "default", "10.5.1.0/24", "172.16.0.0/12"}
	// mpCommon is the multipath route the lines make most often, so
	// that deletes and appends meet it.
	mpCommon = [][2]string{mpPairs[0], mpPairs[1]}
)

// mpBranchHits counts the branches of the route generators while
// TestMultipathGenTakesEveryBranch or TestRouteOptionsGenTakesEveryBranch
// runs (nil otherwise): the multipath ones ("mp ...") and the route
// options ("opt ...").
var mpBranchHits map[string]int

func mpHit(branch string) {
	if mpBranchHits != nil {
		mpBranchHits[branch]++
	}
}

// optGenBranches are the branches TestRouteOptionsGenTakesEveryBranch
// wants taken.
var optGenBranches = []string{
	"opt onlink", "opt mtu", "opt mtu lock", "opt realm", "opt del onlink", "opt del mtu", "opt del mtu lock",
	"opt del realm", "opt mp onlink", "opt mp mtu", "opt mp realm", "opt common route", "opt common del",
}

// Pools of the route options: few values, so that routes meet.
var (
	optMTUs      = []string{"1400", "1400", "1400", "1500", "0", "70000", "65520"}
	optDelMTUs   = []string{"1400", "1400", "0", "1500", "65535"}
	optRealms    = []string{"5", "5", "5", "2/5", "0", "cosmos/7", "7/", "70000"}
	optDelRealms = []string{"5", "5", "2/5", "9"}
)

// optCommon are the options of the lines about one route
// (simOptionsLine): none, each alone, clamped MTUs and ones of 0, and
// all together.
var optCommon = []string{"", "", "onlink", "mtu 1400", "mtu 1400", "mtu lock 1400", "mtu 0", "mtu lock 0",
	"mtu 70000", "mtu 65520", "mtu 65535", "realm 5", "realm 5", "realm 0", "realms 2/5", "onlink mtu 1400 realm 5"}

// simOptionsLine makes a line about one route, 10.5.0.0/16 via
// 10.0.0.2, with or without its device and with options of few values,
// so that adds, appends, prepends, replaces and changes of it meet
// (EEXIST, or one alias more) and deletes with options pick among its
// aliases.
func simOptionsLine(r *rand.Rand) string {
	verb := pick(r, []string{"add", "append", "append", "prepend", "replace", "change", "del", "del"})
	if verb == "del" {
		mpHit("opt common del")
	} else {
		mpHit("opt common route")
	}
	parts := []string{"route", verb, "10.5.0.0/16", "via", "10.0.0.2"}
	if r.IntN(3) != 0 {
		parts = append(parts, "dev", "i0")
	}
	if o := pick(r, optCommon); o != "" {
		parts = append(parts, o)
	}
	return strings.Join(parts, " ")
}

// routeOptions draws the options of an add (del false) or a delete:
// onlink, mtu [lock] and realm(s), each now and then.
func routeOptions(r *rand.Rand, del bool) []string {
	var out []string
	pre := "opt "
	mtus, realms, n := optMTUs, optRealms, 8
	if del {
		pre, mtus, realms, n = "opt del ", optDelMTUs, optDelRealms, 10
	}
	if r.IntN(n) == 0 {
		mpHit(pre + "onlink")
		out = append(out, "onlink")
	}
	if r.IntN(n) == 0 {
		mpHit(pre + "mtu")
		out = append(out, "mtu")
		if r.IntN(3) == 0 {
			mpHit(pre + "mtu lock")
			out = append(out, "lock")
		}
		out = append(out, pick(r, mtus))
	}
	if r.IntN(n+1) == 0 {
		mpHit(pre + "realm")
		out = append(out, "realm", pick(r, realms))
	}
	return out
}

// mpGenBranches are the branches TestMultipathGenTakesEveryBranch wants
// taken.
var mpGenBranches = []string{
	"mp add", "mp replace", "mp append", "mp prepend", "mp change", "mp type", "mp table", "mp metric", "mp src",
	"mp proto", "mp scope", "mp top-level dev", "mp top-level via", "mp one nexthop", "mp two nexthops",
	"mp three nexthops", "mp common pair", "mp gateway on its device", "mp odd nexthop", "mp weight",
	"mp del prefix alone", "mp del first gateway", "mp del first dev", "mp del second gateway", "mp del same list",
	"mp del same list other weights", "mp del fewer", "mp del more", "mp del reversed", "mp del other list",
	"mp del list without devices", "mp del metric",
}

// mpNexthops makes n nexthop groups: the common pair now and then,
// otherwise gateways on their devices, with or without the device, and
// odd ones (off-subnet, on the wrong device, broadcast, down or missing
// devices, onlink); some with weights.
func mpNexthops(r *rand.Rand, n int) []string {
	var out []string
	common := n >= 2 && r.IntN(2) == 0
	if common {
		mpHit("mp common pair")
	}
	for i := range n {
		var nh string
		switch {
		case common && i < 2:
			nh = "via " + mpCommon[i][0] + " dev " + mpCommon[i][1]
		case r.IntN(6) != 0:
			mpHit("mp gateway on its device")
			p := mpPairs[r.IntN(len(mpPairs))]
			nh = "via " + p[0] + " dev " + p[1]
			if r.IntN(6) == 0 {
				nh = "via " + p[0]
			}
		default:
			mpHit("mp odd nexthop")
			nh = pick(r, mpOdd)
		}
		if r.IntN(3) == 0 {
			mpHit("mp weight")
			nh += " weight " + pick(r, []string{"1", "2", "3", "256"})
		}
		out = append(out, "nexthop "+nh)
	}
	return out
}

// simMultipathLine makes a multipath route line: add, replace, append,
// prepend or change with route options before the nexthops, or a
// delete by prefix alone, by the first nexthop's gateway or device, or
// with a nexthop list that is the route's, shorter, longer, reversed or
// another.
func simMultipathLine(r *rand.Rand) string {
	chance := func(n int) bool { return r.IntN(n) == 0 }
	verb := pick(r, []string{"add", "add", "add", "add", "replace", "append", "append", "prepend", "change",
		"del", "del", "del", "del"})
	parts := []string{"route", verb}
	if verb == "del" {
		parts = append(parts, pick(r, mpDsts[:4]))
		if chance(8) {
			mpHit("mp del metric")
			parts = append(parts, "metric", pick(r, []string{"5", "10"}))
		}
		switch r.IntN(11) {
		case 0:
			mpHit("mp del prefix alone")
		case 1:
			mpHit("mp del first gateway")
			parts = append(parts, "via", mpCommon[0][0])
		case 2:
			mpHit("mp del first dev")
			parts = append(parts, "dev", mpCommon[0][1])
		case 3:
			mpHit("mp del second gateway")
			parts = append(parts, "via", mpCommon[1][0])
		case 4, 5:
			mpHit("mp del same list")
			parts = append(parts, "nexthop via", mpCommon[0][0], "dev", mpCommon[0][1],
				"nexthop via", mpCommon[1][0], "dev", mpCommon[1][1])
		case 6:
			mpHit("mp del same list other weights")
			parts = append(parts, "nexthop via", mpCommon[0][0], "weight 7", "nexthop via", mpCommon[1][0], "weight 9")
		case 7:
			mpHit("mp del fewer")
			parts = append(parts, "nexthop via", mpCommon[0][0], "dev", mpCommon[0][1])
		case 8:
			mpHit("mp del more")
			parts = append(parts, "nexthop via", mpCommon[0][0], "nexthop via", mpCommon[1][0], "nexthop dev i0")
		case 9:
			mpHit("mp del reversed")
			parts = append(parts, "nexthop via", mpCommon[1][0], "nexthop via", mpCommon[0][0])
		default:
			if chance(2) {
				mpHit("mp del list without devices")
				parts = append(parts, "nexthop dev", mpCommon[0][1], "nexthop dev", mpCommon[1][1])
			} else {
				mpHit("mp del other list")
				parts = append(parts, mpNexthops(r, 2+r.IntN(2))...)
			}
		}
		return strings.Join(parts, " ")
	}
	mpHit("mp " + verb)
	if chance(20) {
		mpHit("mp type")
		parts = append(parts, pick(r, []string{"blackhole", "local", "unicast"}))
	}
	parts = append(parts, pick(r, mpDsts))
	if chance(6) {
		mpHit("mp table")
		parts = append(parts, "table", pick(r, []string{"main", "100"}))
	}
	if chance(5) {
		mpHit("mp metric")
		parts = append(parts, "metric", pick(r, []string{"5", "10"}))
	}
	if chance(8) {
		mpHit("mp src")
		parts = append(parts, "src", pick(r, rtSrcs))
	}
	if chance(8) {
		mpHit("mp proto")
		parts = append(parts, "proto", pick(r, []string{"static", "kernel"}))
	}
	if chance(12) {
		mpHit("mp scope")
		parts = append(parts, "scope", pick(r, []string{"link", "host", "global"}))
	}
	if chance(15) {
		mpHit("mp top-level dev")
		parts = append(parts, "dev", pick(r, []string{"i0", "i1"}))
	}
	if chance(15) {
		mpHit("mp top-level via")
		parts = append(parts, "via", pick(r, []string{"10.0.0.2", "10.1.0.2"}))
	}
	if chance(12) {
		mpHit("opt mp onlink")
		parts = append(parts, "onlink")
	}
	if chance(8) {
		mpHit("opt mp mtu")
		parts = append(parts, pick(r, []string{"mtu 1400", "mtu 1400", "mtu lock 1400"}))
	}
	if chance(25) {
		mpHit("opt mp realm")
		parts = append(parts, pick(r, []string{"realm 5", "realm 0"}))
	}
	n := 2
	switch r.IntN(8) {
	case 0:
		mpHit("mp one nexthop")
		n = 1
	case 1, 2:
		mpHit("mp three nexthops")
		n = 3
	default:
		mpHit("mp two nexthops")
	}
	parts = append(parts, mpNexthops(r, n)...)
	return strings.Join(parts, " ")
}

// via6GenBranches are the branches of simVia6Line that
// TestVia6GenTakesEveryBranch wants taken.
var via6GenBranches = []string{
	"via6 add", "via6 append", "via6 prepend", "via6 replace", "via6 change", "via6 del", "via6 del by dev",
	"via6 del nexthops", "via6 dev", "via6 no dev", "via6 onlink", "via6 table", "via6 metric", "via6 scope",
	"via6 multipath", "via6 mixed multipath", "via6 toggle ipv6", "via6 get",
}

// Pools of simVia6Line: IPv6 gateways (link-local ones, a global one
// on i1's prefix, i1's own address, off every prefix, multicast), and
// the devices (v0 without carrier, i2 down, lo).
var (
	v6Vias = []string{"fe80::1", "fe80::1", "fe80::1", "fe80::2", "2001:db8:1::2", "2001:db8:1::2", "2001:db8:1::1",
		"2001:db8:9::1", "ff02::1"}
	v6Devs = []string{"i0", "i0", "i1", "i1", "v0", "v0", "i2", "lo"}
	// "default" would take the gateway's family: 0.0.0.0/0 instead.
	v6Dsts   = []string{"10.5.0.0/16", "10.5.0.0/16", "10.6.0.0/16", "10.5.1.0/24", "172.16.0.0/12", "0.0.0.0/0"}
	v6Toggle = []string{"sysctl net.ipv6.conf.i0.disable_ipv6=1", "sysctl net.ipv6.conf.i0.disable_ipv6=0"}
)

// simVia6Line makes a line about IPv4 routes with an IPv6 gateway (`via
// inet6`): an add, append, prepend, replace or change of a prefix the
// other lines use, through a device or not, onlink, in table 100, with
// a metric or scope link; a multipath route of such nexthops, or of one
// with an IPv4 one; deletes by gateway, device or nexthop list; IPv6 off
// and on again on i0; a route get through them.
func simVia6Line(r *rand.Rand) string {
	chance := func(n int) bool { return r.IntN(n) == 0 }
	switch {
	case chance(12):
		mpHit("via6 toggle ipv6")
		return pick(r, v6Toggle)
	case chance(8):
		mpHit("via6 get")
		return "route get " + pick(r, []string{"10.5.1.1", "10.6.0.9", "172.16.0.1", "8.8.8.8"})
	}
	verb := pick(r, []string{"add", "add", "add", "append", "prepend", "replace", "change", "del", "del", "del"})
	mpHit("via6 " + verb)
	parts := []string{"route", verb, pick(r, v6Dsts)}
	if verb == "del" {
		switch r.IntN(4) {
		case 0:
			mpHit("via6 del by dev")
			parts = append(parts, "dev", pick(r, v6Devs[:6]))
		case 1:
			mpHit("via6 del nexthops")
			parts = append(parts, "nexthop via inet6", pick(r, v6Vias[:5]), "nexthop via inet6", pick(r, v6Vias[:5]))
		default:
			parts = append(parts, "via inet6", pick(r, v6Vias[:6]))
		}
		return strings.Join(parts, " ")
	}
	if chance(6) {
		mpHit("via6 table")
		parts = append(parts, "table", "100")
	}
	if chance(6) {
		mpHit("via6 metric")
		parts = append(parts, "metric", pick(r, []string{"5", "10"}))
	}
	if chance(10) {
		mpHit("via6 scope")
		parts = append(parts, "scope", pick(r, []string{"link", "host"}))
	}
	if chance(4) {
		nh := func() string {
			return "nexthop via inet6 " + pick(r, v6Vias[:6]) + " dev " + pick(r, v6Devs[:6])
		}
		parts = append(parts, nh())
		if chance(3) {
			mpHit("via6 mixed multipath")
			p := mpPairs[r.IntN(len(mpPairs))]
			parts = append(parts, "nexthop via "+p[0]+" dev "+p[1])
		} else {
			mpHit("via6 multipath")
			parts = append(parts, nh())
		}
		return strings.Join(parts, " ")
	}
	parts = append(parts, "via inet6", pick(r, v6Vias))
	if chance(5) {
		mpHit("via6 no dev")
	} else {
		mpHit("via6 dev")
		parts = append(parts, "dev", pick(r, v6Devs))
	}
	if chance(6) {
		mpHit("via6 onlink")
		parts = append(parts, "onlink")
	}
	return strings.Join(parts, " ")
}

// TestVia6GenTakesEveryBranch is TestMultipathGenTakesEveryBranch for
// simVia6Line (via6GenBranches).
func TestVia6GenTakesEveryBranch(t *testing.T) {
	hits, lines, scripts := routeGenHits(t, "inet6", "disable_ipv6")
	checkBranches(t, hits, "via6 ", via6GenBranches, scripts)
	t.Logf("%d lines with IPv6 gateways in %d scripts; branches: %v", lines, scripts, hits)
}

// TestMultipathGenTakesEveryBranch generates, from a fixed seed, as many
// scripts as TestSimRoutesMatchKernel runs by default, and fails when a
// branch of the multipath generators (mpGenBranches) is never taken, or
// one is taken that the list does not name. It needs no kernel.
func TestMultipathGenTakesEveryBranch(t *testing.T) {
	hits, lines, scripts := routeGenHits(t, "nexthop")
	checkBranches(t, hits, "mp ", mpGenBranches, scripts)
	t.Logf("%d multipath lines in %d scripts; branches: %v", lines, scripts, hits)
}

// TestRouteOptionsGenTakesEveryBranch is TestMultipathGenTakesEveryBranch
// for the route options (optGenBranches).
func TestRouteOptionsGenTakesEveryBranch(t *testing.T) {
	hits, lines, scripts := routeGenHits(t, "mtu", "realm", "onlink")
	checkBranches(t, hits, "opt ", optGenBranches, scripts)
	t.Logf("%d lines with route options in %d scripts; branches: %v", lines, scripts, hits)
}

// TestFlushGenTakesEveryBranch is TestMultipathGenTakesEveryBranch for
// the route flush lines (flushGenBranches).
func TestFlushGenTakesEveryBranch(t *testing.T) {
	hits, lines, scripts := routeGenHits(t, "route flush")
	checkBranches(t, hits, "flush ", flushGenBranches, scripts)
	t.Logf("%d flush lines in %d scripts; branches: %v", lines, scripts, hits)
}

// routeGenHits generates, from a fixed seed, as many scripts as
// TestSimRoutesMatchKernel runs by default, each of which must parse, and
// returns the branches taken, how many lines have one of words and how
// many scripts there were.
func routeGenHits(t *testing.T, words ...string) (map[string]int, int, int) {
	mpBranchHits = map[string]int{}
	defer func() { mpBranchHits = nil }()
	const scripts = 13 * simRoutesBatch
	g := routeScriptGen(8, 24)
	p := gopter.DefaultGenParameters().WithSize(100)
	p.Rng.Seed(20261130)
	n := 0
	for range scripts {
		v, ok := g(p).Retrieve()
		if !ok {
			t.Fatal("the generator gave no script")
		}
		lines := v.([]string)
		if _, err := script.ParseString(strings.Join(lines, "\n") + "\n"); err != nil {
			t.Fatalf("generated script does not parse: %v", err)
		}
		for _, l := range lines {
			if slices.ContainsFunc(words, func(w string) bool { return strings.Contains(l, w) }) {
				n++
			}
		}
	}
	return mpBranchHits, n, scripts
}

// checkBranches fails when a branch of want is never taken, or one named
// with prefix is taken that want does not name.
func checkBranches(t *testing.T, hits map[string]int, prefix string, want []string, scripts int) {
	for _, b := range want {
		if hits[b] == 0 {
			t.Errorf("branch %q never taken in %d scripts", b, scripts)
		}
	}
	for b := range hits {
		if strings.HasPrefix(b, prefix) && !slices.Contains(want, b) {
			t.Errorf("branch %q taken but not in the list", b)
		}
	}
}

// flushGenBranches are the branches of simFlushLine that
// TestFlushGenTakesEveryBranch wants taken.
var flushGenBranches = []string{
	"flush pool", "flush match", "flush tos", "flush via", "flush via prefix", "flush via none", "flush src",
	"flush src prefix", "flush realm", "flush realms from", "flush realms both", "flush metric", "flush table",
}

// simFlushLine makes a route flush line: one of rtFlush, or one with the
// selectors iproute2 applies to the dump's attributes (match, tos, via,
// src, realms, metric), one to three of them, with values the other
// lines give routes.
func simFlushLine(r *rand.Rand) string {
	if r.IntN(2) == 0 {
		mpHit("flush pool")
		return pick(r, rtFlush)
	}
	parts := []string{"route", "flush"}
	if r.IntN(4) == 0 {
		mpHit("flush table")
		parts = append(parts, "table", pick(r, []string{"all", "100", "local"}))
	}
	matched := false // a second prefix is ip's duplicate "to"
	for range 1 + r.IntN(3) {
		switch r.IntN(7) {
		case 0:
			if matched {
				continue
			}
			matched = true
			mpHit("flush match")
			parts = append(parts, "match", pick(r, []string{"10.5.1.0/24", "10.5.0.7", "10.0.0.9", "default", "10.6.0.0/16"}))
		case 1:
			mpHit("flush tos")
			parts = append(parts, "tos", pick(r, []string{"0", "0x10", "0x3"}))
		case 2:
			switch r.IntN(3) {
			case 0:
				mpHit("flush via prefix")
				parts = append(parts, "via", pick(r, []string{"10.0.0.0/24", "10.1.0.0/16", "10.0.0.0/8"}))
			case 1:
				mpHit("flush via none")
				parts = append(parts, "via", "0.0.0.0")
			default:
				mpHit("flush via")
				parts = append(parts, "via", pick(r, rtVias[:6]))
			}
		case 3:
			if r.IntN(3) == 0 {
				mpHit("flush src prefix")
				parts = append(parts, "src", pick(r, []string{"10.0.0.0/24", "10.0.0.0/8", "0.0.0.0/0", "0.0.0.0"}))
			} else {
				mpHit("flush src")
				parts = append(parts, "src", pick(r, rtSrcs))
			}
		case 4:
			switch r.IntN(3) {
			case 0:
				mpHit("flush realms from")
				parts = append(parts, "realms", pick(r, []string{"2/", "7/", "0/"}))
			case 1:
				mpHit("flush realms both")
				parts = append(parts, "realms", pick(r, []string{"2/5", "0/5", "0/0", "cosmos/7"}))
			default:
				mpHit("flush realm")
				parts = append(parts, "realm", pick(r, []string{"5", "5", "0", "7", "70000"}))
			}
		default:
			mpHit("flush metric")
			parts = append(parts, "metric", pick(r, []string{"0", "5", "10"}))
		}
	}
	return strings.Join(parts, " ")
}

// simRouteLine makes a route add/replace/append/prepend/del line from r.
func simRouteLine(r *rand.Rand) string {
	verb := pick(r, []string{"add", "add", "add", "add", "add", "add", "replace", "replace", "append", "append",
		"prepend", "del", "del", "del", "del"})
	chance := func(n int) bool { return r.IntN(n) == 0 }
	if verb == "del" {
		return simRouteDelLine(r, chance)
	}
	parts := []string{"route", verb}
	typ := ""
	if chance(3) {
		typ = pick(r, rtTypes)
		parts = append(parts, typ)
	}
	parts = append(parts, pick(r, rtDsts))
	gwOK := typ == "" || typ == "unicast"
	if (gwOK && r.IntN(5) < 2) || chance(20) {
		parts = append(parts, "via", pick(r, rtVias))
	}
	if r.IntN(3) < 2 {
		parts = append(parts, "dev", pick(r, rtDevs))
	}
	if chance(4) {
		parts = append(parts, "table", pick(r, rtTables))
	}
	if chance(4) {
		parts = append(parts, "metric", pick(r, []string{"5", "10"}))
	}
	if chance(7) {
		parts = append(parts, "src", pick(r, rtSrcs))
	}
	if chance(8) {
		parts = append(parts, "scope", pick(r, rtScopes))
	}
	if chance(8) {
		parts = append(parts, "proto", pick(r, []string{"static", "static", "kernel", "boot"}))
	}
	if chance(30) {
		parts = append(parts, "tos", pick(r, []string{"0x10", "0x3"}))
	}
	parts = append(parts, routeOptions(r, false)...)
	return strings.Join(parts, " ")
}

// simRouteDelLine makes a route del line: mostly for prefixes the other
// lines add, with few selectors, so that deletes find something.
func simRouteDelLine(r *rand.Rand, chance func(int) bool) string {
	parts := []string{"route", "del"}
	if chance(6) {
		parts = append(parts, pick(r, rtTypes))
	}
	parts = append(parts, pick(r, []string{"10.5.0.0/16", "10.5.0.0/16", "10.6.0.0/16", "10.6.0.0/16", "default",
		"10.0.0.0/24", "10.7.0.1", "10.5.1.0/24", "10.0.0.1", "172.16.0.0/12"}))
	if chance(6) {
		parts = append(parts, "via", pick(r, rtVias[:7]))
	}
	if chance(5) {
		parts = append(parts, "dev", pick(r, rtDevs))
	}
	if chance(4) {
		parts = append(parts, "table", pick(r, rtTables))
	}
	if chance(8) {
		parts = append(parts, "metric", pick(r, []string{"5", "10"}))
	}
	if chance(10) {
		parts = append(parts, "src", pick(r, rtSrcs))
	}
	if chance(10) {
		parts = append(parts, "scope", pick(r, rtScopes))
	}
	if chance(10) {
		parts = append(parts, "proto", pick(r, []string{"static", "kernel", "boot"}))
	}
	parts = append(parts, routeOptions(r, true)...)
	return strings.Join(parts, " ")
}

// Pools of the route get lines: destinations the other lines route (or
// not), and the options that change the flow.
var (
	getDsts = []string{"10.5.1.1", "10.5.0.9", "10.6.0.9", "8.8.8.8", "10.0.0.5", "10.0.0.1", "10.0.0.255",
		"10.1.0.7", "10.3.0.2", "172.16.0.1", "10.7.0.1", "10.9.0.5", "10.2.0.9", "255.255.255.255", "0.0.0.0",
		"127.0.0.1", "10.0.0.9"}
	getSrcs = []string{"10.0.0.1", "10.1.0.1", "10.2.0.1", "10.9.0.1", "10.99.0.1", "127.0.0.1"}
	getOifs = []string{"i0", "i1", "v0", "i2", "lo", "nope"}
	// getIifSrcs are sources of input routes: on each device's link,
	// behind the routes the lines add, local, and nowhere.
	getIifSrcs = []string{"10.0.0.7", "10.1.0.7", "10.1.0.7", "10.3.0.2", "10.2.0.7", "10.5.0.9", "10.6.0.9",
		"10.9.0.7", "8.8.4.4", "10.0.0.1", "172.16.0.5"}
	// getIifDsts are destinations an input route delivers here or
	// forwards.
	getIifDsts = []string{"10.0.0.1", "10.1.0.1", "10.0.0.255", "255.255.255.255", "224.0.0.1", "10.0.0.5", "10.1.0.7",
		"10.5.1.1", "10.3.0.2", "10.6.0.9"}
	// getConfs are the sysctls route get with iif reads.
	getConfs = map[string][]string{
		"forwarding": {"net.ipv4.conf.i1.forwarding=1", "net.ipv4.conf.i1.forwarding=0", "net.ipv4.conf.i0.forwarding=1",
			"net.ipv4.conf.all.forwarding=1", "net.ipv4.conf.all.forwarding=0", "net.ipv4.ip_forward=1",
			"net.ipv4.conf.default.forwarding=1"},
		"rp_filter": {"net.ipv4.conf.i1.rp_filter=1", "net.ipv4.conf.i1.rp_filter=2", "net.ipv4.conf.i1.rp_filter=0",
			"net.ipv4.conf.all.rp_filter=1", "net.ipv4.conf.all.rp_filter=2", "net.ipv4.conf.all.rp_filter=0",
			"net.ipv4.conf.default.rp_filter=1"},
		"accept_local": {"net.ipv4.conf.i1.accept_local=1", "net.ipv4.conf.all.accept_local=1",
			"net.ipv4.conf.all.accept_local=0", "net.ipv4.conf.default.accept_local=1"},
	}
)

// routeGetBranches are the branches of simRouteGetLine that
// TestRouteGetGenTakesEveryBranch wants taken.
var routeGetBranches = []string{"get", "get from", "get oif", "get tos", "get mark", "get fibmatch", "get to",
	"get iif", "get iif from", "get iif uid", "get iif forwarding", "get sysctl forwarding", "get sysctl rp_filter", "get sysctl accept_local"}

// simRouteGetLine makes a route get line: a destination, and now and
// then a source, an input device (mostly with a source on some link,
// now and then a uid, or after forwarding is turned on), an output device, a tos, a mark, fibmatch; or,
// one time in four, a sysctl the input path reads (simRouteGetConfLine).
func simRouteGetLine(r *rand.Rand) string {
	chance := func(n int) bool { return r.IntN(n) == 0 }
	if chance(4) {
		return simRouteGetConfLine(r)
	}
	mpHit("get")
	parts := []string{"route", "get"}
	if chance(8) {
		mpHit("get to")
		parts = append(parts, "to")
	}
	dst := pick(r, getDsts)
	switch {
	case chance(3):
		mpHit("get iif")
		if chance(2) {
			dst = pick(r, getIifDsts)
		}
		parts = append(parts, dst)
		if !chance(6) {
			mpHit("get iif from")
			parts = append(parts, "from", pick(r, getIifSrcs))
		}
		parts = append(parts, "iif", pick(r, getOifs))
		if chance(8) {
			mpHit("get iif uid")
			parts = append(parts, "uid", pick(r, []string{"0", "1000"}))
		}
		if chance(2) {
			// forwarded answers need forwarding on
			mpHit("get iif forwarding")
			parts = append([]string{"sysctl net.ipv4.ip_forward=1\n" + parts[0]}, parts[1:]...)
		}
	case chance(3):
		mpHit("get from")
		parts = append(parts, dst, "from", pick(r, getSrcs))
	default:
		parts = append(parts, dst)
	}
	if chance(4) {
		mpHit("get oif")
		parts = append(parts, "oif", pick(r, getOifs))
	}
	if chance(8) {
		mpHit("get tos")
		parts = append(parts, "tos", pick(r, []string{"0x10", "0x12"}))
	}
	if chance(8) {
		mpHit("get mark")
		parts = append(parts, "mark", "7")
	}
	if chance(5) {
		mpHit("get fibmatch")
		parts = append(parts, "fibmatch")
	}
	return strings.Join(parts, " ")
}

// simRouteGetConfLine writes forwarding, rp_filter or accept_local: of
// i1 (the usual input device), of i0, all, default, or ip_forward.
func simRouteGetConfLine(r *rand.Rand) string {
	key := pick(r, []string{"forwarding", "forwarding", "rp_filter", "rp_filter", "accept_local"})
	mpHit("get sysctl " + key)
	return "sysctl " + pick(r, getConfs[key])
}

// TestRouteGetGenTakesEveryBranch generates, from a fixed seed, as many
// scripts as TestSimRoutesMatchKernel runs by default, and fails when a
// branch of simRouteGetLine is never taken. It needs no kernel.
func TestRouteGetGenTakesEveryBranch(t *testing.T) {
	hits, lines, scripts := routeGenHits(t, "route get")
	checkBranches(t, hits, "get", routeGetBranches, scripts)
	t.Logf("%d route get lines in %d scripts; branches: %v", lines, scripts, hits)
}

// routeScriptGen makes scripts of the prologue and minLen..maxLen lines
// as line slices (shrinkRouteScript removes lines).
func routeScriptGen(minLen, maxLen int) gopter.Gen {
	line := gen.UInt64().Map(func(v uint64) string {
		r := rand.New(rand.NewPCG(v, v>>7))
		switch n := r.IntN(26); {
		case n < 11:
			return simRouteLine(r)
		case n < 13:
			return simOptionsLine(r)
		case n < 16:
			return simMultipathLine(r)
		case n < 18:
			return simFlushLine(r)
		case n < 20:
			return simRouteGetLine(r)
		case n < 22:
			return simVia6Line(r)
		default:
			return pick(r, rtOther)
		}
	})
	return gen.SliceOfN(maxLen, line).SuchThat(func(l []string) bool { return len(l) >= minLen }).Map(func(l []string) []string {
		return append(append([]string(nil), routePrologue...), l...)
	})
}

// shrinkRouteScript removes the lines of a failing script one at a time,
// last first, keeping each removal after which it still fails, writes the
// result to a file and returns the last failure.
func shrinkRouteScript(lines []string, failure string, seen map[string]int, mu *sync.Mutex) string {
	lines, failure = shrinkLines(lines, failure, func(try []string) string { return simRoutesCase(try, seen, mu) })
	if file := writeScript("rtnlsim-routes-counterexample-*.ip", lines); file != "" {
		failure += "\nthe script is in " + file + ": RTNLSIM_SIM_ROUTES_SCRIPT=" + file +
			" go test ./props -run TestSimRoutesReplay"
	}
	return "shrunk: " + failure
}

// routeEvents keeps the IPv4 route notifications. (The kernel target
// names lo, made before its subscription, from the link dump it starts
// with, so the sides name devices alike.)
func routeEvents(evs []rtnl.Event) []rtnl.Event {
	var out []rtnl.Event
	for _, e := range evs {
		if _, ok := e.Object.(rtnl.RouteEntry); ok && e.Family == "inet" {
			out = append(out, e)
		}
	}
	return out
}

// oneWindow numbers every notification as request 1: the kernel's carry
// no request number (see runRoutesBoth), so the sequences are compared
// whole.
func oneWindow(evs []rtnl.Event) []rtnl.Event {
	out := make([]rtnl.Event, len(evs))
	for i, e := range evs {
		e.Request = 1
		out[i] = e
	}
	return out
}

// ipv4Routes drops IPv6 routes: those of the devices with IPv6, which
// the IPv6 properties hold.
func ipv4Routes(rs []rtnl.RouteEntry) []rtnl.RouteEntry {
	out := []rtnl.RouteEntry{}
	for _, r := range rs {
		if !strings.Contains(r.Dst, ":") {
			out = append(out, r)
		}
	}
	return out
}

// runRoutesBoth runs reqs on a fresh kernel target (IPv6 off) and on a
// fresh sim target.
//
// The kernel target runs without SyncLinkwatch, which would triple the
// run time: its notifications carry no request number, and are compared
// as one sequence. Route notifications are sent while the request runs,
// so their order is the requests' order. What linkwatch does to routes
// later (NETDEV_CHANGE sets or clears LINKDOWN on a device whose carrier
// changed) is made to happen before the next request by the scripts
// themselves: a carrier change of v0 (its peer v1 going up or down) is
// always followed by `link set v0 up`, whose RTM_GETLINK runs v0's
// pending linkwatch event (linkwatch_sync_dev) and whose RTM_NEWLINK
// waits for a linkwatch run under way (rtnl_lock). The other devices
// are ifbs, whose carrier never changes.
func runRoutesBoth(reqs []rtnl.Request) (kRes, sRes rtnl.Result, err error) {
	ctx := context.Background()
	show := rtnl.Show{Routes: true, Events: true}
	kt, err := kernel.New(kernel.Options{Sysctls: differ.NoIPv6})
	if err != nil {
		return kRes, sRes, fmt.Errorf("kernel: %w", err)
	}
	defer kt.Close()
	// The kernel target's reader may not have read the last request's
	// notifications yet when the stream looks settled: a last request
	// of known effect marks the end of the stream, and its table is then
	// left out of the results.
	sentinel, err := script.ParseString(routeSentinel + "\n")
	if err != nil {
		return kRes, sRes, err
	}
	all := append(append([]rtnl.Request(nil), reqs...), sentinel[0])
	all[len(all)-1].Line = len(reqs) + 1
	if kRes, err = rtnl.Run(ctx, kt, all, show, nil); err != nil {
		return kRes, sRes, fmt.Errorf("kernel: %w", err)
	}
	for try := 0; !sentinelSeen(kRes.Events) && try < 100; try++ {
		time.Sleep(20 * time.Millisecond)
		if kRes.Events, err = kt.Events(ctx); err != nil {
			return kRes, sRes, fmt.Errorf("kernel: %w", err)
		}
	}
	if !sentinelSeen(kRes.Events) {
		return kRes, sRes, errors.New("kernel: the last request's notification never came")
	}
	st := sim.New(sim.Options{Seed: 1, Events: true, Sysctls: differ.NoIPv6, Start: kt.StartConf()})
	defer st.Close()
	if sRes, err = rtnl.Run(ctx, st, all, show, nil); err != nil {
		return kRes, sRes, fmt.Errorf("sim: %w", err)
	}
	return withoutSentinel(kRes), withoutSentinel(sRes), nil
}

// routeSentinel is the request that ends every run (see runRoutesBoth);
// the generated lines never touch its table.
const (
	routeSentinel      = "route add blackhole 10.255.255.0/24 table 250"
	routeSentinelTable = "250"
)

func sentinelSeen(evs []rtnl.Event) bool {
	for _, e := range evs {
		if r, ok := e.Object.(rtnl.RouteEntry); ok && r.Table == routeSentinelTable && e.Type == "RTM_NEWROUTE" {
			return true
		}
	}
	return false
}

// withoutSentinel drops the sentinel's route, notification and any
// refusal of it.
func withoutSentinel(res rtnl.Result) rtnl.Result {
	var evs []rtnl.Event
	for _, e := range res.Events {
		if r, ok := e.Object.(rtnl.RouteEntry); ok && r.Table == routeSentinelTable {
			continue
		}
		evs = append(evs, e)
	}
	res.Events = evs
	routes := []rtnl.RouteEntry{}
	for _, r := range res.Routes {
		if r.Table != routeSentinelTable {
			routes = append(routes, r)
		}
	}
	res.Routes = routes
	return res
}

// simRoutesCase runs one script on both targets; "" when they agree,
// otherwise the difference and the script.
func simRoutesCase(lines []string, seen map[string]int, mu *sync.Mutex) string {
	src := strings.Join(lines, "\n") + "\n"
	fail := func(msg string) string { return fmt.Sprintf("%s\nscript:\n%s", msg, src) }
	reqs, err := script.ParseString(src)
	if err != nil {
		return fail("generated script does not parse: " + err.Error())
	}
	kRes, sRes, err := runRoutesBoth(reqs)
	if line, ok := notModelledGet(err, reqs); ok {
		// A route get through a multipath route: the model does not
		// answer it (the kernel's nexthop hash); the rest is compared
		// without the line.
		mu.Lock()
		seen["route get not modelled"]++
		mu.Unlock()
		flat := strings.Split(strings.TrimSuffix(src, "\n"), "\n") // a generated line may hold two
		return simRoutesCase(slices.Delete(flat, line-1, line), seen, mu)
	}
	if err != nil {
		return fail(err.Error())
	}
	mu.Lock()
	for _, r := range reqs {
		seen[r.Op.Verb()]++
	}
	refused := countRefused(kRes.Errors, seen)
	for _, r := range reqs {
		if strings.HasPrefix(r.Op.Verb(), "route ") && !refused[r.Line] {
			seen[r.Op.Verb()+" ok"]++
		}
		if g, ok := r.Op.(rtnl.RouteGet); ok && g.IIF != "" {
			seen["route get iif"]++
			if !refused[r.Line] {
				seen["route get iif ok"]++
			}
		}
	}
	for _, e := range routeEvents(kRes.Events) {
		seen[e.Type]++
		r := e.Object.(rtnl.RouteEntry)
		for _, f := range r.Flags {
			seen[f]++
		}
		if r.Flow != nil {
			seen["flow "+e.Type]++
		}
		if len(r.Metrics) > 0 {
			seen["metrics "+e.Type]++
		}
		if len(r.Nexthops) > 0 {
			seen["multipath "+e.Type]++
		}
		if r.Via != nil || len(r.Nexthops) > 0 && r.Nexthops[0].Via != nil {
			seen["via inet6 "+e.Type]++
		}
	}
	for _, r := range kRes.Routes {
		if len(r.Nexthops) > 0 {
			seen["multipath route at the end"]++
		}
		for _, nh := range r.Nexthops {
			for _, f := range nh.Flags {
				seen["nexthop "+f]++
			}
		}
	}
	mu.Unlock()
	if d := compare.Errnos(sRes.Errors, kRes.Errors); d != "" {
		return fail(d)
	}
	if k, s := ipv4Routes(kRes.Routes), ipv4Routes(sRes.Routes); !reflect.DeepEqual(k, s) {
		return fail(fmt.Sprintf("routes differ:\nsim:\n%skernel:\n%s", jsonOf(s), jsonOf(k)))
	}
	if d := compare.Events(oneWindow(routeEvents(sRes.Events)), oneWindow(routeEvents(kRes.Events))); d != "" {
		return fail(d)
	}
	if d := differ.ShownDiff(sRes.Shown, kRes.Shown); d != "" {
		return fail(d)
	}
	return ""
}

// notModelledGet is the line of the route get the sim refused as not
// modelled, if err is that.
func notModelledGet(err error, reqs []rtnl.Request) (int, bool) {
	if !errors.Is(err, sim.ErrNotModelled) {
		return 0, false
	}
	for _, r := range reqs {
		if r.Op.Verb() == "route get" && strings.Contains(err.Error(), fmt.Sprintf("line %d ", r.Line)) {
			return r.Line, true
		}
	}
	return 0, false
}

// TestSimRoutesReplay runs the script named by RTNLSIM_SIM_ROUTES_SCRIPT
// on both targets and compares them as TestSimRoutesMatchKernel does
// (skipped without it).
func TestSimRoutesReplay(t *testing.T) {
	lines := replayLines(t, "RTNLSIM_SIM_ROUTES_SCRIPT")
	var mu sync.Mutex
	if f := simRoutesCase(lines, map[string]int{}, &mu); f != "" {
		t.Fatal(f)
	}
}

// TestSimRouteErrnos runs testdata/errno.ip on the sim target and checks
// its route lines as TestKernelErrnos checks them on the kernel: each
// refused with exactly the errno its comment expects, the others
// accepted. (No root needed: the expectations are the kernel's.)
func TestSimRouteErrnos(t *testing.T) {
	src, err := os.ReadFile("testdata/errno.ip")
	require.NoError(t, err)
	reqs, err := script.ParseString(string(src))
	require.NoError(t, err)
	want, got := map[int]string{}, map[int]string{}
	lines := strings.Split(string(src), "\n")
	routeLines := 0
	tg := sim.New(sim.Options{Seed: 1})
	defer tg.Close()
	for _, r := range reqs {
		err := tg.Apply(context.Background(), r)
		if errors.Is(err, sim.ErrNotModelled) {
			t.Fatalf("line %d %q: %v", r.Line, r.Text, err)
		}
		if !strings.HasPrefix(r.Op.Verb(), "route ") {
			continue
		}
		routeLines++
		if m := expectRE.FindStringSubmatch(lines[r.Line-1]); m != nil {
			want[r.Line] = m[1]
		}
		if err != nil {
			got[r.Line] = rtnl.ErrnoName(rtnl.Errno(err))
		}
	}
	require.GreaterOrEqual(t, routeLines, 12)
	require.Equal(t, want, got)
}

// TestSimMultipathScriptExpectations runs each testdata/multipath-*.ip,
// route-options-*.ip and ipv6-route-via6*.ip (with IPv6) on the sim target and checks its route lines
// against their comments: each
// line marked "# expect ERRNO" refused with that errno, the others
// accepted. (No root needed: the expectations are the kernel's, and
// TestRegressionScriptsMatchKernel holds the scripts to the kernel.)
func TestSimMultipathScriptExpectations(t *testing.T) {
	files, err := filepath.Glob("testdata/multipath-*.ip")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	opts, err := filepath.Glob("testdata/route-options-*.ip")
	require.NoError(t, err)
	require.NotEmpty(t, opts)
	files = append(files, opts...)
	via6, err := filepath.Glob("testdata/ipv6-route-via6*.ip")
	require.NoError(t, err)
	require.NotEmpty(t, via6)
	files = append(files, via6...)
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		reqs, err := script.ParseString(string(src))
		require.NoError(t, err)
		lines := strings.Split(string(src), "\n")
		want, got := map[int]string{}, map[int]string{}
		sysctls := differ.NoIPv6
		if strings.HasPrefix(filepath.Base(f), "ipv6-") {
			sysctls = nil
		}
		tg := sim.New(sim.Options{Seed: 1, Sysctls: sysctls})
		for _, r := range reqs {
			err := tg.Apply(context.Background(), r)
			if errors.Is(err, sim.ErrNotModelled) {
				t.Fatalf("%s line %d %q: %v", f, r.Line, r.Text, err)
			}
			if m := expectRE.FindStringSubmatch(lines[r.Line-1]); m != nil {
				want[r.Line] = m[1]
			}
			if err != nil && strings.HasPrefix(r.Op.Verb(), "route ") {
				got[r.Line] = rtnl.ErrnoName(rtnl.Errno(err))
			}
		}
		tg.Close()
		require.Equal(t, want, got, f)
	}
}
