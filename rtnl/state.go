package rtnl

import (
	"encoding/json"
	"net/netip"
	"slices"
)

// The State types marshal to exactly what `ip -j link show`, `ip -j addr
// show` and `ip -j route show table all` print (iproute2 6.1): the same
// keys, in the same order, present under the same conditions. Fields are
// ordered as iproute2 prints them; omitempty mirrors "printed only when the
// kernel sent the attribute".

// Link is one element of `ip -j link show`.
type Link struct {
	Ifindex   int      `json:"ifindex"`
	LinkPeer  *string  `json:"link,omitempty"` // IFLA_LINK as a name; null when IFLA_LINK is 0
	LinkIndex *int     `json:"link_index,omitempty"`
	Ifname    string   `json:"ifname"`
	Flags     []string `json:"flags"`
	MTU       int      `json:"mtu"`
	Qdisc     string   `json:"qdisc,omitempty"`
	Master    string   `json:"master,omitempty"`
	Operstate string   `json:"operstate,omitempty"`
	Linkmode  string   `json:"linkmode,omitempty"`
	Group     string   `json:"group,omitempty"`
	Txqlen    *int     `json:"txqlen,omitempty"` // nil when 0: print_txqlen leaves 0 out
	LinkType  string   `json:"link_type"`
	Address   string   `json:"address,omitempty"`
	Broadcast string   `json:"broadcast,omitempty"`
	// LinkNetnsid is IFLA_LINK_NETNSID: the id of the namespace the
	// peer (link_index) lives in, as this one knows it.
	LinkNetnsid *int `json:"link_netnsid,omitempty"`
	// Ifalias is printed by link show only (addr show leaves it out).
	Ifalias  string   `json:"ifalias,omitempty"`
	Altnames []string `json:"altnames,omitempty"`
}

// LinkAddrs is one element of `ip -j addr show`: the link header and its
// addresses in the kernel's order. The header is a Link whose Linkmode is
// left empty (addr show does not print it; AddrsOf clears it), so that
// encoding/json writes the Link's keys, in order, then addr_info.
type LinkAddrs struct {
	Link
	AddrInfo []AddrInfo `json:"addr_info"`
}

// AddrInfo is one element of addr_info, flags in print_ifa_flags' order.
type AddrInfo struct {
	Family        string  `json:"family"`
	Local         string  `json:"local,omitempty"`
	Address       string  `json:"address,omitempty"` // peer, when it differs from local
	Prefixlen     int     `json:"prefixlen"`
	Metric        *uint32 `json:"metric,omitempty"`
	Broadcast     string  `json:"broadcast,omitempty"`
	Anycast       string  `json:"anycast,omitempty"`
	Scope         string  `json:"scope"`
	Secondary     bool    `json:"secondary,omitempty"`
	Temporary     bool    `json:"temporary,omitempty"`
	Nodad         bool    `json:"nodad,omitempty"`
	Optimistic    bool    `json:"optimistic,omitempty"`
	Dadfailed     bool    `json:"dadfailed,omitempty"`
	Home          bool    `json:"home,omitempty"`
	Deprecated    bool    `json:"deprecated,omitempty"`
	Tentative     bool    `json:"tentative,omitempty"`
	Dynamic       bool    `json:"dynamic,omitempty"`
	Mngtmpaddr    bool    `json:"mngtmpaddr,omitempty"`
	Noprefixroute bool    `json:"noprefixroute,omitempty"`
	Autojoin      bool    `json:"autojoin,omitempty"`
	StablePrivacy bool    `json:"stable-privacy,omitempty"`
	IfaFlags      string  `json:"ifa_flags,omitempty"`
	Label         string  `json:"label,omitempty"`
	ValidLife     *uint32 `json:"valid_life_time,omitempty"`
	PreferredLife *uint32 `json:"preferred_life_time,omitempty"`
}

// RouteEntry is one element of `ip -j route show table all`.
type RouteEntry struct {
	Type string `json:"type,omitempty"` // omitted for unicast
	Dst  string `json:"dst"`
	// NhID is RTA_NH_ID: the nexthop object the route uses.
	NhID *uint32 `json:"nhid,omitempty"`
	// From is RTA_SRC of a route get's answer (the flow's source).
	From    string `json:"from,omitempty"`
	Tos     string `json:"tos,omitempty"` // rtm_tos, printed only when not 0
	Gateway string `json:"gateway,omitempty"`
	// Via is RTA_VIA: a gateway of the other family (an IPv6 one on an
	// IPv4 route, by `via inet6` or an IPv6 nexthop object); Gateway is
	// empty then.
	Via      *RouteVia `json:"via,omitempty"`
	Dev      string    `json:"dev,omitempty"`
	Table    string    `json:"table,omitempty"` // omitted for main
	Protocol string    `json:"protocol,omitempty"`
	Scope    string    `json:"scope,omitempty"`
	Prefsrc  string    `json:"prefsrc,omitempty"`
	Metric   *uint32   `json:"metric,omitempty"`
	Flags    []string  `json:"flags"`
	// Flow is RTA_FLOW, the realms; Metrics RTA_METRICS, one object.
	Flow *RouteFlow `json:"flow,omitempty"`
	// Expires is an IPv6 route's RTA_CACHEINFO rta_expires in seconds
	// (the prefix route of an address with a finite valid_lft).
	Expires *int           `json:"expires,omitempty"`
	Metrics []RouteMetrics `json:"metrics,omitempty"`
	// Nexthops are RTA_MULTIPATH's, for a route of two or more.
	Nexthops []NexthopEntry `json:"nexthops,omitempty"`
	Pref     string         `json:"pref,omitempty"`
	// Mark, UID and Cache are a route get's answer's (a cloned route):
	// the flow's mark when not 0, its uid, and the rtable's RTCF_ flags
	// as iproute2 names them (an empty list still prints).
	Mark  *uint32   `json:"mark,omitempty"`
	UID   *uint32   `json:"uid,omitempty"`
	Cache *[]string `json:"cache,omitempty"`
	// Iif is RTA_IIF of an input route's answer (route get with iif),
	// which iproute2 prints after the metrics.
	Iif string `json:"iif,omitempty"`
	// Family is 4 or 6 (rtm_family), which ip -j does not print.
	Family int `json:"-"`
}

