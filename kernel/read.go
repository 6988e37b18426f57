//go:build linux

package kernel

import (
	"context"
	"fmt"
	"net"
	"net/netip"

	"github.com/jsimonetti/rtnetlink/v2"
	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// Messages are read in two layers: the fixed header (into rtnetlink's
// message types where they fit) and a raw attribute table, because `ip -j`
// prints a field when the kernel sent the attribute, which a decoded zero
// value cannot tell.

type attrTable map[uint16][]byte

func attrTableOf(b []byte) attrTable {
	t := attrTable{}
	ad, err := netlink.NewAttributeDecoder(b)
	if err != nil {
		return t
	}
	for ad.Next() {
		t[ad.Type()] = ad.Bytes()
	}
	return t
}

func (t attrTable) u32(typ uint16) (uint32, bool) {
	b, ok := t[typ]
	if !ok || len(b) < 4 {
		return 0, false
	}
	return nativeEndian.Uint32(b), true
}

func (t attrTable) u8(typ uint16) (uint8, bool) {
	b, ok := t[typ]
	if !ok || len(b) < 1 {
		return 0, false
	}
	return b[0], true
}

func (t attrTable) str(typ uint16) (string, bool) {
	b, ok := t[typ]
	if !ok {
		return "", false
	}
	for i, c := range b {
		if c == 0 {
			b = b[:i]
			break
		}
	}
	return string(b), true
}

func (t attrTable) addr(typ uint16) (netip.Addr, bool) {
	b, ok := t[typ]
	if !ok {
		return netip.Addr{}, false
	}
	a, ok := netip.AddrFromSlice(b)
	return a, ok
}

// payload is the data of m when m is a newType or delType message carrying
// at least a fixed header of hdrLen bytes.
func payload(m netlink.Message, newType, delType netlink.HeaderType, hdrLen int) ([]byte, bool) {
	if m.Header.Type != newType && m.Header.Type != delType || len(m.Data) < hdrLen {
		return nil, false
	}
	return m.Data, true
}

type linkMsg struct {
	hdr   rtnetlink.LinkMessage
	attrs attrTable
}

func parseLink(m netlink.Message) (linkMsg, bool) {
	d, ok := payload(m, unix.RTM_NEWLINK, unix.RTM_DELLINK, unix.SizeofIfInfomsg)
	if !ok {
		return linkMsg{}, false
	}
	var l linkMsg
	l.hdr.Type = nativeEndian.Uint16(d[2:4])
	l.hdr.Index = nativeEndian.Uint32(d[4:8])
	l.hdr.Flags = nativeEndian.Uint32(d[8:12])
	l.attrs = attrTableOf(d[unix.SizeofIfInfomsg:])
	return l, true
}

type addrMsg struct {
	family, prefixlen, flags, scope uint8
	index                           uint32
	local                           netip.Addr
	label                           string
	attrs                           attrTable
}

func parseAddr(m netlink.Message) (addrMsg, bool) {
	d, ok := payload(m, unix.RTM_NEWADDR, unix.RTM_DELADDR, unix.SizeofIfAddrmsg)
	if !ok {
		return addrMsg{}, false
	}
	a := addrMsg{
		family: d[0], prefixlen: d[1], flags: d[2], scope: d[3],
		index: nativeEndian.Uint32(d[4:8]),
		attrs: attrTableOf(d[unix.SizeofIfAddrmsg:]),
	}
	if l, ok := a.attrs.addr(unix.IFA_LOCAL); ok {
		a.local = l
	} else if l, ok := a.attrs.addr(unix.IFA_ADDRESS); ok {
		a.local = l
	}
	a.label, _ = a.attrs.str(unix.IFA_LABEL)
	return a, true
}

type routeMsg struct {
	hdr   rtnetlink.RouteMessage
	table uint32
	oif   uint32
	dst   netip.Addr
	attrs attrTable
}

func parseRoute(m netlink.Message) (routeMsg, bool) {
	d, ok := payload(m, unix.RTM_NEWROUTE, unix.RTM_DELROUTE, unix.SizeofRtMsg)
	if !ok {
		return routeMsg{}, false
	}
	r := routeMsg{attrs: attrTableOf(d[unix.SizeofRtMsg:])}
	r.hdr = rtnetlink.RouteMessage{Family: d[0], DstLength: d[1], SrcLength: d[2], Tos: d[3],
		Table: d[4], Protocol: d[5], Scope: d[6], Type: d[7], Flags: nativeEndian.Uint32(d[8:12])}
	r.table = uint32(r.hdr.Table)
	if tb, ok := r.attrs.u32(unix.RTA_TABLE); ok {
		r.table = tb
	}
	r.oif, _ = r.attrs.u32(unix.RTA_OIF)
	if a, ok := r.attrs.addr(unix.RTA_DST); ok {
		r.dst = a
	} else if r.hdr.Family == unix.AF_INET {
		r.dst = netip.IPv4Unspecified()
	} else {
		r.dst = netip.IPv6Unspecified()
	}
	return r, true
}

// linkCache is iproute2's ll_map: names and flags by ifindex, taken from
// the link dump (or, for events, the Target's maps), used to name masters,
// peers and route devices.
type linkCache struct {
	name  map[int32]string
	flags map[int32]uint32
}

func newLinkCache() linkCache {
	return linkCache{name: map[int32]string{}, flags: map[int32]uint32{}}
}

// set records the name and flags of a link message.
func (c linkCache) set(l linkMsg) {
	name, _ := l.attrs.str(unix.IFLA_IFNAME)
	c.name[int32(l.hdr.Index)] = name
	c.flags[int32(l.hdr.Index)] = l.hdr.Flags
}

func (c linkCache) flagsOf(idx uint32) uint32 { return c.flags[int32(idx)] }

func (c linkCache) nameOf(idx uint32) string {
	if n, ok := c.name[int32(idx)]; ok {
		return n
	}
	return fmt.Sprintf("if%d", idx)
}

func (t *Target) links() ([]linkMsg, linkCache, error) {
	ae := netlink.NewAttributeEncoder()
	ae.Uint32(unix.IFLA_EXT_MASK, rtextFilterVF|rtextFilterSkipStats)
	x, _ := ae.Encode()
	msgs, err := t.dump(unix.RTM_GETLINK, append(make([]byte, unix.SizeofIfInfomsg), x...))
	if err != nil {
		return nil, linkCache{}, err
	}
	cache := newLinkCache()
	var out []linkMsg
	for _, m := range msgs {
		l, ok := parseLink(m)
		if !ok {
			continue
		}
		cache.set(l)
		out = append(out, l)
	}
	return out, cache, nil
}

const (
	rtextFilterVF        = 1 << 0
	rtextFilterSkipStats = 1 << 3
)

// renderLink builds the `ip -j link show` object, as print_linkinfo does.
func renderLink(l linkMsg, c linkCache) rtnl.Link {
	a := l.attrs
	out := rtnl.Link{Ifindex: int(l.hdr.Index)}
	out.Ifname, _ = a.str(unix.IFLA_IFNAME)
	mdown := false
	if iflink, ok := a.u32(unix.IFLA_LINK); ok {
		if iflink == 0 {
			// iproute2 prints "link": null here; none of the kinds
			// rtnlsim knows report IFLA_LINK 0, so it is left out.
		} else if _, ok := a.u32(unix.IFLA_LINK_NETNSID); ok {
			v := int(iflink)
			out.LinkIndex = &v
		} else {
			n := c.nameOf(iflink)
			out.LinkPeer = &n
			mdown = c.flagsOf(iflink)&unix.IFF_UP == 0
		}
	}
	if id, ok := a.u32(unix.IFLA_LINK_NETNSID); ok {
		// Sent whenever the link's namespace is another, with IFLA_LINK
		// or without it (an iflink equal to the device's own ifindex).
		nsid := int(int32(id))
		out.LinkNetnsid = &nsid
	}
	out.Flags = rtnl.LinkFlags(l.hdr.Flags, mdown)
	if v, ok := a.u32(unix.IFLA_MTU); ok {
		out.MTU = int(v)
	}
	out.Qdisc, _ = a.str(unix.IFLA_QDISC)
	if m, ok := a.u32(unix.IFLA_MASTER); ok {
		out.Master = c.nameOf(m)
	}
	if s, ok := a.u8(unix.IFLA_OPERSTATE); ok {
		out.Operstate = rtnl.OperState(s)
	}
	if m, ok := a.u8(unix.IFLA_LINKMODE); ok {
		out.Linkmode = rtnl.LinkMode(m)
	}
	if g, ok := a.u32(unix.IFLA_GROUP); ok {
		out.Group = rtnl.GroupName(g)
	}
	if q, ok := a.u32(unix.IFLA_TXQLEN); ok && q != 0 { // print_txqlen leaves 0 out
		v := int(q)
		out.Txqlen = &v
	}
	out.LinkType = rtnl.LinkType(l.hdr.Type)
	if b, ok := a[unix.IFLA_ADDRESS]; ok {
		out.Address = net.HardwareAddr(b).String()
	}
	if b, ok := a[unix.IFLA_BROADCAST]; ok {
		out.Broadcast = net.HardwareAddr(b).String()
	}
	out.Ifalias, _ = a.str(unix.IFLA_IFALIAS)
	if b, ok := a[unix.IFLA_PROP_LIST]; ok {
		if ad, err := netlink.NewAttributeDecoder(b); err == nil {
			for ad.Next() {
				if ad.Type() == unix.IFLA_ALT_IFNAME {
					out.Altnames = append(out.Altnames, ad.String())
				}
			}
		}
	}
	return out
}

// renderAddr builds one addr_info object, as print_addrinfo does.
func renderAddr(a addrMsg) rtnl.AddrInfo {
	out := rtnl.AddrInfo{Family: rtnl.FamilyName(int(a.family)), Prefixlen: int(a.prefixlen)}
	local, hasLocal := a.attrs.addr(unix.IFA_LOCAL)
	address, hasAddress := a.attrs.addr(unix.IFA_ADDRESS)
	if !hasLocal {
		local, hasLocal = address, hasAddress
	}
	if !hasAddress {
		address, hasAddress = local, hasLocal
	}
	if hasLocal {
		out.Local = local.String()
		if hasAddress && address != local {
			out.Address = address.String()
		}
		if p, ok := a.attrs.u32(unix.IFA_RT_PRIORITY); ok {
			out.Metric = &p
		}
	}
	if b, ok := a.attrs.addr(unix.IFA_BROADCAST); ok {
		out.Broadcast = b.String()
	}
	if b, ok := a.attrs.addr(unix.IFA_ANYCAST); ok {
		out.Anycast = b.String()
	}
	out.Scope = rtnl.ScopeName(a.scope)
	flags := uint32(a.flags)
	if f, ok := a.attrs.u32(unix.IFA_FLAGS); ok {
		flags = f
	}
	out.SetFlags(int(a.family), flags)
	if l, ok := a.attrs.str(unix.IFA_LABEL); ok {
		out.Label = l
	}
	if ci, ok := a.attrs[unix.IFA_CACHEINFO]; ok && len(ci) >= 8 {
		pref, valid := nativeEndian.Uint32(ci[0:4]), nativeEndian.Uint32(ci[4:8])
		out.ValidLife, out.PreferredLife = &valid, &pref
	}
	return out
}

// renderRoute builds one `ip -j route show table all` object, as
// print_route does; ok is false for routes ip would not show.
func renderRoute(r routeMsg, c linkCache) (rtnl.RouteEntry, bool) {
	if r.hdr.Flags&unix.RTM_F_CLONED != 0 {
		return rtnl.RouteEntry{}, false
	}
	out := rtnl.RouteEntry{Flags: rtnl.RouteFlags(r.hdr.Flags), Family: 4}
	if r.hdr.Family == unix.AF_INET6 {
		out.Family = 6
	}
	if r.hdr.Type != unix.RTN_UNICAST {
		out.Type = rtnl.RouteTypeName(r.hdr.Type)
	}
	hostLen := 32
	if r.hdr.Family == unix.AF_INET6 {
		hostLen = 128
	}
	if d, ok := r.attrs.addr(unix.RTA_DST); ok {
		if int(r.hdr.DstLength) != hostLen {
			out.Dst = fmt.Sprintf("%s/%d", d, r.hdr.DstLength)
		} else {
			out.Dst = d.String()
		}
	} else if r.hdr.DstLength != 0 {
		out.Dst = fmt.Sprintf("0/%d ", r.hdr.DstLength)
	} else {
		out.Dst = "default"
	}
	if r.hdr.Tos != 0 {
		out.Tos = rtnl.DSFieldName(r.hdr.Tos)
	}
	if id, ok := r.attrs.u32(rtaNhID); ok {
		out.NhID = &id
	}
	if g, ok := r.attrs.addr(unix.RTA_GATEWAY); ok {
		out.Gateway = g.String()
	}
	if oif, ok := r.attrs.u32(unix.RTA_OIF); ok {
		out.Dev = c.nameOf(oif)
	}
	if r.table != 0 && r.table != unix.RT_TABLE_MAIN {
		out.Table = rtnl.TableName(r.table)
	}
	if r.hdr.Protocol != unix.RTPROT_BOOT {
		out.Protocol = rtnl.ProtoName(r.hdr.Protocol)
	}
	if r.hdr.Scope != unix.RT_SCOPE_UNIVERSE {
		out.Scope = rtnl.ScopeName(r.hdr.Scope)
	}
	if p, ok := r.attrs.addr(unix.RTA_PREFSRC); ok {
		out.Prefsrc = p.String()
	}
	if m, ok := r.attrs.u32(unix.RTA_PRIORITY); ok {
		out.Metric = &m
	}
	if f, ok := r.attrs.u32(unix.RTA_FLOW); ok {
		out.Flow = rtnl.FlowOf(f)
	}
	if b, ok := r.attrs[unix.RTA_METRICS]; ok {
		out.Metrics = metricsOf(b)
	}
	if b, ok := r.attrs[unix.RTA_MULTIPATH]; ok {
		out.Nexthops = nexthopsOf(b, c)
	}
	if p, ok := r.attrs.u8(unix.RTA_PREF); ok {
		out.Pref = rtnl.RoutePref(p)
	}
	return out, true
}

// metricsOf reads RTA_METRICS as print_rta_metrics prints the MTU: one
// object, the MTU there when RTAX_MTU is or RTAX_LOCK locks it (the only
// metric the model knows; nil when neither is).
func metricsOf(b []byte) []rtnl.RouteMetrics {
	at := attrTableOf(b)
	mtu, hasMTU := at.u32(unix.RTAX_MTU)
	lock, _ := at.u32(unix.RTAX_LOCK)
	locked := lock&(1<<unix.RTAX_MTU) != 0
	if !hasMTU && !locked {
		return nil
	}
	return []rtnl.RouteMetrics{{MTU: mtu, Lock: locked}}
}

// nexthopsOf reads RTA_MULTIPATH (struct rtnexthop, each followed by its
// attributes) as print_rta_multipath prints it: the gateway, the device,
// the weight (rtnh_hops+1) and the nexthop's flags.
func nexthopsOf(b []byte, c linkCache) []rtnl.NexthopEntry {
	out := []rtnl.NexthopEntry{}
	for len(b) >= unix.SizeofRtNexthop {
		n := int(nativeEndian.Uint16(b[0:2]))
		if n < unix.SizeofRtNexthop || n > len(b) {
			break
		}
		nh := rtnl.NexthopEntry{Weight: int(b[3]) + 1, Flags: rtnl.RouteFlags(uint32(b[2]))}
		at := attrTableOf(b[unix.SizeofRtNexthop:n])
		if g, ok := at.addr(unix.RTA_GATEWAY); ok {
			nh.Gateway = g.String()
		}
		if idx := nativeEndian.Uint32(b[4:8]); idx != 0 {
			nh.Dev = c.nameOf(idx)
		}
		out = append(out, nh)
		b = b[min((n+3)&^3, len(b)):]
	}
	return out
}

// State reads back links, addresses, routes and the FIB text, in the
// kernel's dump order, once no address is under DAD (a tentative address
// would be a moment's view).
func (t *Target) State(ctx context.Context, show rtnl.Show) (rtnl.State, error) {
	var st rtnl.State
	if err := t.waitDAD(ctx); err != nil {
		return st, err
	}
	t.settle(ctx)
	links, cache, err := t.links()
	if err != nil {
		return st, err
	}
	// Each link is rendered once, for links and for addrs alike.
	rendered := make([]rtnl.Link, 0, len(links))
	if show.Links || show.Addrs {
		for _, l := range links {
			rendered = append(rendered, renderLink(l, cache))
		}
	}
	if show.Links {
		st.Links = rendered
	}
	if show.Addrs {
		msgs, err := t.dump(unix.RTM_GETADDR, make([]byte, unix.SizeofIfAddrmsg))
		if err != nil {
			return st, err
		}
		byDev := map[uint32][]rtnl.AddrInfo{}
		for _, m := range msgs {
			if a, ok := parseAddr(m); ok {
				byDev[a.index] = append(byDev[a.index], renderAddr(a))
			}
		}
		st.Addrs = []rtnl.LinkAddrs{}
		for i, l := range links {
			st.Addrs = append(st.Addrs, rtnl.AddrsOf(rendered[i], byDev[l.hdr.Index]))
		}
	}
	if show.Routes {
		msgs, err := t.dump(unix.RTM_GETROUTE, make([]byte, unix.SizeofRtMsg))
		if err != nil {
			return st, err
		}
		st.Routes = []rtnl.RouteEntry{}
		for _, m := range msgs {
			if r, ok := parseRoute(m); ok {
				if e, ok := renderRoute(r, cache); ok {
					st.Routes = append(st.Routes, e)
				}
			}
		}
		if st.Nexthops, err = t.nexthops(cache); err != nil {
			return st, err
		}
	}
	if show.Rules {
		if st.Rules, err = t.rules(); err != nil {
			return st, err
		}
	}
	if st.Netns, err = t.subStates(ctx, show); err != nil {
		return st, err
	}
	if show.FibTrie {
		if st.FibTrie, err = t.ns.readProc("net/fib_trie"); err != nil {
			return st, err
		}
		if st.FibTrieStat, err = t.ns.readProc("net/fib_triestat"); err != nil {
			return st, err
		}
	}
	return st, nil
}

// decodeEvent renders one notification; names come from the events seen
// before it, as a monitoring client's cache would have them. Called with
// t.mu held.
func (t *Target) decodeEvent(m netlink.Message) (rtnl.Event, bool) {
	typ := uint16(m.Header.Type)
	ev := rtnl.Event{Type: rtnl.MsgTypeName(typ)}
	cache := linkCache{name: t.names, flags: t.flags}
	switch typ {
	case unix.RTM_NEWLINK, unix.RTM_DELLINK:
		l, ok := parseLink(m)
		if !ok {
			return ev, false
		}
		// The bridge reports its ports with ifi_family AF_BRIDGE on the
		// same group.
		ev.Family = "link"
		if len(m.Data) > 0 && m.Data[0] == unix.AF_BRIDGE {
			ev.Family = "bridge"
		}
		// Rendered before the cache learns this event's own name and flags.
		ev.Object = renderLink(l, cache)
		if typ == unix.RTM_NEWLINK {
			cache.set(l)
		} else if ev.Family == "link" {
			// A device deleted, or gone to another namespace, leaves
			// the cache, as iproute2's ll_remember_index forgets it: a
			// later message naming its ifindex prints ifN.
			delete(t.names, int32(l.hdr.Index))
			delete(t.flags, int32(l.hdr.Index))
		}
	case unix.RTM_NEWADDR, unix.RTM_DELADDR:
		a, ok := parseAddr(m)
		if !ok {
			return ev, false
		}
		ev.Family = rtnl.FamilyName(int(a.family))
		ev.Object = rtnl.AddrEvent{Ifindex: int(a.index), Ifname: cache.nameOf(a.index), AddrInfo: renderAddr(a)}
	case unix.RTM_NEWROUTE, unix.RTM_DELROUTE:
		r, ok := parseRoute(m)
		if !ok {
			return ev, false
		}
		e, ok := renderRoute(r, cache)
		if !ok {
			return ev, false
		}
		ev.Family = rtnl.FamilyName(int(r.hdr.Family))
		ev.Object = e
	case unix.RTM_NEWNEXTHOP, unix.RTM_DELNEXTHOP:
		e, ok := parseNexthop(m, cache)
		if !ok {
			return ev, false
		}
		ev.Family = "nexthop"
		ev.Object = e
	case unix.RTM_NEWRULE, unix.RTM_DELRULE:
		e, ok := parseRule(m)
		if !ok {
			return ev, false
		}
		ev.Family = rtnl.FamilyName(int(m.Data[0]))
		ev.Object = e
	default:
		return ev, false
	}
	return ev, true
}
