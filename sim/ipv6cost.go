package sim

import (
	"slices"
	"strconv"
	"strings"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// IPv6 in the cost model. The kernel's IPv6 does work on every netdev
// event that is proportional to ALL of the namespace's IPv6 state, and that
// work is what makes UP devices cost more than DOWN ones for group moves
// and deletions, super-linearly (measured on this machine's 6.18 with
// `ip -b` group moves and deletes of 1,000-4,000 ifb devices, UP against
// DOWN; the difference vanishes with net.ipv6.conf.*.disable_ipv6=1). For
// the cost, the model keeps an estimate of what the kernel holds (the
// same events as the IPv6 state of addrconf.go, which
// TestIPv6EstimateMatchesState holds equal to it) and counts the entries
// its walks visit (cost.StepIPv6Walk). Read in Linux ~6.17
// (net/ipv6/addrconf.c, route.c, ip6_fib.c) and confirmed with perf
// (cpu-clock) on this machine's 6.18:
//
//   - NETDEV_CHANGE (addrconf_notify): a device that is link-ready and
//     IF_READY gets rt6_sync_up(dev, RTNH_F_LINKDOWN); one that is not
//     ready gets rt6_sync_down_dev; one that becomes ready gets its
//     addresses and rt6_sync_up(dev, RTNH_F_DEAD). Each is fib6_clean_all:
//     a walk of every fib6 node of every table, calling the callback on
//     every route. netdev_state_change (the group move of an UP device)
//     sends NETDEV_CHANGE: that walk is ~77% of `ip link set dev X group
//     10` with 2000 UP ifb (perf: fib6_ifup, fib6_walk_continue).
//   - NETDEV_UP: rt6_sync_up after addrconf_init_auto_addrs (a walk) when
//     the link is ready.
//   - NETDEV_DOWN and NETDEV_UNREGISTER (addrconf_ifdown): rt6_disable_ip
//     -> rt6_sync_down_dev -> fib6_clean_all (nodes and routes), whatever
//     the device holds; then a walk of the whole address hash
//     (inet6_addr_lst, every address of the namespace); then for each
//     address deleted with a notification, __ipv6_ifa_notify(RTM_DELADDR)
//     -> rt_genid_bump_ipv6 -> fib6_flush_trees: a walk of every node (no
//     callback). In a group delete of UP devices nearly all the time goes
//     to these two walks during dev_close_many's NETDEV_DOWN (perf).
//   - NETDEV_CHANGEMTU: rt6_mtu_change is a fib6_clean_all too; an mtu
//     below IPV6_MIN_MTU runs addrconf_ifdown(dev, true).
//
// The estimate (checked against /proc/net/rt6_stats and
// /proc/net/ipv6_route in fresh namespaces on 6.18, see
// TestIPv6EstimateShape): lo, once up, holds ::1 (one route, one node). A
// device that is up, link-ready (netif_oper_up, a qdisc other than noop),
// with mtu >= 1280 and an ethernet-like type holds one link-local address
// and three routes: fe80::/64 (main), ff00::/8 multicast (local) and its
// local fe80::x/128 (local; added when DAD completes, at once for NOARP
// devices such as ifb, about a second later for others: the estimate counts
// it at once). The local table is a path-compressed binary trie over the
// keys ::1, ff00::/8 and the /128s, so 2K-1 nodes for K keys (one less when
// ::1 and the fe80/ff00 keys part at the table's root, which is not
// counted), plus the fe80::/64 node of main: with U such devices, 2U+3
// nodes and 3U+1 routes with lo up (6.18 agrees for U = 1, 2, 3, 10, 100,
// 1000), 2U+2 and 3U with lo down (U = 1, 2, 10). Of the net.ipv6 sysctls
// the estimate follows disable_ipv6 (sysctlIPv6); accept_dad, forwarding
// and keep_addr_on_down change user addresses and their routes, which it
// leaves out. Not modelled: the other keys (addr_gen_mode, ...: ENOENT),
// the walks of user IPv6 addresses and routes (their notifications are
// counted),
// IFF_NO_ADDRCONF slaves, L3 masters; walks are priced
// per entry whether it is a node, a route or an address (the three cost
// about the same per entry in the perf profile: a pointer chase and a
// test).

// ipv6MinMTU is IPV6_MIN_MTU: below it a device has no inet6_dev.
const ipv6MinMTU = 1280

// ipv6Est is the namespace's estimated IPv6 state and the work counted so
// far (cumulative, like the other counters; takeInetWork takes the
// difference per request).
type ipv6Est struct {
	loUp  bool // lo holds ::1 (init_loopback at lo's NETDEV_UP)
	ready int  // devices holding a link-local address and three routes

	walk   int64 // cost.StepIPv6Walk entries
	far    int64 // cost.StepIPv6WalkFar entries
	cold   int64 // cost.StepIPv6WalkCold entries
	list   int64 // cost.StepIPv6RouteList entries
	config int64 // cost.StepIPv6DevConfig: devices that became IPv6-ready
	notes  int64 // IPv6 notifications: sent (send6), and netconf and neigh ones not modelled

	// fibWarm and addrWarm: the current request has walked the FIB, the
	// address hash (a later walk finds it in the cache); dadWarm: the DAD
	// work after it has (dadFlush). endRequest clears them.
	fibWarm, addrWarm, dadWarm bool

	// dfltOff is net.ipv6.conf.default.disable_ipv6, which new devices
	// take.
	dfltOff bool
	// inBatch: dev_close_many of an unregister batch is running, whose
	// RTM_DELADDR of the link-local addresses UnregisterRequestWork
	// counts.
	inBatch bool
}

// v6EstimateCounts is the estimated size of the namespace's IPv6 state.
type v6EstimateCounts struct {
	// Ready devices hold a link-local address and three routes.
	Ready int `json:"ready"`
	// Nodes are fib6 nodes over all tables (rt6_stats fib_nodes),
	// Routes the routes (fib_rt_entries), Addrs the addresses in the
	// address hash.
	Nodes  int64 `json:"nodes"`
	Routes int64 `json:"routes"`
	Addrs  int64 `json:"addrs"`
}

// v6Estimate returns the model's estimate of what the kernel's IPv6
// holds in this namespace.
func (n *Netns) v6Estimate() v6EstimateCounts {
	e := &n.v6
	return v6EstimateCounts{Ready: e.ready, Nodes: e.nodes(), Routes: e.routes(), Addrs: e.addrs()}
}

func (e *ipv6Est) nodes() int64 {
	var keys int64
	if e.loUp {
		keys++
	}
	if e.ready > 0 {
		keys += int64(e.ready) + 1 // the /128s and ff00::/8
	}
	if keys == 0 {
		return 0
	}
	nodes := 2*keys - 1 // the local table: keys and branching nodes
	if e.loUp && e.ready > 0 {
		nodes-- // ::1 and the others part at the table's root
	}
	if e.ready > 0 {
		nodes++ // fe80::/64 in main
	}
	return nodes
}

func (e *ipv6Est) routes() int64 {
	r := 3 * int64(e.ready)
	if e.loUp {
		r++
	}
	return r
}

func (e *ipv6Est) addrs() int64 {
	a := int64(e.ready)
	if e.loUp {
		a++
	}
	return a
}

// IPv6WalkCacheEntries is how many entries of one whole-FIB IPv6 walk are
// priced at cost.StepIPv6Walk alone; the rest of a bigger walk also counts
// cost.StepIPv6WalkFar. It stands for the cache: this machine's L2 is 1 MiB
// per core, about 10,000 fib6 nodes and routes at ~100 bytes touched each.
// Measured on this machine, the price per entry rises past that size:
// (UP - DOWN) time per walked entry of a group move is ~30 ns at 1,000 and
// 2,000 devices (walks of 5,000 and 10,000 entries) and ~47 ns at 4,000
// (20,000), and a group delete of 4,000, whose walks shrink from 20,000
// entries, sits in between; a price for entries beyond 10,000 fits both.
// A calibration can only fix cost.StepIPv6WalkFar's price from a scenario
// whose walks are bigger than this (more than ~2,000 UP devices).
const IPv6WalkCacheEntries = 10_000

// Cold and warm walks. Every entry of every walk is a cost.StepIPv6Walk; the
// entries of a request's first FIB walk, of its first address-hash walk
// and of the first DAD walk after it (dadFlush) are
// cost.StepIPv6WalkCold as well. Measured on this machine (6.18,
// 2-core EPYC VM, 1 MiB L2 per core; minima of interleaved runs on the
// shared machine): the same fib6_clean_all walks cost about twice as much
// per entry one per request as back to back in one request:
// `link set dev gI mtu 1400` per device (rt6_mtu_change, one walk per
// request) against `link set group 10 mtu 1400` (every device's
// NETDEV_CHANGEMTU and NETDEV_CHANGE walks in one request), and
// `link set dev gI up` per device against `link set group 10 up`; so also
// a group move's NETDEV_CHANGE walks (fib6_ifup, ~41 ns per entry) against
// a group delete's NETDEV_DOWN walks (~25 ns). The callbacks are not what
// differs: fib6_ifup and fib6_ifdown (net/ipv6/route.c) both test one
// route's nexthop device and act only on the device's own routes;
// fib6_flush_trees has no callback and writes each node's sernum; all run
// the same fib6_walk (ip6_fib.c) over the same nodes and route lists.
// What differs is where the walk finds them: between two requests the
// thread returns to user space, other tasks run and the thread may move
// to the other core, so a request's first walk reads the nodes and routes
// from L3 (a dependent load per entry); the walks after it in the same
// request find them in L2 while they fit (IPv6WalkCacheEntries).

// walked counts one walk of s entries: beyond the cache when a FIB walk
// is bigger than it (far), cold when *warm is not yet set, which it sets.
func (e *ipv6Est) walked(s int64, far bool, warm *bool) {
	e.walk += s
	if far {
		e.far += max(0, s-IPv6WalkCacheEntries)
	}
	if !*warm {
		e.cold += s
		*warm = true
	}
}

// fibEntries counts one FIB walk of s entries made by the request.
func (e *ipv6Est) fibEntries(s int64) { e.walked(s, true, &e.fibWarm) }

// endRequest ends a request: the next request's first walks are cold.
func (e *ipv6Est) endRequest() { e.fibWarm, e.addrWarm, e.dadWarm = false, false, false }

// cleanAll is fib6_clean_all with a callback: every node, every route.
func (e *ipv6Est) cleanAll() { e.fibEntries(e.nodes() + e.routes()) }

// flushTrees is fib6_flush_trees (rt_genid_bump_ipv6): every node.
func (e *ipv6Est) flushTrees() { e.fibEntries(e.nodes()) }

// dadFlush is the fib6_flush_trees that addrconf_dad_completed makes when
// the address was tentative (bump_id, then rt_genid_bump_ipv6): a walk of
// every node. The DAD worker makes it after the request, in a context of
// its own, so the first such walk after a request is cold whatever the
// request walked; the DAD works a request queued run one after another,
// and the walks after the first find the nodes warm. perf on this
// machine's 6.18, 2,000 ifb devices brought up one by one through ip -b:
// this walk (addrconf_dad_work) took about half as many samples as the
// request's rt6_sync_up walk of nodes and routes.
func (e *ipv6Est) dadFlush() { e.walked(e.nodes(), true, &e.dadWarm) }

// ifDownWalks are the walks addrconf_ifdown makes for any device:
// fib6_clean_all with the device's routes still in, then the address hash
// (inet6_addr_lst; not a FIB walk, so never cost.StepIPv6WalkFar; cold when it
// is the request's first).
func (e *ipv6Est) ifDownWalks() {
	e.cleanAll()
	e.walked(e.addrs(), false, &e.addrWarm)
}

// dropLLA is addrconf_ifdown removing a device's link-local address and
// three routes (their RTM_DELROUTE and RTM_DELADDR counted as sent,
// send6; here the RTM_DELNEIGH of ff02::2), then fib6_flush_trees for
// the address.
func (e *ipv6Est) dropLLA() {
	e.ready--
	e.notes++
	e.flushTrees()
}

// v6LinkReady is addrconf_link_ready plus what gives a device its
// link-local address: an inet6_dev (mtu), an ethernet-like type.
func (n *Netns) v6LinkReady(d *Device) bool {
	return d != n.lo && !d.v6Off && n.addrconfLinkReady(d) && d.mtu >= ipv6MinMTU
}

// v6Up is addrconf_notify's NETDEV_UP (dev_disable_change sends it too
// when disable_ipv6 goes to 0): a device whose link is ready gets IF_READY
// and its addresses (init_loopback, addrconf_dev_config), then
// rt6_sync_up.
func (n *Netns) v6Up(d *Device) {
	e := &n.v6
	if d.v6Off {
		return // idev->cnf.disable_ipv6: nothing
	}
	n.fixupPermanent(d) // addrconf_permanent_addr, ready or not
	if d == n.lo {
		if d.in6 == nil {
			return
		}
		d.in6.ready = true
		n.initLoopback(d)
		if d.mtu >= ipv6MinMTU {
			e.loUp = true
			e.cleanAll()
		} else {
			// Kept across an mtu below 1280 (lo's inet6_dev stays), its
			// new ::1 goes again at once.
			n.addrconfIfdown(d, false)
		}
		return
	}
	if !n.v6LinkReady(d) {
		return // "link is not ready": no walk
	}
	d.in6.ready = true
	n.v6Config(d)
	n.redoStoppedDAD(d)
	n.syncUp6(d)
	e.cleanAll() // rt6_sync_up(dev, RTNH_F_DEAD)
}

// addrconfLinkReady is addrconf_link_ready: operstate up (or unknown)
// and a qdisc on the tx queues (!qdisc_tx_is_noop: Device.txActive). So
// a device opened without carrier, before linkwatch has made its
// operstate LOWERLAYERDOWN (a veth created up with its peer down), is not
// ready; one whose carrier went while linkwatch has not run yet (a bridge
// losing its last port) still is.
func (n *Netns) addrconfLinkReady(d *Device) bool {
	return d.Up() && d.operUp() && d.qdisc != "noop" && d.txActive
}

// v6Config is addrconf_dev_config: the link-local address and its three
// routes (RTM_NEWROUTE x3, RTM_NEWADDR), one cost.StepIPv6DevConfig, and the
// route-list walks of two inserts.
func (n *Netns) v6Config(d *Device) {
	n.devConfig(d)
	if d.v6 {
		return
	}
	d.v6 = true
	// Inserting the fe80::/64 and ff00::/8 routes: fib6_add_rt2node
	// walks the node's whole route list (every ready device has one
	// there, all of the same metric) checking each for a duplicate
	// nexthop before appending (net/ipv6/ip6_fib.c): two list walks of
	// the other ready devices' routes (cost.StepIPv6RouteList).
	e := &n.v6
	e.list += 2 * int64(e.ready)
	e.ready++
	e.config++
}

// v6Change is addrconf_notify's NETDEV_CHANGE (sent for UP devices only):
// a link no longer ready marks the device's routes linkdown; one ready and
// configured clears that; one that becomes ready is configured now. The
// loopback below an mtu of 1280 keeps its inet6_dev but is never left
// IF_READY: each NETDEV_CHANGE (a group or other do_setlink change,
// netdev_state_change) gives it ::1 again (init_loopback) and takes it
// away at once (the handler's closing addrconf_ifdown for an mtu below
// IPV6_MIN_MTU), as v6Up does.
func (n *Netns) v6Change(d *Device, noarpChanged bool) {
	if d.v6Off {
		return
	}
	switch {
	case !n.addrconfLinkReady(d):
		n.linkDown6(d)
	case d.in6 == nil:
	case d.in6.ready:
		if noarpChanged {
			n.restartDAD(d)
		}
		n.syncUp6(d)
	default:
		d.in6.ready = true
		if d == n.lo {
			n.initLoopback(d)
		} else {
			n.v6Config(d)
		}
		n.redoStoppedDAD(d)
		n.syncUp6(d)
		if d.mtu < ipv6MinMTU {
			n.addrconfIfdown(d, false)
		}
	}
	n.v6.cleanAll() // rt6_sync_up, or rt6_sync_down_dev when not ready
}

// v6IfDown is addrconf_ifdown: a walk over nodes and routes with the
// device's routes still in, the address hash walk, then the device's
// routes and addresses go (addrconfIfdown: RTM_DELROUTE each, then
// RTM_DELADDR; the RTM_DELNEIGH of ff02::2 is counted here) and one
// fib6_flush_trees per address deleted. unregister drops the inet6_dev.
func (n *Netns) v6IfDown(d *Device, unregister bool) {
	e := &n.v6
	e.ifDownWalks()
	n.addrconfIfdown(d, unregister)
	if d == n.lo {
		if e.loUp {
			e.loUp = false
			e.flushTrees()
		}
		return
	}
	if !d.v6 {
		return
	}
	d.v6 = false
	e.dropLLA()
}

// v6Down is addrconf_notify's NETDEV_DOWN.
func (n *Netns) v6Down(d *Device) { n.v6IfDown(d, false) }

// v6Unregister is addrconf_notify's NETDEV_UNREGISTER, plus the two
// RTM_DELNETCONF (inet, inet6) every unregistered device sends.
func (n *Netns) v6Unregister(d *Device) {
	n.v6IfDown(d, true)
	n.v6.notes += 2
}

// v6ChangeMTU is addrconf_notify's NETDEV_CHANGEMTU: below 1280
// addrconf_ifdown (the loopback keeps its inet6_dev); a device that had
// an inet6_dev walks (rt6_mtu_change); one that had none gets a new one
// (a copy of net.ipv6.conf.default) and, when up with its link ready, its
// link-local address.
func (n *Netns) v6ChangeMTU(d *Device) {
	if d.mtu < ipv6MinMTU {
		n.v6IfDown(d, d != n.lo)
		return
	}
	if d.in6 != nil {
		n.v6.cleanAll()
		return
	}
	d.in6 = n.newInet6Dev()
	d.v6Off = n.v6.dfltOff
	if !n.addrconfLinkReady(d) {
		return
	}
	d.in6.ready = true
	if d.v6Off {
		return
	}
	n.v6Config(d)
	n.syncUp6(d)
	n.v6.cleanAll() // rt6_sync_up(dev, RTNH_F_DEAD)
}

// sysctlKeys6 are the net.ipv6.conf keys the model takes (the language's
// script.Conf6Keys).
var sysctlKeys6 = []string{"disable_ipv6", "accept_dad", "forwarding", "keep_addr_on_down"}

// sysctlIPv6 writes net.ipv6.conf.{all,default,DEV}.KEY for the keys of
// sysctlKeys6. disable_ipv6 is followed as addrconf_disable_ipv6 does:
// default is what new devices take; all sets default and every device
// that has an inet6_dev; a device's own key that device. A device whose
// setting changes gets dev_disable_change: addrconf_ifdown when turned
// off, the NETDEV_UP path when turned on (nothing unless it is up and
// ready). accept_dad is stored: it decides only how long DAD takes
// (runDAD), and the model has no wall clock. forwarding is
// addrconf_fixup_forwarding (anycast6.go); keep_addr_on_down a plain
// integer, read when a device goes down (addrconfIfdown). ENOENT for
// other keys and for a device without an inet6_dev (mtu below 1280),
// EINVAL for a value that is not a number.
func (n *Netns) sysctlIPv6(op rtnl.Sysctl, rest string) error {
	i := strings.LastIndex(rest, ".")
	if i <= 0 || !slices.Contains(sysctlKeys6, rest[i+1:]) {
		return &rtnl.Error{Errno: uapi.ENOENT, Msg: "sysctl " + op.Key}
	}
	dev := rest[:i]
	var d *Device
	if dev != "all" && dev != "default" {
		if d = n.byDevName(dev); d == nil || d.in6 == nil {
			return &rtnl.Error{Errno: uapi.ENOENT, Msg: "sysctl " + op.Key}
		}
	}
	v, err := strconv.Atoi(strings.TrimSpace(op.Value))
	if err != nil {
		return &rtnl.Error{Errno: uapi.EINVAL, Msg: "sysctl " + op.Key + "=" + op.Value}
	}
	n.sysctls[op.Key] = op.Value
	if rest[i+1:] == "accept_dad" {
		if d != nil {
			d.in6.acceptDAD = v // not all's: writing all reaches no device
		}
		return nil
	}
	if rest[i+1:] == "forwarding" {
		n.forwardingSysctl(dev, d, v != 0)
		return nil
	}
	if rest[i+1:] == "keep_addr_on_down" {
		// proc_dointvec: all and default are only read (addrconfIfdown,
		// newInet6Dev); a device's is its own.
		if d != nil {
			d.in6.keepAddr = v
		}
		return nil
	}
	off := v != 0
	switch dev {
	case "default":
		n.v6.dfltOff = off
	case "all":
		n.v6.dfltOff = off
		for _, x := range n.devSnapshot() {
			if n.alive(x) && x.in6 != nil {
				n.v6Disable(x, off)
			}
		}
	default:
		n.v6Disable(d, off)
	}
	return nil
}

// v6Disable is dev_disable_change after a device's disable_ipv6 changed.
func (n *Netns) v6Disable(d *Device, off bool) {
	if d.v6Off == off {
		return
	}
	d.v6Off = off
	if off {
		n.v6IfDown(d, false)
		return
	}
	if d.Up() {
		n.v6Up(d)
	}
}

// batchIPv6Work is the ipv6_walk entries (far: beyond the cache; cold:
// of the batch's first FIB and address-hash walks) and the IPv6 and netconf
// notifications of one unregister batch of devs (those Up with IPv6LLA
// hold a link-local address and three routes) while rest other devices
// hold theirs and lo is down, counted as the sim target's estimate counts
// them: dev_close_many's NETDEV_DOWN of each UP device in order
// (addrconf_ifdown: a fib6_clean_all, the address hash, a fib6_flush_trees
// once its address went; RTM_DELROUTE x3 and RTM_DELNEIGH, the RTM_DELADDR
// being UnregisterRequestWork's), then each device's NETDEV_UNREGISTER
// (addrconf_ifdown again; RTM_DELNETCONF inet and inet6).
func batchIPv6Work(devs []UnregDev, rest int) (walk, far, cold, notes int64) {
	e := ipv6Est{ready: rest}
	for _, d := range devs {
		if d.Up && d.IPv6LLA {
			e.ready++
		}
	}
	for _, d := range devs {
		if !d.Up {
			continue
		}
		e.ifDownWalks()
		if d.IPv6LLA {
			e.dropLLA()
			e.notes += 3 // the RTM_DELROUTE the sim target sends (send6)
		}
	}
	for range devs {
		e.ifDownWalks()
		e.notes += 2
	}
	return e.walk, e.far, e.cold, e.notes
}
