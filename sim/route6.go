package sim

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// IPv6 routes of the user: `route add|del PREFIX [via GW] [dev X]
// [metric N] [table T] [proto P]` and the reject types (blackhole,
// unreachable, prohibit), read in Linux ~6.17 net/ipv6/route.c
// (ip6_route_add, ip6_route_info_create, fib6_nh_init, ip6_validate_gw,
// ip6_route_check_nh, ip6_route_del) and ip6_fib.c (fib6_add_rt2node).
// Not modelled: replace, append, prepend (multipath), a source prefix,
// expiry, `pref`, routes through the loopback that the kernel turns into
// reject routes, metrics other than the priority.

// reject6 says whether a route type is one the kernel makes a reject
// route of (RTF_REJECT).
func reject6(typ uint8) bool {
	return typ == uapi.RTN_BLACKHOLE || typ == uapi.RTN_UNREACHABLE || typ == uapi.RTN_PROHIBIT
}

// ip6RtPrioUser is IP6_RT_PRIO_USER, the metric of a user route without one.
const ip6RtPrioUser = 1024

var errRoute6VerbNotModelled = fmt.Errorf("%w: IPv6 route replace, change, append and prepend", ErrNotModelled)

// route6 is an IPv6 route request.
func (n *Netns) route6(op rtnl.Op, r rtnl.Route) error {
	switch op.(type) {
	case rtnl.RouteAdd:
		return n.route6Add(r)
	case rtnl.RouteDel:
		return n.route6Del(r)
	}
	return errRoute6VerbNotModelled
}

// route6Add is ip6_route_add under NLM_F_CREATE|NLM_F_EXCL: the device
// (ENODEV, and without an inet6_dev), the gateway (ip6_validate_gw),
// disable_ipv6 (EACCES), a device that is down (ENETDOWN; reject routes
// go through the loopback, up or not), then the route into its table's
// node: EEXIST when the node has a route of the same metric.
func (n *Netns) route6Add(r rtnl.Route) error {
	h, err := r.Header(false)
	if err != nil {
		return err
	}
	if r.Src.IsValid() {
		return fmt.Errorf("%w: an IPv6 route with a preferred source", ErrNotModelled)
	}
	r.Dst = r.Dst.Masked() // ip6_route_info_create: ipv6_addr_prefix
	rt := &route6{table: h.Table, dst: r.Dst, typ: h.Type, user: true, proto: h.Proto, metric: ip6RtPrioUser}
	if rt.proto == uapi.RTPROT_UNSPEC {
		rt.proto = uapi.RTPROT_BOOT // ip6_route_info_create
	}
	if rt.table == 0 {
		rt.table = uapi.RT_TABLE_MAIN
	}
	if r.Metric != nil && *r.Metric != 0 {
		rt.metric = *r.Metric
	}
	var dev *Device
	if r.Dev != "" {
		if dev = n.ByName(r.Dev); dev == nil {
			return enodev(r.Dev)
		}
		if dev.in6 == nil {
			return rtnl.Errf(uapi.ENODEV, "") // fib6_nh_init: no inet6_dev
		}
		if dev == n.lo && r.Dst != netip.PrefixFrom(netip.IPv6Loopback(), 128) {
			return fmt.Errorf("%w: an IPv6 route through the loopback (a reject route to the kernel)", ErrNotModelled)
		}
	}
	switch {
	case reject6(rt.typ):
		// fib6_is_reject: through the loopback, whatever was named.
		rt.dev = n.lo
		return n.insert6(rt)
	case rt.typ == uapi.RTN_UNICAST:
	default:
		return fmt.Errorf("%w: IPv6 route type %s", ErrNotModelled, rtnl.RouteTypeName(rt.typ))
	}
	if r.Via.IsValid() {
		gwDev, err := n.validateGW6(r.Via, dev, r.Table)
		if err != nil {
			return err
		}
		dev, rt.gw = gwDev, r.Via
	}
	if dev == nil || dev.in6 == nil {
		return rtnl.Errf(uapi.ENODEV, "")
	}
	if dev.v6Off {
		return rtnl.Errf(uapi.EACCES, "IPv6 is disabled on nexthop device")
	}
	if !dev.Up() {
		return rtnl.Errf(uapi.ENETDOWN, "Nexthop device is not up")
	}
	rt.dev = dev
	return n.insert6(rt)
}

// insert6 is fib6_add for a user route: EEXIST when its table has a route
// for the same prefix at the same metric (NLM_F_EXCL), else the route
// goes in (add6: linkdown without carrier, RTM_NEWROUTE).
func (n *Netns) insert6(rt *route6) error {
	for _, rs := range n.fib6.byDev {
		for _, x := range rs {
			if x.table == rt.table && x.dst == rt.dst && x.metric == rt.metric {
				return rtnl.Errf(uapi.EEXIST, "")
			}
		}
	}
	n.add6(rt)
	return nil
}

// validateGW6 is ip6_validate_gw: not one of the host's addresses
// (EINVAL; for a link-local gateway, of the named device only); a
// link-local gateway needs the device named; any other must be unicast
// and reachable (ip6_route_check_nh: EHOSTUNREACH), which gives the
// device when none was named; the device cannot be the loopback.
func (n *Netns) validateGW6(gw netip.Addr, dev *Device, table uint32) (*Device, error) {
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
		via, err := n.checkNH6(gw, dev, table)
		if err != nil {
			return nil, err
		}
		if dev == nil && local(nil) {
			return nil, rtnl.Errf(uapi.EINVAL, "Gateway can not be a local address")
		}
		dev = via
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

// lookup6 is fib6_table_lookup in one table: the longest prefix holding
// addr (with oif, the longest that has a route through it: rt6_score_route
// fails the others), its route of the lowest metric; nil for none.
func (n *Netns) lookup6(addr netip.Addr, table uint32, oif *Device) *route6 {
	var best *route6
	for _, r := range n.sortedRoutes6() {
		if r.table != table || !r.dst.Contains(addr) || (oif != nil && r.dev != oif) {
			continue
		}
		if best == nil || r.dst.Bits() > best.dst.Bits() || (r.dst.Bits() == best.dst.Bits() && r.metric < best.metric) {
			best = r
		}
	}
	return best
}

// route6Del is ip6_route_del: the table (ESRCH when it has none), the
// route for exactly the prefix, the first in the node's order that
// matches the device, gateway, metric and protocol given; ESRCH for none.
func (n *Netns) route6Del(r rtnl.Route) error {
	h, err := r.Header(true)
	if err != nil {
		return err
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
	dst := r.Dst.Masked()
	for _, x := range n.sortedRoutes6() {
		switch {
		case x.table != table || x.dst != dst:
		case dev != nil && x.dev != dev:
		case r.Via.IsValid() && x.gw != r.Via:
		case r.Metric != nil && *r.Metric != 0 && *r.Metric != x.metric:
		case r.Proto != nil && *r.Proto != 0 && *r.Proto != x.protocol():
		default:
			n.del6(x)
			return nil
		}
	}
	return rtnl.Errf(uapi.ESRCH, "")
}
