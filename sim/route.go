package sim

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/rtnlsim/rtnlsim/fibtrie"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// User routes: RTM_NEWROUTE and RTM_DELROUTE as iproute2 sends them for
// `ip route add|replace|append|prepend|del` (rtnl.Route.Header gives its
// defaults), and `ip route flush` as iproute2 does it (dump, then one
// RTM_DELROUTE per matching route). IPv4 here; IPv6 routes are in
// route6.go. Read from Linux ~6.15-6.17
// net/ipv4/fib_frontend.c (rtm_to_fib_config, inet_rtm_newroute,
// inet_rtm_delroute, inet_addr_type_table, fib_lookup) and
// net/ipv4/fib_semantics.c (fib_create_info, fib_check_nh_v4_gw,
// fib_check_nh_nongw, fib_valid_prefsrc); the FIB itself is fibtrie.

// route carries out a route request (add, del, replace, append, prepend,
// flush).
func (n *Netns) route(op rtnl.Op) error {
	if f, ok := op.(rtnl.RouteFlush); ok {
		return n.routeFlush(f)
	}
	r, ok := rtnl.RouteOf(op)
	if !ok {
		return rtnl.Errf(uapi.EINVAL, "not a route request: %s", op.Verb())
	}
	if r.Dst.Addr().Is6() {
		return n.route6(op, r)
	}
	if !r.Dst.Addr().Is4() || (r.Src.IsValid() && !r.Src.Is4()) {
		return errIPv6NotModelled
	}
	if _, del := op.(rtnl.RouteDel); del {
		return n.routeDel(r)
	}
	flags, _ := FibFlags(op)
	err := n.routeNew(r, flags)
	if h, _ := r.Header(false); err == nil && h.Type == uapi.RTN_LOCAL {
		n.customLocalRoutes = true // inet_rtm_newroute never clears it
	}
	if r.Realms != 0 {
		n.realmsSeen = true // its fib_info is freed an RCU grace period late
	}
	return err
}

// fibConfig is a struct fib_config as rtm_to_fib_config fills it from
// iproute2's request: the route, and the device's ifindex (0 without
// `dev`).
type fibConfig struct {
	fibtrie.Route
	dev *Device
	// nhs are RTA_MULTIPATH's nexthops (nil without), each with its
	// device (nil without `dev`).
	nhs    []fibtrie.Nexthop
	nhDevs []*Device
	// onlink is RTNH_F_ONLINK on the nexthop being checked.
	onlink bool
}

// routeConfig is iproute_modify (the defaults, then the device's ifindex,
// ENODEV for an unknown name) followed by rtm_to_fib_config's checks
// (FibRoute).
func (n *Netns) routeConfig(r rtnl.Route, del bool) (fibConfig, error) {
	// iproute2's defaults come first: their errors precede ENODEV.
	if _, err := r.Header(del); err != nil {
		return fibConfig{}, err
	}
	var c fibConfig
	oif := 0
	if r.Dev != "" {
		if c.dev = n.ByName(r.Dev); c.dev == nil {
			return fibConfig{}, enodev(r.Dev)
		}
		oif = int(c.dev.ifindex)
	}
	// iproute2 resolves the nexthops' devices after the route's.
	for _, nh := range r.Nexthops {
		var d *Device
		hop := fibtrie.Nexthop{Weight: 1, Onlink: nh.Onlink}
		if nh.Dev != "" {
			if d = n.ByName(nh.Dev); d == nil {
				return fibConfig{}, enodev(nh.Dev)
			}
			hop.OIF = int(d.ifindex)
		}
		if nh.Weight > 0 {
			hop.Weight = uint16(nh.Weight)
		}
		switch {
		case nh.Via.Is4():
			hop.Gateway = u32Of(nh.Via)
		case nh.Via.Is6():
			hop.Gateway6 = nh.Via
		}
		c.nhs = append(c.nhs, hop)
		c.nhDevs = append(c.nhDevs, d)
	}
	fr, err := FibRoute(r, del, oif)
	if err != nil {
		return fibConfig{}, err
	}
	if r.NhID != 0 && (oif != 0 || r.Via.IsValid() || r.Nexthops != nil) {
		return fibConfig{}, rtnl.Errf(uapi.EINVAL, "Nexthop specification and nexthop id are mutually exclusive")
	}
	c.Route = fr
	if del && c.nhs != nil {
		c.SetNexthops(c.nhs)
	}
	return c, nil
}

