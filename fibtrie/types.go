// Package fibtrie models the IPv4 FIB LC-trie of Linux net/ipv4/fib_trie.c
// node for node: tnodes with key/pos/bits/slen and full/empty child counts,
// path compression, inflate/halve/collapse with the kernel's thresholds,
// per-leaf alias lists in the kernel's order, longest-prefix lookup with the
// kernel's backtracking, flush, suffix-length maintenance, and renderers for
// /proc/net/fib_trie and /proc/net/fib_triestat.
//
// The package holds no global state: everything lives in a FIB value, and all
// behaviour is deterministic. Work done is counted in Counters so the
// simulator can turn structure into cost.
package fibtrie

import (
	"fmt"
	"net/netip"
	"slices"
)

// RouteType mirrors the kernel's RTN_* values (include/uapi/linux/rtnetlink.h).
type RouteType uint8

const (
	TypeUnspec      RouteType = 0
	TypeUnicast     RouteType = 1
	TypeLocal       RouteType = 2
	TypeBroadcast   RouteType = 3
	TypeAnycast     RouteType = 4
	TypeMulticast   RouteType = 5
	TypeBlackhole   RouteType = 6
	TypeUnreachable RouteType = 7
	TypeProhibit    RouteType = 8
	TypeThrow       RouteType = 9
	TypeNAT         RouteType = 10
	TypeXResolve    RouteType = 11
)

// typeNames are the upper-case names /proc/net/fib_trie prints (rtn_type_names).
var typeNames = [...]string{"UNSPEC", "UNICAST", "LOCAL", "BROADCAST", "ANYCAST",
	"MULTICAST", "BLACKHOLE", "UNREACHABLE", "PROHIBIT", "THROW", "NAT", "XRESOLVE"}

// ProcName is the name /proc/net/fib_trie prints for the type.
func (t RouteType) ProcName() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("type %d", t)
}

// IsError reports whether lookups hitting this type fail (fib_props[].error < 0):
// blackhole, unreachable, prohibit and throw. fib_table_flush keeps such
// routes unless the whole namespace goes away or they are dead (their
// prefsrc went away: fib_sync_down_addr).
func (t RouteType) IsError() bool {
	switch t {
	case TypeBlackhole, TypeUnreachable, TypeProhibit, TypeThrow:
		return true
	}
	return false
}

// Scope mirrors RT_SCOPE_* values.
type Scope uint8

const (
	ScopeUniverse Scope = 0
	ScopeSite     Scope = 200
	ScopeLink     Scope = 253
	ScopeHost     Scope = 254
	ScopeNowhere  Scope = 255
	// ScopeAny is what `ip route del` sends when no scope is given: in a
	// delete request it matches every scope (fib_table_delete).
	ScopeAny = ScopeNowhere
)

// ProcName is the name /proc/net/fib_trie prints for the scope (rtn_scope).
func (s Scope) ProcName() string {
	switch s {
	case ScopeUniverse:
		return "universe"
	case ScopeSite:
		return "site"
	case ScopeLink:
		return "link"
	case ScopeHost:
		return "host"
	case ScopeNowhere:
		return "nowhere"
	}
	return fmt.Sprintf("scope=%d", s)
}

// Well-known table ids.
const (
	TableDefault uint32 = 253
	TableMain    uint32 = 254
	TableLocal   uint32 = 255
)

// Flags are the netlink request flags that matter to fib_table_insert.
type Flags uint16

const (
	FlagReplace Flags = 0x100 // NLM_F_REPLACE
	FlagExcl    Flags = 0x200 // NLM_F_EXCL
	FlagCreate  Flags = 0x400 // NLM_F_CREATE
	FlagAppend  Flags = 0x800 // NLM_F_APPEND
)

