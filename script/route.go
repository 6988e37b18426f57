package script

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

var routeVerbs = []struct{ name, canon string }{
	// do_iproute's order: "a" is add, "ap" append, "r" replace, "d" delete,
	// "f" flush.
	{"add", "add"}, {"change", "change"}, {"chg", "change"}, {"replace", "replace"}, {"prepend", "prepend"},
	{"append", "append"}, {"test", ""}, {"delete", "del"}, {"list", "show"}, {"show", "show"},
	{"lst", "show"}, {"get", "get"}, {"flush", "flush"}, {"save", ""}, {"restore", ""},
	{"showdump", ""}, {"help", ""},
}

// kw is a keyword of an ordered table: matched exactly or, when prefix is
// set, as iproute2's matches() does. An empty id means known to iproute2
// but not supported here.
type kw struct {
	name   string
	prefix bool
	id     string
}

// kwTable is an ordered keyword table split by first letter: a word can
// only match a keyword that starts with its own first letter, so the
// search reads those alone, still in table order.
type kwTable [26][]kw

func newKwTable(list []kw) *kwTable {
	var t kwTable
	for _, k := range list {
		t[k.name[0]-'a'] = append(t[k.name[0]-'a'], k)
	}
	return &t
}

func lookup(t *kwTable, w string) (kw, bool) {
	if w == "" || w[0] < 'a' || w[0] > 'z' {
		return kw{}, false // every keyword starts with a lowercase letter (an address does not)
	}
	for _, k := range t[w[0]-'a'] {
		if w == k.name || (k.prefix && matches(w, k.name)) {
			return k, true
		}
	}
	return kw{}, false
}

// iproute_modify's keywords in its order.
var routeKeywords = newKwTable([]kw{
	{"src", false, "src"}, {"as", false, ""}, {"via", false, "via"}, {"from", false, ""},
	{"tos", false, "tos"}, {"dsfield", true, "tos"}, {"expires", false, ""},
	{"metric", true, "metric"}, {"priority", true, "metric"}, {"preference", false, "metric"},
	{"scope", false, "scope"}, {"mtu", false, "mtu"}, {"hoplimit", false, ""}, {"advmss", false, ""},
	{"reordering", true, ""}, {"rtt", false, ""}, {"rto_min", true, ""}, {"window", false, ""},
	{"cwnd", false, ""}, {"initcwnd", false, ""}, {"initrwnd", false, ""}, {"features", false, ""},
	{"quickack", false, ""}, {"congctl", false, ""}, {"rttvar", false, ""}, {"ssthresh", false, ""},
	{"realms", true, "realms"}, {"onlink", false, "onlink"}, {"nexthop", false, "nexthop"}, {"nhid", false, "nhid"},
	{"protocol", true, "proto"}, {"table", true, "table"}, {"vrf", true, ""},
	{"dev", false, "dev"}, {"oif", false, "dev"}, {"pref", false, ""}, {"encap", false, ""},
	{"ttl-propagate", false, ""}, {"fastopen_no_cookie", false, ""}, {"lock", false, ""},
})

// iproute_list_flush_or_save's keywords in its order (the prefix forms
// come after them).
var flushKeywords = newKwTable([]kw{
	{"table", true, "table"}, {"vrf", true, ""}, {"cached", true, ""}, {"cloned", true, ""},
	{"tos", false, "tos"}, {"dsfield", true, "tos"}, {"protocol", true, "proto"}, {"scope", true, "scope"},
	{"type", true, "type"}, {"dev", false, "dev"}, {"oif", false, "dev"}, {"iif", false, ""},
	{"mark", false, ""}, {"metric", true, "metric"}, {"priority", true, "metric"}, {"preference", false, "metric"},
	{"via", false, "via"}, {"src", false, "src"}, {"realms", true, "realms"},
	{"from", true, ""},
})

func parseRouteCmd(p *words, verb string, family int) (rtnl.Op, *LineError) {
	v, err := pickVerb("route", verb, routeVerbs)
	if err != nil {
		return nil, err
	}
	p.ctx = "route " + v
	if v == "flush" {
		return parseRouteFlush(p, family)
	}
	if v == "show" {
		return parseShow(p, "route", family)
	}
	if v == "get" {
		return parseRouteGet(p, family)
	}
	r, err := parseRouteArgs(p, family)
	if err != nil {
		return nil, err
	}
	switch v {
	case "add":
		return rtnl.RouteAdd{Route: r}, nil
	case "del":
		return rtnl.RouteDel{Route: r}, nil
	case "replace":
		return rtnl.RouteReplace{Route: r}, nil
	case "prepend":
		return rtnl.RoutePrepend{Route: r}, nil
	case "change":
		return rtnl.RouteChange{Route: r}, nil
	}
	return rtnl.RouteAppend{Route: r}, nil
}