// FibRoute is an IPv4 route request as the kernel's rtm_to_fib_config
// reads it: iproute2's defaults for the request (rtnl.Route.Header; del
// for a delete), the table main when none is given, the device as ifindex
// oif (0 for none), onlink, the realms and the MTU (clamped as the
// fib_info keeps it, or for a delete as sent), and its checks: ECN bits
// in the tos and host bits in the prefix are EINVAL. It is the fibtrie.Route the FIB inserts or
// deletes, before fib_create_info's checks of the nexthop.
func FibRoute(r rtnl.Route, del bool, oif int) (fibtrie.Route, error) {
	h, err := r.Header(del)
	if err != nil {
		return fibtrie.Route{}, err
	}
	if !r.Dst.Addr().Is4() || (r.Src.IsValid() && !r.Src.Is4()) {
		return fibtrie.Route{}, errIPv6NotModelled
	}
	if r.TOS&0x03 != 0 { // inet_validate_dscp
		return fibtrie.Route{}, rtnl.Errf(uapi.EINVAL, "Invalid dsfield (tos): ECN bits must be 0")
	}
	c := fibtrie.Route{OIF: oif}
	c.Dst, c.Len = u32Of(r.Dst.Addr()), uint8(r.Dst.Bits())
	if c.Len < 32 && c.Dst<<c.Len != 0 {
		return fibtrie.Route{}, rtnl.Errf(uapi.EINVAL, "Invalid prefix for given prefix length")
	}
	c.Table = h.Table
	if c.Table == 0 {
		c.Table = fibtrie.TableMain
	}
	c.Type = fibtrie.RouteType(h.Type)
	c.Scope = fibtrie.Scope(h.Scope)
	c.Protocol = h.Proto
	c.TOS = r.TOS
	if r.Metric != nil {
		c.Priority = *r.Metric
	}
	if r.Via.Is4() {
		c.Gateway = u32Of(r.Via)
	}
	if r.Src.IsValid() {
		c.PrefSrc = u32Of(r.Src)
	}
	c.Onlink = r.Onlink
	x := fibtrie.Extra{Realms: r.Realms, NhID: r.NhID}
	if r.Via.Is6() {
		x.Gateway6 = r.Via // RTA_VIA
	}
	if r.MTU != nil {
		x.MTU, x.MTULock = *r.MTU, r.MTULock
		if del {
			// fib_metrics_match compares the value as sent.
			x.MTUGiven = true
		} else {
			x.MTU = min(x.MTU, maxMetricMTU)
		}
	}
	c.SetExtra(x)
	return c, nil
}

// maxMetricMTU is the largest RTAX_MTU ip_metrics_convert keeps: it
// lowers larger ones to it.
const maxMetricMTU = 65535 - 15

// FibFlags are the NLM_F flags iproute2 sends with a route request, as
// fibtrie insert flags: add is create|excl, replace create|replace, append
// create|append, prepend create. ok is false for other requests.
func FibFlags(op rtnl.Op) (flags fibtrie.Flags, ok bool) {
	switch op.(type) {
	case rtnl.RouteAdd:
		return fibtrie.FlagCreate | fibtrie.FlagExcl, true
	case rtnl.RouteReplace:
		return fibtrie.FlagCreate | fibtrie.FlagReplace, true
	case rtnl.RouteAppend:
		return fibtrie.FlagCreate | fibtrie.FlagAppend, true
	case rtnl.RoutePrepend:
		return fibtrie.FlagCreate, true
	case rtnl.RouteChange:
		return fibtrie.FlagReplace, true
	}
	return 0, false
}

