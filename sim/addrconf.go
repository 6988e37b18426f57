package sim

import (
	"cmp"
	"net"
	"net/netip"
	"path"
	"slices"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// IPv6 as the kernel configures it by itself: each device's inet6_dev
// with the loopback's ::1 and the link-local fe80:: address made from the
// MAC (addr_gen_mode eui64), the routes that come with them, and their
// notifications. Read in Linux ~6.17 net/ipv6/addrconf.c (addrconf_notify,
// addrconf_dev_config, addrconf_add_linklocal, init_loopback,
// addrconf_dad_begin and _completed, addrconf_ifdown) and net/ipv6/route.c
// (fib6_ifdown, rt6_sync_up); props/TestSimAddrsRoutesMatchKernel's IPv6
// scripts hold it against 6.18. The cost model's walks (ipv6cost.go) are
// counted beside it from the same events. User IPv6 addresses are in
// addrconf_user.go, user IPv6 routes in route6.go; prefsrc, RA and
// temporary addresses are not modelled.

// inet6Dev is a device's inet6_dev (dev->ip6_ptr).
type inet6Dev struct {
	ready bool         // IF_READY: the link was ready when it came up
	addrs []*inet6Addr // addr_list
	// acceptDAD is the device's accept_dad: default's when the
	// inet6_dev was made, then what was written for the device.
	acceptDAD int
	// forwarding is the device's forwarding (default's when made), ac
	// its anycast addresses by prefix (anycast6.go).
	forwarding bool
	ac         map[netip.Addr]*acEntry
	// keepAddr is the device's keep_addr_on_down (default's when made,
	// then what was written for the device); addrconfIfdown reads it.
	keepAddr int
}

// inet6Addr is an inet6_ifaddr.
type inet6Addr struct {
	addr  netip.Addr
	plen  int
	scope uint8  // RT_SCOPE_HOST (::1), RT_SCOPE_LINK (fe80::), or a user address's
	flags uint32 // IFA_F_*
	// user: added by a request (addrconf_user.go), not by the kernel;
	// metric is its IFA_RT_PRIORITY; dadStopped: its DAD found the
	// device not ready and waits for it (addrconf_dad_stop).
	user       bool
	metric     uint32
	dadStopped bool
	// predad: kept over a down (keep_addr_on_down), its DAD to start
	// again when the device comes up (INET6_IFADDR_STATE_PREDAD, which
	// fixup_permanent_addr looks for).
	predad bool
	// local is the address's local route (ifp->rt) once it is in the
	// FIB: when DAD completes.
	local *route6
	// lft is the address's valid and preferred lifetimes as set (nil:
	// forever). They do not run down: the model keeps no clock.
	lft *lifetimes6
}

// lifetimes6 is an address's valid_lft and prefered_lft in seconds,
// foreverLft for infinity.
type lifetimes6 struct{ valid, pref uint32 }

// lifetimes is the address's valid and preferred lifetimes.
func (a *inet6Addr) lifetimes() (valid, pref uint32) {
	if a.lft == nil {
		return foreverLft, foreverLft
	}
	return a.lft.valid, a.lft.pref
}

// route6 is a fib6_info: of the kernel's own making, or the user's
// (user: proto and gw are the request's; route6.go).
type route6 struct {
	table    uint32 // RT_TABLE_MAIN or RT_TABLE_LOCAL (a user route: any)
	dst      netip.Prefix
	typ      uint8 // RTN_UNICAST, RTN_LOCAL or RTN_MULTICAST (user: also the reject types)
	dev      *Device
	metric   uint32
	seq      uint64 // insertion order: a node lists equal metrics oldest first
	linkdown bool   // RTNH_F_LINKDOWN
	user     bool
	proto    uint8
	gw       netip.Addr
	// prefsrc is a user route's RTA_PREFSRC (invalid: none).
	prefsrc netip.Addr
	// weight (1..256), dead (RTNH_F_DEAD) and sibs are a user route's
	// nexthop in an ECMP group: sibs is the fib6_siblings list it shares
	// with the routes of its node and metric (nil for none).
	weight int
	dead   bool
	sibs   *sibs6
	// expires is the seconds a prefix route of an address with a finite
	// valid_lft has left (RTF_EXPIRES), 0 for none; it does not run down.
	expires uint32
	// nhid is a user route's nexthop object (RTA_NH_ID); such a route has
	// no device (nil) and nhSeq orders its link into the nexthop's
	// f6i_list.
	nhid  uint32
	nhSeq uint64
}

// sibs6 is a fib6_siblings list in list order, which is also the order
// of its routes in their node: a sibling joins at the list's tail and at
// the end of its metric's routes.
type sibs6 struct{ rs []*route6 }

// from is the list as rt6_fill_node walks it from r: r, then the rest
// around the circle.
func (s *sibs6) from(r *route6) []*route6 {
	i := max(slices.Index(s.rs, r), 0)
	return append(slices.Clone(s.rs[i:]), s.rs[:i]...)
}

// unlink6 takes r out of its sibling list (fib6_del_route); one left
// alone is a plain route again.
func unlink6(r *route6) {
	s := r.sibs
	if s == nil {
		return
	}
	r.sibs = nil
	s.rs = slices.DeleteFunc(s.rs, func(x *route6) bool { return x == r })
	if len(s.rs) == 1 {
		s.rs[0].sibs = nil
		s.rs = nil
	}
}

// fib6 is the namespace's IPv6 routes, kept by device: every route the
// model makes has one, and what the kernel does to them goes by device.
// Routes6 puts them in fib6_walk order.
type fib6 struct {
	byDev map[*Device][]*route6
	// byNode is each node's routes (one table, one prefix) in the node's
	// order, metric then age: the requests that look at one node, or
	// probe the prefixes of an address for the longest match, read it
	// instead of putting every route in walk order.
	byNode map[node6][]*route6
	// lens counts each table's nodes by prefix length, so that a lookup
	// probes only the lengths a table has.
	lens map[uint32]*[129]int32
	// tables are the tables but main and local that fib6_new_table
	// made: a route request or an IPv6 rule named them; none goes away.
	tables map[uint32]bool
	seq    uint64
	nhSeq  uint64
	// dad is the addresses whose DAD work is queued (addrconf_dad_start),
	// oldest first; runDAD completes them after the request.
	dad []dadWork
}

// node6 names a fib6 node of one table.
type node6 struct {
	table uint32
	dst   netip.Prefix
}

// index enters r in its node's list, at its place by metric and age.
func (f *fib6) index(r *route6) {
	if f.byNode == nil {
		f.byNode = map[node6][]*route6{}
	}
	k := node6{r.table, r.dst}
	rs := f.byNode[k]
	if len(rs) == 0 {
		if f.lens == nil {
			f.lens = map[uint32]*[129]int32{}
		}
		if f.lens[r.table] == nil {
			f.lens[r.table] = new([129]int32)
		}
		f.lens[r.table][r.dst.Bits()]++
	}
	i, _ := slices.BinarySearchFunc(rs, r, func(x, y *route6) int {
		if c := cmp.Compare(x.metric, y.metric); c != 0 {
			return c
		}
		return cmp.Compare(x.seq, y.seq)
	})
	f.byNode[k] = slices.Insert(rs, i, r)
}

// unindex takes r out of its node's list.
func (f *fib6) unindex(r *route6) {
	k := node6{r.table, r.dst}
	rs := slices.DeleteFunc(f.byNode[k], func(x *route6) bool { return x == r })
	if len(rs) == 0 {
		if _, ok := f.byNode[k]; ok {
			f.lens[r.table][r.dst.Bits()]--
		}
		delete(f.byNode, k)
	} else {
		f.byNode[k] = rs
	}
}

// node is the routes of table's node for dst, in the node's order.
func (f *fib6) node(table uint32, dst netip.Prefix) []*route6 {
	return f.byNode[node6{table, dst}]
}

// newTable is fib6_new_table.
func (f *fib6) newTable(id uint32) {
	if f.tables == nil {
		f.tables = map[uint32]bool{}
	}
	f.tables[id] = true
}

// hasTable is fib6_get_table finding the table.
func (f *fib6) hasTable(id uint32) bool {
	return id == uapi.RT_TABLE_MAIN || id == uapi.RT_TABLE_LOCAL || f.tables[id]
}

type dadWork struct {
	d   *Device
	ifa *inet6Addr
}

// fib6Less is fib6_walk's order: tables by their hash bucket (main 254
// before local 255), then the radix tree post-order (0 before 1, a more
// specific prefix before the one that holds it), then a node's list
// (metric, then age).
func fib6Less(a, b *route6) int {
	if c := cmp.Compare(a.table&0xff, b.table&0xff); c != 0 {
		return c
	}
	if c := prefixWalkOrder(a.dst, b.dst); c != 0 {
		return c
	}
	if c := cmp.Compare(a.metric, b.metric); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

// prefixWalkOrder orders two prefixes as a post-order walk of a binary
// trie visits them.
func prefixWalkOrder(p, q netip.Prefix) int {
	pa, qa := p.Addr().As16(), q.Addr().As16()
	m := min(p.Bits(), q.Bits())
	for i := range m {
		pb, qb := pa[i/8]>>(7-i%8)&1, qa[i/8]>>(7-i%8)&1
		if pb != qb {
			return cmp.Compare(pb, qb)
		}
	}
	return -cmp.Compare(p.Bits(), q.Bits())
}

// add6 is ip6_route_add of a kernel route: EEXIST (nothing) when the node
// already has a route of that metric with the same nexthop (device and
// gateway: rt6_duplicate_nexthop; a user's reject route counts, through
// the loopback), else RTM_NEWROUTE (linkdown when the device has no
// carrier).
func (n *Netns) add6(r *route6) bool {
	f := &n.fib6
	for _, x := range f.node(r.table, r.dst) {
		if x.dev == r.dev && x.metric == r.metric && x.gw == r.gw {
			// fib6_add_rt2node: a duplicate that expires takes the new
			// route's expiry (none: it no longer expires), silently.
			if x.expires != 0 {
				x.expires = r.expires
			}
			return false
		}
	}
	if f.byDev == nil {
		f.byDev = map[*Device][]*route6{}
	}
	// fib6_nh_init: a route through a device without carrier starts
	// linkdown (local and anycast routes never are).
	r.linkdown = r.typ != uapi.RTN_LOCAL && r.typ != uapi.RTN_ANYCAST && !r.dev.carrier // RTF_LOCAL, RTF_ANYCAST
	f.seq++
	r.seq = f.seq
	f.byDev[r.dev] = append(f.byDev[r.dev], r)
	f.index(r)
	n.send6("RTM_NEWROUTE", true, func() any { return n.renderRoute6(r) })
	return true
}

// protocol is the route's rtm_protocol.
func (r *route6) protocol() uint8 {
	if r.user {
		return r.proto
	}
	return uapi.RTPROT_KERNEL
}

// del6 is fib6_del with its RTM_DELROUTE (a sibling leaves its list
// first: the message has it alone; 6.18 sends one that expires without
// its expiry).
func (n *Netns) del6(r *route6) {
	if n.drop6(r) {
		r.expires = 0
		n.send6("RTM_DELROUTE", true, func() any { return n.renderRoute6(r) })
	}
}

// drop6 takes the route out of the FIB, silently; false when it was not
// there. An address whose local route it was keeps none in the FIB
// (ifp->rt is not in a node).
func (n *Netns) drop6(r *route6) bool {
	f := &n.fib6
	rs := f.byDev[r.dev]
	i := slices.Index(rs, r)
	if i < 0 {
		return false
	}
	if rs = slices.Delete(rs, i, i+1); len(rs) == 0 {
		delete(f.byDev, r.dev)
	} else {
		f.byDev[r.dev] = rs
	}
	f.unindex(r)
	unlink6(r)
	if r.dev != nil && r.dev.in6 != nil {
		for _, a := range r.dev.in6.addrs {
			if a.local == r {
				a.local = nil
			}
		}
	}
	return true
}

// devRoutes6 is d's routes in walk order.
func (n *Netns) devRoutes6(d *Device) []*route6 {
	return slices.SortedFunc(slices.Values(n.fib6.byDev[d]), fib6Less)
}

// send6 sends an IPv6 notification. counted: the cost model prices it as a
// notification only (cost.StepNotification through the IPv6 estimate's notes),
// not as a netdev notifier call; an unregister batch's formula counts the
// link-local RTM_DELADDR itself (UnregisterRequestWork).
func (n *Netns) send6(typ string, counted bool, obj func() any) {
	if counted {
		n.v6.notes++
	}
	n.logEvent(typ, "inet6", obj)
}

// nhFlags6 is the route's nexthop flags.
func nhFlags6(r *route6) uint32 {
	var flags uint32
	if r.dead {
		flags |= uapi.RTNH_F_DEAD
	}
	if r.linkdown {
		flags |= uapi.RTNH_F_LINKDOWN
	}
	return flags
}

// renderRoute6 is rt6_fill_node: a route with siblings is one message
// whose RTA_MULTIPATH holds them all, from r on, with no top-level
// device, gateway or nexthop flags.
func (n *Netns) renderRoute6(r *route6) rtnl.RouteEntry {
	if r.nhid != 0 {
		return n.renderNhRoute6(r)
	}
	if r.sibs != nil {
		out := n.renderRoute6(&route6{table: r.table, dst: r.dst, typ: r.typ, dev: r.dev, metric: r.metric, user: r.user, proto: r.proto,
			prefsrc: r.prefsrc})
		out.Dev = ""
		for _, x := range r.sibs.from(r) {
			out.Nexthops = append(out.Nexthops, rtnl.NexthopEntry{Gateway: x.gw.String(), Dev: x.dev.name,
				Weight: max(x.weight, 1), Flags: rtnl.RouteFlags(nhFlags6(x))})
		}
		return out
	}
	flags := nhFlags6(r)
	out := rtnl.RouteEntry{Family: 6, Flags: rtnl.RouteFlags(flags), Dev: r.dev.name, Protocol: rtnl.ProtoName(uapi.RTPROT_KERNEL),
		Pref: rtnl.RoutePref(0)}
	if r.user {
		out.Protocol = ""
		if r.proto != uapi.RTPROT_BOOT { // print_route leaves boot out
			out.Protocol = rtnl.ProtoName(r.proto)
		}
		if r.gw.IsValid() {
			out.Gateway = r.gw.String()
		}
	}
	if r.typ != uapi.RTN_UNICAST {
		out.Type = rtnl.RouteTypeName(r.typ)
	}
	out.Dst = dst6Text(r.dst)
	if r.table != uapi.RT_TABLE_MAIN {
		out.Table = rtnl.TableName(r.table)
	}
	if r.prefsrc.IsValid() {
		out.Prefsrc = r.prefsrc.String()
	}
	m := r.metric
	out.Metric = &m
	if r.expires != 0 {
		e := int(r.expires)
		out.Expires = &e
	}
	return out
}

func renderInet6Addr(a *inet6Addr) rtnl.AddrInfo {
	out := rtnl.AddrInfo{Family: "inet6", Local: a.addr.String(), Prefixlen: a.plen, Scope: rtnl.ScopeName(a.scope)}
	if a.metric != 0 {
		m := a.metric
		out.Metric = &m
	}
	out.SetFlags(uapi.AF_INET6, a.flags)
	// inet6_fill_ifaddr: what was set (an address permanent with a
	// finite preferred_lft shows it beside a valid one of forever).
	valid, pref := a.lifetimes()
	out.ValidLife, out.PreferredLife = &valid, &pref
	return out
}

func (n *Netns) addrEvent6(typ string, counted bool, d *Device, a *inet6Addr) {
	ifindex, name := int(d.ifindex), d.name
	n.send6(typ, counted, func() any {
		return rtnl.AddrEvent{Ifindex: ifindex, Ifname: name, AddrInfo: renderInet6Addr(a)}
	})
}

// Routes6 returns the IPv6 routes as the dump of every table shows them.
func (n *Netns) Routes6() []rtnl.RouteEntry {
	all := n.dumped6()
	out := make([]rtnl.RouteEntry, 0, len(all))
	for _, r := range all {
		out = append(out, n.renderRoute6(r))
	}
	return out
}

// dumped6 is the routes the dump shows, in its order (fib6_dump_node):
// a route with siblings stands for them all, and the walk goes on from
// the last of its list, so that a route of the same node and metric
// between siblings does not show.
func (n *Netns) dumped6() []*route6 {
	all := n.sortedRoutes6()
	out := make([]*route6, 0, len(all))
	for i := 0; i < len(all); i++ {
		r := all[i]
		out = append(out, r)
		if r.sibs != nil {
			from := r.sibs.from(r)
			if j := slices.Index(all, from[len(from)-1]); j > i {
				i = j
			}
		}
	}
	return out
}

// sortedRoutes6 is every IPv6 route in fib6_walk order.
func (n *Netns) sortedRoutes6() []*route6 {
	var all []*route6
	for _, rs := range n.fib6.byDev {
		all = append(all, rs...)
	}
	slices.SortFunc(all, fib6Less)
	return all
}

// addrs6 is a device's IPv6 addresses in addr_list order.
func (d *Device) addrs6() []rtnl.AddrInfo {
	if d.in6 == nil {
		return nil
	}
	out := make([]rtnl.AddrInfo, 0, len(d.in6.addrs))
	for _, a := range d.in6.addrs {
		out = append(out, renderInet6Addr(a))
	}
	return out
}

// eui64LinkLocal is ipv6_generate_eui64 for an Ethernet address
// (addrconf_ifid_eui48 with dev_id 0): the MAC split by ff:fe, its
// universal/local bit flipped, under fe80::/64.
func eui64LinkLocal(mac net.HardwareAddr) (netip.Addr, bool) {
	if len(mac) != 6 {
		return netip.Addr{}, false
	}
	b := [16]byte{0: 0xfe, 1: 0x80}
	copy(b[8:11], mac[0:3])
	b[11], b[12] = 0xff, 0xfe
	copy(b[13:16], mac[3:6])
	b[8] ^= 0x02
	return netip.AddrFrom16(b), true
}

var (
	mcastPrefix6    = netip.MustParsePrefix("ff00::/8")
	linkLocalPrefix = netip.MustParsePrefix("fe80::/64")
	loopback6       = netip.IPv6Loopback()
)

// ip6RtPrioAddrconf is IP6_RT_PRIO_ADDRCONF (fe80::/64, ff00::/8).
const ip6RtPrioAddrconf = 256

// in6AddAddr is ipv6_add_addr: EEXIST when the device has the address;
// the new one goes into addr_list before the first of a scope no wider
// (ipv6_link_dev_addr).
func (d *Device) in6AddAddr(a *inet6Addr) bool {
	for _, x := range d.in6.addrs {
		if x.addr == a.addr {
			return false
		}
	}
	i := slices.IndexFunc(d.in6.addrs, func(x *inet6Addr) bool { return scopeRank(a) >= scopeRank(x) })
	if i < 0 {
		i = len(d.in6.addrs)
	}
	d.in6.addrs = slices.Insert(d.in6.addrs, i, a)
	return true
}

// scopeRank is ipv6_addr_src_scope's order: link < site < global, ::1
// counting as link-local (RFC 6724's source scope of the loopback).
func scopeRank(a *inet6Addr) int {
	switch a.scope {
	case uapi.RT_SCOPE_HOST, uapi.RT_SCOPE_LINK:
		return 1
	case uapi.RT_SCOPE_SITE:
		return 2
	}
	return 3
}

// initLoopback is init_loopback: ::1/128, no DAD, notified at once; its
// local route goes in with the notification (__ipv6_ifa_notify).
func (n *Netns) initLoopback(d *Device) {
	if d.in6 == nil || d.v6Off {
		return
	}
	a := &inet6Addr{addr: loopback6, plen: 128, scope: uapi.RT_SCOPE_HOST, flags: uapi.IFA_F_PERMANENT}
	if !d.in6AddAddr(a) {
		return
	}
	n.ifaNotifyNew(d, a)
}

// ifaNotifyNew is ipv6_ifa_notify(RTM_NEWADDR): the notification, then
// the address's local route into the FIB if it is not there.
func (n *Netns) ifaNotifyNew(d *Device, a *inet6Addr) {
	n.addrEvent6("RTM_NEWADDR", true, d, a)
	if a.local == nil {
		a.local = &route6{table: uapi.RT_TABLE_LOCAL, dst: netip.PrefixFrom(a.addr, 128), typ: uapi.RTN_LOCAL, dev: d}
		n.add6(a.local)
		if d.in6.forwarding {
			n.joinAnycast(d, a) // __ipv6_ifa_notify
		}
	}
}

// devConfig is addrconf_dev_config for an Ethernet-like device:
// addrconf_add_dev's ff00::/8 multicast route, then the EUI-64 link-local
// address (tentative), its fe80::/64 prefix route, and DAD queued.
func (n *Netns) devConfig(d *Device) {
	if d.in6 == nil || d.v6Off {
		return // addrconf_add_dev: EACCES
	}
	n.add6(&route6{table: uapi.RT_TABLE_LOCAL, dst: mcastPrefix6, typ: uapi.RTN_MULTICAST, dev: d, metric: ip6RtPrioAddrconf})
	ll, ok := eui64LinkLocal(d.addr)
	if !ok {
		return
	}
	a := &inet6Addr{addr: ll, plen: 64, scope: uapi.RT_SCOPE_LINK, flags: uapi.IFA_F_PERMANENT | uapi.IFA_F_TENTATIVE}
	if !d.in6AddAddr(a) {
		return
	}
	n.add6(&route6{table: uapi.RT_TABLE_MAIN, dst: linkLocalPrefix, typ: uapi.RTN_UNICAST, dev: d, metric: ip6RtPrioAddrconf})
	n.fib6.dad = append(n.fib6.dad, dadWork{d, a})
}

// runDAD runs the queued DAD work (addrconf_dad_work), which the kernel
// runs from a workqueue after the request: the address stops being
// tentative, RTM_NEWADDR, and its local route goes in. For IFF_NOARP
// devices, or with accept_dad below 1, that happens at once; otherwise
// after dad_transmits probes (about a second later, which the kernel
// target waits for): the model has no duplicates, so DAD always succeeds.
// DAD that needs probes on a device that is not ready stops, the address
// left tentative, until the device is (redoStoppedDAD).
func (n *Netns) runDAD() {
	n.ev.deferred, n.ev.dad = true, true
	defer func() { n.ev.deferred, n.ev.dad = false, false }()
	for len(n.fib6.dad) > 0 {
		w := n.fib6.dad[0]
		n.fib6.dad = n.fib6.dad[1:]
		if !n.alive(w.d) || w.d.in6 == nil || !slices.Contains(w.d.in6.addrs, w.ifa) {
			continue // addrconf_ifdown cancelled it
		}
		if !n.dadNeedless(w.d, w.ifa) && !w.d.in6.ready {
			w.ifa.dadStopped = true
			continue
		}
		bump := w.ifa.flags&uapi.IFA_F_TENTATIVE != 0
		w.ifa.flags &^= uapi.IFA_F_TENTATIVE
		n.ifaNotifyNew(w.d, w.ifa)
		if bump && !w.ifa.user {
			// addrconf_dad_completed's rt_genid_bump_ipv6; a user
			// address's walks are not counted (ipv6cost.go), as its
			// delete's are not.
			n.v6.dadFlush()
		}
	}
}

// restartDAD is addrconf_dad_run(idev, true), for a change of IFF_NOARP
// on a ready device: every address goes through DAD again from the
// start. One not tentative (DAD done) finishes at once when the work
// runs, and is announced again; one whose DAD is queued already stays
// queued once (the kernel re-arms its one dad_work).
func (n *Netns) restartDAD(d *Device) {
	for _, a := range d.in6.addrs {
		if !slices.ContainsFunc(n.fib6.dad, func(w dadWork) bool { return w.ifa == a }) {
			n.fib6.dad = append(n.fib6.dad, dadWork{d, a})
		}
	}
}

// addrconfIfdown is addrconf_ifdown: rt6_disable_ip deletes every route
// through the device, in walk order, each with RTM_DELROUTE (the local
// routes of the addresses it keeps too); then, in addr_list order, every
// address goes with RTM_DELADDR but those it keeps. It keeps none when
// unregister (NETDEV_UNREGISTER, an mtu below 1280 but on the loopback)
// or when the device's disable_ipv6 is set; otherwise keep_addr_on_down
// decides (keepAddrOnDown), and then it keeps every permanent address
// but link-local and loopback ones, silently: tentative again unless
// nodad, their DAD work cancelled, to run DAD again when the device
// comes up (predad). unregister drops the inet6_dev too; otherwise it
// stays, no longer IF_READY.
func (n *Netns) addrconfIfdown(d *Device, unregister bool) {
	for _, r := range n.ifdownRoutes6(d, unregister) {
		n.del6(r)
	}
	if d.in6 == nil {
		return
	}
	keep := !unregister && !d.v6Off && n.keepAddrOnDown(d)
	var kept []*inet6Addr
	for _, a := range d.in6.addrs {
		if keep && a.flags&uapi.IFA_F_PERMANENT != 0 && !a.addr.IsLinkLocalUnicast() && !a.addr.IsLoopback() {
			if a.flags&uapi.IFA_F_NODAD == 0 {
				a.flags |= uapi.IFA_F_TENTATIVE
			}
			a.predad, a.dadStopped = true, false
			kept = append(kept, a)
			continue
		}
		n.addrEvent6("RTM_DELADDR", !n.v6.inBatch, d, a)
	}
	if len(kept) > 0 {
		// addrconf_del_dad_work: a kept address's DAD starts afresh.
		n.fib6.dad = slices.DeleteFunc(n.fib6.dad, func(w dadWork) bool { return w.d == d })
	}
	d.in6.addrs = kept
	d.in6.ac = nil // rt6_disable_ip took their routes
	d.in6.ready = false
	if unregister {
		d.in6 = nil
	}
}

// keepAddrOnDown is addrconf_ifdown's reading of keep_addr_on_down: all's
// value unless it is 0, then the device's; above 0 keeps (so all at -1
// keeps nothing, whatever the device says).
func (n *Netns) keepAddrOnDown(d *Device) bool {
	v := n.conf6Int("all", "keep_addr_on_down", 0)
	if v == 0 {
		v = d.in6.keepAddr
	}
	return v > 0
}

// ifdownRoutes6 is the routes rt6_sync_down_dev (fib6_ifdown) deletes,
// in walk order: those through the device, but on NETDEV_DOWN a route
// with siblings goes, all of them with it, only when every sibling is on
// the device or dead; otherwise the device's nexthops are marked dead and
// linkdown, silently.
func (n *Netns) ifdownRoutes6(d *Device, unregister bool) []*route6 {
	own := n.devRoutes6(d)
	if unregister || !slices.ContainsFunc(own, func(r *route6) bool { return r.sibs != nil }) {
		return own
	}
	var out []*route6
	for _, r := range own {
		if r.sibs == nil {
			out = append(out, r)
			continue
		}
		rs := r.sibs.rs
		if !slices.ContainsFunc(rs, func(x *route6) bool { return x.dev != d && !x.dead }) {
			out = append(out, rs...)
			continue
		}
		for _, x := range rs {
			if x.dev == d {
				x.dead, x.linkdown = true, true
			}
		}
	}
	slices.SortFunc(out, fib6Less)
	return slices.Compact(out)
}

// delAddr6 is RTM_DELADDR of one of the device's IPv6 addresses
// (inet6_addr_del, ipv6_del_addr): out of the list, RTM_DELADDR and its
// local route (__ipv6_ifa_notify), then its prefix route when no other
// address of the device is in the prefix (cleanup_prefix_route).
func (n *Netns) delAddr6(d *Device, a *inet6Addr) {
	i := slices.Index(d.in6.addrs, a)
	if i < 0 {
		return
	}
	d.in6.addrs = slices.Delete(d.in6.addrs, i, i+1)
	// ipv6_del_addr: rt6_remove_prefsrc comes last, after the prefix
	// route is gone (whose RTM_DELROUTE still shows its source).
	defer n.removePrefsrc6(a.addr)
	n.addrEvent6("RTM_DELADDR", true, d, a)
	if d.in6.forwarding && a.flags&uapi.IFA_F_TENTATIVE == 0 {
		n.leaveAnycast(d, a) // __ipv6_ifa_notify, before the local route
	}
	if a.local != nil {
		n.del6(a.local)
	}
	// ipv6_del_addr: only a permanent address with a prefix route
	// cleans it up; a dynamic one's stays, to expire.
	if a.flags&uapi.IFA_F_PERMANENT != 0 && a.flags&uapi.IFA_F_NOPREFIXROUTE == 0 {
		n.cleanupPrefixRoute6(d, a)
	}
}

// cleanupPrefixRoute6 is check_cleanup_prefix_route and
// cleanup_prefix_route for a, no longer (or no longer with a prefix
// route) on d: nothing while another address of the same prefix and
// length is permanent or noprefixroute; else, when some are left (all
// dynamic), the prefix route expires with the longest valid_lft of them
// unless it expires already; else it goes.
func (n *Netns) cleanupPrefixRoute6(d *Device, a *inet6Addr) {
	pfx := netip.PrefixFrom(a.addr, a.plen).Masked()
	others := false
	var expires uint32
	for _, x := range d.in6.addrs {
		if x == a || x.plen != a.plen || netip.PrefixFrom(x.addr, a.plen).Masked() != pfx {
			continue
		}
		if x.flags&(uapi.IFA_F_PERMANENT|uapi.IFA_F_NOPREFIXROUTE) != 0 {
			return
		}
		valid, _ := x.lifetimes()
		others, expires = true, max(expires, valid)
	}
	r := n.prefixRouteOf6(d, pfx)
	switch {
	case r == nil:
	case !others:
		n.del6(r)
	case r.expires == 0:
		r.expires = expires
	}
}

// prefixRouteOf6 is addrconf_get_prefix_route: the node's first route
// through the device without a gateway, whatever its metric (the lowest)
// or type (a user's reject route on lo too); nil for none.
func (n *Netns) prefixRouteOf6(d *Device, pfx netip.Prefix) *route6 {
	for _, r := range n.devRoutes6(d) {
		if r.table == uapi.RT_TABLE_MAIN && r.dst == pfx && !r.gw.IsValid() {
			return r
		}
	}
	return nil
}

// flushMatch6 is `ip route flush`'s filter over the IPv6 routes the dump
// shows, in its order.
func (n *Netns) flushMatch6(op rtnl.RouteFlush, table uint32, oif int) []*route6 {
	var out []*route6
	for _, r := range n.dumped6() {
		switch {
		case oif != 0 && r.sibs != nil: // no RTA_OIF in the message: ip's filter passes it over
		case table != rtnl.TableAll && r.table != table:
		case op.Proto != nil && *op.Proto != r.protocol():
		case op.Scope != nil && *op.Scope != uapi.RT_SCOPE_UNIVERSE: // rt6_fill_node: always universe
		case op.Type != nil && *op.Type != r.typ:
		case oif != 0 && int(r.dev.ifindex) != oif:
		case op.Dst.IsValid() && !op.Match && (r.dst.Bits() < op.Dst.Bits() || !op.Dst.Contains(r.dst.Addr()) ||
			(!op.Root && r.dst.Bits() != op.Dst.Bits())):
		case !op.Selects(flushMsg6(r)):
		default:
			out = append(out, r)
		}
	}
	return out
}

// flushMsg6 is what rt6_fill_node puts in a route's message that the
// flush filter reads: rtm_tos is 0, RTA_PRIORITY always there, no
// RTA_FLOW; an ECMP group's message has no RTA_GATEWAY, and the
// RTA_PREFSRC of the route it starts from.
func flushMsg6(r *route6) rtnl.FlushMsg {
	m := rtnl.FlushMsg{Family: 6, Metric: r.metric, Prefsrc: r.prefsrc, DstBits: r.dst.Bits(), DstAddr: r.dst.Addr()}
	if r.sibs == nil {
		m.Gateway = r.gw
	}
	return m
}

// match6 is FlushFilter.match for an IPv6 address: its label is the
// device's name.
func (f FlushFilter) match6(dev string, a *inet6Addr) bool {
	if f.To.IsValid() && (!f.To.Addr().Is6() || !f.To.Contains(a.addr)) {
		return false
	}
	// IPv6 addresses are never secondary.
	if (f.Scope != nil && a.scope != *f.Scope) || (f.Secondary != nil && *f.Secondary) {
		return false
	}
	if f.Label != "" {
		if ok, _ := path.Match(f.Label, dev); !ok {
			return false
		}
	}
	return true
}

// linkDown6 is rt6_sync_down_dev(dev, NETDEV_CHANGE): the device's routes
// but local and anycast ones are marked linkdown, silently.
func (n *Netns) linkDown6(d *Device) {
	for _, r := range n.fib6.byDev[d] {
		if r.typ != uapi.RTN_LOCAL && r.typ != uapi.RTN_ANYCAST {
			r.linkdown = true
		}
	}
}

// syncUp6 is rt6_sync_up: the device's routes lose linkdown, and a
// nexthop of an ECMP group its dead flag.
func (n *Netns) syncUp6(d *Device) {
	for _, r := range n.fib6.byDev[d] {
		r.linkdown, r.dead = false, false
	}
}

// dst6Text is an IPv6 route's destination as ip -j shows it: the bare
// address for a /128, "default" for ::/0, else the prefix.
func dst6Text(p netip.Prefix) string {
	switch p.Bits() {
	case 128:
		return p.Addr().String()
	case 0:
		return "default"
	}
	return p.String()
}
