// Package rtnl is the vocabulary both targets speak: the requests a script
// makes (Op), the state read back (State, in `ip -j` shape), the
// notifications seen (Event), and the Target interface that applies them.
package rtnl

import (
	"net"
	"net/netip"
)

// Request is one line of a script: the Op and where it came from, so that
// errors can name the line.
type Request struct {
	Line int    // 1-based script line; 0 when generated
	Text string // the line as written, trimmed
	Op   Op
}

// Op is one rtnetlink request (or, for flushes, the dump-then-delete rounds
// iproute2 performs). The concrete types below are the whole set.
type Op interface {
	// Verb is the script keyword pair, e.g. "link add".
	Verb() string
}

// Link kinds the model and the script language know.
const (
	KindIfb     = "ifb"
	KindDummy   = "dummy"
	KindVeth    = "veth"
	KindBridge  = "bridge"
	KindMacvlan = "macvlan"
	KindVxlan   = "vxlan"
)

// Kinds lists the link kinds in a fixed order.
var Kinds = []string{KindIfb, KindDummy, KindVeth, KindBridge, KindMacvlan, KindVxlan}

// LinkAttrs are the settable attributes shared by link add and link set.
// Nil pointers mean "not given".
type LinkAttrs struct {
	MTU        *uint32
	Group      *uint32
	Address    net.HardwareAddr
	Master     *string // "" means nomaster
	Up         *bool
	TxQueueLen *uint32
	// Interface flags iplink_parse puts in ifi_flags/ifi_change: on,
	// off, or nil when not given. ARP is IFF_NOARP inverted.
	Promisc, AllMulti, Multicast, ARP *bool
	Alias                             *string          // IFLA_IFALIAS; "" clears it
	Broadcast                         net.HardwareAddr // IFLA_BROADCAST, as written
	Carrier                           *bool            // IFLA_CARRIER
}

// LinkProp is `link property add|del dev NAME altname ALT...`
// (RTM_NEWLINKPROP or RTM_DELLINKPROP with the alternative names in
// IFLA_PROP_LIST, in order).
type LinkProp struct {
	Dev      string
	Del      bool
	AltNames []string
}

// LinkAdd is `link add NAME [index N] ... type KIND ...`.
type LinkAdd struct {
	Name  string
	Kind  string
	Index int32 // 0: the kernel picks
	LinkAttrs
	Peer      string // veth: peer name ("" lets the kernel pick vethN)
	PeerNetns string // veth: the namespace the peer is made in ("": the device's)
	// PeerAttrs are a veth peer's own mtu, address, txqueuelen and
	// group (`peer name P mtu N ...`); the other fields stay unset.
	PeerAttrs   LinkAttrs
	Netns       string  // the namespace the device is made in ("": the request's)
	Lower       string  // macvlan: `link DEV`
	MacvlanMode string  // macvlan: private, vepa, bridge, passthru, source
	VNI         *uint32 // vxlan: id
	DstPort     *uint16 // vxlan: dstport
	// Vxlan holds a vxlan's other options (IPv4 endpoints only).
	Vxlan VxlanOpts
	// Bridge holds a bridge's options (IFLA_INFO_DATA).
	Bridge BridgeOpts
}

// BridgeOpts are the bridge options the language has, as iproute2's
// bridge_parse_opt sends them (nil: not given; times in centiseconds).
// The kernel applies them in br_changelink's order, not as written.
type BridgeOpts struct {
	ForwardDelay, HelloTime, MaxAge, AgeingTime, StpState *uint32
	Priority, VlanDefaultPvid                             *uint16
	VlanFiltering, McastSnooping                          *uint8
}

// VxlanOpts are `local`, `remote` or `group`, `dev`, `ttl` and
// `nolearning` of a vxlan.
type VxlanOpts struct {
	Local netip.Addr // invalid: none
	// Remote is `remote ADDR` or, multicast, `group ADDR` (both are
	// IFLA_VXLAN_GROUP); invalid: none.
	Remote     netip.Addr
	Dev        string // the lower device (IFLA_VXLAN_LINK)
	TTL        *uint8 // 0 is `ttl auto`
	NoLearning bool
}

// LinkSet is `link set dev NAME ...`, or `link set group G ...` when Dev is
// empty and GroupSel is set (the group changelink request).
type LinkSet struct {
	Dev      string
	GroupSel *uint32
	LinkAttrs
	NewName string
	Netns   string // `netns NAME`: the device moves there
	// Kind is `type KIND` (only bridge): IFLA_LINKINFO with the kind's
	// options in Bridge, sent even when there are none.
	Kind   string
	Bridge BridgeOpts
}

