package sim

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// IPv6 routes of the user: `route add|del|replace|change|append|prepend
// PREFIX [via GW] [dev X] [nhid N] [metric N] [table T] [proto P]`, the reject
// types (blackhole, unreachable, prohibit) and multipath (`nexthop`
// groups: ECMP siblings), read in Linux ~6.17 net/ipv6/route.c
// (ip6_route_add, ip6_route_multipath_add, ip6_route_multipath_del,
// ip6_route_info_create, fib6_nh_init, ip6_validate_gw,
// ip6_route_check_nh, ip6_route_del) and ip6_fib.c (fib6_add_rt2node).
// A preferred source (`src`, RTA_PREFSRC) is checked after the nexthop
// and dropped when its address goes (rt6_remove_prefsrc); a delete does
// not compare it. Not modelled: a source prefix (`from`), expiry, `pref`, routes through the
// loopback that the kernel turns into reject routes, metrics other than
// the priority. Routes with a nexthop object are in route6nh.go.

// reject6 says whether a route type is one the kernel makes a reject
// route of (RTF_REJECT).
func reject6(typ uint8) bool {
	return typ == uapi.RTN_BLACKHOLE || typ == uapi.RTN_UNREACHABLE || typ == uapi.RTN_PROHIBIT
}

// ip6RtPrioUser is IP6_RT_PRIO_USER, the metric of a user route without one.
const ip6RtPrioUser = 1024

// nlFlags6 is the request's NLM_F_ flags fib6_add_rt2node looks at.
type nlFlags6 struct{ create, excl, replace, append bool }

// route6 is an IPv6 route request, with the flags iproute2 sends for
// each verb (prepend is NLM_F_CREATE alone, which IPv6 treats as
// append).
func (n *Netns) route6(op rtnl.Op, r rtnl.Route) error {
	// ip names every device by its index before it sends anything.
	if r.Dev != "" && n.ByName(r.Dev) == nil {
		return enodev(r.Dev)
	}
	for _, nh := range r.Nexthops {
		if nh.Dev != "" && n.ByName(nh.Dev) == nil {
			return enodev(nh.Dev)
		}
	}
	var f nlFlags6
	switch op.(type) {
	case rtnl.RouteAdd:
		f = nlFlags6{create: true, excl: true}
	case rtnl.RouteDel:
		if len(r.Nexthops) > 0 {
			return n.route6MultiDel(r)
		}
		return n.route6Del(r)
	case rtnl.RouteReplace:
		f = nlFlags6{create: true, replace: true}
	case rtnl.RouteChange:
		f = nlFlags6{replace: true}
	case rtnl.RouteAppend:
		f = nlFlags6{create: true, append: true}
	case rtnl.RoutePrepend:
		f = nlFlags6{create: true}
	default:
		return rtnl.Errf(uapi.EINVAL, "not a route request: %s", op.Verb())
	}
	if r.NhID != 0 {
		rt, err := n.route6Nh(r)
		if err != nil {
			return err
		}
		return n.insert6(rt, f, true)
	}
	if len(r.Nexthops) > 0 {
		return n.route6Multi(f, r)
	}
	rt, err := n.route6Info(r)
	if err != nil {
		return err
	}
	return n.insert6(rt, f, true)
}

