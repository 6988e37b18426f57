package calib

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/internal/kmeasure"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
)

// The scenarios. Every one runs in a fresh namespace on ifb devices (this
// machine has no dummy module). Devices are g0, g1, ...; "UP" devices are
// brought up in the setup with IPv6 on (the kernel's default: each gets a
// link-local address and IPv6 routes, which is the work UP adds), "DOWN"
// ones stay down. The address and route scenarios, and LinkDownBare, turn
// IPv6 off (the model prices IPv4 there).

func parse(src string) []rtnl.Request {
	reqs, err := script.ParseString(src)
	if err != nil {
		panic("calib: a generated script does not parse: " + err.Error())
	}
	return reqs
}

func state(up bool) string {
	if up {
		return "UP"
	}
	return "DOWN"
}

var noIPv6 = map[string]string{"net.ipv6.conf.all.disable_ipv6": "1", "net.ipv6.conf.default.disable_ipv6": "1"}

// devices is the setup of n ifb devices g0..g(n-1), up when asked, in
// group 10 when group is set.
func devices(n int, up, group bool) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "link add g%d type ifb\n", i)
		if group {
			fmt.Fprintf(&b, "link set dev g%d group 10\n", i)
		}
		if up {
			fmt.Fprintf(&b, "link set dev g%d up\n", i)
		}
	}
	return b.String()
}

// each is n script lines, format's %d filled with 0..n-1.
func each(n int, format string) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf(format, i)
	}
	return lines
}

// joinLines is lines as one script, a line each.
func joinLines(lines []string) string {
	return strings.Join(lines, "\n") + "\n"
}

// split deals lines to threads in contiguous runs with cost.SplitInOrder,
// so a kernel scenario's threads are the ones the sim target makes of the
// same requests.
func split(lines []string, threads int) [][]rtnl.Request {
	parts := cost.SplitInOrder(lines, threads)
	out := make([][]rtnl.Request, len(parts))
	for t, part := range parts {
		out[t] = parse(joinLines(part))
	}
	return out
}

// DelOneByOne is `link del gI` for each of n devices, dealt to threads
// user threads (one rtnetlink socket each).
func DelOneByOne(n, threads int, up bool) kmeasure.Scenario {
	lines := each(n, "link del g%d")
	return kmeasure.Scenario{
		Name:  fmt.Sprintf("del one-by-one n=%d %s threads=%d", n, state(up), threads),
		Setup: parse(devices(n, up, false)),
		Timed: split(lines, threads),
	}
}

// DelGroup is `link del group 10` of n devices in group 10: one request,
// one unregister batch.
func DelGroup(n int, up bool) kmeasure.Scenario {
	return kmeasure.Scenario{
		Name:  fmt.Sprintf("del group n=%d %s", n, state(up)),
		Setup: parse(devices(n, up, true)),
		Timed: [][]rtnl.Request{parse("link del group 10\n")},
	}
}

// GroupMove is `link set dev gI group 10` for each of n devices (the first
// half of seed 000's group delete).
func GroupMove(n int, up bool) kmeasure.Scenario {
	lines := each(n, "link set dev g%d group 10")
	return kmeasure.Scenario{
		Name:  fmt.Sprintf("group move n=%d %s", n, state(up)),
		Setup: parse(devices(n, up, false)),
		Timed: split(lines, 1),
	}
}

// LinkUp is `link set dev gI up` for each of n DOWN devices: every
// NETDEV_UP configures IPv6 (a link-local address, its routes) and walks
// the namespace's IPv6 routes (rt6_sync_up), so the work grows as N^2.
func LinkUp(n int) kmeasure.Scenario {
	lines := each(n, "link set dev g%d up")
	return kmeasure.Scenario{
		Name:  fmt.Sprintf("link up n=%d", n),
		Setup: parse(devices(n, false, false)),
		Timed: split(lines, 1),
	}
}

// DownAddressed takes n UP devices that each hold an IPv4 address in a
// /24 of their own down, one `link set dev gI down` each (IPv6 off): each
// NETDEV_DOWN flushes the FIB (fib_disable_ip -> fib_flush, every leaf of
// the merged main/local trie), so the work grows as N^2.
func DownAddressed(n int) kmeasure.Scenario {
	lines := each(n, "link set dev g%d down")
	return kmeasure.Scenario{
		Name:    fmt.Sprintf("link down of addressed n=%d", n),
		Sysctls: noIPv6,
		Setup:   parse(addressed(n, false)),
		Timed:   split(lines, 1),
	}
}

// MTUChange is `link set dev gI mtu 1400` for each of n UP devices (IPv6
// on): every NETDEV_CHANGEMTU walks the namespace's IPv6 routes
// (rt6_mtu_change, fib6_clean_all), the walk a group move's NETDEV_CHANGE
// makes (rt6_sync_up), so the work grows as N^2.
func MTUChange(n int) kmeasure.Scenario {
	lines := each(n, "link set dev g%d mtu 1400")
	return kmeasure.Scenario{
		Name:  fmt.Sprintf("mtu change n=%d UP", n),
		Setup: parse(devices(n, true, false)),
		Timed: split(lines, 1),
	}
}