// RouteVia is RTA_VIA as ip prints it: the family's name and the address.
type RouteVia struct {
	Family string `json:"family"`
	Host   string `json:"host"`
}

// ViaOf is the RouteVia of an IPv6 gateway.
func ViaOf(gw netip.Addr) *RouteVia { return &RouteVia{Family: "inet6", Host: gw.String()} }

// RouteFlow is a route's "flow": its realms by name (rt_realms), From
// only when not 0.
type RouteFlow struct {
	From string `json:"from,omitempty"`
	To   string `json:"to"`
}

// RouteMetrics is the one object of a route's "metrics", with the one
// metric the model knows: the MTU, present when RTAX_MTU is or RTAX_LOCK
// locks it.
type RouteMetrics struct {
	MTU uint32 `json:"mtu"`
	// Lock is the MTU's bit in RTAX_LOCK, which `ip route` prints ("mtu
	// lock 1400") and `ip -j route` does not.
	Lock bool `json:"-"`
}

// NexthopEntry is one element of a route's "nexthops" in `ip -j route`.
type NexthopEntry struct {
	Gateway string    `json:"gateway,omitempty"`
	Via     *RouteVia `json:"via,omitempty"` // RTA_VIA, as RouteEntry's
	Dev     string    `json:"dev,omitempty"`
	Weight  int       `json:"weight"`
	Flags   []string  `json:"flags"`
}

// NetnsState is the state of a namespace a script named.
type NetnsState struct {
	Name string `json:"name"`
	State
}

// State is what a target reads back after a script. Any part may be left
// empty when it was not asked for.
type State struct {
	Links  []Link       `json:"links,omitempty"`
	Addrs  []LinkAddrs  `json:"addrs,omitempty"`
	Routes []RouteEntry `json:"routes,omitempty"`
	Rules  []RuleEntry  `json:"rules,omitempty"` // IPv4, then IPv6
	// Nexthops are `ip -j nexthop show`'s, read along with the routes.
	Nexthops    []NexthopEntryObj `json:"nexthops,omitempty"`
	FibTrie     string            `json:"fibtrie,omitempty"`
	FibTrieStat string            `json:"fibtriestat,omitempty"`
	// Netns are the namespaces the script made, in the order it made
	// them, each with the same parts.
	Netns []NetnsState `json:"netns,omitempty"`
}

// Event is one multicast notification, in arrival order.
type Event struct {
	Type   string `json:"type"`   // RTM_NEWLINK, RTM_DELADDR, ...
	Family string `json:"family"` // link, inet, inet6
	// Object is the notified object in its ip -j shape: a Link, an
	// AddrEvent, a RouteEntry or a RuleEntry.
	Object any `json:"object"`
	// Request is the 1-based number of the request whose window the
	// notification came in: sent while the request ran, or by the
	// deferred linkwatch or IPv6 DAD work it caused. Zero when the target
	// could not tell (a kernel target not asked to sync linkwatch).
	Request int `json:"request,omitempty"`
	// Deferred marks a notification of linkwatch work (operstate and
	// carrier changes) or of IPv6 DAD work (a link-local address and its
	// local route), which the kernel runs asynchronously: within a
	// request's window such notifications may come in any order after the
	// request's own. Only the model knows which ones they are.
	Deferred bool `json:"deferred,omitempty"`
	// Netns names the namespace a script made that sent it; "" for the
	// target's own.
	Netns string `json:"netns,omitempty"`
}

// SortEventsByRequest orders notifications by request, and within one
// request the target's own namespace first, then the named ones in the
// order given, each keeping its own order.
func SortEventsByRequest(evs []Event, order []string) []Event {
	rank := map[string]int{"": 0}
	for i, n := range order {
		rank[n] = i + 1
	}
	slices.SortStableFunc(evs, func(a, b Event) int {
		if a.Request != b.Request {
			return a.Request - b.Request
		}
		return rank[a.Netns] - rank[b.Netns]
	})
	return evs
}

// AddrEvent is the object of an address notification: the device and the
// address in addr_info shape.
type AddrEvent struct {
	Ifindex int    `json:"ifindex"`
	Ifname  string `json:"ifname,omitempty"`
	AddrInfo
}

// MarshalJSON writes a route as `ip -j` does: a route get's answer (Cache
// set) has its metrics after the cache flags, and then its iif.
func (r RouteEntry) MarshalJSON() ([]byte, error) {
	type plain RouteEntry
	if r.Cache == nil || len(r.Metrics) == 0 {
		return json.Marshal(plain(r))
	}
	m, iif := r.Metrics, r.Iif
	r.Metrics, r.Iif = nil, ""
	b, err := json.Marshal(plain(r))
	if err != nil {
		return nil, err
	}
	mb, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	b = append(append(b[:len(b)-1], `,"metrics":`...), mb...)
	if iif != "" {
		ib, err := json.Marshal(iif)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"iif":`...), ib...)
	}
	return append(b, '}'), nil
}