// route6Info is ip6_route_info_create with fib6_nh_init: the route a
// request makes, or its error: the device (ENODEV, and without an
// inet6_dev), the gateway (ip6_validate_gw), disable_ipv6 (EACCES), a
// device that is down (ENETDOWN; reject routes go through the loopback,
// up or not).
func (n *Netns) route6Info(r rtnl.Route) (*route6, error) {
	h, err := r.Header(false)
	if err != nil {
		return nil, err
	}
	r.Dst = r.Dst.Masked() // ip6_route_info_create: ipv6_addr_prefix
	rt := &route6{table: h.Table, dst: r.Dst, typ: h.Type, user: true, proto: h.Proto, metric: ip6RtPrioUser, weight: 1}
	if rt.proto == uapi.RTPROT_UNSPEC {
		rt.proto = uapi.RTPROT_BOOT // ip6_route_info_create
	}
	if rt.table == 0 {
		rt.table = uapi.RT_TABLE_MAIN
	}
	// ip6_route_info_create makes the table before it looks at the
	// nexthop: a request that fails after that leaves it there.
	n.fib6.newTable(rt.table)
	if r.Metric != nil && *r.Metric != 0 {
		rt.metric = *r.Metric
	}
	var dev *Device
	if r.Dev != "" {
		if dev = n.ByName(r.Dev); dev == nil {
			return nil, enodev(r.Dev)
		}
		if dev.in6 == nil {
			return nil, rtnl.Errf(uapi.ENODEV, "") // fib6_nh_init: no inet6_dev
		}
		if dev == n.lo && r.Dst != netip.PrefixFrom(netip.IPv6Loopback(), 128) {
			return nil, fmt.Errorf("%w: an IPv6 route through the loopback (a reject route to the kernel)", ErrNotModelled)
		}
	}
	switch {
	case reject6(rt.typ):
		// fib6_is_reject: through the loopback, whatever was named.
		rt.dev = n.lo
		return rt, n.prefsrc6(rt, r.Src)
	case rt.typ == uapi.RTN_UNICAST:
	default:
		return nil, fmt.Errorf("%w: IPv6 route type %s", ErrNotModelled, rtnl.RouteTypeName(rt.typ))
	}
	if r.Via.IsValid() {
		gwDev, err := n.validateGW6(r.Via, dev, r.Table, false)
		if err != nil {
			return nil, err
		}
		dev, rt.gw = gwDev, r.Via
	}
	if dev == nil || dev.in6 == nil {
		return nil, rtnl.Errf(uapi.ENODEV, "")
	}
	if dev.v6Off {
		return nil, rtnl.Errf(uapi.EACCES, "IPv6 is disabled on nexthop device")
	}
	if !dev.Up() {
		return nil, rtnl.Errf(uapi.ENETDOWN, "Nexthop device is not up")
	}
	rt.dev = dev
	return rt, n.prefsrc6(rt, r.Src)
}

// prefsrc6 is ip6_route_info_create_nh's check of RTA_PREFSRC, after the
// nexthop's: an address usable through the route's device (chkAddr6),
// else EINVAL.
func (n *Netns) prefsrc6(rt *route6, src netip.Addr) error {
	if !src.IsValid() || src.IsUnspecified() {
		return nil
	}
	if !n.chkAddr6(src, rt.dev) {
		return rtnl.Errf(uapi.EINVAL, "Invalid source address")
	}
	rt.prefsrc = src
	return nil
}

// chkAddr6 is ipv6_chk_addr(net, addr, dev, 0): some device has the
// address, not tentative (an optimistic one counts); a link-local or
// loopback one only on dev itself.
func (n *Netns) chkAddr6(addr netip.Addr, dev *Device) bool {
	for _, d := range n.Devices() {
		if d.in6 == nil {
			continue
		}
		for _, a := range d.in6.addrs {
			if a.addr != addr || (a.flags&uapi.IFA_F_TENTATIVE != 0 && a.flags&uapi.IFA_F_OPTIMISTIC == 0) {
				continue
			}
			if d == dev || !(a.addr.IsLinkLocalUnicast() || a.addr.IsLoopback()) {
				return true
			}
		}
	}
	return false
}

// removePrefsrc6 is rt6_remove_prefsrc once an address is gone: every
// route in any table whose RTA_PREFSRC it was loses it, silently, unless
// the address is still usable through the route's device.
func (n *Netns) removePrefsrc6(addr netip.Addr) {
	for _, rs := range n.fib6.byDev {
		for _, r := range rs {
			if r.prefsrc == addr && !n.chkAddr6(addr, r.dev) {
				r.prefsrc = netip.Addr{}
			}
		}
	}
}