// addr24 is 10.a.b.1/24 for the i-th /24.
func addr24(i int) netip.Prefix {
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 8), byte(i), 1}), 24)
}

// addressed is the setup of n UP devices (in group 10 when group is set),
// gI holding the first address of the I-th /24 (addr24).
func addressed(n int, group bool) string {
	var b strings.Builder
	b.WriteString(devices(n, true, group))
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "addr add %s dev g%d\n", addr24(i), i)
	}
	return b.String()
}

// DelAddressed deletes n UP devices that each hold an IPv4 address in a
// /24 of its own (so the FIB holds a prefix, a local and a broadcast
// route per device), by group (one batch) or one by one.
func DelAddressed(n int, group bool) kmeasure.Scenario {
	s := kmeasure.Scenario{Sysctls: noIPv6, Setup: parse(addressed(n, group))}
	if group {
		s.Name = fmt.Sprintf("del group of addressed n=%d UP", n)
		s.Timed = [][]rtnl.Request{parse("link del group 10\n")}
		return s
	}
	lines := each(n, "link del g%d")
	s.Name = fmt.Sprintf("del one-by-one of addressed n=%d UP", n)
	s.Timed = split(lines, 1)
	return s
}

// AddrFlush is seed 001's `addr flush dev kmeas0` of n addresses in one
// /8 on an UP device (internal/kmeasure's setup), promote_secondaries 0 or
// 1, IPv6 off.
func AddrFlush(n int, promote bool) kmeasure.Scenario {
	setup, err := kmeasure.Setup(kmeasure.Config{N: n, Promote: promote, Up: true})
	if err != nil {
		panic("calib: " + err.Error())
	}
	return kmeasure.Scenario{
		Name:    fmt.Sprintf("addr flush n=%d promote=%d", n, b2i(promote)),
		Sysctls: noIPv6,
		Setup:   setup,
		Timed:   [][]rtnl.Request{{kmeasure.Flush}},
	}
}

// DelPrimary is `addr del` of the primary of n addresses in one /8 on an
// UP device with promotion, IPv6 off: one promotion, whose n-1 secondaries
// each have fib_del_ifaddr scan the whole list. Its per-secondary work is
// one scan of n entries, so sizes on both sides of sim.IfaWalkCacheEntries
// price the list step near the cache and beyond it.
func DelPrimary(n int) kmeasure.Scenario {
	setup, err := kmeasure.Setup(kmeasure.Config{N: n, Promote: true, Up: true})
	if err != nil {
		panic("calib: " + err.Error())
	}
	first := kmeasure.Slash8Addr(0)
	return kmeasure.Scenario{
		Name:    fmt.Sprintf("del primary of n=%d promote=1", n),
		Sysctls: noIPv6,
		Setup:   setup,
		Timed:   [][]rtnl.Request{parse(fmt.Sprintf("addr del %s dev %s\n", first, kmeasure.Dev))},
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// routeLines are n `route add 11.a.b.0/24 dev r0` lines.
func routeLines(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("route add 11.%d.%d.0/24 dev r0", (i>>8)&255, i&255)
	}
	return lines
}

const routeDev = "link add r0 type ifb\nlink set dev r0 up\n"

// RouteAdd adds n /24 routes through an UP device, one request each.
func RouteAdd(n int) kmeasure.Scenario {
	return kmeasure.Scenario{
		Name:    fmt.Sprintf("route add n=%d", n),
		Sysctls: noIPv6,
		Setup:   parse(routeDev),
		Timed:   split(routeLines(n), 1),
	}
}

// RouteDel deletes n /24 routes through an UP device one request each,
// naming the device: each is the kernel target's name lookup and an
// RTM_DELROUTE, the deletes route flush makes without a lookup, so the
// pair prices the lookup apart from fib_op (route add's lookups come
// with inserts, whose fib_create_info costs more than a delete:
// fib_insert).
func RouteDel(n int) kmeasure.Scenario {
	lines := routeLines(n)
	del := make([]string, n)
	for i, l := range lines {
		del[i] = strings.Replace(l, "route add", "route del", 1)
	}
	return kmeasure.Scenario{
		Name:    fmt.Sprintf("route del n=%d", n),
		Sysctls: noIPv6,
		Setup:   parse(routeDev + joinLines(lines)),
		Timed:   split(del, 1),
	}
}

// RouteFlush is `route flush dev r0` of n /24 routes: a dump, one
// RTM_DELROUTE per route, a dump that finds none.
func RouteFlush(n int) kmeasure.Scenario {
	return kmeasure.Scenario{
		Name:    fmt.Sprintf("route flush n=%d", n),
		Sysctls: noIPv6,
		Setup:   parse(routeDev + joinLines(routeLines(n))),
		Timed:   [][]rtnl.Request{parse("route flush dev r0\n")},
	}
}

// RouteFlushLoUp is RouteFlush with lo up first. Its local routes put
// 127/8 in the merged trie, so the routes' tnode is no longer the root:
// it inflates to 50% full instead of 30%, its index starts at the /24s'
// suffix length, and the deletes find no emptied slots for update_suffix
// to read. The same deletes beside RouteFlush's then tell the slot reads
// (trie_suffix_visit) from the tnodes the deletes' halves build
// (trie_tnode_new): about 3.6 and 4.9 tnodes a route at 2,000 and 8,000
// routes here, against 2.2 and 2.9 with lo down, and a few slot reads a
// route against 485 and 1,939.
func RouteFlushLoUp(n int) kmeasure.Scenario {
	return kmeasure.Scenario{
		Name:    fmt.Sprintf("route flush n=%d lo up", n),
		Sysctls: noIPv6,
		Setup:   parse("link set dev lo up\n" + routeDev + joinLines(routeLines(n))),
		Timed:   [][]rtnl.Request{parse("route flush dev r0\n")},
	}
}

// MTUDown is `link set dev gI mtu 1400` for each of n DOWN devices (IPv6
// off): ip's lookup, the request, NETDEV_PRECHANGEMTU and NETDEV_CHANGEMTU
// and one notification each, nothing that grows with n.
func MTUDown(n int) kmeasure.Scenario {
	lines := each(n, "link set dev g%d mtu 1400")
	return kmeasure.Scenario{
		Name:    fmt.Sprintf("mtu change n=%d DOWN", n),
		Sysctls: noIPv6,
		Setup:   parse(devices(n, false, false)),
		Timed:   split(lines, 1),
	}
}

// The scenarios below each give one small price most of their time, so
// that three calibrations can agree on it: in the scenarios above each
// of these steps carries a few percent of the time at most, and times
// that move 5-10% between rounds cannot pin such a price.

// suffixLines are n `route add 11.0.a.b/32 dev r0` lines.
func suffixLines(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("route add 11.0.%d.%d/32 dev r0", (i>>8)&255, i&255)
	}
	return lines
}

