package rtnl

import (
	"github.com/rtnlsim/rtnlsim/uapi"
)

// RouteHeader is what iproute2's iproute_modify puts in the rtmsg for a
// route request once its defaults are filled in. Both targets start from
// it, so a script means the same thing to the model and to the kernel.
type RouteHeader struct {
	Family uint8
	Type   uint8  // RTN_*; 0 on a delete without a type matches any
	Table  uint32 // main, or local for local/broadcast/anycast/nat routes; 0 for `table 0`
	Scope  uint8
	Proto  uint8 // boot for a request that creates, 0 (any) for a delete
}

// Header fills in iproute2's defaults for r. del is true for a delete.
func (r Route) Header(del bool) (RouteHeader, error) {
	h := RouteHeader{Family: uapi.AF_INET6, Table: uapi.RT_TABLE_MAIN, Scope: uapi.RT_SCOPE_NOWHERE}
	if r.Dst.Addr().Is4() {
		h.Family = uapi.AF_INET
	}
	if !del {
		h.Proto = uapi.RTPROT_BOOT
		h.Scope = uapi.RT_SCOPE_UNIVERSE
		h.Type = uapi.RTN_UNICAST
	}
	if r.Type != "" {
		ty, ok := RouteTypeByName(r.Type)
		if !ok {
			return h, Errf(uapi.EINVAL, "unknown route type %q", r.Type)
		}
		h.Type = ty
	}
	if r.Proto != nil {
		h.Proto = *r.Proto
	}
	switch {
	case r.Table != 0 || r.TableUnspec:
		h.Table = r.Table
	case h.Type == uapi.RTN_LOCAL || h.Type == uapi.RTN_BROADCAST || h.Type == uapi.RTN_NAT || h.Type == uapi.RTN_ANYCAST:
		h.Table = uapi.RT_TABLE_LOCAL
	}
	switch {
	case r.Scope != nil:
		h.Scope = *r.Scope
	case h.Family == uapi.AF_INET6:
		h.Scope = uapi.RT_SCOPE_UNIVERSE
	case h.Type == uapi.RTN_LOCAL || h.Type == uapi.RTN_NAT:
		h.Scope = uapi.RT_SCOPE_HOST
	case h.Type == uapi.RTN_BROADCAST || h.Type == uapi.RTN_MULTICAST || h.Type == uapi.RTN_ANYCAST:
		h.Scope = uapi.RT_SCOPE_LINK
	case h.Type == uapi.RTN_UNICAST || h.Type == uapi.RTN_UNSPEC:
		if del {
			h.Scope = uapi.RT_SCOPE_NOWHERE
		} else if !r.Via.IsValid() && len(r.Nexthops) == 0 && r.NhID == 0 {
			h.Scope = uapi.RT_SCOPE_LINK
		}
	}
	return h, nil
}

// RouteOf is the Route of a route add, del, replace, append or prepend;
// ok is false for any other Op.
func RouteOf(op Op) (r Route, ok bool) {
	switch o := op.(type) {
	case RouteAdd:
		return o.Route, true
	case RouteDel:
		return o.Route, true
	case RouteReplace:
		return o.Route, true
	case RouteAppend:
		return o.Route, true
	case RoutePrepend:
		return o.Route, true
	case RouteChange:
		return o.Route, true
	}
	return Route{}, false
}