// ecmp6 is rt6_qualify_for_ecmp: a user route with a gateway (the
// model's kernel routes have none).
func ecmp6(r *route6) bool { return r.user && r.gw.IsValid() }

// sameNexthop6 is rt6_duplicate_nexthop: the same nexthop object, or
// without one the same device and gateway.
func sameNexthop6(a, b *route6) bool { return a.nhid == b.nhid && a.dev == b.dev && a.gw == b.gw }

// insert6 is fib6_add_rt2node for a user route, over the routes of its
// node with its metric, in the node's order. NLM_F_EXCL: EEXIST for any.
// NLM_F_REPLACE: the first whose ECMP qualification is the new route's,
// else the first, is replaced in place, its siblings removed with it,
// silently; none is ENOENT without NLM_F_CREATE. Otherwise a route with
// the same nexthop is EEXIST, and a route that qualifies for ECMP joins
// the sibling list of those that do (the first such route's list), at
// its tail; the route goes after the others of its metric. notify:
// RTM_NEWROUTE of the new route (with its siblings).
func (n *Netns) insert6(rt *route6, f nlFlags6, notify bool) error {
	var same []*route6
	for _, x := range n.fib6.node(rt.table, rt.dst) {
		if x.metric == rt.metric {
			same = append(same, x)
		}
	}
	var found, fallback, join *route6
	for _, x := range same {
		if f.excl {
			return rtnl.Errf(uapi.EEXIST, "")
		}
		if f.replace {
			if ecmp6(x) == ecmp6(rt) {
				found = x
				break
			}
			if fallback == nil {
				fallback = x
			}
			continue
		}
		if sameNexthop6(x, rt) {
			return rtnl.Errf(uapi.EEXIST, "")
		}
		if join == nil && ecmp6(rt) && ecmp6(x) {
			join = x
		}
	}
	if found == nil {
		found = fallback
	}
	f6 := &n.fib6
	switch {
	case f.replace && found != nil:
		// The new route takes the old one's place in the node.
		rt.seq = found.seq
		gone := []*route6{found}
		if found.sibs != nil {
			gone = slices.Clone(found.sibs.rs)
		}
		for _, x := range gone {
			n.drop6(x)
		}
	case f.replace && !f.create:
		return rtnl.Errf(uapi.ENOENT, "Can not replace route - no match found")
	default:
		f6.seq++
		rt.seq = f6.seq
		if join != nil {
			if join.sibs == nil {
				join.sibs = &sibs6{rs: []*route6{join}}
			}
			join.sibs.rs = append(join.sibs.rs, rt)
			rt.sibs = join.sibs
		}
	}
	if f6.byDev == nil {
		f6.byDev = map[*Device][]*route6{}
	}
	// fib6_nh_init: a route through a device without carrier starts
	// linkdown.
	if rt.dev != nil {
		rt.linkdown = !rt.dev.carrier
	}
	if rt.nhid != 0 {
		// fib6_add_rt2node links it at the head of the nexthop's list.
		f6.nhSeq++
		rt.nhSeq = f6.nhSeq
	}
	f6.byDev[rt.dev] = append(f6.byDev[rt.dev], rt)
	f6.index(rt)
	if notify {
		n.send6("RTM_NEWROUTE", true, func() any { return n.renderRoute6(rt) })
	}
	return nil
}

