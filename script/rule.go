package script

import (
	"net/netip"
	"strings"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

var ruleVerbs = []struct{ name, canon string }{
	// do_iprule's order: "a" is add, "d" delete, "f" flush.
	{"add", "add"}, {"delete", "del"}, {"flush", "flush"}, {"list", "show"}, {"show", "show"},
	{"lst", "show"}, {"save", ""}, {"restore", ""}, {"help", ""},
}

// iprule_modify's keywords in its order; the rest of a line's words are
// rule types (actions).
var ruleKeywords = []kw{
	{"not", false, "not"}, {"from", false, "from"}, {"to", false, "to"},
	{"preference", true, "pref"}, {"order", true, "pref"}, {"priority", true, "pref"},
	{"tos", false, "tos"}, {"dsfield", true, "tos"}, {"fwmark", false, "fwmark"},
	{"realms", true, ""}, {"protocol", true, "proto"}, {"tun_id", true, ""},
	{"table", true, "table"}, {"lookup", false, "table"},
	{"suppress_prefixlength", true, "suppress"}, {"sup_pl", false, "suppress"},
	{"suppress_ifgroup", true, ""}, {"sup_group", false, ""},
	{"dev", false, "iif"}, {"iif", false, "iif"}, {"oif", false, "oif"},
	{"l3mdev", false, ""}, {"uidrange", false, ""}, {"nat", false, ""}, {"map-to", true, ""},
	{"ipproto", false, ""}, {"sport", false, ""}, {"dport", false, ""},
}

// ruleActions are the rule types the model takes, by rtnl_rtntype_a2n's
// names (goto and nop are matched as abbreviations, the others exactly).
var ruleActions = map[string]uint8{
	"blackhole": rtnl.RuleActBlackhole, "unreachable": rtnl.RuleActUnreachable,
	"prohibit": rtnl.RuleActProhibit,
}

func parseRuleCmd(p *words, verb string, family int) (rtnl.Op, *LineError) {
	v, err := pickVerb("rule", verb, ruleVerbs)
	if err != nil {
		return nil, err
	}
	p.ctx = "rule " + v
	if family == 0 {
		family = 4 // iprule_modify's AF_UNSPEC becomes AF_INET
	}
	if v == "flush" {
		if p.more() {
			return nil, p.unsupported(p.peek())
		}
		return rtnl.RuleFlush{Family: family}, nil
	}
	if v == "show" {
		if family == 4 {
			family = 0 // rule show is IPv4 unless -6
		}
		return parseShow(p, "rule", family)
	}
	if !p.more() {
		return nil, errf("rule "+v, "requires arguments")
	}
	r := rtnl.Rule{Family: family}
	seen := keywords{}
	once := seen.once
	for p.more() {
		w := p.take()
		var k kw
		found := false
		for _, c := range ruleKeywords {
			if w == c.name || (c.prefix && matches(w, c.name)) {
				k, found = c, true
				break
			}
		}
		if found && k.id == "" {
			return nil, p.unsupported(w)
		}
		if found {
			if err := p.ruleKeyword(&r, k.id, w, once); err != nil {
				return nil, err
			}
			continue
		}
		if err := p.ruleAction(&r, w, once); err != nil {
			return nil, err
		}
	}
	if v == "add" {
		return rtnl.RuleAdd{Rule: r}, nil
	}
	return rtnl.RuleDel{Rule: r}, nil
}

// ruleKeyword reads the value of one selector keyword into r.
func (p *words) ruleKeyword(r *rtnl.Rule, id, w string, once func(kw, val string) *LineError) *LineError {
	if id == "not" {
		r.Not = true
		return once("not", w)
	}
	if id == "iif" || id == "oif" {
		// iproute2 checks the name only (check_ifname); the kernel takes
		// a name no device has and keeps the rule detached.
		n, err := p.name(w)
		if err != nil {
			return err
		}
		if id == "iif" {
			r.Iif = n
		} else {
			r.Oif = n
		}
		return once(id, n)
	}
	s, err := p.arg(w)
	if err != nil {
		return err
	}
	if err := once(id, s); err != nil {
		return err
	}
	switch id {
	case "from", "to":
		pf, ok := rulePrefix(s, r.Family)
		if !ok {
			return errf(s, "invalid prefix")
		}
		if id == "from" {
			r.Src = pf
		} else {
			r.Dst = pf
		}
	case "pref":
		v, ok := parseUint(s, 0xffffffff)
		if !ok {
			return errf(s, "preference value is invalid")
		}
		pr := uint32(v)
		r.Pref = &pr
	case "tos":
		n, ok := parseDSField(s)
		if !ok {
			return errf(s, "TOS value is invalid (hex 00..ff or an rt_dsfield name)")
		}
		r.TOS = uint8(n)
	case "fwmark":
		m, mask, hasMask := strings.Cut(s, "/")
		v, ok := parseUint(m, 0xffffffff)
		if !ok {
			return errf(s, "fwmark value is invalid")
		}
		fm := uint32(v)
		r.Fwmark = &fm
		if hasMask {
			v, ok := parseUint(mask, 0xffffffff)
			if !ok {
				return errf(s, "fwmask value is invalid")
			}
			fk := uint32(v)
			r.Fwmask = &fk
		}
	case "proto":
		v, ok := protos.parse(s)
		if !ok {
			return errf(s, "%s", protos.rangeMsg())
		}
		pr := uint8(v)
		r.Protocol = &pr
	case "table":
		v, ok := tables.parse(s)
		if !ok {
			return errf(s, "invalid table ID")
		}
		t := uint32(v)
		r.Table = &t
	case "suppress":
		v, ok := parseUint(s, 0x7fffffff)
		if !ok {
			return errf(s, "suppress_prefixlength value is invalid")
		}
		pl := int32(v)
		r.SuppressPrefixlen = &pl
	}
	return nil
}

// ruleAction reads a rule type: `[type] goto N`, `nop`, or blackhole,
// unreachable, prohibit.
func (p *words) ruleAction(r *rtnl.Rule, w string, once func(kw, val string) *LineError) *LineError {
	if w == "type" {
		s, err := p.arg(w)
		if err != nil {
			return err
		}
		w = s
	}
	if err := once("type", w); err != nil {
		return err
	}
	switch {
	case matches(w, "goto"):
		s, err := p.arg(w)
		if err != nil {
			return err
		}
		v, ok := parseUint(s, 0xffffffff)
		if !ok {
			return errf(s, "invalid goto target")
		}
		g := uint32(v)
		r.Action, r.Goto = rtnl.RuleActGoto, &g
	case matches(w, "nop"):
		r.Action = rtnl.RuleActNop
	default:
		a, ok := ruleActions[w]
		if !ok {
			if _, isType := rtnl.RouteTypeByName(w); isType {
				return errf(w, "rule type is not supported (goto, nop, blackhole, unreachable, prohibit)")
			}
			return p.unknown(w)
		}
		r.Action = a
	}
	return nil
}

// rulePrefix is get_prefix for a rule's from/to: `all`, `any` and
// `default` are the family's /0; ADDR[/LEN] keeps its host bits.
func rulePrefix(s string, family int) (netip.Prefix, bool) {
	switch s {
	case "all", "any", "default":
		if family == 6 {
			return netip.PrefixFrom(netip.IPv6Unspecified(), 0), true
		}
		return netip.PrefixFrom(netip.IPv4Unspecified(), 0), true
	}
	pf, _, ok := parsePrefix(s)
	return pf, ok
}