// Route is the payload of one FIB entry: what the sim package fills from a
// request, and what the trie stores in a leaf's alias list. Addresses are
// IPv4 in host byte order (10.1.2.3 is 0x0a010203).
type Route struct {
	Dst  uint32
	Len  uint8 // prefix length 0..32
	Type RouteType
	// Scope, TOS and the other small fields sit between the words so that
	// Route stays 48 bytes and Alias 64 (one size class) with Extra.
	Scope    Scope
	TOS      uint8 // dsfield as ip route's "tos"
	Table    uint32
	Priority uint32
	Protocol uint8
	// NhScope is the nexthop's fib_nh_scope as fib_create_info sets it:
	// for a gateway, the scope of the route the gateway resolved through
	// (fib_check_nh_v4_gw: link for a connected network, host for a local
	// address or a scope-host route; link for an onlink gateway); host
	// for a device-only route (fib_check_nh_nongw); nowhere for a
	// host-scope route; universe (0) for error routes, which have no
	// nexthop. It is part of the route's identity for insert (nh_comp,
	// so sameInfo) but not for delete (fib_nh_match ignores it), and
	// nothing prints it.
	NhScope Scope
	// LinkDown is RTNH_F_LINKDOWN on the nexthop (its device has no
	// carrier): state of the nexthop, not part of the route's identity
	// (sameInfo and delete ignore it). On a route of two or more
	// nexthops it is the route's own flag (fib_info's fib_flags).
	LinkDown bool
	// Onlink is RTNH_F_ONLINK in the request's rtm_flags, which the
	// kernel keeps as the fib_info's fib_flags: part of the identity
	// (fib_find_info compares the flags), never of a delete's match. A
	// route made without RTA_MULTIPATH gives its one nexthop the same
	// flag (the gateway is not looked up); RTA_MULTIPATH's nexthops have
	// their own (Nexthop.Onlink), so a route of one nexthop made with it
	// differs from the plain route with the same nexthop.
	Onlink  bool
	PrefSrc uint32
	Gateway uint32
	OIF     int
	// Extra holds what few routes have: the nexthop list, the metrics
	// and the realms. nil for any other route, so a plain route pays one
	// pointer; routes share it when copied, and an alias owns a copy.
	Extra *Extra
}

// Extra is the part of a Route that few routes have.
type Extra struct {
	// Multi is the nexthop list of a route made with RTA_MULTIPATH, in
	// order; nil for any other route. Gateway, OIF and NhScope are its
	// first nexthop's. A list of one is a plain route but for its weight
	// and onlink: its state lives in the Route's own fields. In a delete
	// request its entries' zero fields match anything.
	Multi []Nexthop
	// Realms is RTA_FLOW, the one nexthop's nh_tclassid of a route made
	// without RTA_MULTIPATH (from<<16 | to); 0 for none. Part of the
	// identity (nh_comp); a delete that gives it, with a device or a
	// gateway, matches only a route whose first nexthop has it.
	Realms uint32
	// MTU is RTA_METRICS' RTAX_MTU as ip_metrics_convert keeps it (at
	// most 65520; 0 for none), and MTULock its bit in RTAX_LOCK. Both
	// are part of the identity (fib_find_info compares the metrics). In
	// a delete request (fib_metrics_match) MTUGiven says RTAX_MTU was
	// sent, as it is (unclamped) then, and must equal the route's, 0
	// included; MTULock says RTAX_LOCK was, and the route's must be
	// locked.
	MTU      uint32
	MTULock  bool
	MTUGiven bool
	// NhID is RTA_NH_ID: the route uses that nexthop object, whose
	// paths the FIB does not hold (Gateway, OIF and Multi stay empty);
	// 0 for none. Part of the identity; a delete that gives it matches
	// only a route using that nexthop, one that does not matches such a
	// route only without a device, gateway or nexthop list.
	NhID uint32
	// Gateway6 is the first nexthop's IPv6 gateway (RTA_VIA, RFC 5549),
	// invalid for none; Gateway is 0 then. Part of the identity and of a
	// delete's match as Gateway is.
	Gateway6 netip.Addr
}

// Nexthop is one fib_nh of a multipath route.
type Nexthop struct {
	Gateway  uint32     // 0: none
	Gateway6 netip.Addr // an IPv6 gateway (RTA_VIA); Gateway is 0 then
	OIF      int        // the device, resolved from the gateway when not given
	Weight   uint16     // 1..256
	Scope    Scope      // fib_nh_scope, as NhScope
	Onlink   bool       // RTNH_F_ONLINK, part of the identity
	// Dead and LinkDown are RTNH_F_DEAD and RTNH_F_LINKDOWN: state, not
	// identity.
	Dead, LinkDown bool
}

// IsMulti reports whether r has two or more nexthops: only such a route
// keeps state per nexthop and is dumped with RTA_MULTIPATH.
func (r *Route) IsMulti() bool { return r.Extra != nil && len(r.Extra.Multi) > 1 }

// Nexthops returns r's nexthop list, or nil for a plain route.
func (r *Route) Nexthops() []Nexthop {
	if r.Extra == nil {
		return nil
	}
	return r.Extra.Multi
}

// Realms is r's RTA_FLOW (Extra.Realms), 0 for none.
func (r *Route) Realms() uint32 {
	if r.Extra == nil {
		return 0
	}
	return r.Extra.Realms
}

// NhID is r's nexthop object (Extra.NhID), 0 for none.
func (r *Route) NhID() uint32 {
	if r.Extra == nil {
		return 0
	}
	return r.Extra.NhID
}