// route6Multi is ip6_route_multipath_add: a nexthop without a gateway
// is EINVAL before anything, then every nexthop is made a route (its
// error refuses the request; two with the same nexthop are EEXIST), then each inserted as a single
// route, the first with the request's flags, the others without
// NLM_F_EXCL and NLM_F_REPLACE, so that they join the first as siblings.
// One RTM_NEWROUTE follows (ip6_route_mpath_notify): from the first
// inserted route, or for append from the head of its list. When an
// insert fails, that notification goes out for what went in, then each
// route that went in is deleted again (ip6_route_del, by its gateway and
// device: RTM_DELROUTE each).
func (n *Netns) route6Multi(f nlFlags6, r rtnl.Route) error {
	// rtm_to_fib6_multipath_config looks at every nexthop first.
	for _, nh := range r.Nexthops {
		if !nh.Via.IsValid() {
			return rtnl.Errf(uapi.EINVAL, "Device only routes can not be added for IPv6 using the multipath API.")
		}
	}
	var rts []*route6
	var cfgs []rtnl.Route
	for _, nh := range r.Nexthops {
		c := nexthopRoute6(r, nh)
		rt, err := n.route6Info(c)
		if err != nil {
			return err
		}
		if !ecmp6(rt) {
			return rtnl.Errf(uapi.EINVAL, "Device only routes can not be added for IPv6 using the multipath API.")
		}
		if nh.Weight > 0 {
			rt.weight = nh.Weight
		}
		if slices.ContainsFunc(rts, func(x *route6) bool { return sameNexthop6(x, rt) }) {
			return rtnl.Errf(uapi.EEXIST, "")
		}
		rts, cfgs = append(rts, rt), append(cfgs, c)
	}
	var notif, last *route6
	fl := f
	for i, rt := range rts {
		if err := n.insert6(rt, fl, false); err != nil {
			if notif != nil {
				n.mpathNotify6(notif, last, f.append)
			}
			for j, c := range cfgs[:i] {
				// ip6_route_info_create wrote the metric it chose back
				// into the nexthop's config: the undo deletes that route,
				// not another of the same gateway at another metric.
				m := rts[j].metric
				c.Metric = &m
				_ = n.route6Del(c)
			}
			return err
		}
		last = rt
		if notif == nil {
			notif = rt
		}
		fl.excl, fl.replace = false, false
	}
	n.mpathNotify6(notif, last, f.append)
	return nil
}

// nexthopRoute6 is one nexthop group of a multipath request as a route
// request of its own: the group's device, and its gateway when it has one.
func nexthopRoute6(r rtnl.Route, nh rtnl.Nexthop) rtnl.Route {
	r.Nexthops, r.Dev = nil, nh.Dev
	if nh.Via.IsValid() {
		r.Via = nh.Via
	}
	return r
}

// mpathNotify6 is ip6_route_mpath_notify.
func (n *Netns) mpathNotify6(rt, last *route6, appended bool) {
	if appended && last.sibs != nil {
		rt = last.sibs.rs[0]
	}
	n.send6("RTM_NEWROUTE", true, func() any { return n.renderRoute6(rt) })
}

// route6MultiDel is ip6_route_multipath_del: each nexthop deleted as a
// route of its own (its gateway and device), all tried; the last error.
func (n *Netns) route6MultiDel(r rtnl.Route) error {
	var last error
	for _, nh := range r.Nexthops {
		if err := n.route6Del(nexthopRoute6(r, nh)); err != nil {
			last = err
		}
	}
	return last
}