// routeNew is inet_rtm_newroute: the table is made (fib_new_table, even
// when the route is then refused), the fib_info checked and completed
// (fib_create_info), and the alias inserted with the request's flags
// (fib_table_insert, which notifies).
func (n *Netns) routeNew(r rtnl.Route, flags fibtrie.Flags) error {
	c, err := n.routeConfig(r, false)
	if err != nil {
		return err
	}
	if c.NhID() != 0 {
		if err := n.routeNewNh(&c); err != nil {
			return err
		}
		n.fib.NewTable(c.Table)
		return n.fibInsert(c.Route, flags)
	}
	n.fib.NewTable(c.Table)
	if err := n.fibCreateInfo(&c); err != nil {
		return err
	}
	if hasGateway6(&c.Route) {
		// fib_find_info: a route that shares a fib_info shows its flags,
		// which carrier events may have set since fib_check_nh_v6_gw
		// made it without LINKDOWN.
		if a := n.fib.SharedInfo(&c.Route); a != nil {
			c.LinkDown = a.LinkDown
			if c.IsMulti() {
				for i := range c.Extra.Multi {
					c.Extra.Multi[i].LinkDown = a.Extra.Multi[i].LinkDown
				}
			}
		}
	}
	return n.fibInsert(c.Route, flags)
}

// hasGateway6 reports whether a nexthop of r has an IPv6 gateway.
func hasGateway6(r *fibtrie.Route) bool {
	return r.Gateway6().IsValid() || slices.ContainsFunc(r.Nexthops(), func(nh fibtrie.Nexthop) bool { return nh.Gateway6.IsValid() })
}

// fibPropsScope is fib_props[type].scope: the narrowest scope a route of the
// type may have.
func fibPropsScope(t fibtrie.RouteType) fibtrie.Scope {
	switch t {
	case fibtrie.TypeLocal:
		return fibtrie.ScopeHost
	case fibtrie.TypeBroadcast, fibtrie.TypeAnycast:
		return fibtrie.ScopeLink
	case fibtrie.TypeUnspec, fibtrie.TypeNAT, fibtrie.TypeXResolve:
		return fibtrie.ScopeNowhere
	}
	return fibtrie.ScopeUniverse
}

