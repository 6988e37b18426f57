package sim

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/rtnlsim/rtnlsim/fibtrie"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// Nexthop objects (`ip nexthop`, RTM_NEWNEXTHOP and RTM_DELNEXTHOP), IPv4
// and IPv6, and the IPv4 routes that use them (RTA_NH_ID); the IPv6 routes
// that use them are in route6nh.go. Read from Linux ~6.15-6.17
// net/ipv4/nexthop.c (rtm_to_nh_config, nh_check_attr_group,
// nexthop_create, nh_create_ipv4, nh_create_ipv6, insert_nexthop,
// replace_nexthop, fib6_check_nh_list, remove_nexthop,
// remove_nh_grp_entry, nexthop_flush_dev, nh_netdev_event),
// net/ipv6/route.c (fib6_nh_init) and net/ipv4/fib_semantics.c
// (fib_create_info and fib_dump_info with a nexthop object).

// nexthops is a namespace's nexthop table.
type nexthops struct {
	byID map[uint32]*nexthop
	seq  uint64 // the last nexthop_devhash_add
	// going are nexthops out of the tree whose groups still hold them
	// while remove_nexthop runs: a group they empty is shown with them.
	going map[uint32]*nexthop
}

// member is a group's member id: in the tree, or going.
func (t *nexthops) member(id uint32) *nexthop {
	if nh := t.byID[id]; nh != nil {
		return nh
	}
	return t.going[id]
}

// nexthop is one struct nexthop: a single path (gateway and/or device,
// or a blackhole through lo), or a group of other nexthops.
type nexthop struct {
	id uint32
	gw uint32
	// v6 is nh_info's family AF_INET6; gw6 its gateway, if any.
	v6        bool
	gw6       netip.Addr
	oif       int
	scope     fibtrie.Scope // fib_nh_scope (universe for a blackhole)
	onlink    bool
	blackhole bool
	group     []rtnl.NexthopGrpMember // non-nil for a group; Weight 1..256
	// grpList are the groups this nexthop is in, as nh->grp_list has
	// them: each group adds itself at the head.
	grpList []uint32
	// hashed orders nexthop_devhash_add: the device's bucket lists the
	// latest first.
	hashed uint64
}

func (n *Netns) nhTable() *nexthops {
	if n.nh == nil {
		n.nh = &nexthops{byID: map[uint32]*nexthop{}}
	}
	return n.nh
}

// hasGW is nhc_gw_family: the nexthop has a gateway of either family.
func (nh *nexthop) hasGW() bool { return nh.gw != 0 || nh.gw6.IsValid() }

// hasV4 is a group's has_v4, or a single nexthop of family AF_INET: what
// an IPv6 route may not use (fib6_check_nexthop).
func (n *Netns) hasV4(nh *nexthop) bool {
	ps, _ := n.paths(nh)
	return slices.ContainsFunc(ps, func(p *nexthop) bool { return !p.v6 })
}

// isBlackhole is nexthop_is_blackhole: a blackhole, or a group of one
// blackhole.
func (n *Netns) isBlackhole(nh *nexthop) bool {
	if nh.group != nil {
		if len(nh.group) > 1 {
			return false
		}
		nh = n.nh.member(nh.group[0].ID)
	}
	return nh.blackhole
}

// paths is the nexthop's paths with their weights: itself, or its
// group's members.
func (n *Netns) paths(nh *nexthop) ([]*nexthop, []int) {
	if nh.group == nil {
		return []*nexthop{nh}, []int{1}
	}
	var ps []*nexthop
	var ws []int
	for _, m := range nh.group {
		ps = append(ps, n.nh.member(m.ID))
		ws = append(ws, max(m.Weight, 1))
	}
	return ps, ws
}

