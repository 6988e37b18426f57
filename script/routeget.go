package script

import (
	"net/netip"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// iproute_get's keywords in its order; an empty id is known to iproute2
// but not taken here (ports, protocols, VRFs, and
// `connected`, which asks the same question twice).
var getKeywords = []kw{
	{"tos", false, "tos"}, {"dsfield", true, "tos"}, {"from", true, "from"}, {"iif", true, "iif"},
	{"mark", true, "mark"}, {"oif", true, "dev"}, {"dev", false, "dev"}, {"notify", true, ""},
	{"connected", true, ""}, {"vrf", true, ""}, {"uid", true, "uid"}, {"fibmatch", true, "fibmatch"},
	{"as", false, ""}, {"sport", true, ""}, {"dport", true, ""}, {"ipproto", true, ""},
	{"flowlabel", false, ""},
}

func getKeyword(w string) (kw, bool) {
	for _, k := range getKeywords {
		if w == k.name || (k.prefix && matches(w, k.name)) {
			return k, true
		}
	}
	return kw{}, false
}

// getCommonArg takes a route get keyword both families read alike (tos,
// mark, oif or dev, uid, fibmatch) and its argument; false for the
// others.
func getCommonArg(p *words, w string, k kw, op *rtnl.RouteGet) (bool, *LineError) {
	switch k.id {
	case "tos":
		v, err := p.arg(w)
		if err != nil {
			return true, err
		}
		n, ok := parseDSField(v)
		if !ok {
			return true, errf(v, "invalid \"tos\" value (hex 00..ff or an rt_dsfield name)")
		}
		op.TOS = uint8(n)
	case "mark":
		v, err := p.number("mark", 0, 0xffffffff)
		if err != nil {
			return true, err
		}
		op.Mark = uint32(v)
	case "dev":
		n, err := p.name(w)
		if err != nil {
			return true, err
		}
		op.OIF = n
	case "uid":
		v, err := p.number("uid", 0, 0xffffffff)
		if err != nil {
			return true, err
		}
		u := uint32(v)
		op.UID = &u
	case "fibmatch":
		op.FibMatch = true
	default:
		return false, nil
	}
	return true, nil
}

// parseRouteGet is iproute_get's argument loop for an IPv4 destination.
// A later keyword overrides an earlier one, as there.
func parseRouteGet(p *words, family int) (rtnl.Op, *LineError) {
	if family == 6 || (family == 0 && ipv6Words(p)) {
		return parseRouteGet6(p)
	}
	var op rtnl.RouteGet
	for p.more() {
		w := p.take()
		k, ok := getKeyword(w)
		if ok && k.id == "" {
			return nil, p.unsupported(w)
		}
		if ok {
			if done, err := getCommonArg(p, w, k, &op); err != nil {
				return nil, err
			} else if done {
				continue
			}
		}
		switch {
		case ok && k.id == "from":
			s, err := p.arg("from")
			if err != nil {
				return nil, err
			}
			a, err := getAddr(s)
			if err != nil {
				return nil, err
			}
			op.Src = a.Addr()
		case ok && k.id == "iif":
			n, err := p.name(w)
			if err != nil {
				return nil, err
			}
			op.IIF = n
		default:
			if w == "to" {
				s, err := p.arg(w)
				if err != nil {
					return nil, err
				}
				w = s
			}
			if looksLikeWord(w) {
				return nil, p.unknown(w)
			}
			pf, _, ok := parsePrefix(w)
			if !ok {
				return nil, errf(w, "invalid address")
			}
			if !pf.Addr().Is4() {
				return nil, errf(w, "inet address is expected")
			}
			// A prefix length other than 32 draws iproute2's warning and
			// asks for the address as written. A later address replaces
			// an earlier one (the kernel reads the last attribute).
			op.Dst = pf.Addr()
		}
	}
	if !op.Dst.IsValid() {
		return nil, errf(p.ctx, "need at least a destination address")
	}
	return op, nil
}

// getAddr is the IPv4 source of route get, with /32 or no length (the
// kernel refuses a shorter source length).
func getAddr(s string) (netip.Prefix, *LineError) {
	pf, _, ok := parsePrefix(s)
	if !ok {
		return pf, errf(s, "invalid address")
	}
	if !pf.Addr().Is4() {
		return pf, errf(s, "inet address is expected")
	}
	if pf.Bits() != 32 {
		return pf, errf(s, "only an address (or /32) is supported here")
	}
	return pf, nil
}