// fibCreateInfo is fib_create_info: the type's scope, the nexthops
// (fib_get_nhs' checks of RTA_MULTIPATH against the top-level device,
// gateway and realms; fib_check_nh on each, or the host-scope shortcut),
// and the prefsrc. It fills in the nexthops' devices, scopes and
// LINKDOWN. The metrics, realms and flags go into the fib_info as they
// are (error routes keep them too).
func (n *Netns) fibCreateInfo(c *fibConfig) error {
	if c.Type > fibtrie.TypeXResolve {
		return rtnl.Errf(uapi.EINVAL, "Invalid route type")
	}
	if fibPropsScope(c.Type) > c.Scope {
		return rtnl.Errf(uapi.EINVAL, "Invalid scope")
	}
	if c.nhs != nil {
		// fib_get_nhs: a top-level device or gateway must be the first
		// nexthop's, which is the route's nexthop from here on.
		nh0 := c.nhs[0]
		if c.OIF != 0 && nh0.OIF != c.OIF {
			return rtnl.Errf(uapi.EINVAL, "Nexthop device index does not match RTA_OIF")
		}
		if c.HasGateway() && (nh0.Gateway != c.Gateway || nh0.Gateway6 != c.Gateway6()) {
			return rtnl.Errf(uapi.EINVAL, "Nexthop gateway does not match RTA_GATEWAY or RTA_VIA")
		}
		// The nexthops have no RTA_FLOW here: a first one without
		// the route's realms.
		if c.Realms() != 0 {
			return rtnl.Errf(uapi.EINVAL, "Nexthop class id does not match RTA_FLOW")
		}
		c.OIF, c.Gateway, c.dev, c.onlink = nh0.OIF, nh0.Gateway, c.nhDevs[0], nh0.Onlink
		c.SetGateway6(nh0.Gateway6)
	} else {
		// Without RTA_MULTIPATH the request's flags are its nexthop's.
		c.onlink = c.Onlink
	}
	switch c.Type {
	case fibtrie.TypeUnicast, fibtrie.TypeLocal, fibtrie.TypeBroadcast, fibtrie.TypeAnycast, fibtrie.TypeMulticast:
	case fibtrie.TypeUnspec:
		return rtnl.Errf(uapi.EINVAL, "Invalid route type")
	default:
		// fib_props[].error: no nexthop, and no prefsrc check either.
		if c.HasGateway() || c.OIF != 0 || c.nhs != nil {
			return rtnl.Errf(uapi.EINVAL, "Gateway, device and multipath can not be specified for this route type")
		}
		return nil
	}
	if c.Scope > fibtrie.ScopeHost {
		return rtnl.Errf(uapi.EINVAL, "Invalid scope")
	}
	if c.Scope == fibtrie.ScopeHost {
		// A local address: no gateway, any registered device, up or not,
		// and no LINKDOWN (its nexthop's scope is NOWHERE).
		if len(c.nhs) > 1 {
			return rtnl.Errf(uapi.EINVAL, "Route with host scope can not have multiple nexthops")
		}
		if c.HasGateway() {
			return rtnl.Errf(uapi.EINVAL, "Route with host scope can not have a gateway")
		}
		if c.dev == nil {
			return rtnl.Errf(uapi.ENODEV, "")
		}
		c.NhScope = fibtrie.ScopeNowhere
	} else if len(c.nhs) > 1 {
		if err := n.fibCheckNhs(c); err != nil {
			return err
		}
	} else if err := n.fibCheckNh(c); err != nil {
		return err
	}
	if c.PrefSrc != 0 && !n.fibValidPrefsrc(c) {
		return rtnl.Errf(uapi.EINVAL, "Invalid prefsrc address")
	}
	if c.nhs != nil {
		// The nexthop list as the route keeps it; a list of one holds
		// only the weight and onlink that make it another fib_info.
		nhs := c.nhs
		if len(nhs) == 1 {
			nhs[0].OIF, nhs[0].Scope = c.OIF, c.NhScope
		}
		c.SetNexthops(nhs)
	}
	return nil
}

// fibCheckNh is fib_check_nh for the route's one nexthop.
func (n *Netns) fibCheckNh(c *fibConfig) error {
	if c.Gateway6().IsValid() {
		return n.fibCheckNhV6(c)
	}
	if c.Gateway != 0 {
		return n.fibCheckNhGw(c)
	}
	return n.fibCheckNhNongw(c)
}

// fibCheckNhs is fib_create_info's loop over the nexthops of a multipath
// route: fib_check_nh on each in order, the first error refusing the
// route; each gets its device, scope and LINKDOWN, and the route gets
// LINKDOWN when all of them have it.
func (n *Netns) fibCheckNhs(c *fibConfig) error {
	linkdown := 0
	for i := range c.nhs {
		nh := &c.nhs[i]
		one := fibConfig{Route: c.Route, dev: c.nhDevs[i], onlink: nh.Onlink}
		one.Gateway, one.OIF, one.LinkDown = nh.Gateway, nh.OIF, false
		one.SetGateway6(nh.Gateway6)
		if err := n.fibCheckNh(&one); err != nil {
			return err
		}
		nh.OIF, nh.Scope, nh.LinkDown = one.OIF, one.NhScope, one.LinkDown
		if nh.LinkDown {
			linkdown++
		}
	}
	nh0 := c.nhs[0]
	c.OIF, c.NhScope = nh0.OIF, nh0.Scope
	c.LinkDown = linkdown == len(c.nhs)
	return nil
}

