package compare

import (
	"fmt"
	"net"
	"net/netip"
	"slices"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// MACRenaming maps the MAC addresses one side picked at random to the
// other side's, with the IPv6 link-local addresses derived from them
// (EUI-64), as text. Only random picks belong in it: an address a script
// writes compares as it is.
type MACRenaming map[string]string

// Add maps from to to, and fe80::EUI-64(from) to fe80::EUI-64(to).
func (m MACRenaming) Add(from, to net.HardwareAddr) {
	m[from.String()] = to.String()
	m[EUI64LinkLocal(from).String()] = EUI64LinkLocal(to).String()
}

// EUI64LinkLocal is the link-local address addrconf derives from an
// Ethernet address (ipv6_generate_eui64: the address split by ff:fe, its
// universal/local bit flipped, under fe80::/64).
func EUI64LinkLocal(mac net.HardwareAddr) netip.Addr {
	b := [16]byte{0: 0xfe, 1: 0x80}
	if len(mac) == 6 {
		copy(b[8:11], mac[0:3])
		b[11], b[12] = 0xff, 0xfe
		copy(b[13:16], mac[3:6])
		b[8] ^= 0x02
	}
	return netip.AddrFrom16(b)
}

func (m MACRenaming) str(s string) string {
	if t, ok := m[s]; ok {
		return t
	}
	return s
}

// Link renames a link's address and broadcast address.
func (m MACRenaming) Link(l rtnl.Link) rtnl.Link {
	l.Address, l.Broadcast = m.str(l.Address), m.str(l.Broadcast)
	return l
}

// Addr renames an address's local and peer addresses.
func (m MACRenaming) Addr(a rtnl.AddrInfo) rtnl.AddrInfo {
	a.Local, a.Address = m.str(a.Local), m.str(a.Address)
	return a
}

// Route renames a route's destination, gateway and source.
func (m MACRenaming) Route(r rtnl.RouteEntry) rtnl.RouteEntry {
	r.Dst, r.Gateway, r.Prefsrc = m.str(r.Dst), m.str(r.Gateway), m.str(r.Prefsrc)
	return r
}

// Event renames the object of a notification.
func (m MACRenaming) Event(e rtnl.Event) rtnl.Event {
	switch o := e.Object.(type) {
	case rtnl.Link:
		e.Object = m.Link(o)
	case rtnl.AddrEvent:
		o.AddrInfo = m.Addr(o.AddrInfo)
		e.Object = o
	case rtnl.RouteEntry:
		e.Object = m.Route(o)
	}
	return e
}

// Events renames notifications, in a copy.
func (m MACRenaming) Events(evs []rtnl.Event) []rtnl.Event {
	out := slices.Clone(evs)
	for i := range out {
		out[i] = m.Event(out[i])
	}
	return out
}

// State renames the links, addresses and routes of a state, in a copy.
func (m MACRenaming) State(s rtnl.State) rtnl.State {
	s.Links = slices.Clone(s.Links)
	for i := range s.Links {
		s.Links[i] = m.Link(s.Links[i])
	}
	addrs := make([]rtnl.LinkAddrs, len(s.Addrs))
	for i, la := range s.Addrs {
		la.Link = m.Link(la.Link)
		la.AddrInfo = slices.Clone(la.AddrInfo)
		for j := range la.AddrInfo {
			la.AddrInfo[j] = m.Addr(la.AddrInfo[j])
		}
		addrs[i] = la
	}
	if s.Addrs != nil {
		s.Addrs = addrs
	}
	s.Routes = slices.Clone(s.Routes)
	for i := range s.Routes {
		s.Routes[i] = m.Route(s.Routes[i])
	}
	s.Netns = slices.Clone(s.Netns)
	for i := range s.Netns {
		s.Netns[i].State = m.State(s.Netns[i].State)
	}
	return s
}

// LinksExact compares two link lists field for field, addresses as they
// are (after a MACRenaming of one side). "" when equal.
func LinksExact(simL, kernL []rtnl.Link) string {
	if len(simL) != len(kernL) {
		return fmt.Sprintf("links differ in number: sim %d, kernel %d\nsim:    %s\nkernel: %s", len(simL), len(kernL), linkNames(simL), linkNames(kernL))
	}
	for i := range simL {
		a, b := simL[i], kernL[i]
		if as, bs := linkKey(a), linkKey(b); as != bs {
			return fmt.Sprintf("link %d differs:\nsim:    %s\nkernel: %s", i, as, bs)
		}
		if a.Address != b.Address || a.Broadcast != b.Broadcast {
			return fmt.Sprintf("link %s: address sim %s brd %s, kernel %s brd %s", a.Ifname, a.Address, a.Broadcast, b.Address, b.Broadcast)
		}
	}
	return ""
}