// Gateway6 is r's IPv6 gateway (Extra.Gateway6), invalid for none.
func (r *Route) Gateway6() netip.Addr {
	if r.Extra == nil {
		return netip.Addr{}
	}
	return r.Extra.Gateway6
}

// HasGateway reports whether r names a gateway of either family.
func (r *Route) HasGateway() bool { return r.Gateway != 0 || r.Gateway6().IsValid() }

// sameGateway is the gateway part of nh_comp and fib_nh_match: the
// family and the address.
func sameGateway(gw4a uint32, gw6a netip.Addr, gw4b uint32, gw6b netip.Addr) bool {
	return gw4a == gw4b && gw6a == gw6b
}

// MTU is r's RTAX_MTU and whether it is locked (Extra.MTU, MTULock).
func (r *Route) MTU() (mtu uint32, lock bool) {
	if r.Extra == nil {
		return 0, false
	}
	return r.Extra.MTU, r.Extra.MTULock
}

// SetNexthops gives r the nexthop list nhs (nil for none), keeping the
// rest of its Extra; r's old Extra, which copies of r may share, is left
// as it was.
func (r *Route) SetNexthops(nhs []Nexthop) {
	var x Extra
	if r.Extra != nil {
		x = *r.Extra
	}
	x.Multi = nhs
	r.SetExtra(x)
}

// SetGateway6 gives r the IPv6 gateway gw (invalid for none), keeping
// the rest of its Extra as SetNexthops does.
func (r *Route) SetGateway6(gw netip.Addr) {
	var x Extra
	if r.Extra != nil {
		x = *r.Extra
	}
	x.Gateway6 = gw
	r.SetExtra(x)
}

// SetExtra gives r a copy of x (its nexthop list shared), or no Extra
// when x has nothing.
func (r *Route) SetExtra(x Extra) {
	if x.Multi == nil && x.Realms == 0 && x.MTU == 0 && !x.MTULock && !x.MTUGiven && x.NhID == 0 && !x.Gateway6.IsValid() {
		r.Extra = nil
		return
	}
	r.Extra = &x
}

// cloneExtra gives r a copy of its Extra and nexthop list, for an alias
// to own.
func (r *Route) cloneExtra() {
	if r.Extra != nil {
		x := *r.Extra
		x.Multi = slices.Clone(x.Multi)
		r.Extra = &x
	}
}

func (r Route) String() string {
	return fmt.Sprintf("%s/%d table %d type %s scope %s tos %d metric %d proto %d oif %d gw %s src %s",
		FormatIP(r.Dst), r.Len, r.Table, r.Type.ProcName(), r.Scope.ProcName(), r.TOS,
		r.Priority, r.Protocol, r.OIF, FormatIP(r.Gateway), FormatIP(r.PrefSrc))
}

// Alias is one fib_alias: a route hanging off a leaf. Dead models
// RTNH_F_DEAD on its fib_info (the device went away); lookups skip dead
// aliases and flushes remove them.
type Alias struct {
	Route
	Dead bool
	// its places in the FIB's alias lists (FIB.all, FIB.byOIF)
	at, oifAt int32
}

// GoodNexthop is the first nexthop a lookup may take
// (fib_lookup_good_nhc): not dead, and through device oif when oif is
// not 0; -1 when there is none. A plain route's one nexthop is 0.
func (a *Alias) GoodNexthop(oif int) int { return a.goodNexthop(Flow{OIF: oif}) }

// GoodNexthopFlow is GoodNexthop for a flow, which may also pass over
// nexthops without carrier (Flow.SkipLinkDown).
func (a *Alias) GoodNexthopFlow(fl Flow) int { return a.goodNexthop(fl) }

func (a *Alias) goodNexthop(fl Flow) int {
	down := func(linkDown bool, oif int) bool {
		return linkDown && fl.SkipLinkDown != nil && fl.SkipLinkDown(oif)
	}
	if !a.IsMulti() {
		if fl.OIF != 0 && a.OIF != fl.OIF || down(a.LinkDown, a.OIF) {
			return -1
		}
		return 0
	}
	for i, nh := range a.Extra.Multi {
		if !nh.Dead && (fl.OIF == 0 || nh.OIF == fl.OIF) && !down(nh.LinkDown, nh.OIF) {
			return i
		}
	}
	return -1
}

// NexthopOIF is the device of nexthop i (GoodNexthop's answer).
func (a *Alias) NexthopOIF(i int) int {
	if a.IsMulti() {
		return a.Extra.Multi[i].OIF
	}
	return a.OIF
}

// slen is the kernel's fa_slen: the number of host bits.
func (a *Alias) slen() uint8 { return 32 - a.Len }