// fibCheckNhNongw is fib_check_nh_nongw: the device must have IPv4
// (ENODEV otherwise, as without `dev`) and be up (ENETDOWN); the
// nexthop's scope is host; without carrier the nexthop is LINKDOWN.
func (n *Netns) fibCheckNhNongw(c *fibConfig) error {
	if c.onlink {
		return rtnl.Errf(uapi.EINVAL, "Invalid flags for nexthop - PERVASIVE and ONLINK can not be set")
	}
	if c.dev == nil || c.dev.in == nil {
		return rtnl.Errf(uapi.ENODEV, "")
	}
	if !c.dev.Up() {
		return rtnl.Errf(uapi.ENETDOWN, "Device for nexthop is not up")
	}
	c.LinkDown = !c.dev.carrier
	c.NhScope = fibtrie.ScopeHost
	return nil
}

// fibCheckNhGw is fib_check_nh_v4_gw without onlink: the gateway must be
// reached, in the route's table first when that is not main, then by
// fib_lookup (main, with local merged into it, then default), by a
// route of a wider scope than the new route's (at least link) through
// the given device if any; it must be a unicast or local route, whose
// device and scope become the nexthop's (so one gateway resolved by
// another route makes another fib_info); that device must be up.
func (n *Netns) fibCheckNhGw(c *fibConfig) error {
	if c.onlink {
		return n.fibCheckNhOnlink(c)
	}
	scope := c.Scope + 1
	if scope < fibtrie.ScopeLink {
		scope = fibtrie.ScopeLink
	}
	if n.nhRouteCovers(c.Gateway) {
		// Its paths are not in the FIB, so a lookup could pass it over.
		return fmt.Errorf("%w: a gateway a route with nhid covers", ErrNotModelled)
	}
	fl := fibtrie.Flow{Dst: c.Gateway, Scope: scope, OIF: c.OIF}
	var res *fibtrie.Alias
	errno := uapi.EAGAIN
	if c.Table != fibtrie.TableMain && n.fib.HasTable(c.Table) {
		res, errno = n.fibTableLookup(c.Table, fl)
	}
	if errno != 0 {
		if n.rules4 != nil && n.rules4.custom {
			res, errno = n.fibRulesLookup(fl)
		} else {
			res, errno = n.fibLookup(fl)
		}
	}
	if errno != 0 {
		return rtnl.Errf(errno, "Nexthop has invalid gateway")
	}
	if res.Type != fibtrie.TypeUnicast && res.Type != fibtrie.TypeLocal {
		return rtnl.Errf(uapi.EINVAL, "Nexthop has invalid gateway")
	}
	// A multipath route found gives its first usable nexthop's device.
	oif := res.NexthopOIF(res.GoodNexthop(c.OIF))
	d := n.ByIndex(uint32(oif))
	if d == nil {
		return rtnl.Errf(uapi.EINVAL, "No egress device for nexthop gateway")
	}
	c.OIF = oif
	c.NhScope = res.Scope
	c.LinkDown = !d.carrier
	if !d.Up() {
		return rtnl.Errf(uapi.ENETDOWN, "")
	}
	return nil
}

// fibCheckNhV6 is fib_check_nh_v6_gw: IPv6's fib6_nh_init on the
// gateway, with the route's table and flags. The named device needs an
// inet6_dev (ENODEV); onlink needs a device (ENODEV) that is up
// (ENETDOWN) and skips the lookup of a global gateway for a check of
// IPv6 main (validateGW6); the device found must not have IPv6 disabled
// (EACCES) and must be up (ENETDOWN). The nexthop's scope is link and it
// is never LINKDOWN when made: fib6_nh_init keeps that flag on its own
// nexthop, which it then releases.
func (n *Netns) fibCheckNhV6(c *fibConfig) error {
	dev := c.dev
	if dev != nil && dev.in6 == nil {
		return rtnl.Errf(uapi.ENODEV, "")
	}
	if c.onlink {
		if dev == nil {
			return rtnl.Errf(uapi.ENODEV, "Nexthop device required for onlink")
		}
		if !dev.Up() {
			return rtnl.Errf(uapi.ENETDOWN, "Nexthop device is not up")
		}
	}
	dev, err := n.validateGW6(c.Gateway6(), dev, c.Table, c.onlink)
	if err != nil {
		return err
	}
	if dev.in6 == nil || dev.v6Off {
		return rtnl.Errf(uapi.EACCES, "IPv6 is disabled on nexthop device")
	}
	if !dev.Up() {
		return rtnl.Errf(uapi.ENETDOWN, "Nexthop device is not up")
	}
	c.dev, c.OIF = dev, int(dev.ifindex)
	c.NhScope = fibtrie.ScopeLink
	c.LinkDown = false
	return nil
}

