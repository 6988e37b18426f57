package script

import (
	"github.com/rtnlsim/rtnlsim/rtnl"
)

// ipv6Words says whether the rest of a route get line has an IPv6
// address: without -4 or -6 iproute2 takes the family from the addresses
// (no device name holds a ':').
func ipv6Words(p *words) bool {
	for _, w := range p.w[p.i:] {
		if pf, _, ok := parsePrefix(w); ok && pf.Addr().Is6() {
			return true
		}
	}
	return false
}

// parseRouteGet6 is iproute_get's argument loop for `-6 route get`: the
// destination, from, oif (or dev), tos (rtm_tos: the flow's traffic
// class), mark, uid and fibmatch; the keywords parseRouteGet refuses are
// refused here too.
func parseRouteGet6(p *words) (rtnl.Op, *LineError) {
	var op rtnl.RouteGet
	addr6 := func(s string) *LineError {
		pf, _, ok := parsePrefix(s)
		if !ok {
			return errf(s, "invalid address")
		}
		if !pf.Addr().Is6() {
			return errf(s, "inet6 address is expected")
		}
		return nil
	}
	for p.more() {
		w := p.take()
		k, ok := getKeyword(w)
		if ok && (k.id == "" || k.id == "iif") {
			return nil, p.unsupported(w) // an IPv6 input route is not modelled
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
			if err := addr6(s); err != nil {
				return nil, err
			}
			pf, _, _ := parsePrefix(s)
			if pf.Bits() != 128 {
				return nil, errf(s, "only an address (or /128) is supported here")
			}
			op.Src = pf.Addr()
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
			if err := addr6(w); err != nil {
				return nil, err
			}
			// The kernel reads the address whatever the length; a later
			// one replaces an earlier one.
			pf, _, _ := parsePrefix(w)
			op.Dst = pf.Addr()
		}
	}
	if !op.Dst.IsValid() {
		return nil, errf(p.ctx, "need at least a destination address")
	}
	return op, nil
}