// nexthopOp carries out nexthop add, replace, del and flush.
func (n *Netns) nexthopOp(op rtnl.Op) error {
	switch o := op.(type) {
	case rtnl.NexthopAdd:
		return n.nexthopAdd(o)
	case rtnl.NexthopDel:
		nh := n.nhTable().byID[o.ID]
		if nh == nil {
			return rtnl.Errf(uapi.ENOENT, "")
		}
		n.removeNexthop(nh, true)
		return nil
	case rtnl.NexthopFlush:
		// One dump, then a delete of each; a group an earlier delete
		// emptied is gone by then, and its delete fails unseen.
		for _, id := range n.nexthopIDs() {
			if nh := n.nh.byID[id]; nh != nil {
				n.removeNexthop(nh, true)
			}
		}
		return nil
	}
	return rtnl.Errf(uapi.EINVAL, "not a nexthop request: %s", op.Verb())
}

// nexthopIDs are the ids in dump order (the rbtree's, ascending).
func (n *Netns) nexthopIDs() []uint32 {
	t := n.nhTable()
	ids := make([]uint32, 0, len(t.byID))
	for id := range t.byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// nexthopAdd is rtm_new_nexthop: the request's checks, the nexthop made
// (nexthop_create, nexthop_create_group), then insert_nexthop.
func (n *Netns) nexthopAdd(op rtnl.NexthopAdd) error {
	t := n.nhTable()
	o := op.NexthopObj
	isGroup := o.Group != nil
	// iproute2 finds the device before it sends anything.
	var dev *Device
	if o.Dev != "" {
		if dev = n.ByName(o.Dev); dev == nil {
			return enodev(o.Dev)
		}
	}
	// iproute2 sends AF_INET for a gateway, a device or a blackhole
	// unless the family is AF_INET6 (-6 or an IPv6 gateway first).
	if !isGroup && !o.V6 && !o.Via.IsValid() && o.Dev == "" && !o.Blackhole {
		return rtnl.Errf(uapi.EINVAL, "Invalid address family")
	}
	if isGroup && (o.V6 || o.Via.IsValid() || o.Dev != "" || o.Blackhole) {
		return rtnl.Errf(uapi.EINVAL, "Invalid family for group")
	}
	nh := &nexthop{id: o.ID}
	switch {
	case isGroup:
		if o.Onlink {
			return fmt.Errorf("%w: onlink on a nexthop group", ErrNotModelled)
		}
		seen := map[uint32]bool{}
		for _, m := range o.Group {
			if seen[m.ID] {
				return rtnl.Errf(uapi.EINVAL, "Nexthop id can not be used twice in a group")
			}
			seen[m.ID] = true
		}
		for _, m := range o.Group {
			e := t.byID[m.ID]
			if e == nil {
				return rtnl.Errf(uapi.EINVAL, "Invalid nexthop id")
			}
			if e.group != nil {
				return rtnl.Errf(uapi.EINVAL, "Hash-threshold group can not be a nexthop within a group")
			}
			if e.blackhole && len(o.Group) > 1 {
				return rtnl.Errf(uapi.EINVAL, "Blackhole nexthop can not be used in a group with more than 1 path")
			}
		}
		for _, m := range o.Group {
			m.Weight = max(m.Weight, 1)
			nh.group = append(nh.group, m)
		}
	case o.Blackhole:
		if o.Via.IsValid() || o.Dev != "" {
			return rtnl.Errf(uapi.EINVAL, "Blackhole attribute can not be used with gateway, oif, encap or fdb")
		}
		if o.V6 {
			if err := n.nhCreate6(nh, n.lo, o); err != nil {
				return err
			}
			nh.blackhole = true
			break
		}
		// Its path is lo's, which fib_check_nh takes as a device-only
		// nexthop.
		c := fibConfig{dev: n.lo, onlink: o.Onlink}
		if err := n.fibCheckNhNongw(&c); err != nil {
			return err
		}
		nh.blackhole, nh.oif = true, int(n.lo.ifindex)
	default:
		if dev == nil {
			return rtnl.Errf(uapi.EINVAL, "Device attribute required for non-blackhole and non-fdb nexthops")
		}
		if !o.Via.IsValid() && o.Onlink {
			return rtnl.Errf(uapi.EINVAL, "ONLINK flag can not be set for nexthop without a gateway")
		}
		if !dev.Up() {
			return rtnl.Errf(uapi.ENETDOWN, "Nexthop device is not up")
		}
		if !dev.carrier {
			return rtnl.Errf(uapi.ENETDOWN, "Carrier for nexthop device is down")
		}
		if o.V6 {
			if err := n.nhCreate6(nh, dev, o); err != nil {
				return err
			}
			break
		}
		// fib_check_nh with the route scope universe, through the
		// rules (the device has no l3mdev table).
		c := fibConfig{dev: dev, onlink: o.Onlink}
		c.Table, c.OIF, c.Scope = fibtrie.TableMain, int(dev.ifindex), fibtrie.ScopeUniverse
		if o.Via.IsValid() {
			c.Gateway = u32Of(o.Via)
		}
		if err := n.fibCheckNh(&c); err != nil {
			return err
		}
		nh.gw, nh.oif, nh.scope, nh.onlink = c.Gateway, c.OIF, c.NhScope, o.Onlink
	}
	old := t.byID[o.ID]
	if old == nil {
		t.insert(nh)
		n.nexthopEvent("RTM_NEWNEXTHOP", nh)
		return nil
	}
	if !op.Replace {
		return rtnl.Errf(uapi.EEXIST, "")
	}
	return n.replaceNexthop(old, nh)
}

// nhCreate6 is nh_create_ipv6, fib6_nh_init with the nexthop's device (lo
// for a blackhole, which 6.18 takes as an ordinary path through lo: only
// RTF_REJECT makes a reject path) and gateway, no table and no destination: the device needs an inet6_dev
// (ENODEV), the gateway passes ip6_validate_gw, IPv6 must be enabled on
// the device (EACCES) and the device up (ENETDOWN). Its scope stays link.
func (n *Netns) nhCreate6(nh *nexthop, dev *Device, o rtnl.NexthopObj) error {
	if dev.in6 == nil {
		return rtnl.Errf(uapi.ENODEV, "")
	}
	if o.Onlink {
		// ip6_route_check_nh_onlink's lookup is not modelled.
		return fmt.Errorf("%w: onlink on an IPv6 nexthop", ErrNotModelled)
	}
	if o.Via.IsValid() {
		if _, err := n.validateGW6(o.Via, dev, 0, false); err != nil {
			return err
		}
	}
	if dev.v6Off {
		return rtnl.Errf(uapi.EACCES, "IPv6 is disabled on nexthop device")
	}
	if !dev.Up() {
		return rtnl.Errf(uapi.ENETDOWN, "Nexthop device is not up")
	}
	nh.v6, nh.gw6, nh.oif, nh.scope = true, o.Via, int(dev.ifindex), fibtrie.ScopeLink
	return nil
}

// insert links a new nexthop in: into its members' group lists, or into
// its device's bucket.
func (t *nexthops) insert(nh *nexthop) {
	t.byID[nh.id] = nh
	for _, m := range nh.group {
		e := t.byID[m.ID]
		e.grpList = slices.Insert(e.grpList, 0, nh.id)
	}
	if nh.group == nil {
		t.seq++
		nh.hashed = t.seq
	}
}

// replaceNexthop is replace_nexthop: the routes using old, and those of
// the groups it is in, must take the new one (fib_check_nh_list); a
// blackhole may not go into a group of more than one path; a group
// replaces a group and a single nexthop a single one. Then
// RTM_NEWNEXTHOP, and RTM_NEWROUTE for the routes of old and of each of
// its groups.
func (n *Netns) replaceNexthop(old, nh *nexthop) error {
	t := n.nh
	if err := n.fibCheckNhList(old.id, nh); err != nil {
		return err
	}
	if err := n.fib6CheckNhList(old.id, nh); err != nil {
		return err
	}
	for _, gid := range old.grpList {
		if nh.blackhole && len(t.byID[gid].group) > 1 {
			return rtnl.Errf(uapi.EINVAL, "Blackhole nexthop can not be a member of a group with more than one path")
		}
		if err := n.fibCheckNhList(gid, nh); err != nil {
			return err
		}
		if err := n.fib6CheckNhList(gid, nh); err != nil {
			return err
		}
	}
	if old.group != nil && nh.group == nil {
		return rtnl.Errf(uapi.EINVAL, "Can not replace a nexthop group with a nexthop.")
	}
	if old.group == nil && nh.group != nil {
		return rtnl.Errf(uapi.EINVAL, "Can not replace a nexthop with a nexthop group.")
	}
	if old.group != nil {
		for _, m := range old.group {
			e := t.byID[m.ID]
			e.grpList = slices.DeleteFunc(e.grpList, func(g uint32) bool { return g == old.id })
		}
		for _, m := range nh.group {
			e := t.byID[m.ID]
			e.grpList = slices.Insert(e.grpList, 0, old.id)
		}
		old.group = nh.group
	} else {
		// The new path swaps in; the nexthop keeps its id and groups,
		// and its device bucket place is the new path's.
		t.seq++
		old.gw, old.oif, old.scope, old.onlink, old.blackhole, old.hashed = nh.gw, nh.oif, nh.scope, nh.onlink, nh.blackhole, t.seq
		old.v6, old.gw6 = nh.v6, nh.gw6
	}
	n.nexthopEvent("RTM_NEWNEXTHOP", old)
	n.nhRouteUpdates(old.id)
	for _, gid := range old.grpList {
		n.nhRouteUpdates(gid)
	}
	return nil
}

// fibCheckNhList is fib_check_nh_list: each route using nexthop id must
// accept nh (fib_check_nexthop with its scope).
func (n *Netns) fibCheckNhList(id uint32, nh *nexthop) error {
	var err error
	for _, tid := range n.fib.TableIDs() {
		n.fib.Walk(tid, func(a *fibtrie.Alias) bool {
			if a.NhID() == id {
				err = n.fibCheckNexthop(nh, a.Scope)
			}
			return err == nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// fibCheckNexthop is fib_check_nexthop: a route of host scope takes no
// group and no gateway; an onlink nexthop needs a route scope below
// link. A group's first member speaks for all.
func (n *Netns) fibCheckNexthop(nh *nexthop, scope fibtrie.Scope) error {
	if nh.group != nil {
		if scope == fibtrie.ScopeHost {
			return rtnl.Errf(uapi.EINVAL, "Route with host scope can not have multiple nexthops")
		}
		nh = n.nh.byID[nh.group[0].ID]
	}
	if scope == fibtrie.ScopeHost && nh.hasGW() {
		return rtnl.Errf(uapi.EINVAL, "Route with host scope can not have a gateway")
	}
	if nh.onlink && scope >= fibtrie.ScopeLink {
		return rtnl.Errf(uapi.EINVAL, "Scope mismatch with nexthop")
	}
	return nil
}

// nhRouteUpdates is __nexthop_replace_notify: fib_info_notify_update's
// RTM_NEWROUTE for each IPv4 route using nexthop id, every table in hash
// order, then fib6_rt_update's for each IPv6 one (f6i_list order).
func (n *Netns) nhRouteUpdates(id uint32) {
	for _, tid := range n.fib.TableIDs() {
		n.fib.Walk(tid, func(a *fibtrie.Alias) bool {
			if a.NhID() == id {
				n.routeEvent("RTM_NEWROUTE", a.Route)
			}
			return true
		})
	}
	for _, r := range n.nhRoutes6(id) {
		n.send6("RTM_NEWROUTE", true, func() any { return n.renderRoute6(r) })
	}
}

// removeNexthop is remove_nexthop: RTM_DELNEXTHOP when a request asked
// (notify), its routes flushed unannounced, then out of its groups
// (remove_nh_grp_entry: a group left empty goes the same way, another
// loses the member, announced as RTM_NEWNEXTHOP when notify).
func (n *Netns) removeNexthop(nh *nexthop, notify bool) {
	t := n.nh
	// Its IPv6 routes are announced as they were, with the nexthop.
	rs6 := n.nhRoutes6(nh.id)
	evs6 := make([]rtnl.RouteEntry, len(rs6))
	for i, r := range rs6 {
		evs6[i] = n.renderRoute6(r)
	}
	delete(t.byID, nh.id)
	if t.going == nil {
		t.going = map[uint32]*nexthop{}
	}
	t.going[nh.id] = nh
	defer delete(t.going, nh.id)
	if notify {
		n.nexthopEvent("RTM_DELNEXTHOP", nh)
	}
	id := nh.id
	if n.fib.MarkDead(func(a *fibtrie.Alias) bool { return a.NhID() == id }) > 0 {
		n.fibFlush(nil)
	}
	// ip6_del_rt, announced: nexthop_compat_mode is on.
	for i, r := range rs6 {
		if n.drop6(r) {
			ev := evs6[i]
			n.send6("RTM_DELROUTE", true, func() any { return ev })
		}
	}
	if nh.group != nil {
		for _, m := range nh.group {
			if e := t.byID[m.ID]; e != nil {
				e.grpList = slices.DeleteFunc(e.grpList, func(g uint32) bool { return g == id })
			}
		}
		return
	}
	for _, gid := range slices.Clone(nh.grpList) {
		g := t.byID[gid]
		if g == nil {
			continue
		}
		if len(g.group) == 1 {
			n.removeNexthop(g, notify)
			continue
		}
		g.group = slices.DeleteFunc(slices.Clone(g.group), func(m rtnl.NexthopGrpMember) bool { return m.ID == id })
		// The members left move to the new group array: each relinks
		// the group at the head of its list.
		for _, m := range g.group {
			e := t.byID[m.ID]
			e.grpList = slices.DeleteFunc(e.grpList, func(x uint32) bool { return x == gid })
			e.grpList = slices.Insert(e.grpList, 0, gid)
		}
		if notify {
			n.nexthopEvent("RTM_NEWNEXTHOP", g)
		}
	}
	nh.grpList = nil
}

// nexthopFlushDev is nh_netdev_event's nexthop_flush_dev: on NETDEV_DOWN,
// a carrier loss and NETDEV_UNREGISTER the nexthops through the device
// go, unannounced, latest hashed first; blackholes (through lo) stay but
// on unregister.
func (n *Netns) nexthopFlushDev(d *Device, unregister bool) {
	if n.nh == nil {
		return
	}
	var list []*nexthop
	for _, nh := range n.nh.byID {
		if nh.group == nil && nh.oif == int(d.ifindex) && (unregister || !nh.blackhole) {
			list = append(list, nh)
		}
	}
	slices.SortFunc(list, func(a, b *nexthop) int { return int(b.hashed) - int(a.hashed) })
	for _, nh := range list {
		if n.nh.byID[nh.id] == nh {
			n.removeNexthop(nh, false)
		}
	}
}

// nexthopEvent sends RTM_NEWNEXTHOP or RTM_DELNEXTHOP for nh.
func (n *Netns) nexthopEvent(typ string, nh *nexthop) {
	e := n.renderNexthop(nh)
	n.send(typ, "nexthop", func() any { return e })
}

// renderNexthop is nh_fill_node as `ip -j nexthop` prints it.
func (n *Netns) renderNexthop(nh *nexthop) rtnl.NexthopEntryObj {
	e := rtnl.NexthopEntryObj{ID: nh.id}
	var flags uint32
	switch {
	case nh.group != nil:
		e.Group = slices.Clone(nh.group)
	case nh.blackhole:
		e.Blackhole = true
	default:
		if nh.gw != 0 {
			e.Gateway = fibtrie.FormatIP(nh.gw)
		}
		if nh.gw6.IsValid() {
			e.Gateway = nh.gw6.String()
		}
		e.Dev = n.devName(nh.oif)
		if nh.scope != fibtrie.ScopeUniverse {
			e.Scope = rtnl.ScopeName(uint8(nh.scope))
		}
		if nh.onlink {
			flags |= uapi.RTNH_F_ONLINK
		}
	}
	e.Flags = rtnl.RouteFlags(flags)
	return e
}

// Nexthops is `ip -j nexthop show`.
func (n *Netns) Nexthops() []rtnl.NexthopEntryObj {
	var out []rtnl.NexthopEntryObj
	for _, id := range n.nexthopIDs() {
		out = append(out, n.renderNexthop(n.nh.byID[id]))
	}
	return out
}

// routeNewNh is fib_create_info for a route with RTA_NH_ID: the
// nexthop must exist (EINVAL), the scope be at most host, and the
// nexthop take the route's scope (fib_check_nexthop). The parser keeps
// a route type and src out of an nhid line, so the prefsrc and type
// checks fib_create_info also makes are not here.
func (n *Netns) routeNewNh(c *fibConfig) error {
	nh := n.nhTable().byID[c.NhID()]
	if nh == nil {
		return rtnl.Errf(uapi.EINVAL, "Nexthop id does not exist")
	}
	if c.Scope > fibtrie.ScopeHost {
		return rtnl.Errf(uapi.EINVAL, "Invalid scope")
	}
	return n.fibCheckNexthop(nh, c.Scope)
}

// nhResolved is r as fib_dump_info shows a route with a nexthop object
// (compat mode): the type blackhole for a blackhole, one path's gateway,
// device and onlink, or two or more as RTA_MULTIPATH with their weights.
func (n *Netns) nhResolved(r fibtrie.Route) fibtrie.Route {
	nh := n.nhTable().byID[r.NhID()]
	x := *r.Extra
	x.NhID = 0
	r.SetExtra(x)
	if nh == nil {
		return r
	}
	if n.isBlackhole(nh) {
		r.Type = fibtrie.TypeBlackhole
	}
	ps, ws := n.paths(nh)
	if len(ps) == 1 {
		r.Gateway, r.OIF, r.Onlink = ps[0].gw, ps[0].oif, ps[0].onlink
		return r
	}
	var hops []fibtrie.Nexthop
	for i, p := range ps {
		hops = append(hops, fibtrie.Nexthop{Gateway: p.gw, OIF: p.oif, Weight: uint16(ws[i]), Scope: p.scope, Onlink: p.onlink})
	}
	r.SetNexthops(hops)
	return r
}

// nhVia gives an IPv4 route rendered from a nexthop object (nhResolved)
// its IPv6 gateways: fib_nexthop_info puts them in RTA_VIA.
func (n *Netns) nhVia(out *rtnl.RouteEntry, id uint32) {
	nh := n.nhTable().byID[id]
	if nh == nil {
		return
	}
	via := func(p *nexthop) *rtnl.RouteVia {
		if !p.gw6.IsValid() {
			return nil
		}
		return &rtnl.RouteVia{Family: "inet6", Host: p.gw6.String()}
	}
	ps, _ := n.paths(nh)
	if len(ps) == 1 {
		out.Via = via(ps[0])
		return
	}
	for i := range out.Nexthops {
		out.Nexthops[i].Via = via(ps[i])
	}
}

// nhRouteCovers reports whether a route with nhid, in any table, has a
// prefix that holds addr: lookups through such routes (gateway checks,
// route get) are not modelled.
func (n *Netns) nhRouteCovers(addr uint32) bool {
	if n.nh == nil || len(n.nh.byID) == 0 {
		return false
	}
	found := false
	for _, tid := range n.fib.TableIDs() {
		n.fib.Walk(tid, func(a *fibtrie.Alias) bool {
			if a.NhID() != 0 && (a.Len == 0 || (addr^a.Dst)>>(32-a.Len) == 0) {
				found = true
			}
			return !found
		})
	}
	return found
}