// fibCheckNhOnlink is fib_check_nh_v4_gw with onlink: no lookup; a
// route scope below link, a device that is up, and a gateway the local
// table calls unicast; the nexthop's scope is link.
func (n *Netns) fibCheckNhOnlink(c *fibConfig) error {
	if c.Scope >= fibtrie.ScopeLink {
		return rtnl.Errf(uapi.EINVAL, "Nexthop has invalid scope")
	}
	if c.dev == nil {
		return rtnl.Errf(uapi.ENODEV, "Nexthop device required for onlink")
	}
	if !c.dev.Up() {
		return rtnl.Errf(uapi.ENETDOWN, "Nexthop device is not up")
	}
	// inet_addr_type_dev_table: the local table's answer, whatever
	// device the route found is on.
	if n.inetAddrTypeTable(c.Gateway, fibtrie.TableLocal) != fibtrie.TypeUnicast {
		return rtnl.Errf(uapi.EINVAL, "Nexthop has invalid gateway")
	}
	c.LinkDown = !c.dev.carrier
	c.NhScope = fibtrie.ScopeLink
	return nil
}

// fibTableLookup is fib_table_lookup's result: the alias, or the errno of
// an error-type route (fib_props[].error), or EAGAIN when nothing
// matches.
func (n *Netns) fibTableLookup(table uint32, fl fibtrie.Flow) (*fibtrie.Alias, uapi.Errno) {
	a := n.fib.LookupFlow(table, fl)
	if a == nil {
		return nil, uapi.EAGAIN
	}
	switch a.Type {
	case fibtrie.TypeBlackhole:
		return nil, uapi.EINVAL
	case fibtrie.TypeUnreachable:
		return nil, uapi.EHOSTUNREACH
	case fibtrie.TypeProhibit:
		return nil, uapi.EACCES
	case fibtrie.TypeThrow:
		return nil, uapi.EAGAIN
	}
	return a, 0
}

// fibLookup is fib_lookup without custom rules: main (which holds local
// while they are merged), then default; EAGAIN (nothing found, or a
// throw route) becomes ENETUNREACH. Only EAGAIN goes on to default: an
// error route found in main (blackhole, unreachable, prohibit) ends the
// lookup with its error on this kernel (6.18), as the rules path does,
// though the ~6.17 source read goes on to default after any error.
func (n *Netns) fibLookup(fl fibtrie.Flow) (*fibtrie.Alias, uapi.Errno) {
	a, _, errno := n.fibLookupTable(fl)
	return a, errno
}

// fibLookupTable is fibLookup with the table that answered (res->table).
func (n *Netns) fibLookupTable(fl fibtrie.Flow) (*fibtrie.Alias, uint32, uapi.Errno) {
	var a *fibtrie.Alias
	errno := uapi.EAGAIN // no main table: default is looked at
	table := fibtrie.TableMain
	if n.fib.HasTable(fibtrie.TableMain) {
		a, errno = n.fibTableLookup(fibtrie.TableMain, fl)
	}
	if errno == uapi.EAGAIN && n.fib.HasTable(fibtrie.TableDefault) {
		table = fibtrie.TableDefault
		a, errno = n.fibTableLookup(fibtrie.TableDefault, fl)
	}
	if errno == uapi.EAGAIN {
		errno = uapi.ENETUNREACH
	}
	return a, table, errno
}