// SuffixToggle deletes and re-adds 11.0.0.0/24 toggles times, beside
// routes /32s of 11.0/16 (IPv6 off). The /24 is the only suffix of its
// tnode, so each delete has update_suffix read every second slot of a
// tnode of about routes slots (a trie_suffix_visit each); the re-add
// pushes the suffix back up without a scan. Probed with ip -b on this
// machine's 6.18 before it went in, 1,000 lines: 13-17 us a line at 8,192
// routes, 16-24 at 16,384, 24-25 at 32,768, against 12 for the same
// toggle of a /24 no /32 shares.
func SuffixToggle(routes, toggles int) kmeasure.Scenario {
	lines := make([]string, 0, 2*toggles)
	for range toggles {
		lines = append(lines, "route del 11.0.0.0/24 dev r0", "route add 11.0.0.0/24 dev r0")
	}
	return kmeasure.Scenario{
		Name:    fmt.Sprintf("suffix toggle routes=%d n=%d", routes, toggles),
		Sysctls: noIPv6,
		Setup:   parse(routeDev + joinLines(suffixLines(routes)) + "route add 11.0.0.0/24 dev r0\n"),
		Timed:   split(lines, 1),
	}
}

// LinkDownBare takes n UP devices without addresses down one by one
// (IPv6 off): ip's line, the request, two notifier calls, a notification
// and dev_deactivate_many's synchronize_net, expedited under RTNL, which
// is about half of each line (probed before it went in: 68-74 us a line
// against 39 for an mtu change of a DOWN device, 1,000 devices).
func LinkDownBare(n int) kmeasure.Scenario {
	return kmeasure.Scenario{
		Name:    fmt.Sprintf("link down n=%d UP bare", n),
		Sysctls: noIPv6,
		Setup:   parse(devices(n, true, false)),
		Timed:   split(each(n, "link set dev g%d down"), 1),
	}
}

// UpDownToggle brings one device up and down toggles times (IPv6 on, no
// other device up): each up configures IPv6 on it afresh (its
// link-local address and routes: ipv6_dev_config) and each down tears
// that down with a synchronize_net, while the IPv6 walks stay a few
// entries long.
func UpDownToggle(toggles int) kmeasure.Scenario {
	lines := make([]string, 0, 2*toggles)
	for range toggles {
		lines = append(lines, "link set dev g0 up", "link set dev g0 down")
	}
	return kmeasure.Scenario{
		Name:  fmt.Sprintf("up down toggle n=%d", toggles),
		Setup: parse(devices(1, false, false)),
		Timed: split(lines, 1),
	}
}

// DownRoutes is DownAddressed of devs devices beside routes /24s through
// another device, r0: each NETDEV_DOWN flushes every leaf of the FIB, so
// fib_flush_leaf is most of the time (probed before it went in: 300
// devices took 93-105 us a line alone, 208-248 with 10,000 routes, 403-452
// with 30,000).
func DownRoutes(devs, routes int) kmeasure.Scenario {
	return kmeasure.Scenario{
		Name:    fmt.Sprintf("link down of addressed n=%d beside routes=%d", devs, routes),
		Sysctls: noIPv6,
		Setup:   parse(routeDev + joinLines(routeLines(routes)) + addressed(devs, false)),
		Timed:   split(each(devs, "link set dev g%d down"), 1),
	}
}