// validateGW6 is ip6_validate_gw: not one of the host's addresses
// (EINVAL; for a link-local gateway, of the named device only); a
// link-local gateway needs the device named; any other must be unicast
// and reachable (ip6_route_check_nh: EHOSTUNREACH), which gives the
// device when none was named; the device cannot be the loopback.
func (n *Netns) validateGW6(gw netip.Addr, dev *Device, table uint32, onlink bool) (*Device, error) {
	local := func(only *Device) bool {
		for _, d := range n.Devices() {
			if d.in6 == nil || (only != nil && d != only) {
				continue
			}
			if slices.ContainsFunc(d.in6.addrs, func(a *inet6Addr) bool { return a.addr == gw }) {
				return true
			}
		}
		return false
	}
	if gw.IsLinkLocalUnicast() {
		if dev != nil && local(dev) {
			return nil, rtnl.Errf(uapi.EINVAL, "Gateway can not be a local address")
		}
	} else {
		if dev != nil && local(nil) {
			return nil, rtnl.Errf(uapi.EINVAL, "Gateway can not be a local address")
		}
		if gw.IsMulticast() || gw.IsUnspecified() || gw.IsLoopback() {
			return nil, rtnl.Errf(uapi.EINVAL, "Invalid gateway address")
		}
		if onlink {
			if err := n.checkNH6Onlink(gw, dev); err != nil {
				return nil, err
			}
		} else {
			via, err := n.checkNH6(gw, dev, table)
			if err != nil {
				return nil, err
			}
			dev = via
		}
		if local(nil) {
			return nil, rtnl.Errf(uapi.EINVAL, "Gateway can not be a local address")
		}
	}
	if dev == nil {
		return nil, rtnl.Errf(uapi.EINVAL, "Egress device not specified")
	}
	if dev.flags&uapi.IFF_LOOPBACK != 0 {
		return nil, rtnl.Errf(uapi.EINVAL, "Egress device can not be loopback device for this route")
	}
	return dev, nil
}

// checkNH6 is ip6_route_check_nh: the gateway looked up in the request's
// table when it named one, else through the rules (local, then main),
// must meet a route that is not a reject route and has no gateway,
// through the named device if any (with a device, the lookup takes the
// longest prefix that has a route through it): that route's device, or
// EHOSTUNREACH.
func (n *Netns) checkNH6(gw netip.Addr, dev *Device, table uint32) (*Device, error) {
	if n.rules6 != nil && n.rules6.custom {
		return nil, fmt.Errorf("%w: an IPv6 gateway looked up through user rules", ErrNotModelled)
	}
	if n.nhRoute6Covers(gw) {
		return nil, errNhRoute6Lookup
	}
	usable := func(r *route6) bool {
		// A route through the loopback but a local one is a reject
		// route to the kernel (fib6_is_reject).
		loReject := r.dev.flags&uapi.IFF_LOOPBACK != 0 && r.typ != uapi.RTN_LOCAL
		return !reject6(r.typ) && !loReject && !r.gw.IsValid() && (dev == nil || r.dev == dev)
	}
	if table != 0 {
		if r := n.lookup6(gw, table, dev); r != nil && usable(r) {
			return r.dev, nil
		}
	}
	for _, t := range []uint32{uapi.RT_TABLE_LOCAL, uapi.RT_TABLE_MAIN} {
		if r := n.lookup6(gw, t, dev); r != nil {
			if !usable(r) {
				break
			}
			return r.dev, nil
		}
	}
	return nil, rtnl.Errf(uapi.EHOSTUNREACH, "")
}

// checkNH6Onlink is ip6_route_check_nh_onlink: the gateway looked up in
// main, the device a preference only; a route found that is not a reject
// route nor the default route must be unicast and through the device
// (EINVAL).
func (n *Netns) checkNH6Onlink(gw netip.Addr, dev *Device) error {
	if n.rules6 != nil && n.rules6.custom {
		return fmt.Errorf("%w: an onlink IPv6 gateway with user rules", ErrNotModelled)
	}
	if n.nhRoute6Covers(gw) {
		return errNhRoute6Lookup
	}
	r := n.lookup6(gw, uapi.RT_TABLE_MAIN, nil)
	if r == nil || reject6(r.typ) || r.dst.Bits() == 0 {
		return nil
	}
	if best := n.lookup6(gw, uapi.RT_TABLE_MAIN, dev); best != nil && best.dst == r.dst && best.metric == r.metric {
		r = best
	}
	if r.typ != uapi.RTN_UNICAST || r.dev != dev {
		return rtnl.Errf(uapi.EINVAL, "Nexthop has invalid gateway or device mismatch")
	}
	return nil
}