// LinkDel is `link del [dev] NAME`.
type LinkDel struct{ Dev string }

// LinkDelGroup is `link del group G`: one RTM_DELLINK with IFLA_GROUP.
type LinkDelGroup struct{ Group uint32 }

// LinkDelList is `link del list NAME...`: the seed 000 bulk request
// (+bulk-ifindex profile). Names are resolved to ifindexes by the target.
// The kernel has no such request: the kernel target emulates it with one
// RTM_DELLINK per device (kernel/apply.go), as the sim does without
// +bulk-ifindex.
type LinkDelList struct{ Devs []string }

// Addr is an IPv4 or IPv6 address request.
type Addr struct {
	Prefix        netip.Prefix // local address and prefix length
	Peer          netip.Prefix // `peer ADDR/LEN`; invalid when absent
	Dev           string
	Label         string
	Broadcast     netip.Addr // invalid when absent
	BroadcastAuto bool       // `broadcast +`
	Scope         *uint8
	NoPrefixRoute bool
	NoDAD         bool    // IFA_F_NODAD (IPv6; IPv4 drops it)
	Metric        *uint32 // IFA_RT_PRIORITY: the prefix route's metric
	// ValidLft and PreferredLft are `valid_lft` and `preferred_lft`
	// (seconds; 0xffffffff is forever), sent as IFA_CACHEINFO when
	// either is given (the other then forever).
	ValidLft, PreferredLft *uint32
	// Wildcard marks an IPv4 `addr del` written without /LEN and without
	// a peer: iproute2 then sends IFA_LOCAL alone (no IFA_ADDRESS), so the
	// kernel deletes the first address with that local address, whatever
	// its prefix length. Prefix has length 32 then.
	Wildcard bool
}

// AddrAdd is `addr add|replace|change PREFIX dev NAME ...`.
type AddrAdd struct {
	Addr
	Mode AddrMode
}

// AddrMode is how an RTM_NEWADDR treats an address that exists: add
// (NLM_F_CREATE|NLM_F_EXCL: EEXIST), replace (NLM_F_CREATE|NLM_F_REPLACE)
// or change (NLM_F_REPLACE alone; the kernel creates a missing address
// all the same).
type AddrMode uint8

const (
	AddrModeAdd AddrMode = iota
	AddrModeReplace
	AddrModeChange
)

// AddrDel is `addr del PREFIX dev NAME ...`.
type AddrDel struct{ Addr }

// AddrFlush is `addr flush dev NAME [to PREFIX] [label L]`: rounds of a
// dump and deletes until a dump matches nothing; iproute2 sends its
// deletes while it reads the dump (the sim's model: sim/ipflush.go).
type AddrFlush struct {
	Dev    string
	To     netip.Prefix // invalid: all
	Family int          // 4 or 6 (-4/-6); 0: To's family when To is set, else all
	Label  string
	// Scope keeps the addresses of that scope (nil: any, as `scope all`).
	Scope *uint8
	// Secondary keeps the secondaries (true, `secondary`) or the
	// primaries (false, `primary`); nil: both.
	Secondary *bool
}

// Route types, named as iproute2 names them.
const (
	RouteUnicast     = "unicast"
	RouteLocal       = "local"
	RouteBroadcast   = "broadcast"
	RouteBlackhole   = "blackhole"
	RouteUnreachable = "unreachable"
	RouteProhibit    = "prohibit"
	RouteThrow       = "throw"
	RouteAnycast     = "anycast"
	RouteMulticast   = "multicast"
)

// Route is the body of route add/del/replace/append.
type Route struct {
	Type  string // "" means unicast (or, for del, any)
	Dst   netip.Prefix
	Via   netip.Addr
	Dev   string
	Table uint32 // 0: main (or, for del, any)
	// TableUnspec marks `table 0` (or `table unspec`) as written: rtm_table
	// 0, which the kernel reads as main, even for the local, broadcast and
	// anycast types that go to the local table when no table is given.
	TableUnspec bool
	Proto       *uint8 // nil: boot for add, any for del
	Scope       *uint8 // nil: the kernel's default for the type
	Metric      *uint32
	Src         netip.Addr
	TOS         uint8 // `tos`/`dsfield`, hex as iproute2 reads it
	// Onlink is `onlink` before any nexthop group: RTNH_F_ONLINK in
	// rtm_flags.
	Onlink bool
	// MTU is `mtu [lock] N`, RTA_METRICS' RTAX_MTU as sent (nil: no
	// RTA_METRICS); MTULock is `lock`, its bit in RTAX_LOCK.
	MTU     *uint32
	MTULock bool
	// Realms is `realm[s] [FROM/]TO`, RTA_FLOW (FROM<<16 | TO); 0 is not
	// sent, as the kernel reads 0 as none anyway.
	Realms uint32
	// Nexthops are the `nexthop` groups (RTA_MULTIPATH), in order; nil
	// for a route without them.
	Nexthops []Nexthop
	// NhID is `nhid N`, RTA_NH_ID: the route uses nexthop object N; 0
	// for none.
	NhID uint32
}