func familyWord(f int) string { return fmt.Sprintf("-%d", f) }

// parseRouteArgs is iproute_modify's argument loop.
func parseRouteArgs(p *words, family int) (rtnl.Route, *LineError) {
	var r rtnl.Route
	var dstWord, viaWord, srcWord string
	dstDefault := false
	// viaFamily: `via inet|inet6 ADDR` named the family, which may then
	// differ from the route's (RTA_VIA); viaFirst: the gateway came
	// before the prefix, so iproute2 took the route's family from it.
	viaFamily, viaFirst := false, false
	var nhFamily []bool
	seen := keywords{}
	once := seen.once
	for p.more() {
		w := p.take()
		k, ok := lookup(routeKeywords, w)
		if ok && k.id == "" {
			return r, p.unsupported(w)
		}
		switch {
		case ok && k.id == "src":
			s, err := p.arg(w)
			if err != nil {
				return r, err
			}
			a, ok := parseAddr(s)
			if !ok {
				return r, errf(s, "invalid address")
			}
			if err := once("src", s); err != nil {
				return r, err
			}
			r.Src, srcWord = a, s
		case ok && k.id == "via":
			s, err := p.arg(w)
			if err != nil {
				return r, err
			}
			want := 0
			switch s {
			case "inet":
				want = 4
			case "inet6":
				want = 6
			case "link", "mpls", "bridge", "ipx", "dnet":
				return r, errf(s, "via family is not supported")
			}
			if want != 0 {
				if s, err = p.arg("via " + s); err != nil {
					return r, err
				}
			}
			a, ok := parseAddr(s)
			if !ok || (want != 0 && familyOf(a) != want) {
				return r, errf(s, "invalid gateway address")
			}
			if err := once("via", s); err != nil {
				return r, err
			}
			r.Via, viaWord = a, s
			viaFamily, viaFirst = want != 0, dstWord == ""
		case ok && k.id == "dev":
			n, err := p.name(w)
			if err != nil {
				return r, err
			}
			if err := once("dev", n); err != nil {
				return r, err
			}
			r.Dev = n
		case ok && k.id == "table":
			v, err := p.namedOnce("table", tables, once)
			if err != nil {
				return r, err
			}
			r.Table, r.TableUnspec = uint32(v), v == 0
		case ok && k.id == "proto":
			v, err := p.namedOnce("proto", protos, once)
			if err != nil {
				return r, err
			}
			pr := uint8(v)
			r.Proto = &pr
		case ok && k.id == "scope":
			v, err := p.namedOnce("scope", scopes, once)
			if err != nil {
				return r, err
			}
			sc := uint8(v)
			r.Scope = &sc
		case ok && k.id == "tos":
			v, err := p.arg(w)
			if err != nil {
				return r, err
			}
			n, ok := parseDSField(v)
			if !ok {
				return r, errf(v, "invalid \"tos\" value (hex 00..ff or an rt_dsfield name)")
			}
			if err := once("tos", v); err != nil {
				return r, err
			}
			r.TOS = uint8(n)
		case ok && k.id == "metric":
			v, err := p.numberOnce("metric", 0, 0xffffffff, once)
			if err != nil {
				return r, err
			}
			m := uint32(v)
			r.Metric = &m
		case ok && k.id == "mtu":
			// `mtu [lock] N`: get_unsigned, any 32-bit value (the kernel
			// clamps it).
			s, err := p.arg(w)
			if err != nil {
				return r, err
			}
			lock := s == "lock"
			if lock {
				if s, err = p.arg("mtu lock"); err != nil {
					return r, err
				}
			}
			v, ok := parseUint(s, 0xffffffff)
			if !ok {
				return r, errf(s, `invalid "mtu" value (0..4294967295)`)
			}
			if err := once("mtu", s); err != nil {
				return r, err
			}
			m := uint32(v)
			r.MTU, r.MTULock = &m, lock
		case ok && k.id == "realms":
			s, err := p.arg(w)
			if err != nil {
				return r, err
			}
			v, ok := parseRealms(s)
			if !ok {
				return r, errf(s, `invalid "realm" value ([FROM/]TO, each 0..255 or %s, or a number)`, realms.names[0].name)
			}
			if err := once("realms", s); err != nil {
				return r, err
			}
			r.Realms = v
		case ok && k.id == "onlink":
			r.Onlink = true
		case ok && k.id == "nhid":
			v, err := p.numberOnce(w, 1, 0xffffffff, once)
			if err != nil {
				return r, err
			}
			r.NhID = uint32(v)
		case ok && k.id == "nexthop":
			// The nexthop groups end the line: iproute2 reads no route
			// option after them.
			nhs, fams, err := parseNexthops(p)
			if err != nil {
				return r, err
			}
			r.Nexthops, nhFamily = nhs, fams
		default:
			// [to] [TYPE] PREFIX
			if w == "to" {
				s, err := p.arg(w)
				if err != nil {
					return r, err
				}
				w = s
			}
			if w != "" && (w[0] < '0' || w[0] > '9') {
				if contains(otherTypes, w) {
					return r, errf(w, "route type is not supported (%v)", routeTypes)
				}
				if contains(routeTypes, w) {
					if r.Type != "" {
						return r, dup("type", w)
					}
					r.Type = w
					s, err := p.arg(w)
					if err != nil {
						return r, err
					}
					w = s
				}
			}
			if dstWord != "" {
				if looksLikeWord(w) && w != "default" {
					return r, p.unknown(w)
				}
				return r, dup("to", w)
			}
			switch w {
			case "default":
				dstDefault = true
			case "all", "any":
				return r, errf(w, `not supported as a route prefix (use "default")`)
			default:
				pf, _, ok := parsePrefix(w)
				if !ok {
					if looksLikeWord(w) {
						return r, p.unknown(w)
					}
					return r, errf(w, "invalid prefix")
				}
				r.Dst = pf
			}
			dstWord = w
		}
	}
	if dstWord == "" {
		return r, errf(p.ctx, "missing PREFIX (or default)")
	}
	// The family: -4/-6, else the first address given, as iproute2 sets
	// rtm_family from the first address it parses; "default" follows it.
	fam := family
	if fam == 0 && viaFirst && !dstDefault {
		fam = familyOf(r.Via)
	}
	if fam == 0 && !dstDefault {
		fam = familyOf(r.Dst.Addr())
	}
	if fam == 0 && viaWord != "" {
		fam = familyOf(r.Via)
	}
	if fam == 0 && srcWord != "" {
		fam = familyOf(r.Src)
	}
	if fam == 0 && len(r.Nexthops) > 0 && r.Nexthops[0].Via.IsValid() {
		fam = familyOf(r.Nexthops[0].Via)
	}
	if fam == 0 {
		fam = 4
	}
	if dstDefault {
		r.Dst = defaultPrefix(fam)
	}
	if familyOf(r.Dst.Addr()) != fam {
		return r, errf(dstWord, "is not an IPv%d prefix", fam)
	}
	if viaWord != "" && familyOf(r.Via) != fam && (!viaFamily || fam == 6) {
		// An IPv4 gateway of an IPv6 route would be RTA_VIA, which
		// IPv6 refuses; the model does not send it.
		if viaFamily {
			return r, errf(viaWord, "an IPv4 gateway (via inet) on an IPv6 route is not supported")
		}
		return r, errf(viaWord, "gateway address family differs from the route's (IPv%d)", fam)
	}
	if srcWord != "" && familyOf(r.Src) != fam {
		return r, errf(srcWord, "source address family differs from the route's (IPv%d)", fam)
	}
	if fam == 6 && (r.Onlink || r.MTU != nil || r.Realms != 0) {
		return r, errf(dstWord, "onlink, mtu and realms are not supported for IPv6 routes")
	}
	if r.NhID != 0 && (r.Type != "" || r.Src.IsValid() || r.Onlink || r.MTU != nil || r.Realms != 0) {
		return r, errf("nhid", "nhid with a route type, src, onlink, mtu or realms is not supported")
	}
	for i, nh := range r.Nexthops {
		if nh.Via.IsValid() && familyOf(nh.Via) != fam && (!nhFamily[i] || fam == 6) {
			if nhFamily[i] {
				return r, errf(nh.Via.String(), "an IPv4 gateway (via inet) on an IPv6 route is not supported")
			}
			return r, errf(nh.Via.String(), "nexthop gateway address family differs from the route's (IPv%d)", fam)
		}
		if fam == 6 && nh.Onlink {
			return r, errf("onlink", "onlink is not supported for IPv6 routes")
		}
	}
	return r, nil
}

