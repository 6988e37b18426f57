package sim

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// IPv6 routes that use a nexthop object (RTA_NH_ID), read in Linux
// ~6.17 net/ipv6/route.c (rtm_to_fib6_config, ip6_route_info_create,
// ip6_route_del, rt6_fill_node), ip6_fib.c (fib6_add_rt2node,
// rt6_duplicate_nexthop) and net/ipv4/nexthop.c (fib6_check_nexthop,
// __remove_nexthop_fib). Such a route has no device of its own (dev is
// nil): device events leave it alone, and it goes when its nexthop does.

// route6Nh is ip6_route_info_create for a route with nhid: the nexthop
// must exist and be usable by IPv6 (no IPv4 nexthop, nor a group with
// one: EINVAL).
func (n *Netns) route6Nh(r rtnl.Route) (*route6, error) {
	h, err := r.Header(false)
	if err != nil {
		return nil, err
	}
	if err := nhExclusive6(r); err != nil {
		return nil, err
	}
	nh := n.nhTable().byID[r.NhID]
	if nh == nil {
		return nil, rtnl.Errf(uapi.EINVAL, "Nexthop id does not exist")
	}
	if n.hasV4(nh) {
		return nil, rtnl.Errf(uapi.EINVAL, "IPv6 routes can not use an IPv4 nexthop")
	}
	rt := &route6{table: h.Table, dst: r.Dst.Masked(), typ: uapi.RTN_UNICAST, user: true, proto: h.Proto,
		metric: ip6RtPrioUser, weight: 1, nhid: r.NhID}
	if rt.proto == uapi.RTPROT_UNSPEC {
		rt.proto = uapi.RTPROT_BOOT
	}
	if rt.table == 0 {
		rt.table = uapi.RT_TABLE_MAIN
	}
	// ip6_route_info_create makes the table once the nexthop passed.
	n.fib6.newTable(rt.table)
	if r.Metric != nil && *r.Metric != 0 {
		rt.metric = *r.Metric
	}
	return rt, nil
}

// nhExclusive6 is rtm_to_fib6_config's check of RTA_NH_ID.
func nhExclusive6(r rtnl.Route) error {
	if r.NhID != 0 && (r.Via.IsValid() || r.Dev != "" || len(r.Nexthops) > 0) {
		return rtnl.Errf(uapi.EINVAL, "Nexthop specification and nexthop id are mutually exclusive")
	}
	return nil
}

// fib6CheckNhList is fib6_check_nh_list: when IPv6 routes use nexthop
// id, nh must not be (or hold) an IPv4 nexthop.
func (n *Netns) fib6CheckNhList(id uint32, nh *nexthop) error {
	if len(n.nhRoutes6(id)) > 0 && n.hasV4(nh) {
		return rtnl.Errf(uapi.EINVAL, "IPv6 routes can not use an IPv4 nexthop")
	}
	return nil
}

// nhRoutes6 is the nexthop's f6i_list: the IPv6 routes using it, the
// latest linked first.
func (n *Netns) nhRoutes6(id uint32) []*route6 {
	var out []*route6
	for _, r := range n.fib6.byDev[nil] {
		if r.nhid == id {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *route6) int { return int(b.nhSeq) - int(a.nhSeq) })
	return out
}

// renderNhRoute6 is rt6_fill_node for a route with a nexthop object, in
// compat mode: RTA_NH_ID, the type blackhole for a blackhole, and the
// nexthop as a single path (gateway, device) or, for a group (even of
// one), RTA_MULTIPATH.
func (n *Netns) renderNhRoute6(r *route6) rtnl.RouteEntry {
	id := r.nhid
	m := r.metric
	out := rtnl.RouteEntry{Family: 6, NhID: &id, Metric: &m, Flags: rtnl.RouteFlags(0), Pref: rtnl.RoutePref(0)}
	if r.proto != uapi.RTPROT_BOOT {
		out.Protocol = rtnl.ProtoName(r.proto)
	}
	out.Dst = dst6Text(r.dst)
	if r.table != uapi.RT_TABLE_MAIN {
		out.Table = rtnl.TableName(r.table)
	}
	nh := n.nhTable().byID[id]
	if nh == nil {
		return out
	}
	if n.isBlackhole(nh) {
		out.Type = rtnl.RouteTypeName(uapi.RTN_BLACKHOLE)
	}
	gw := func(p *nexthop) string {
		if p.gw6.IsValid() {
			return p.gw6.String()
		}
		return ""
	}
	if nh.group == nil {
		out.Gateway, out.Dev = gw(nh), n.devName(nh.oif)
		return out
	}
	ps, ws := n.paths(nh)
	for i, p := range ps {
		out.Nexthops = append(out.Nexthops, rtnl.NexthopEntry{Gateway: gw(p), Dev: n.devName(p.oif), Weight: ws[i],
			Flags: rtnl.RouteFlags(0)})
	}
	return out
}

// nhRoute6Covers reports whether an IPv6 route with nhid, in any table,
// holds addr: lookups through such routes are not modelled.
func (n *Netns) nhRoute6Covers(addr netip.Addr) bool {
	return slices.ContainsFunc(n.fib6.byDev[nil], func(r *route6) bool { return r.dst.Contains(addr) })
}

// errNhRoute6Lookup stops a lookup that could meet an IPv6 route with
// nhid.
var errNhRoute6Lookup = fmt.Errorf("%w: an IPv6 lookup through a route with nhid", ErrNotModelled)