// Nexthop is one `nexthop via ADDR dev NAME weight N onlink` group.
type Nexthop struct {
	Via    netip.Addr // invalid: none
	Dev    string     // "": none
	Weight int        // 1..256; 0: not given (the kernel's 1)
	Onlink bool
}

// RouteAdd is `route add`, exclusive create.
type RouteAdd struct{ Route }

// RouteDel is `route del`.
type RouteDel struct{ Route }

// RouteReplace is `route replace`: create or replace.
type RouteReplace struct{ Route }

// RouteAppend is `route append`: create, appending to an existing prefix.
type RouteAppend struct{ Route }

// RouteChange is `route change`: replace, without create (ENOENT for a
// route that is not there).
type RouteChange struct{ Route }

// RoutePrepend is `route prepend`: create, ahead of an existing prefix's
// routes (NLM_F_CREATE alone).
type RoutePrepend struct{ Route }

// RouteFlush is `route flush [table T] [dev D] [PREFIX] [proto P]` as
// iproute2 does it: dump matching routes, delete each.
type RouteFlush struct {
	Table uint32 // 0: main; TableAll: every table
	Dev   string
	Dst   netip.Prefix // invalid: any
	// Root selects every route inside Dst (`root PREFIX`); otherwise only
	// routes for exactly Dst (a bare PREFIX, as iproute2's `exact`).
	Root  bool
	Proto *uint8
	// Scope keeps the routes of that rtm_scope (nil: any, as `scope
	// all`); Type those of that rtm_type (nil: any).
	Scope, Type *uint8
	// Match selects the routes whose prefix holds Dst (`match PREFIX`:
	// Dst's length or shorter) instead.
	Match bool
	// TOS keeps the routes of that rtm_tos (`tos`); Metric those whose
	// RTA_PRIORITY is that (0 when the message has none).
	TOS    *uint8
	Metric *uint32
	// Via keeps the routes whose RTA_GATEWAY is inside it (`via`), Src
	// those whose RTA_PREFSRC is (`src`); a missing attribute is the
	// all-zero address. Invalid: any.
	Via, Src netip.Prefix
	// Realms keeps the routes whose RTA_FLOW (0 without) has these bits
	// under RealmsMask (nil: any): iproute2 leaves out the TO half for
	// `FROM/`, and the FROM half when the word gives none.
	Realms     *uint32
	RealmsMask uint32
	// Family is 4 or 6 (-4/-6), or 0 when not given: then, as iproute2
	// picks it, Dst's family when Dst is set, else both for TableAll, else 4.
	Family int
}

// FlushMsg is what a flush filter reads of one dumped route message
// beyond its table, protocol, scope, type, device and prefix.
type FlushMsg struct {
	Family  int // 4 or 6
	TOS     uint8
	Metric  uint32
	Gateway netip.Addr // invalid without RTA_GATEWAY
	Prefsrc netip.Addr // invalid without RTA_PREFSRC
	Realms  uint32
	DstBits int
	DstAddr netip.Addr // the prefix's address
}

// Selects is iproute2's filter_nlmsg for the selectors `match`, `tos`,
// `via`, `src`, `realms` and `metric` (the others are the targets').
func (f RouteFlush) Selects(m FlushMsg) bool {
	if f.TOS != nil && *f.TOS != m.TOS {
		return false
	}
	if f.Metric != nil && *f.Metric != m.Metric {
		return false
	}
	if f.Realms != nil && (*f.Realms^m.Realms)&f.RealmsMask != 0 {
		return false
	}
	if f.Match && f.Dst.IsValid() {
		// The route's prefix must hold the selector's: no longer than
		// it, and equal to it over the route's length.
		if familyOf(f.Dst.Addr()) != m.Family || m.DstBits > f.Dst.Bits() {
			return false
		}
		if !netip.PrefixFrom(m.DstAddr, m.DstBits).Masked().Contains(f.Dst.Addr()) {
			return false
		}
	}
	return addrSelects(f.Via, m.Family, m.Gateway) && addrSelects(f.Src, m.Family, m.Prefsrc)
}

