package script

import (
	"net/netip"
	"strings"
	"unicode"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

var addrVerbs = []struct{ name, canon string }{
	// do_ipaddr's order.
	{"add", "add"}, {"change", "change"}, {"chg", "change"}, {"replace", "replace"}, {"delete", "del"},
	{"list", "show"}, {"show", "show"}, {"lst", "show"}, {"flush", "flush"}, {"save", ""},
	{"showdump", ""}, {"restore", ""}, {"help", ""},
}

func parseAddrCmd(p *words, verb string, family int) (rtnl.Op, *LineError) {
	v, err := pickVerb("addr", verb, addrVerbs)
	if err != nil {
		return nil, err
	}
	p.ctx = "addr " + v
	if v == "flush" {
		return parseAddrFlush(p, family)
	}
	if v == "show" {
		return parseShow(p, "addr", family)
	}
	if err := noFamily(family, p.ctx); err != nil {
		return nil, err
	}
	a, localLen, err := parseAddrArgs(p)
	if err != nil {
		return nil, err
	}
	switch v {
	case "add":
		return rtnl.AddrAdd{Addr: a}, nil
	case "replace":
		return rtnl.AddrAdd{Addr: a, Mode: rtnl.AddrModeReplace}, nil
	case "change":
		return rtnl.AddrAdd{Addr: a, Mode: rtnl.AddrModeChange}, nil
	}
	// ipaddr_modify: an IPv4 delete whose local address has no /LEN and
	// no peer sends no IFA_ADDRESS (iproute2 warns of a "wildcard
	// deletion"); the kernel then matches the local address alone.
	a.Wildcard = a.Prefix.Addr().Is4() && !localLen && !a.Peer.IsValid()
	return rtnl.AddrDel{Addr: a}, nil
}

// looksLikeWord tells an unknown keyword from a bad address in messages.
func looksLikeWord(w string) bool {
	if strings.ContainsAny(w, ".:/") {
		return false
	}
	for _, r := range w {
		if unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// validLabel: an address label is an interface-name-sized string (IFNAMSIZ).
func validLabel(s string) bool {
	if s == "" || len(s) >= 16 {
		return false
	}
	return !strings.ContainsAny(s, blanks+"\v\f\x00")
}

// parseAddrArgs is ipaddr_modify's argument loop; localLen says whether
// the local address was written with /LEN.
func parseAddrArgs(p *words) (a rtnl.Addr, localLen bool, err *LineError) {
	var localWord, peerWord, brdWord string
	seen := keywords{}
	once := seen.once
	for p.more() {
		w := p.take()
		switch {
		case w == "peer" || w == "remote":
			s, err := p.arg(w)
			if err != nil {
				return a, localLen, err
			}
			if err := once("peer", s); err != nil {
				return a, localLen, err
			}
			pf, _, ok := parsePrefix(s)
			if !ok {
				return a, localLen, errf(s, "invalid peer prefix")
			}
			a.Peer, peerWord = pf, s
		case matches(w, "broadcast") || w == "brd":
			s, err := p.arg("broadcast")
			if err != nil {
				return a, localLen, err
			}
			if err := once("broadcast", s); err != nil {
				return a, localLen, err
			}
			switch s {
			case "+":
				a.BroadcastAuto = true
			case "-":
				return a, localLen, errf(s, `"broadcast -" is not supported`)
			default:
				b, ok := parseAddr(s)
				if !ok {
					return a, localLen, errf(s, "invalid broadcast address")
				}
				a.Broadcast = b
			}
			brdWord = s
		case w == "anycast":
			return a, localLen, p.unsupported(w)
		case w == "scope":
			v, err := p.namedOnce("scope", scopes, once)
			if err != nil {
				return a, localLen, err
			}
			sc := uint8(v)
			a.Scope = &sc
		case w == "dev":
			n, err := p.name(w)
			if err != nil {
				return a, localLen, err
			}
			if err := once("dev", n); err != nil {
				return a, localLen, err
			}
			a.Dev = n
		case w == "label":
			l, err := p.arg(w)
			if err != nil {
				return a, localLen, err
			}
			if !validLabel(l) {
				return a, localLen, errf(l, "invalid label (1..15 bytes, no blanks)")
			}
			if err := once("label", l); err != nil {
				return a, localLen, err
			}
			a.Label = l
		case matches(w, "valid_lft") || matches(w, "preferred_lft"):
			kw := "valid_lft"
			if matches(w, "preferred_lft") {
				kw = "preferred_lft"
			}
			v, err := p.arg(kw)
			if err != nil {
				return a, localLen, err
			}
			if err := once(kw, v); err != nil {
				return a, localLen, err
			}
			lft := uint32(foreverLft)
			if v != "forever" {
				n, ok := parseUint(v, 0xffffffff)
				if !ok {
					return a, localLen, errf(v, "invalid %q value (seconds or forever)", kw)
				}
				lft = uint32(n)
			}
			if kw == "valid_lft" {
				a.ValidLft = &lft
			} else {
				a.PreferredLft = &lft
			}
		case w == "nodad":
			a.NoDAD = true
		case w == "home" || w == "optimistic" || w == "mngtmpaddr" || w == "autojoin":
			return a, localLen, p.unsupported(w)
		case w == "noprefixroute":
			if err := once("noprefixroute", w); err != nil {
				return a, localLen, err
			}
			a.NoPrefixRoute = true
		case w == "metric" || w == "priority" || w == "preference":
			// get_u32 with base 0; given twice, the last counts.
			v, err := p.number("metric", 0, 1<<32-1)
			if err != nil {
				return a, localLen, err
			}
			m := uint32(v)
			a.Metric = &m
		case w == "proto" || w == "protocol":
			return a, localLen, p.unsupported(w)
		default:
			if w == "local" {
				s, err := p.arg(w)
				if err != nil {
					return a, localLen, err
				}
				w = s
			} else if localWord != "" {
				return a, localLen, p.unknown(w)
			}
			if localWord != "" {
				return a, localLen, dup("local", w)
			}
			pf, explicit, ok := parsePrefix(w)
			if !ok {
				if looksLikeWord(w) {
					return a, localLen, p.unknown(w)
				}
				return a, localLen, errf(w, "invalid address prefix")
			}
			a.Prefix, localLen, localWord = pf, explicit, w
		}
	}
	if a.Dev == "" {
		return a, localLen, errf(p.ctx, `missing "dev NAME"`)
	}
	if localWord == "" {
		return a, localLen, errf(p.ctx, "missing address")
	}
	fam := familyOf(a.Prefix.Addr())
	if peerWord != "" && familyOf(a.Peer.Addr()) != fam {
		return a, localLen, errf(peerWord, "address family differs from the local address")
	}
	if brdWord != "" {
		if fam != 4 {
			return a, localLen, errf(brdWord, "broadcast can be set only for IPv4 addresses")
		}
		if a.Broadcast.IsValid() && !a.Broadcast.Is4() {
			return a, localLen, errf(brdWord, "address family differs from the local address")
		}
	}
	if a.Label != "" && !strings.HasPrefix(a.Label, a.Dev) {
		return a, localLen, errf(a.Label, `"label" must begin with the "dev" name`)
	}
	if a.ValidLft != nil || a.PreferredLft != nil {
		// ipaddr_modify: the one not given is forever; it refuses a
		// zero valid_lft and a preferred_lft above the valid one.
		valid, pref := uint32(foreverLft), uint32(foreverLft)
		if a.ValidLft != nil {
			valid = *a.ValidLft
		}
		if a.PreferredLft != nil {
			pref = *a.PreferredLft
		}
		if valid == 0 {
			return a, localLen, errf("valid_lft", "valid_lft is zero")
		}
		if valid < pref {
			return a, localLen, errf("preferred_lft", "preferred_lft is greater than valid_lft")
		}
	}
	return a, localLen, nil
}

// foreverLft is INFINITY_LIFE_TIME.
const foreverLft = 0xffffffff

// parseAddrFlush is ipaddr_list_flush_or_save's arguments for flush.
func parseAddrFlush(p *words, family int) (rtnl.Op, *LineError) {
	op := rtnl.AddrFlush{Family: family}
	var toWord string
	for p.more() {
		w := p.take()
		switch {
		case w == "to":
			s, err := p.arg(w)
			if err != nil {
				return nil, err
			}
			if toWord != "" {
				return nil, dup("to", s)
			}
			pf, ok := flushPrefix(s, family)
			if !ok {
				return nil, errf(s, "invalid prefix")
			}
			op.To, toWord = pf, s
		case w == "label":
			l, err := p.arg(w)
			if err != nil {
				return nil, err
			}
			if op.Label != "" {
				return nil, dup("label", l)
			}
			if l == "" || strings.ContainsAny(l, blanks) {
				return nil, errf(l, "invalid label pattern")
			}
			op.Label = l
		case w == "scope":
			// Given twice, the last counts; "all" is any scope.
			s, err := p.arg(w)
			if err != nil {
				return nil, err
			}
			if s == "all" {
				op.Scope = nil
				break
			}
			v, ok := scopes.parse(s)
			if !ok {
				return nil, errf(s, `invalid "scope"`)
			}
			sc := uint8(v)
			op.Scope = &sc
		case w == "primary" || w == "secondary":
			sec := w == "secondary"
			op.Secondary = &sec
		case w == "up" || w == "master" || w == "vrf" || w == "type" ||
			w == "metric" || w == "nomaster" ||
			w == "temporary" || w == "dynamic" || w == "permanent" || w == "tentative" ||
			w == "deprecated" || w == "dadfailed" || w == "home" || w == "nodad" ||
			w == "mngtmpaddr" || w == "noprefixroute" || w == "autojoin" || w == "optimistic" ||
			strings.HasPrefix(w, "-"):
			return nil, p.unsupported(w)
		default:
			n, err := p.devName(w, op.Dev != "")
			if err != nil {
				return nil, err
			}
			op.Dev = n
		}
	}
	if op.Dev == "" {
		return nil, errf(p.ctx, `missing "dev NAME"`)
	}
	if op.To.IsValid() {
		f := familyOf(op.To.Addr())
		if family != 0 && family != f {
			return nil, errf(toWord, "is not an IPv%d prefix (-%d given)", family, family)
		}
	}
	return op, nil
}

// defaultPrefix is the default route's prefix in a family (4 or 6; any
// other value is 4, as iproute2 falls back to AF_INET).
func defaultPrefix(family int) netip.Prefix {
	if family == 6 {
		return netip.PrefixFrom(netip.IPv6Unspecified(), 0)
	}
	return netip.PrefixFrom(netip.IPv4Unspecified(), 0)
}

// flushPrefix is a prefix in a flush selector, where "default" is the
// default route's prefix: 0.0.0.0/0, or ::/0 under -6.
func flushPrefix(s string, family int) (netip.Prefix, bool) {
	if s == "default" {
		return defaultPrefix(family), true
	}
	pf, _, ok := parsePrefix(s)
	return pf, ok
}