// inetAddrTypeTable is inet_addr_type_table: what the address is in a
// table (the route type of its lookup; unicast when nothing or an
// error route matches, broadcast when the table does not exist).
func (n *Netns) inetAddrTypeTable(addr uint32, table uint32) fibtrie.RouteType {
	switch {
	case addr == 0 || addr == 0xffffffff:
		// The ~6.17 source read classes all of 0.0.0.0/8 as broadcast;
		// on this kernel (6.18) 0.0.0.1 and up are ordinary addresses.
		return fibtrie.TypeBroadcast
	case addr>>28 == 0xe:
		return fibtrie.TypeMulticast
	}
	if !n.fib.HasTable(table) {
		return fibtrie.TypeBroadcast
	}
	a, errno := n.fibTableLookup(table, fibtrie.Flow{Dst: addr})
	if errno != 0 {
		return fibtrie.TypeUnicast
	}
	return a.Type
}

// fibValidPrefsrc is fib_valid_prefsrc: unless the route is the local
// route of its own prefsrc, the prefsrc must be a local address in the
// route's table (local for main), or else in local.
func (n *Netns) fibValidPrefsrc(c *fibConfig) bool {
	if c.Type == fibtrie.TypeLocal && c.Dst != 0 && c.PrefSrc == c.Dst {
		return true
	}
	tb := c.Table
	if tb == fibtrie.TableMain {
		tb = fibtrie.TableLocal
	}
	rc := n.inetAddrTypeTable(c.PrefSrc, tb)
	if rc != fibtrie.TypeLocal && tb != fibtrie.TableLocal {
		rc = n.inetAddrTypeTable(c.PrefSrc, fibtrie.TableLocal)
	}
	return rc == fibtrie.TypeLocal
}

// routeDel is inet_rtm_delroute: the table must exist (ESRCH), then
// fib_table_delete removes the first alias the request matches (zero
// fields and scope nowhere match anything) and notifies.
func (n *Netns) routeDel(r rtnl.Route) error {
	c, err := n.routeConfig(r, true)
	if err != nil {
		return err
	}
	if r.NhID != 0 && n.nhTable().byID[r.NhID] == nil {
		return rtnl.Errf(uapi.EINVAL, "Nexthop id does not exist")
	}
	if !n.fib.HasTable(c.Table) {
		return rtnl.Errf(uapi.ESRCH, "FIB table does not exist")
	}
	return n.fibRemove(c.Route)
}

