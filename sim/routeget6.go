package sim

import (
	"fmt"
	"net/netip"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// `ip -6 route get` without iif: inet6_rtm_getroute's output route
// (ip6_route_output; fib6_rule_lookup: local then main until a rule was
// added or deleted, then the rules; ip6_pol_route: fib6_table_lookup's
// rt6_select and backtracking, fib6_select_path) and the answer
// rt6_fill_node gives, with the source ip6_route_get_saddr picks
// (ipv6_dev_get_saddr). Read from Linux ~6.15-6.17 net/ipv6/route.c,
// fib6_rules.c, addrconf.c and addrlabel.c; checked on 6.18
// (props/testdata/ipv6-route-get*.ip). Nothing changes:
// the pcpu copy the kernel makes does not show in the answer, and the
// answer has no cache flags (only exception routes are cloned ones, and a
// script makes none).

// routeGet6 answers an IPv6 route get, or refuses it with the kernel's
// errno.
func (n *Netns) routeGet6(op rtnl.RouteGet) (rtnl.RouteEntry, error) {
	var oif *Device
	if op.OIF != "" {
		if oif = n.ByName(op.OIF); oif == nil {
			return rtnl.RouteEntry{}, enodev(op.OIF)
		}
	}
	if n.nhRoute6Covers(op.Dst) {
		return rtnl.RouteEntry{}, errNhRoute6Lookup
	}
	src := netip.IPv6Unspecified()
	if op.Src.IsValid() {
		src = op.Src
	}
	// ip6_route_output_flags: the device must match (RT6_LOOKUP_F_IFACE)
	// for a multicast, link-local or loopback destination, or for an oif
	// without a source.
	strict := needStrict6(op.Dst) || (oif != nil && src.IsUnspecified())
	// rtm_tos is the flow's traffic class, which only rules look at.
	fl := flow6{dst: op.Dst, src: src, oif: oif, mark: op.Mark, tos: op.TOS, strict: strict}
	r, errno := n.fib6RuleLookup(fl)
	if errno != 0 {
		return rtnl.RouteEntry{}, rtnl.Errf(errno, "")
	}
	r, err := n.selectPath6(r, oif, strict)
	if err != nil {
		return rtnl.RouteEntry{}, err
	}
	// ip6_rt_init_dst_reject: the error of the copy of a reject route,
	// which inet6_rtm_getroute returns before fibmatch is looked at.
	switch r.typ {
	case uapi.RTN_BLACKHOLE:
		return rtnl.RouteEntry{}, rtnl.Errf(uapi.EINVAL, "")
	case uapi.RTN_UNREACHABLE:
		return rtnl.RouteEntry{}, rtnl.Errf(uapi.EHOSTUNREACH, "")
	case uapi.RTN_PROHIBIT:
		return rtnl.RouteEntry{}, rtnl.Errf(uapi.EACCES, "")
	}
	if op.FibMatch {
		return n.renderRoute6(r), nil
	}
	// rt6_fill_node with the copy: RTA_DST and RTA_SRC are the flow's
	// (the source "::" when none was given), the gateway and device the
	// copy's alone, no nexthop flags, then the source ip6_route_get_saddr
	// picks for the route's own device.
	one := *r
	// The copy has no expiry of its own: no RTA_CACHEINFO expires.
	one.sibs, one.dead, one.linkdown, one.expires = nil, false, false, 0
	out := n.renderRoute6(&one)
	out.Dst, out.From = op.Dst.String(), src.String()
	if r.typ == uapi.RTN_LOCAL || r.typ == uapi.RTN_ANYCAST {
		out.Dev = n.lo.name // ip6_rt_get_dev_rcu
	}
	// ip6_route_get_saddr: the route's own source, else the selection.
	if !r.prefsrc.IsValid() {
		if a, ok := n.devGetSaddr6(r.dev, op.Dst); ok {
			out.Prefsrc = a.String()
		}
	}
	return out, nil
}

// flow6 is what an output lookup matches: the destination, the source
// (:: for none), the output device (nil for none), the mark, the traffic
// class, and whether the route must go through that device.
type flow6 struct {
	dst, src netip.Addr
	oif      *Device
	mark     uint32
	tos      uint8
	strict   bool
}

// fib6RuleLookup is fib6_rule_lookup with ip6_pol_route_output: the
// route found (before fib6_select_path), which may be a reject route, or
// the errno of a reject rule or of no route (ENETUNREACH, ip6_null_entry).
// Without custom rules the local table is looked in, then main. With
// them, fib_rules_lookup: the first matching rule whose action ends the
// lookup decides: a table with a route for the flow (a route no longer
// than the rule's suppress_prefixlength passes on, a reject route does
// not), or a reject action (unreachable ENETUNREACH, blackhole EINVAL,
// prohibit EACCES); gotos jump, nops and unresolved gotos pass.
func (n *Netns) fib6RuleLookup(fl flow6) (*route6, uapi.Errno) {
	if n.rules6 == nil || !n.rules6.custom {
		for _, table := range []uint32{uapi.RT_TABLE_LOCAL, uapi.RT_TABLE_MAIN} {
			if r := n.fib6TableLookup(table, fl.dst, fl.oif, fl.strict); r != nil {
				return r, 0
			}
		}
		return nil, uapi.ENETUNREACH
	}
	rules := n.rules6.rules
	for i := 0; i < len(rules); i++ {
		x := rules[i]
	jumped:
		if !x.match6(fl, n.lo) {
			continue
		}
		switch x.action {
		case rtnl.RuleActGoto:
			if x.ctarget == nil {
				continue
			}
			x = x.ctarget
			i = ruleIndex(rules, x)
			goto jumped
		case rtnl.RuleActNop:
			continue
		case rtnl.RuleActToTable:
		case rtnl.RuleActUnreachable:
			return nil, uapi.ENETUNREACH
		case rtnl.RuleActProhibit:
			return nil, uapi.EACCES
		default:
			return nil, uapi.EINVAL
		}
		// A table without routes answers as one that has none
		// for the flow: the next rule.
		r := n.fib6TableLookup(x.table, fl.dst, fl.oif, fl.strict)
		if r == nil {
			continue
		}
		if !reject6(r.typ) && int32(r.dst.Bits()) <= x.suppress {
			continue // fib6_rule_suppress
		}
		return r, 0
	}
	return nil, uapi.ENETUNREACH
}

// match6 is fib_rule_match with fib6_rule_match for an output flow
// (from lo): a rule with a source prefix needs a source in the flow
// (iproute2 never sets FIB_RULE_FIND_SADDR), one with a tos matches the
// flow's DSCP (its ECN bits not compared); `not` inverts.
func (x *fibRule) match6(fl flow6, lo *Device) bool {
	m := func() bool {
		if x.iifName != "" && x.iif != lo {
			return false
		}
		if x.oifName != "" && (x.oif == nil || x.oif != fl.oif) {
			return false
		}
		if (x.mark^fl.mark)&x.mask != 0 {
			return false
		}
		if x.dstLen > 0 && !prefixHolds(x.dst, x.dstLen, fl.dst) {
			return false
		}
		if x.srcLen > 0 && (fl.src.IsUnspecified() || !prefixHolds(x.src, x.srcLen, fl.src)) {
			return false
		}
		return x.tos == 0 || x.tos == fl.tos&0xfc
	}()
	return m != x.invert
}

// needStrict6 is rt6_need_strict.
func needStrict6(a netip.Addr) bool {
	return a.IsMulticast() || a.IsLinkLocalUnicast() || a == loopback6
}

// fib6TableLookup is fib6_table_lookup in one table: the node of the
// longest prefix holding dst whose routes give a match (rt6_select),
// else its shorter ones (fib6_backtrack); nil for none.
func (n *Netns) fib6TableLookup(table uint32, dst netip.Addr, oif *Device, strict bool) *route6 {
	lens := n.fib6.lens[table]
	if lens == nil || !dst.Is6() || dst.Zone() != "" {
		return nil
	}
	for bits := 128; bits >= 0; bits-- {
		if lens[bits] == 0 {
			continue
		}
		p, _ := dst.Prefix(bits)
		if rs := n.fib6.node(table, p); len(rs) > 0 {
			if r := findRRLeaf6(rs, oif, strict); r != nil {
				return r
			}
		}
	}
	return nil
}

// findRRLeaf6 is find_rr_leaf from the node's first route (the
// round-robin pointer never moves: with CONFIG_IPV6_ROUTER_PREF a
// gateway without a neighbour entry scores as reachable): the best
// scoring route of the first metric, the first of equals; when none
// matches, the best of all the rest.
func findRRLeaf6(rs []*route6, oif *Device, strict bool) *route6 {
	// rt6_score_route (the router preference is medium for all).
	score := func(r *route6) int {
		if r.dead {
			return -1
		}
		if oif == nil || r.dev == oif {
			return 2
		}
		if strict {
			return -1
		}
		return 0
	}
	var best *route6
	mpri := -1
	i := 0
	for ; i < len(rs) && rs[i].metric == rs[0].metric; i++ {
		if m := score(rs[i]); m > mpri {
			best, mpri = rs[i], m
		}
	}
	if best != nil {
		return best
	}
	for ; i < len(rs); i++ {
		if m := score(rs[i]); m > mpri {
			best, mpri = rs[i], m
		}
	}
	return best
}

// selectPath6 is fib6_select_path for a route with ECMP siblings: the
// sibling whose hash range holds the flow's multipath hash, or, when
// the device must match and the hashed one does not go through it, the
// lookup's. The hash is seeded per boot, so the choice is known only
// when one sibling can be it: the only one alive (a dead one has no
// range), or the only one alive through the device.
func (n *Netns) selectPath6(r *route6, oif *Device, strict bool) (*route6, error) {
	if r.sibs == nil {
		return r, nil
	}
	var alive []*route6
	for _, x := range r.sibs.rs {
		if !x.dead && (!strict || oif == nil || x.dev == oif) {
			alive = append(alive, x)
		}
	}
	if len(alive) != 1 {
		return nil, fmt.Errorf("%w: IPv6 route get through an ECMP route with two siblings or more it may take (the kernel hashes the flow with a per-boot seed)", ErrNotModelled)
	}
	return alive[0], nil
}

// IPv6 address scopes as __ipv6_addr_src_scope gives them
// (IPV6_ADDR_SCOPE_*; -1 for the unspecified address).
const (
	src6ScopeLink   = 0x2
	src6ScopeSite   = 0x5
	src6ScopeGlobal = 0xe
)

// srcScope6 is __ipv6_addr_src_scope(__ipv6_addr_type(a)): a multicast
// address's scope field; link for fe80::/10 and ::1, site for fec0::/10,
// global for the rest but the unspecified address.
func srcScope6(a netip.Addr) int {
	b := a.As16()
	switch {
	case b[0] == 0xff:
		return int(b[1] & 0xf)
	case a.IsLinkLocalUnicast(), a == loopback6:
		return src6ScopeLink
	case siteLocal6.Contains(a):
		return src6ScopeSite
	case a.IsUnspecified():
		return -1
	}
	return src6ScopeGlobal
}

// addrLabels6 is the default address label table (ip6addrlbl_init_table):
// the longest prefix holding an address gives its label.
var addrLabels6 = []struct {
	p     netip.Prefix
	label int
}{
	{netip.MustParsePrefix("::1/128"), 0},
	{netip.MustParsePrefix("::ffff:0:0/96"), 4},
	{netip.MustParsePrefix("::/96"), 3},
	{netip.MustParsePrefix("2001:10::/28"), 7},
	{netip.MustParsePrefix("2001::/32"), 6},
	{netip.MustParsePrefix("2002::/16"), 2},
	{netip.MustParsePrefix("3ffe::/16"), 12},
	{netip.MustParsePrefix("fec0::/10"), 11},
	{netip.MustParsePrefix("fc00::/7"), 5},
	{netip.MustParsePrefix("::/0"), 1},
}

func addrLabel6(a netip.Addr) int {
	for _, l := range addrLabels6 {
		if l.p.Contains(a) {
			return l.label
		}
	}
	return 1
}

var orchid6 = netip.MustParsePrefix("2001:10::/28")

// commonBits6 is ipv6_addr_diff: the length of the common prefix.
func commonBits6(a, b netip.Addr) int {
	x, y := a.As16(), b.As16()
	for i := range 128 {
		if x[i/8]>>(7-i%8)&1 != y[i/8]>>(7-i%8)&1 {
			return i
		}
	}
	return 128
}

// saddrScore6 is one candidate's score under ipv6_get_saddr_eval's
// rules, in their order; the rules this model cannot tell apart (home
// address, privacy, optimistic: no address is a home address, temporary
// or optimistic) are left out.
func saddrScore6(a *inet6Addr, d *Device, dst netip.Addr, dstScope int, dstDev *Device) [7]int {
	var s [7]int
	if a.addr == dst {
		s[0] = 1 // the destination itself
	}
	// the narrowest scope that reaches the destination, else the widest
	if sc := srcScope6(a.addr); sc >= dstScope {
		s[1] = -sc
	} else {
		s[1] = sc - 128
	}
	// not deprecated (ipv6_saddr_preferred: loopback, mapped and
	// v4-compatible addresses always count as preferred)
	if a.flags&uapi.IFA_F_DEPRECATED == 0 || a.addr.IsLoopback() || a.addr.Is4In6() || compatV4(a.addr) {
		s[2] = 1
	}
	if dstDev == nil || d == dstDev {
		s[3] = 1 // the outgoing device's
	}
	if addrLabel6(a.addr) == addrLabel6(dst) {
		s[4] = 1
	}
	if orchid6.Contains(a.addr) == orchid6.Contains(dst) {
		s[5] = 1
	}
	s[6] = min(commonBits6(a.addr, dst), a.plen) // longest match, up to the prefix
	return s
}

// devGetSaddr6 is ipv6_dev_get_saddr for a route through dev: for a
// multicast destination or one of link scope or narrower, the candidates
// are dev's addresses, else every device's in list order; tentative
// addresses are no candidates. The first best candidate wins (a later
// one must score higher on some rule). false: no candidate
// (EADDRNOTAVAIL: the answer has no prefsrc).
func (n *Netns) devGetSaddr6(dev *Device, dst netip.Addr) (netip.Addr, bool) {
	dstScope := srcScope6(dst)
	var best *inet6Addr
	var hi [7]int
	consider := func(d *Device) {
		if d.in6 == nil {
			return
		}
		for _, a := range d.in6.addrs {
			if a.flags&uapi.IFA_F_TENTATIVE != 0 || a.addr.IsUnspecified() || a.addr.IsMulticast() {
				continue
			}
			s := saddrScore6(a, d, dst, dstScope, dev)
			if best == nil || scoreAbove(s, hi) {
				best, hi = a, s
			}
		}
	}
	if dev != nil && (dst.IsMulticast() || dstScope <= src6ScopeLink) {
		consider(dev)
	} else {
		for d := range n.listed() {
			consider(d)
		}
	}
	if best == nil {
		return netip.Addr{}, false
	}
	return best.addr, true
}

// scoreAbove: s beats hi at the first rule where they differ.
func scoreAbove(s, hi [7]int) bool {
	for i := range s {
		if s[i] != hi[i] {
			return s[i] > hi[i]
		}
	}
	return false
}

// compatV4 is IPV6_ADDR_COMPATv4: ::a.b.c.d but :: and ::1.
func compatV4(a netip.Addr) bool {
	b := a.As16()
	for _, x := range b[:12] {
		if x != 0 {
			return false
		}
	}
	return a.Is6() && !a.IsUnspecified() && !a.IsLoopback()
}