// addrSelects is filter_nlmsg's test of RTA_GATEWAY or RTA_PREFSRC
// against a `via` or `src` prefix: the family first, then the prefix's
// bits of the attribute, all zero when the message has none.
func addrSelects(p netip.Prefix, family int, a netip.Addr) bool {
	if !p.IsValid() {
		return true
	}
	if familyOf(p.Addr()) != family {
		return false
	}
	if !a.IsValid() {
		a = netip.IPv4Unspecified()
		if family == 6 {
			a = netip.IPv6Unspecified()
		}
	}
	return p.Masked().Contains(a)
}

func familyOf(a netip.Addr) int {
	if a.Is4() {
		return 4
	}
	return 6
}

// TableAll selects every table in a flush.
const TableAll = 0xffffffff

// Sysctl is the `sysctl KEY=VALUE` extension, for the net.ipv4.conf keys the
// model knows.
type Sysctl struct {
	Key   string // e.g. net.ipv4.conf.eth0.promote_secondaries
	Value string
}

// RouteGet is `route get [to] ADDR [from ADDR] [iif NAME] [oif|dev NAME]
// [tos T] [mark M] [uid U] [fibmatch]` for IPv4, or `-6 route get` without
// iif and tos for an IPv6 Dst: the kernel's output route for that flow,
// or with iif its input route (inet_rtm_getroute, inet6_rtm_getroute).
// Nothing changes; the run keeps the answer (Result.Shown's Got).
type RouteGet struct {
	Dst netip.Addr
	Src netip.Addr // invalid without from
	IIF string     // "" without iif
	OIF string     // "" without oif
	TOS uint8
	// Mark is RTA_MARK (iproute2 sends it when not 0).
	Mark uint32
	// UID is RTA_UID when given; the kernel answers with the caller's
	// uid otherwise.
	UID      *uint32
	FibMatch bool
}

// ShowOp is `link show [dev NAME]`, `addr show [dev NAME]`, `route show
// [table ID|all]` or `rule show`: nothing changes; the run keeps what a
// dump shows at that point (Result.Shown).
type ShowOp struct {
	Object string // link, addr, route, rule, nexthop
	Family int    // 4 or 6 (-4/-6); 0: both for link and addr, 4 for route and rule
	Dev    string // link and addr: one device
	Table  uint32 // route: 0 is main; TableAll every table
}

func (o ShowOp) Verb() string { return o.Object + " show" }

// NetnsAdd is `netns add NAME`: a new network namespace, which later
// lines name.
type NetnsAdd struct{ Name string }

// InNetns is `netns exec NAME ip CMD...` (or `-n NAME CMD...`): Op,
// applied in the namespace NAME instead of the target's own.
type InNetns struct {
	Name string
	Op   Op
}

// NetnsDel is `netns del NAME`: the namespace goes, and its devices with
// it (veth peers elsewhere too), as cleanup_net takes them.
type NetnsDel struct{ Name string }

func (NetnsAdd) Verb() string     { return "netns add" }
func (NetnsDel) Verb() string     { return "netns del" }
func (o InNetns) Verb() string    { return o.Op.Verb() }
func (LinkAdd) Verb() string      { return "link add" }
func (LinkSet) Verb() string      { return "link set" }
func (LinkDel) Verb() string      { return "link del" }
func (LinkDelGroup) Verb() string { return "link del" }
func (LinkDelList) Verb() string  { return "link del" }
func (LinkProp) Verb() string     { return "link property" }
func (o AddrAdd) Verb() string {
	switch o.Mode {
	case AddrModeReplace:
		return "addr replace"
	case AddrModeChange:
		return "addr change"
	}
	return "addr add"
}
func (AddrDel) Verb() string      { return "addr del" }
func (AddrFlush) Verb() string    { return "addr flush" }
func (RouteAdd) Verb() string     { return "route add" }
func (RouteDel) Verb() string     { return "route del" }
func (RouteReplace) Verb() string { return "route replace" }
func (RouteAppend) Verb() string  { return "route append" }
func (RoutePrepend) Verb() string { return "route prepend" }
func (RouteChange) Verb() string  { return "route change" }
func (RouteFlush) Verb() string   { return "route flush" }
func (RouteGet) Verb() string     { return "route get" }
func (Sysctl) Verb() string       { return "sysctl" }