// routeFlush is iproute2's `ip route flush` (iproute_flush): dump every
// table, keep the IPv4 routes the selector matches (table, default
// main; device; protocol; scope; type; prefix, exact, `root` or
// `match`; tos, metric, via, src, realms), delete each with
// the dumped message as the request, and dump again until nothing
// matches: the IPv4 routes (-4 or by default), the IPv6 ones (-6, or an
// IPv6 prefix with `table all`), or both (`table all` with no prefix).
func (n *Netns) routeFlush(op rtnl.RouteFlush) error {
	oif := 0
	if op.Dev != "" {
		d := n.ByName(op.Dev)
		if d == nil {
			return enodev(op.Dev)
		}
		oif = int(d.ifindex)
	}
	table := op.Table
	if table == 0 {
		table = fibtrie.TableMain
	}
	// The dump holds every family; iproute2 keeps IPv4 (-4, or by
	// default), IPv6 (-6), or both for `table all` with no prefix.
	v4, v6 := op.Family != 6, op.Family == 6 || (op.Family == 0 && table == rtnl.TableAll && !op.Dst.IsValid())
	if op.Dst.IsValid() && op.Dst.Addr().Is6() && op.Family == 0 {
		// iproute2 dumps IPv4 for a table (the family of a prefix does
		// not count); this kernel then answers "FIB table does not
		// exist" and ip stops. -6 or table all flush IPv6.
		if table != rtnl.TableAll {
			return fmt.Errorf("%w: route flush of an IPv6 prefix without -6", ErrNotModelled)
		}
		v4, v6 = false, true
	}
	for round := 0; ; round++ {
		var dels []fibtrie.Route
		usesNh := false
		n.inetCount.Requests++ // the dump (a request of its own, for the cost model)
		for _, id := range n.fib.TableIDs() {
			if !v4 {
				break
			}
			n.fib.Walk(id, func(a *fibtrie.Alias) bool {
				if a.NhID() != 0 {
					usesNh = true
				}
				if flushMatch(op, table, oif, &a.Route) {
					dels = append(dels, a.Route)
				}
				return true
			})
		}
		if v6 && len(n.fib6.byDev[nil]) > 0 {
			usesNh = true
		}
		if usesNh {
			return fmt.Errorf("%w: route flush with routes using nexthop objects", ErrNotModelled)
		}
		var dels6 []*route6
		if v6 {
			dels6 = n.flushMatch6(op, table, oif)
		}
		if len(dels)+len(dels6) == 0 {
			return nil
		}
		if round >= 100 {
			return rtnl.Errf(uapi.EBUSY, "route flush not complete after %d rounds", round)
		}
		for _, r := range dels {
			// The dumped message as a delete request: every field it
			// carries must match (rtm_flags are not looked at).
			// A multipath route's message has RTA_MULTIPATH and no
			// top-level device or gateway; one nexthop dumps as a plain
			// route.
			// RTA_METRICS holds the metrics that are not 0 and
			// RTA_FLOW the realms when not 0, RTA_VIA an IPv6
			// gateway: the delete compares them.
			r.LinkDown = false
			req := fibtrie.Extra{Realms: r.Realms(), Gateway6: r.Gateway6()}
			req.MTU, req.MTULock = r.MTU()
			req.MTUGiven = req.MTU != 0
			if r.IsMulti() {
				r.OIF, r.Gateway, req.Gateway6 = 0, 0, netip.Addr{}
				req.Multi = r.Nexthops()
			}
			r.SetExtra(req)
			n.inetCount.Requests++ // one RTM_DELROUTE each
			if err := n.fibRemove(r); err != nil {
				return err
			}
		}
		for _, r := range dels6 {
			n.inetCount.Requests++
			if r.sibs == nil {
				n.del6(r)
				continue
			}
			// The dumped RTA_MULTIPATH as a delete: one nexthop at
			// a time (ip6_route_multipath_del).
			for _, x := range r.sibs.from(r) {
				n.del6(x)
			}
		}
	}
}

// flushMatch is iproute2's flush filter for one dumped IPv4 route
// (rtnl.RouteFlush.Selects for what the message carries beyond the
// table, protocol, scope, type, device and exact or root prefix).
func flushMatch(op rtnl.RouteFlush, table uint32, oif int, r *fibtrie.Route) bool {
	if table != rtnl.TableAll && r.Table != table {
		return false
	}
	if op.Proto != nil && r.Protocol != *op.Proto {
		return false
	}
	if (op.Scope != nil && uint8(r.Scope) != *op.Scope) || (op.Type != nil && uint8(r.Type) != *op.Type) {
		return false
	}
	if oif != 0 && (r.OIF != oif || r.IsMulti()) {
		return false // a multipath route's message has no RTA_OIF
	}
	m := rtnl.FlushMsg{Family: 4, TOS: r.TOS, Metric: r.Priority, Prefsrc: addrOfU32(r.PrefSrc),
		DstBits: int(r.Len), DstAddr: addrOfU32(r.Dst)}
	if !r.IsMulti() {
		// A multipath route's message has RTA_MULTIPATH, and neither
		// RTA_GATEWAY nor RTA_FLOW at the top.
		m.Gateway, m.Realms = addrOfU32(r.Gateway), r.Realms()
	}
	if !op.Selects(m) {
		return false
	}
	if op.Dst.IsValid() && !op.Match {
		bits := op.Dst.Bits()
		if int(r.Len) < bits {
			return false
		}
		if bits > 0 && (r.Dst^u32Of(op.Dst.Addr()))>>(32-bits) != 0 {
			return false
		}
		if !op.Root && int(r.Len) != bits {
			return false
		}
	}
	return true
}