// parseNexthops is parse_nexthops: the words after the first "nexthop",
// each group `nexthop [via ADDR] [dev NAME] [weight 1..256] [onlink]`, up
// to the end of the line.
func parseNexthops(p *words) ([]rtnl.Nexthop, []bool, *LineError) {
	var nhs []rtnl.Nexthop
	var fams []bool // the group's via named its family
	w := "nexthop"
	for {
		if !p.more() {
			return nil, nil, errf(w, `unexpected end of line after "nexthop"`)
		}
		var nh rtnl.Nexthop
		named := false
		seen := keywords{}
		for p.more() {
			k := p.peek()
			if k == "nexthop" {
				break
			}
			p.take()
			switch k {
			case "via":
				s, err := p.arg(k)
				if err != nil {
					return nil, nil, err
				}
				want := 0
				switch s {
				case "inet":
					want = 4
				case "inet6":
					want = 6
				}
				if want != 0 {
					if s, err = p.arg("via " + s); err != nil {
						return nil, nil, err
					}
				}
				a, ok := parseAddr(s)
				if !ok || (want != 0 && familyOf(a) != want) {
					return nil, nil, errf(s, "invalid gateway address")
				}
				named = want != 0
				if err := seen.once("via", s); err != nil {
					return nil, nil, err
				}
				nh.Via = a
			case "dev":
				n, err := p.name(k)
				if err != nil {
					return nil, nil, err
				}
				if err := seen.once("dev", n); err != nil {
					return nil, nil, err
				}
				nh.Dev = n
			case "weight":
				v, err := p.numberOnce("weight", 1, 256, seen.once)
				if err != nil {
					return nil, nil, err
				}
				nh.Weight = int(v)
			case "onlink":
				nh.Onlink = true
			case "realms", "encap", "as":
				return nil, nil, errf(k, "not supported in a nexthop")
			default:
				if matches(k, "realms") {
					return nil, nil, errf(k, "not supported in a nexthop")
				}
				return nil, nil, errf(k, `"nexthop" or end of line is expected instead of %q`, k)
			}
		}
		nhs = append(nhs, nh)
		fams = append(fams, named)
		if !p.more() {
			return nhs, fams, nil
		}
		w = p.take() // "nexthop"
	}
}