// sameInfo approximates "fa->fa_type == type && fa->fa_info == fi": the
// kernel shares one fib_info between routes whose info fields, flags,
// metrics and nexthops are all equal (fib_find_info, nh_comp: the
// nexthop's resolved device and its scope count, so one gateway resolved
// differently makes another fib_info), so pointer equality there is
// field equality here.
func sameInfo(a *Alias, r *Route) bool {
	am, al := a.MTU()
	rm, rl := r.MTU()
	return a.Type == r.Type && a.Scope == r.Scope && a.Priority == r.Priority &&
		a.Protocol == r.Protocol && a.PrefSrc == r.PrefSrc && sameGateway(a.Gateway, a.Gateway6(), r.Gateway, r.Gateway6()) &&
		a.OIF == r.OIF && a.NhScope == r.NhScope && a.Table == r.Table && a.Onlink == r.Onlink &&
		am == rm && al == rl && a.Realms() == r.Realms() && a.NhID() == r.NhID() &&
		(a.Nexthops() == nil && r.Nexthops() == nil || sameNexthops(&a.Route, r))
}

// sameNexthops is nh_comp past the first nexthop's device, gateway and
// scope (which the Route's own fields hold): the count, then per
// nexthop the device, gateway, scope, weight and onlink, in order. A
// plain route is one nexthop of weight 1 with the route's onlink (its
// realms Realms compares).
func sameNexthops(a, b *Route) bool {
	na, nb := a.Nexthops(), b.Nexthops()
	if na == nil {
		na = []Nexthop{{Gateway: a.Gateway, Gateway6: a.Gateway6(), OIF: a.OIF, Scope: a.NhScope, Weight: 1, Onlink: a.Onlink}}
	}
	if nb == nil {
		nb = []Nexthop{{Gateway: b.Gateway, Gateway6: b.Gateway6(), OIF: b.OIF, Scope: b.NhScope, Weight: 1, Onlink: b.Onlink}}
	}
	if len(na) != len(nb) {
		return false
	}
	for i := range na {
		x, y := &na[i], &nb[i]
		if !sameGateway(x.Gateway, x.Gateway6, y.Gateway, y.Gateway6) || x.OIF != y.OIF || x.Scope != y.Scope || x.Weight != y.Weight || x.Onlink != y.Onlink {
			return false
		}
	}
	return true
}

// Options select historical behaviour. The zero value is Linux 6.18.
type Options struct {
	// FlushPullsLeafSuffix reproduces 4.2-rc3's fib_table_flush, which
	// called leaf_pull_suffix for every leaf that kept an alias (the seed
	// 003 regression, removed by "fib_trie: Drop unnecessary calls to
	// leaf_pull_suffix").
	FlushPullsLeafSuffix bool
	// LegacyUpdateSuffix makes update_suffix stop only when the suffix
	// covers all but the last index bit (slen+1 >= pos+bits), as the
	// 4.0/4.1-era fib_trie.c does, instead of also stopping at the node's
	// current slen as 6.18 does. That 4.2-rc3 still had this rule is an
	// assumption: its source was not at hand, the 4.0-era one was.
	LegacyUpdateSuffix bool
}

// Linux618 is the behaviour of this machine's kernel.
func Linux618() Options { return Options{} }

// Linux42rc3 reproduces the seed 003 regression.
func Linux42rc3() Options { return Options{FlushPullsLeafSuffix: true, LegacyUpdateSuffix: true} }

// Linux42 is 4.2 with the fix from seed 003 applied.
func Linux42() Options { return Options{LegacyUpdateSuffix: true} }

// Counters record the work the trie code did. All are cumulative.
type Counters struct {
	UpdateSuffixCalls  uint64 // update_suffix invocations
	UpdateSuffixVisits uint64 // child slots update_suffix examined
	ResizeCalls        uint64 // resize() invocations
	ResizeSteps        uint64 // inflates + halves + collapses
	MaxWorkHits        uint64 // resize calls that stopped at max_work
	Inflates           uint64
	Halves             uint64
	Collapses          uint64
	TnodeAllocs        uint64
	TnodeFrees         uint64
	LeafAllocs         uint64
	LeafFrees          uint64
	AliasAllocs        uint64
	AliasFrees         uint64
	SynchronizeNet     uint64 // tnode_free crossing sysctl_fib_sync_mem
	Lookups            uint64
	LookupVisits       uint64 // nodes looked at by fib_table_lookup
	Backtracks         uint64 // ascents to a parent during lookup
	FlushLeafVisits    uint64 // leaves examined by fib_table_flush
}

// FormatIP prints a host-order IPv4 address in dotted quad.
func FormatIP(a uint32) string {
	return fmt.Sprintf("%d.%d.%d.%d", a>>24, a>>16&0xff, a>>8&0xff, a&0xff)
}