// lookup6 is fib6_table_lookup in one table: the longest prefix holding
// addr (with oif, the longest that has a route through it: rt6_score_route
// fails the others), its route of the lowest metric; nil for none.
func (n *Netns) lookup6(addr netip.Addr, table uint32, oif *Device) *route6 {
	if !addr.IsValid() || addr.Zone() != "" {
		return nil // netip.Prefix.Contains holds neither
	}
	// The prefixes holding addr, longest first; a node's first route
	// that passes the oif test has the lowest metric of those that do.
	lens := n.fib6.lens[table]
	if lens == nil {
		return nil
	}
	for bits := addr.BitLen(); bits >= 0; bits-- {
		if lens[bits] == 0 {
			continue
		}
		p, err := addr.Prefix(bits)
		if err != nil {
			return nil
		}
		for _, r := range n.fib6.node(table, p) {
			if oif == nil || r.dev == oif {
				return r
			}
		}
	}
	return nil
}

// route6Del is ip6_route_del: the table (ESRCH when it has none), the
// route for exactly the prefix, the first in the node's order that
// matches the device, gateway, metric and protocol given; ESRCH for none.
// Without a gateway a route with siblings goes with all of them. A route
// with a nexthop object matches on its metric, protocol and nhid (when
// the request has one) alone, and a request with nhid matches no other.
func (n *Netns) route6Del(r rtnl.Route) error {
	h, err := r.Header(true)
	if err != nil {
		return err
	}
	if err := nhExclusive6(r); err != nil {
		return err
	}
	// inet6_rtm_delroute looks the nexthop up before the table.
	if r.NhID != 0 && n.nhTable().byID[r.NhID] == nil {
		return rtnl.Errf(uapi.EINVAL, "Nexthop id does not exist")
	}
	table := h.Table
	if table == 0 {
		table = uapi.RT_TABLE_MAIN
	}
	var dev *Device
	if r.Dev != "" {
		if dev = n.ByName(r.Dev); dev == nil {
			return enodev(r.Dev)
		}
	}
	if !n.fib6.hasTable(table) {
		return rtnl.Errf(uapi.ESRCH, "FIB table does not exist")
	}
	dst := r.Dst.Masked()
	nodeRoutes := n.fib6.node(table, dst)
	hasDefault := len(nodeRoutes) > 0
	for _, x := range nodeRoutes {
		switch {
		case x.nhid != 0 && r.NhID != 0 && x.nhid != r.NhID:
		case r.Metric != nil && *r.Metric != 0 && *r.Metric != x.metric:
		case r.Proto != nil && *r.Proto != 0 && *r.Proto != x.protocol():
		case x.nhid != 0:
			n.del6(x)
			return nil
		case r.NhID != 0:
		case dev != nil && x.dev != dev:
		case r.Via.IsValid() && x.gw != r.Via:
		case r.Metric != nil && *r.Metric != 0 && *r.Metric != x.metric:
		case r.Proto != nil && *r.Proto != 0 && *r.Proto != x.protocol():
		case r.Via.IsValid() || x.sibs == nil:
			// With a gateway only the one nexthop goes.
			n.del6(x)
			return nil
		default:
			// __ip6_del_rt_siblings: the route and every sibling, in
			// one RTM_DELROUTE from the route matched.
			ev := n.renderRoute6(x)
			for _, y := range x.sibs.from(x) {
				n.drop6(y)
			}
			n.send6("RTM_DELROUTE", true, func() any { return ev })
			return nil
		}
	}
	if dst.Bits() == 0 && !hasDefault && !r.Via.IsValid() && (dev == nil || dev == n.lo) &&
		(r.Metric == nil || *r.Metric == 0 || *r.Metric == 0xffffffff) &&
		(r.Proto == nil || *r.Proto == 0 || *r.Proto == uapi.RTPROT_KERNEL) {
		// A table without a default route keeps fib6_null_entry (through
		// lo, metric ~0, proto kernel) in its root node: it matches, and
		// __ip6_del_rt_siblings refuses it.
		return rtnl.Errf(uapi.ENOENT, "")
	}
	return rtnl.Errf(uapi.ESRCH, "")
}
