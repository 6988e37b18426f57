package sim

import (
	"encoding/binary"
	"fmt"
	"net/netip"

	"github.com/rtnlsim/rtnlsim/fibtrie"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// `ip route get` for IPv4 without iif: inet_rtm_getroute with
// RTM_F_LOOKUP_TABLE (which iproute2 always sets for IPv4), the output
// route of ip_route_output_key_hash_rcu and __mkroute_output, and the
// answer rt_fill_info (or, with fibmatch, fib_dump_info) gives. Read from
// Linux ~6.15-6.17 net/ipv4/route.c, net/ipv4/fib_semantics.c
// (fib_select_path, fib_result_prefsrc) and net/ipv4/devinet.c
// (inet_select_addr, __ip_dev_find). Nothing changes: no route cache is
// kept, as none of it shows in the answer.

// rtcf* are the rtable flags an answer's rtm_flags carry above bit 16,
// as iproute2 names them in "cache".
const (
	rtcfLocal     = 0x80000000
	rtcfMulticast = 0x20000000
	rtcfBroadcast = 0x10000000
)

// getAnswer is the output route: its type and device, the flow's source
// once chosen, the gateway it uses (0: none), and what the lookup found
// (nil for a route made without one), in which table.
type getAnswer struct {
	typ     fibtrie.RouteType
	dev     *Device
	saddr   uint32
	gateway uint32
	gwVia   netip.Addr // an IPv6 gateway (RTA_VIA) instead
	flags   uint32
	res     *fibtrie.Alias
	tos     uint8          // fib_result's dscp: the last route a lookup found
	fi      *fibtrie.Alias // the route the rtable takes its nexthop from (nil: none)
	nh      int            // the nexthop of res the lookup took
	table   uint32
}

func isMulticast4(a uint32) bool { return a>>28 == 0xe }
func isLoopback4(a uint32) bool  { return a>>24 == 127 }

const lbcast4 = 0xffffffff

// routeGet answers op, or refuses it with the kernel's errno.
func (n *Netns) routeGet(op rtnl.RouteGet) (rtnl.RouteEntry, error) {
	if op.IIF != "" {
		return n.routeGetInput(op) // the input path (routeget_input.go)
	}
	var oif *Device
	if op.OIF != "" {
		// iproute2 resolves the name before it asks.
		if oif = n.ByName(op.OIF); oif == nil {
			return rtnl.RouteEntry{}, enodev(op.OIF)
		}
	}
	// The lookups compare only the request's tos bits of IPTOS_RT_MASK
	// (0x1c) on this kernel: a route or rule of tos 0x20 and up matches
	// no request.
	fl := ruleFlow{Flow: fibtrie.Flow{Dst: u32Of(op.Dst), TOS: op.TOS & 0x1c}, mark: op.Mark}
	if op.Src.IsValid() {
		fl.src = u32Of(op.Src)
	}
	if oif != nil {
		fl.OIF = int(oif.ifindex)
	}
	fl.SkipLinkDown = func(oif int) bool { return n.ignoreLinkdown(n.ByIndex(uint32(oif))) }
	if n.nhRouteCovers(fl.Dst) {
		return rtnl.RouteEntry{}, fmt.Errorf("%w: route get where a route with nhid covers the destination", ErrNotModelled)
	}
	src := fl.src
	ans, err := n.outputRoute(&fl)
	if err != nil {
		return rtnl.RouteEntry{}, err
	}
	if op.FibMatch {
		if ans.res == nil {
			return rtnl.RouteEntry{}, rtnl.Errf(uapi.EHOSTUNREACH, "")
		}
		r := ans.res.Route
		r.Table, r.Type = ans.table, ans.typ
		return n.renderRoute(r), nil
	}
	// rtm_flags carries the rtable's flags, which iproute2 prints with
	// the route flags' names where they share a bit (RTCF_MULTICAST is
	// RTM_F_OFFLOAD_FAILED).
	// RTA_DST is the request's destination (0.0.0.0 stays that).
	out := rtnl.RouteEntry{Dst: op.Dst.String(), Flags: rtnl.RouteFlags(ans.flags), Family: 4}
	if ans.typ != fibtrie.TypeUnicast {
		out.Type = rtnl.RouteTypeName(uint8(ans.typ))
	}
	if src != 0 {
		out.From = fibtrie.FormatIP(src)
	}
	if ans.tos != 0 {
		out.Tos = rtnl.DSFieldName(ans.tos)
	}
	if ans.gateway != 0 {
		out.Gateway = fibtrie.FormatIP(ans.gateway)
	}
	if ans.gwVia.IsValid() {
		out.Via = rtnl.ViaOf(ans.gwVia)
	}
	out.Dev = ans.dev.name
	if ans.table != 0 && ans.table != fibtrie.TableMain {
		out.Table = rtnl.TableName(ans.table)
	}
	if ans.saddr != src {
		out.Prefsrc = fibtrie.FormatIP(ans.saddr)
	}
	if fi := ans.fi; fi != nil {
		// rt_set_nexthop: the nexthop's realms and the route's metrics
		if v := fi.Realms(); v != 0 {
			out.Flow = rtnl.FlowOf(v)
		}
		if mtu, lock := fi.MTU(); mtu != 0 || lock {
			out.Metrics = []rtnl.RouteMetrics{{MTU: mtu, Lock: lock}}
		}
	}
	if op.Mark != 0 {
		m := op.Mark
		out.Mark = &m
	}
	uid := uint32(0) // the caller's: root
	if op.UID != nil {
		uid = *op.UID
	}
	if uid != 0xffffffff { // INVALID_UID is not sent
		out.UID = &uid
	}
	cache := []string{}
	if ans.flags&rtcfLocal != 0 {
		cache = append(cache, "local")
	}
	if ans.flags&rtcfMulticast != 0 {
		cache = append(cache, "mc")
	}
	if ans.flags&rtcfBroadcast != 0 {
		cache = append(cache, "brd")
	}
	out.Cache = &cache
	return out, nil
}

// outputRoute is ip_route_output_key_hash_rcu for fl (its source is
// filled in), then __mkroute_output.
func (n *Netns) outputRoute(fl *ruleFlow) (getAnswer, error) {
	var ans getAnswer
	if fl.src != 0 {
		if isMulticast4(fl.src) || fl.src == lbcast4 {
			return ans, rtnl.Errf(uapi.EINVAL, "")
		}
		d := n.ipDevFind(fl.src)
		if d == nil {
			return ans, rtnl.Errf(uapi.ENETUNREACH, "")
		}
		if fl.OIF == 0 && (isMulticast4(fl.Dst) || fl.Dst == lbcast4) {
			// out through the device that holds the source
			fl.OIF = int(d.ifindex)
			ans.dev, ans.typ = d, fibtrie.TypeUnicast
			return n.mkrouteOutput(fl, ans)
		}
	}
	if fl.OIF != 0 {
		d := n.ByIndex(uint32(fl.OIF))
		if !d.Up() || d.in == nil {
			return ans, rtnl.Errf(uapi.ENETUNREACH, "")
		}
		if fl.Dst>>8 == 0xe00000 || fl.Dst == lbcast4 {
			// local multicast or limited broadcast: on that device
			if fl.src == 0 {
				fl.src = n.inetSelectAddr(d, 0, fibtrie.ScopeLink)
			}
			ans.dev, ans.typ = d, fibtrie.TypeUnicast
			return n.mkrouteOutput(fl, ans)
		}
		if fl.src == 0 {
			switch {
			case isMulticast4(fl.Dst):
				fl.src = n.inetSelectAddr(d, 0, fibtrie.ScopeUniverse)
			case fl.Dst == 0:
				fl.src = n.inetSelectAddr(d, 0, fibtrie.ScopeHost)
			}
		}
	}
	if fl.Dst == 0 {
		fl.Dst = fl.src
		if fl.Dst == 0 {
			fl.Dst, fl.src = 0x7f000001, 0x7f000001
		}
		fl.OIF = int(n.lo.ifindex)
		ans.dev, ans.typ, ans.flags = n.lo, fibtrie.TypeLocal, rtcfLocal
		return n.mkrouteOutput(fl, ans)
	}
	res, table, errno := n.routeLookup(*fl, &ans.tos)
	if errno != 0 {
		if fl.OIF != 0 {
			// No route: the destination is taken to be on the link.
			d := n.ByIndex(uint32(fl.OIF))
			if fl.src == 0 {
				fl.src = n.inetSelectAddr(d, 0, fibtrie.ScopeLink)
			}
			ans.dev, ans.typ = d, fibtrie.TypeUnicast
			return n.mkrouteOutput(fl, ans)
		}
		return ans, rtnl.Errf(errno, "")
	}
	if res.NhID() != 0 {
		return ans, fmt.Errorf("%w: route get through a route with nhid", ErrNotModelled)
	}
	nh := max(res.GoodNexthopFlow(fl.Flow), 0) // error routes have no nexthop
	ans.res, ans.nh, ans.table, ans.typ, ans.tos = res, nh, table, res.Type, res.TOS
	if res.Type == fibtrie.TypeLocal {
		if fl.src == 0 {
			fl.src = res.PrefSrc
			if fl.src == 0 {
				fl.src = fl.Dst
			}
		}
		ans.dev, ans.flags = n.lo, rtcfLocal
		fl.OIF = int(n.lo.ifindex)
		return n.mkrouteOutput(fl, ans)
	}
	// fib_select_path, without oif: a multipath route picks its
	// nexthop by a hash of the flow with a seed the model cannot know.
	// Several default routes go through fib_select_default, which keeps
	// the lookup's result unless a gateway has a neighbour entry, and
	// nothing a script does makes one (it sends no packets).
	if fl.OIF == 0 && res.IsMulti() {
		// fib_rebalance leaves dead nexthops out of the hash's
		// range: one left is the choice.
		alive := -1
		for i, x := range res.Extra.Multi {
			if x.Dead {
				continue
			}
			if x.LinkDown {
				// whether it is in the hash's range depends on the
				// sysctl's value at the last rebalance, which the
				// model does not keep
				return ans, fmt.Errorf("%w: route get through a multipath route with a nexthop without carrier", ErrNotModelled)
			}
			if alive >= 0 {
				return ans, fmt.Errorf("%w: route get through a multipath route (the kernel picks the nexthop by a seeded flow hash)", ErrNotModelled)
			}
			alive = i
		}
		nh = max(alive, 0)
		ans.nh = nh
	}
	if fl.src == 0 {
		fl.src = n.fibResultPrefsrc(res, nh)
	}
	ans.dev = n.ByIndex(uint32(res.NexthopOIF(nh)))
	return n.mkrouteOutput(fl, ans)
}

// routeLookup is fib_lookup for an output flow: through the rules once
// they changed, else main (with local merged in) then default.
func (n *Netns) routeLookup(fl ruleFlow, found *uint8) (*fibtrie.Alias, uint32, uapi.Errno) {
	if n.rules4 != nil && n.rules4.custom {
		return n.fibRulesLookupFlow(fl, found)
	}
	return n.fibLookupTable(fl.Flow)
}

// mkrouteOutput is __mkroute_output: the checks on the device and the
// source, the destination's own type, and the gateway the route uses (a
// nexthop gateway of link scope).
func (n *Netns) mkrouteOutput(fl *ruleFlow, ans getAnswer) (getAnswer, error) {
	d := ans.dev
	if d.in == nil {
		return ans, rtnl.Errf(uapi.EINVAL, "")
	}
	loopback := d.flags&uapi.IFF_LOOPBACK != 0
	if isLoopback4(fl.src) && !loopback {
		return ans, rtnl.Errf(uapi.EINVAL, "")
	}
	fi := ans.res
	switch {
	case fl.Dst == lbcast4:
		ans.typ, fi = fibtrie.TypeBroadcast, nil
	case isMulticast4(fl.Dst):
		return ans, fmt.Errorf("%w: route get of a multicast destination (group membership)", ErrNotModelled)
	}
	// The ~6.17 source read refuses 0.0.0.0/8 destinations here with
	// EINVAL; this kernel (6.18) routes them like any other.
	if loopback {
		ans.flags |= rtcfLocal
	}
	switch ans.typ {
	case fibtrie.TypeBroadcast:
		ans.flags |= rtcfBroadcast | rtcfLocal
	case fibtrie.TypeMulticast:
		// A multicast route to a destination no device has joined (the
		// destination is not a group: groups are refused above): not
		// local, and no gateway for a prefix shorter than 4.
		ans.flags |= rtcfMulticast
		if fi != nil && fi.Len < 4 {
			fi = nil
		}
	}
	if fi != nil {
		gw, gw6, scope := fi.Gateway, fi.Gateway6(), fi.NhScope
		if fi.IsMulti() {
			m := fi.Extra.Multi[ans.nh]
			gw, gw6, scope = m.Gateway, m.Gateway6, m.Scope
		}
		if (gw != 0 || gw6.IsValid()) && scope == fibtrie.ScopeLink {
			ans.gateway, ans.gwVia = gw, gw6
		}
	}
	ans.saddr, ans.fi = fl.src, fi
	return ans, nil
}

// fibResultPrefsrc is fib_result_prefsrc: the route's prefsrc, else the
// address inet_select_addr picks on the nexthop's device for its gateway
// at the route's scope (what the kernel caches per nexthop until an
// address changes).
func (n *Netns) fibResultPrefsrc(res *fibtrie.Alias, nh int) uint32 {
	if res.PrefSrc != 0 {
		return res.PrefSrc
	}
	gw, gw6 := res.Gateway, res.Gateway6()
	if res.IsMulti() {
		gw, gw6 = res.Extra.Multi[nh].Gateway, res.Extra.Multi[nh].Gateway6
	}
	if gw6.IsValid() {
		// fib_info_update_nhc_saddr reads the gateway as IPv4 from the
		// union that holds it: an IPv6 gateway's first four bytes.
		b := gw6.As16()
		gw = binary.BigEndian.Uint32(b[:4])
	}
	return n.inetSelectAddr(n.ByIndex(uint32(res.NexthopOIF(nh))), gw, res.Scope)
}

// inetSelectAddr is inet_select_addr: the device's first primary address
// of scope scope or wider that holds dst in its subnet, else its first of
// that scope; failing those, the first primary address of any device in
// list order whose scope is not link and at most scope.
func (n *Netns) inetSelectAddr(d *Device, dst uint32, scope fibtrie.Scope) uint32 {
	var addr uint32
	if d != nil && d.in != nil {
		for ifa := d.in.head; ifa != nil; ifa = ifa.next {
			if ifa.Secondary() || fibtrie.Scope(min(ifa.Scope, uapi.RT_SCOPE_HOST)) > scope {
				continue
			}
			if dst == 0 || inetIfaMatch(dst, ifa) {
				return ifa.Local
			}
			if addr == 0 {
				addr = ifa.Local
			}
		}
		if addr != 0 {
			return addr
		}
	}
	for dev := range n.listed() {
		if dev.in == nil {
			continue
		}
		for ifa := dev.in.head; ifa != nil; ifa = ifa.next {
			if !ifa.Secondary() && ifa.Scope != uapi.RT_SCOPE_LINK && fibtrie.Scope(ifa.Scope) <= scope {
				return ifa.Local
			}
		}
	}
	return 0
}

// ipDevFind is __ip_dev_find: the device that holds addr (the first in
// list order when several do, where the kernel takes its hash chain's
// newest), else the device of a local route for it in the local table,
// else nil.
func (n *Netns) ipDevFind(addr uint32) *Device {
	for d := range n.listed() {
		if d.in == nil {
			continue
		}
		for ifa := d.in.head; ifa != nil; ifa = ifa.next {
			if ifa.Local == addr {
				return d
			}
		}
	}
	if addr == 0 || addr == lbcast4 || isMulticast4(addr) || !n.fib.HasTable(fibtrie.TableLocal) {
		return nil
	}
	a, errno := n.fibTableLookup(fibtrie.TableLocal, fibtrie.Flow{Dst: addr})
	if errno != 0 || a.Type != fibtrie.TypeLocal {
		return nil
	}
	return n.ByIndex(uint32(a.NexthopOIF(max(a.GoodNexthop(0), 0))))
}
