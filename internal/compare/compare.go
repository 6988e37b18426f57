// Package compare holds the comparisons of the model against the kernel
// that both the property suites and `rtnlsim diff` make: errnos line by
// line, and links field for field with MAC addresses up to renaming.
package compare

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// Errnos compares the refusals of two runs line by line; "" when equal.
func Errnos(sim, kern []rtnl.LineError) string {
	s := map[int]string{}
	k := map[int]string{}
	lines := map[int]string{}
	for _, e := range sim {
		s[e.Line] = e.Errno
		lines[e.Line] = e.Request
	}
	for _, e := range kern {
		k[e.Line] = e.Errno
		lines[e.Line] = e.Request
	}
	var b strings.Builder
	var nums []int
	for ln := range lines {
		nums = append(nums, ln)
	}
	sort.Ints(nums)
	for _, ln := range nums {
		if s[ln] != k[ln] {
			fmt.Fprintf(&b, "line %d %q: sim %q, kernel %q\n", ln, lines[ln], orOK(s[ln]), orOK(k[ln]))
		}
	}
	if b.Len() > 0 {
		return "errnos differ:\n" + b.String()
	}
	return ""
}

func orOK(s string) string {
	if s == "" {
		return "ok"
	}
	return s
}

// Links compares two link lists field for field. MAC addresses the
// kernel picks at random compare up to a bijection built in order of
// appearance, with the fixed addresses (and zero) as fixed points. A
// bridge's address follows the lowest port address, which depends on the
// random values themselves, so for bridges only the class is compared:
// zero, a fixed address (equal), or a random one; so is any address that
// is a bridge's random address on either side (the port it came from, a
// passthru macvlan on the bridge), which stays out of the renaming.
func Links(simL, kernL []rtnl.Link, fixed []string, isBridge func(string) bool) string {
	if len(simL) != len(kernL) {
		return fmt.Sprintf("links differ in number: sim %d, kernel %d\nsim:    %s\nkernel: %s", len(simL), len(kernL), linkNames(simL), linkNames(kernL))
	}
	isFixed := map[string]bool{"00:00:00:00:00:00": true}
	for _, f := range fixed {
		isFixed[f] = true
	}
	// Addresses that are a bridge's random address on either side (a
	// passthru macvlan on a bridge takes it too) compare by class.
	simBr, kernBr := map[string]bool{}, map[string]bool{}
	for i := range simL {
		if i < len(kernL) && isBridge(simL[i].Ifname) {
			if !isFixed[simL[i].Address] {
				simBr[simL[i].Address] = true
			}
			if !isFixed[kernL[i].Address] {
				kernBr[kernL[i].Address] = true
			}
		}
	}
	s2k, k2s := map[string]string{}, map[string]string{}
	for i := range simL {
		a, b := simL[i], kernL[i]
		as, bs := linkKey(a), linkKey(b)
		if as != bs {
			return fmt.Sprintf("link %d differs:\nsim:    %s\nkernel: %s", i, as, bs)
		}
		for _, pair := range [][2]string{{a.Address, b.Address}, {a.Broadcast, b.Broadcast}} {
			sa, ka := pair[0], pair[1]
			if isFixed[sa] || isFixed[ka] || a.LinkType != "ether" {
				if sa != ka {
					return fmt.Sprintf("link %s: address sim %s, kernel %s", a.Ifname, sa, ka)
				}
				continue
			}
			if simBr[sa] || kernBr[ka] {
				continue // class compared: both random, one a bridge's
			}
			if m, ok := s2k[sa]; ok && m != ka {
				return fmt.Sprintf("link %s: sim address %s maps to kernel %s before, now %s", a.Ifname, sa, m, ka)
			}
			if m, ok := k2s[ka]; ok && m != sa {
				return fmt.Sprintf("link %s: kernel address %s maps to sim %s before, now %s", a.Ifname, ka, m, sa)
			}
			s2k[sa], k2s[ka] = ka, sa
		}
	}
	return ""
}

func linkNames(ls []rtnl.Link) string {
	var out []string
	for _, l := range ls {
		out = append(out, fmt.Sprintf("%d:%s", l.Ifindex, l.Ifname))
	}
	return strings.Join(out, " ")
}

// linkKey is every compared field but the addresses.
func linkKey(l rtnl.Link) string {
	peer := "-"
	if l.LinkPeer != nil {
		peer = *l.LinkPeer
	}
	q := -1
	if l.Txqlen != nil {
		q = *l.Txqlen
	}
	return fmt.Sprintf("%d: %s@%s <%s> mtu %d qdisc %s master %q state %s mode %s group %s qlen %d link/%s alias %q altnames %q",
		l.Ifindex, l.Ifname, peer, strings.Join(l.Flags, ","), l.MTU, l.Qdisc, l.Master, l.Operstate, l.Linkmode, l.Group, q, l.LinkType, l.Ifalias, l.Altnames)
}
