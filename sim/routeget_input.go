package sim

import (
	"fmt"
	"net/netip"

	"github.com/rtnlsim/rtnlsim/fibtrie"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// `ip route get ... iif DEV` for IPv4: inet_rtm_getroute with RTA_IIF,
// which routes a made-up packet as if it came in on DEV
// (ip_route_input_rcu, ip_route_input_slow, __mkroute_input) and checks
// its source (fib_validate_source), then answers with rt_fill_info. Read
// from Linux ~6.15-6.17 net/ipv4/route.c and net/ipv4/fib_frontend.c. Any
// drop is EINVAL; a route made for no route (or forwarding off) carries
// its error, which is the answer's.

const (
	rtcfDoRedirect = 0x01000000 // RTCF_DOREDIRECT, from IPSKB_DOREDIRECT
	igmpAllHosts   = 0xe0000001 // 224.0.0.1, joined by every device that is up
)

// isZeronet4 is ipv4_is_zeronet as this kernel (6.18) has it: the ~6.17
// source read takes all of 0.0.0.0/8, this kernel routes 0.x.y.z (not
// 0.0.0.0) like any other address, in and out.
func isZeronet4(a uint32) bool { return a == 0 }

// inputAnswer is the input route: its type, device, flags, gateway,
// realms (dst.tclassid), the route it came from (nil: none) and its
// table, and the tos the lookup found.
type inputAnswer struct {
	typ     fibtrie.RouteType
	dev     *Device
	flags   uint32
	gateway uint32
	gwVia   netip.Addr // an IPv6 gateway (RTA_VIA) instead
	realms  uint32
	res     *fibtrie.Alias
	table   uint32
	tos     uint8
}

// errInval is what any drop of the input path gives.
func errInval() error { return rtnl.Errf(uapi.EINVAL, "") }

// routeGetInput answers op (op.IIF set).
func (n *Netns) routeGetInput(op rtnl.RouteGet) (rtnl.RouteEntry, error) {
	dev := n.ByName(op.IIF)
	if dev == nil {
		return rtnl.RouteEntry{}, enodev(op.IIF)
	}
	if op.OIF != "" && n.ByName(op.OIF) == nil {
		return rtnl.RouteEntry{}, enodev(op.OIF)
	}
	fl := ruleFlow{Flow: fibtrie.Flow{Dst: u32Of(op.Dst), TOS: op.TOS & 0x1c}, mark: op.Mark, iif: dev}
	if op.Src.IsValid() {
		fl.src = u32Of(op.Src)
	}
	if n.nhRouteCovers(fl.Dst) || (fl.src != 0 && n.nhRouteCovers(fl.src)) {
		return rtnl.RouteEntry{}, fmt.Errorf("%w: route get where a route with nhid covers the destination or source", ErrNotModelled)
	}
	ans, err := n.inputRoute(dev, fl)
	if err != nil {
		return rtnl.RouteEntry{}, err
	}
	if op.FibMatch {
		if ans.res == nil {
			// fib_props[type].error: 0 for broadcast and multicast
			return rtnl.RouteEntry{}, rtnl.Errf(uapi.EHOSTUNREACH, "")
		}
		r := ans.res.Route
		r.Table, r.Type = ans.table, ans.typ
		return n.renderRoute(r), nil
	}
	out := rtnl.RouteEntry{Dst: op.Dst.String(), Flags: rtnl.RouteFlags(ans.flags), Family: 4}
	if ans.typ != fibtrie.TypeUnicast {
		out.Type = rtnl.RouteTypeName(uint8(ans.typ))
	}
	if fl.src != 0 {
		out.From = fibtrie.FormatIP(fl.src)
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
	if ans.realms != 0 {
		out.Flow = rtnl.FlowOf(ans.realms)
	}
	if ans.typ == fibtrie.TypeUnicast && ans.res != nil {
		if mtu, lock := ans.res.MTU(); mtu != 0 || lock {
			out.Metrics = []rtnl.RouteMetrics{{MTU: mtu, Lock: lock}}
		}
	}
	if op.Mark != 0 {
		m := op.Mark
		out.Mark = &m
	}
	// Without RTA_UID the flow's uid is INVALID_UID, which is not sent.
	if op.UID != nil && *op.UID != 0xffffffff {
		u := *op.UID
		out.UID = &u
	}
	cache := []string{}
	for _, f := range []struct {
		bit  uint32
		name string
	}{{rtcfLocal, "local"}, {rtcfMulticast, "mc"}, {rtcfBroadcast, "brd"}, {rtcfDoRedirect, "redirect"}} {
		if ans.flags&f.bit != 0 {
			cache = append(cache, f.name)
		}
	}
	out.Cache = &cache
	out.Iif = dev.name
	return out, nil
}

// inputRoute is ip_route_input_rcu for a packet from fl.src to fl.Dst
// that came in on dev.
func (n *Netns) inputRoute(dev *Device, fl ruleFlow) (inputAnswer, error) {
	var ans inputAnswer
	in := dev.in
	if in == nil || dev.mtu < ethMinMTU {
		return ans, errInval() // no IPv4 on the device
	}
	saddr, daddr := fl.src, fl.Dst
	if isMulticast4(daddr) {
		// ip_check_mc_rcu: the only group a script's device is in is
		// all-hosts, joined while it is up; no multicast routing.
		if daddr != igmpAllHosts || !dev.Up() {
			return ans, errInval()
		}
		// ip_mc_validate_source
		if isMulticast4(saddr) || saddr == lbcast4 || isLoopback4(saddr) {
			return ans, errInval()
		}
		if saddr != 0 {
			itag, _, err := n.fibValidateSource(dev, saddr, 0, fl, 0)
			if err != nil {
				return ans, err
			}
			ans.realms = itag
		}
		ans.typ, ans.dev, ans.flags = fibtrie.TypeMulticast, n.lo, rtcfMulticast|rtcfLocal
		return ans, nil
	}
	if isMulticast4(saddr) || saddr == lbcast4 {
		return ans, errInval()
	}
	if daddr == lbcast4 || (saddr == 0 && daddr == 0) {
		return n.brdInput(dev, fl, ans)
	}
	if isZeronet4(saddr) || isZeronet4(daddr) {
		return ans, errInval()
	}
	// route_localnet is not kept: 0, as a new namespace has it
	if isLoopback4(daddr) || isLoopback4(saddr) {
		return ans, errInval()
	}
	fl.SkipLinkDown = func(oif int) bool { return n.ignoreLinkdown(n.ByIndex(uint32(oif))) }
	res, table, errno := n.routeLookup(fl, &ans.tos)
	if errno != 0 {
		if !n.inDevForward(in) {
			errno = uapi.EHOSTUNREACH
		}
		// no_route: an unreachable route whose error is the answer
		return ans, rtnl.Errf(errno, "")
	}
	if res.NhID() != 0 {
		return ans, fmt.Errorf("%w: route get through a route with nhid", ErrNotModelled)
	}
	ans.res, ans.table, ans.tos = res, table, res.TOS
	switch res.Type {
	case fibtrie.TypeBroadcast:
		// bc_forwarding is not kept: 0
		return n.brdInput(dev, fl, ans)
	case fibtrie.TypeLocal:
		itag, _, err := n.fibValidateSource(dev, saddr, daddr, fl, 0)
		if err != nil {
			return ans, err
		}
		ans.typ, ans.dev, ans.flags, ans.realms = fibtrie.TypeLocal, n.lo, rtcfLocal, itag
		return ans, nil
	}
	if !n.inDevForward(in) {
		return ans, rtnl.Errf(uapi.EHOSTUNREACH, "")
	}
	if res.Type != fibtrie.TypeUnicast {
		return ans, errInval() // martian destination
	}
	return n.mkrouteInput(dev, fl, ans)
}

// brdInput is ip_route_input_slow's brd_input: a broadcast delivered
// here, its source checked unless 0.
func (n *Netns) brdInput(dev *Device, fl ruleFlow, ans inputAnswer) (inputAnswer, error) {
	if fl.src != 0 {
		itag, _, err := n.fibValidateSource(dev, fl.src, 0, fl, 0)
		if err != nil {
			return ans, err
		}
		ans.realms = itag
	}
	ans.typ, ans.dev, ans.flags = fibtrie.TypeBroadcast, n.lo, rtcfBroadcast|rtcfLocal
	return ans, nil
}

// mkrouteInput is ip_mkroute_input and __mkroute_input: the forwarded
// route through the nexthop the lookup (or the multipath choice) took.
func (n *Netns) mkrouteInput(dev *Device, fl ruleFlow, ans inputAnswer) (inputAnswer, error) {
	res := ans.res
	nh := max(res.GoodNexthopFlow(fl.Flow), 0)
	if res.IsMulti() {
		// fib_select_multipath: a seeded hash among the nexthops in
		// the last rebalance's ranges; one alive is the choice.
		alive := -1
		for i, x := range res.Extra.Multi {
			if x.Dead {
				continue
			}
			if x.LinkDown || alive >= 0 {
				return ans, fmt.Errorf("%w: route get iif through a multipath route (the kernel picks the nexthop by a seeded hash)", ErrNotModelled)
			}
			alive = i
		}
		nh = max(alive, 0)
	}
	gw, gw6, scope, oif := res.Gateway, res.Gateway6(), res.NhScope, res.OIF
	if res.IsMulti() {
		x := res.Extra.Multi[nh]
		gw, gw6, scope, oif = x.Gateway, x.Gateway6, x.Scope, x.OIF
	}
	out := n.ByIndex(uint32(oif))
	if out == nil || out.in == nil {
		return ans, errInval()
	}
	itag, ret, err := n.fibValidateSource(dev, fl.src, fl.Dst, fl, oif)
	if err != nil {
		return ans, err
	}
	// send_redirects and shared_media are not kept: 1, as compiled in
	if out == dev && ret {
		ans.flags |= rtcfDoRedirect
	}
	if (gw != 0 || gw6.IsValid()) && scope == fibtrie.ScopeLink {
		ans.gateway, ans.gwVia = gw, gw6
	}
	// rt_set_nexthop: the route's realms, then set_class_tag fills each
	// half still 0 from the source's
	tc := res.Realms()
	if tc&0xffff == 0 {
		tc |= itag & 0xffff
	}
	if tc&0xffff0000 == 0 {
		tc |= itag & 0xffff0000
	}
	ans.realms, ans.dev, ans.typ = tc, out, res.Type
	return ans, nil
}

// fibValidateSource is fib_validate_source for a packet from src to dst
// that came in on dev, to be sent out of oif (0: delivered here): the
// source's realms swapped (itag), whether the source is on the link
// (what __mkroute_input takes for a redirect), or EINVAL.
func (n *Netns) fibValidateSource(dev *Device, src, dst uint32, fl ruleFlow, oif int) (uint32, bool, error) {
	in := dev.in
	rpf := n.inDevRPFilter(in)
	if rpf == 0 && !n.tclassidUsers() && int(dev.ifindex) != oif {
		var quick error
		switch {
		case n.inDevAcceptLocal(in):
		case n.customLocalRoutes || (n.rules4 != nil && n.rules4.custom):
			return n.fibValidateSourceFull(dev, src, dst, fl, oif, rpf)
		case n.hasIfaddr(src):
			quick = errInval()
		}
		if n.realmsSeen {
			// The kernel counts a fib_info with realms until an RCU
			// grace period after it went (or failed to be made):
			// till then it takes the full check, which may differ.
			if _, _, full := n.fibValidateSourceFull(dev, src, dst, fl, oif, rpf); (full == nil) != (quick == nil) {
				return 0, false, fmt.Errorf("%w: a source check right after a route with realms went (the kernel's count of them lags an RCU grace period)", ErrNotModelled)
			}
		}
		return 0, false, quick
	}
	return n.fibValidateSourceFull(dev, src, dst, fl, oif, rpf)
}

// fibValidateSourceFull is __fib_validate_source: the route back to the
// source, which must be unicast (or local with accept_local); strict
// rp_filter (1) wants it through dev; loose (any other value not 0)
// wants one at all.
func (n *Netns) fibValidateSourceFull(dev *Device, src, dst uint32, fl ruleFlow, oif int, rpf int) (uint32, bool, error) {
	back := ruleFlow{Flow: fibtrie.Flow{Dst: src, TOS: fl.TOS}, src: dst}
	// flowi4_iif is oif, or lo; src_valid_mark is not kept: no mark
	if oif != 0 {
		back.iif = n.ByIndex(uint32(oif))
	}
	back.SkipLinkDown = func(o int) bool { return n.ignoreLinkdown(n.ByIndex(uint32(o))) }
	lastResort := func() (uint32, bool, error) {
		if rpf != 0 {
			return 0, false, errInval()
		}
		return 0, false, nil
	}
	res, _, errno := n.routeLookup(back, nil)
	if errno != 0 {
		return lastResort()
	}
	if res.NhID() != 0 {
		return 0, false, fmt.Errorf("%w: a source whose route back has nhid", ErrNotModelled)
	}
	if res.Type != fibtrie.TypeUnicast && (res.Type != fibtrie.TypeLocal || !n.inDevAcceptLocal(dev.in)) {
		return 0, false, errInval()
	}
	nh := max(res.GoodNexthopFlow(back.Flow), 0)
	itag := res.Realms() << 16 // fib_combine_itag (rule realms are not modelled)
	match := false
	for i := range max(len(nhList(res)), 1) {
		if res.NexthopOIF(i) == int(dev.ifindex) {
			match = true
		}
	}
	match = match || (res.Type == fibtrie.TypeLocal && dev == n.lo)
	if match {
		return itag, nhScope(res, nh) >= fibtrie.ScopeHost, nil
	}
	if dev.in.head == nil {
		return lastResort()
	}
	if rpf == 1 {
		return 0, false, errInval()
	}
	back.OIF = int(dev.ifindex)
	back.SkipLinkDown = nil // FIB_LOOKUP_IGNORE_LINKSTATE
	res, _, errno = n.routeLookup(back, nil)
	if errno != 0 || res.Type != fibtrie.TypeUnicast {
		return itag, false, nil
	}
	if res.NhID() != 0 {
		return 0, false, fmt.Errorf("%w: a source whose route back has nhid", ErrNotModelled)
	}
	return itag, nhScope(res, max(res.GoodNexthopFlow(back.Flow), 0)) >= fibtrie.ScopeHost, nil
}

func nhList(a *fibtrie.Alias) []fibtrie.Nexthop {
	if a.IsMulti() {
		return a.Extra.Multi
	}
	return nil
}

func nhScope(a *fibtrie.Alias, nh int) fibtrie.Scope {
	if a.IsMulti() {
		return a.Extra.Multi[nh].Scope
	}
	return a.NhScope
}

// tclassidUsers is fib_num_tclassid_users not 0: a route with realms is
// in a table. (The kernel counts them down when the route's fib_info is
// freed, after an RCU grace period.)
func (n *Netns) tclassidUsers() bool {
	found := false
	for _, id := range n.fib.TableIDs() {
		n.fib.Walk(id, func(a *fibtrie.Alias) bool {
			if a.Realms() != 0 {
				found = true
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// hasIfaddr is inet_lookup_ifaddr_rcu: an address of the namespace is
// addr.
func (n *Netns) hasIfaddr(addr uint32) bool {
	for d := range n.listed() {
		if d.in == nil {
			continue
		}
		for ifa := d.in.head; ifa != nil; ifa = ifa.next {
			if ifa.Local == addr {
				return true
			}
		}
	}
	return false
}