// parseRouteFlush is iproute_list_flush_or_save's selector for flush.
func parseRouteFlush(p *words, family int) (rtnl.Op, *LineError) {
	op := rtnl.RouteFlush{Family: family}
	if !p.more() {
		// iproute_list_flush_or_save refuses a flush of everything.
		return nil, errf("route flush", `"ip route flush" requires arguments`)
	}
	var dstWord string
	seen := keywords{}
	once := seen.once
	for p.more() {
		w := p.take()
		k, ok := lookup(flushKeywords, w)
		if ok && k.id == "" {
			return nil, p.unsupported(w)
		}
		switch {
		case ok && k.id == "table":
			s, err := p.arg("table")
			if err != nil {
				return nil, err
			}
			if err := once("table", s); err != nil {
				return nil, err
			}
			if s == "all" {
				op.Table = rtnl.TableAll
				continue
			}
			v, ok := tables.parse(s)
			if !ok {
				return nil, errf(s, "%s", tables.rangeMsg()+` or all`)
			}
			if v == 0 {
				// iproute2: table 0 (unspec) selects every table.
				v = rtnl.TableAll
			}
			op.Table = uint32(v)
		case ok && k.id == "proto":
			v, err := p.namedOnce("proto", protos, once)
			if err != nil {
				return nil, err
			}
			pr := uint8(v)
			op.Proto = &pr
		case ok && k.id == "dev":
			n, err := p.name(w)
			if err != nil {
				return nil, err
			}
			if err := once("dev", n); err != nil {
				return nil, err
			}
			op.Dev = n
		case ok && k.id == "scope":
			// iproute2 takes the last one; `scope all` is no filter.
			s, err := p.arg("scope")
			if err != nil {
				return nil, err
			}
			if s == "all" {
				op.Scope = nil
				continue
			}
			v, ok := scopes.parse(s)
			if !ok {
				return nil, errf(s, "%s", scopes.rangeMsg()+" or all")
			}
			sc := uint8(v)
			op.Scope = &sc
		case ok && k.id == "tos":
			// The last one counts, as for the selectors below.
			s, err := p.arg(w)
			if err != nil {
				return nil, err
			}
			n, ok := parseDSField(s)
			if !ok {
				return nil, errf(s, "TOS value is invalid")
			}
			tos := uint8(n)
			op.TOS = &tos
		case ok && k.id == "metric":
			s, err := p.arg(w)
			if err != nil {
				return nil, err
			}
			v, ok := parseUint(s, 0xffffffff)
			if !ok {
				return nil, errf(s, `"metric" value is invalid`)
			}
			m := uint32(v)
			op.Metric = &m
		case ok && (k.id == "via" || k.id == "src"):
			s, err := p.arg(w)
			if err != nil {
				return nil, err
			}
			pf, lerr := flushAddrPrefix(p, s, family)
			if lerr != nil {
				return nil, lerr
			}
			if k.id == "via" {
				op.Via = pf
			} else {
				op.Src = pf
			}
		case ok && k.id == "realms":
			s, err := p.arg(w)
			if err != nil {
				return nil, err
			}
			v, ok := parseRealms(s)
			if !ok {
				return nil, errf(s, "invalid realms")
			}
			op.Realms, op.RealmsMask = &v, flushRealmsMask(s, v)
		case ok && k.id == "type":
			// rtnl_rtntype_a2n; the last one counts.
			s, err := p.arg("type")
			if err != nil {
				return nil, err
			}
			ty, ok := rtnl.RouteTypeByName(s)
			if !ok {
				return nil, errf(s, "node type value is invalid")
			}
			op.Type = &ty
		default:
			if matches(w, "to") {
				s, err := p.arg("to")
				if err != nil {
					return nil, err
				}
				w = s
			}
			root, match := false, false
			switch {
			case matches(w, "root"):
				s, err := p.arg("root")
				if err != nil {
					return nil, err
				}
				w, root = s, true
			case matches(w, "match"):
				s, err := p.arg("match")
				if err != nil {
					return nil, err
				}
				w, match = s, true
			case matches(w, "exact"):
				s, err := p.arg("exact")
				if err != nil {
					return nil, err
				}
				w = s
			}
			if dstWord != "" {
				if looksLikeWord(w) && w != "default" {
					return nil, p.unknown(w)
				}
				return nil, dup("to", w)
			}
			pf, ok := flushPrefix(w, family)
			if !ok {
				if looksLikeWord(w) {
					return nil, p.unknown(w)
				}
				return nil, errf(w, "invalid prefix")
			}
			if family != 0 && familyOf(pf.Addr()) != family {
				return nil, errf(w, "is not an IPv%d prefix (-%d given)", family, family)
			}
			op.Dst, op.Root, op.Match, dstWord = pf, root, match, w
		}
	}
	return op, nil
}

// flushAddrPrefix is get_prefix for a flush's `via` or `src`: an address
// or a prefix of the family given (-4/-6), any without. A family word
// before a gateway and the default/any/all words are not modelled.
func flushAddrPrefix(p *words, s string, family int) (netip.Prefix, *LineError) {
	switch s {
	case "inet", "inet6", "link", "mpls", "bridge", "ipx", "dnet", "default", "any", "all":
		return netip.Prefix{}, p.unsupported(s)
	}
	pf, _, ok := parsePrefix(s)
	if !ok || (family != 0 && familyOf(pf.Addr()) != family) {
		return netip.Prefix{}, errf(s, "invalid prefix")
	}
	return pf, nil
}

// flushRealmsMask is the part of RTA_FLOW iproute2's flush filter
// compares for a realms word: not TO when the word is FROM/ with TO 0,
// not FROM when FROM is 0 and the word names none (no slash, or one in
// front).
func flushRealmsMask(s string, v uint32) uint32 {
	mask := ^uint32(0)
	if v&0xffff == 0 && strings.HasSuffix(s, "/") {
		mask &^= 0xffff
	}
	if v&0xffff0000 == 0 && (!strings.Contains(s, "/") || s[0] == '/') {
		mask &^= 0xffff0000
	}
	return mask
}
