package sim

import (
	"net/netip"

	"github.com/rtnlsim/rtnlsim/uapi"
)

// IPv6 forwarding on a device (net.ipv6.conf.DEV.forwarding) makes it a
// router: each of its addresses joins its prefix's subnet-router anycast
// address (addrconf_join_anycast), which puts an anycast route for that
// address in the local table, one per device and prefix however many
// addresses share it (__ipv6_dev_ac_inc counts them). Read from Linux
// ~6.15-6.17 net/ipv6/addrconf.c and anycast.c; the other effects of
// forwarding (all-routers membership, router advertisements, netconf
// notifications) show nowhere the model looks.

// acEntry is an ifacaddr6: its users and its route.
type acEntry struct {
	users int
	rt    *route6
}

// joinAnycast is addrconf_join_anycast: nothing for a prefix of 127
// bits or more, or one that is all zero.
func (n *Netns) joinAnycast(d *Device, a *inet6Addr) {
	if a.plen >= 127 {
		return
	}
	p := netip.PrefixFrom(a.addr, a.plen).Masked().Addr()
	if p.IsUnspecified() {
		return
	}
	if d.in6.ac == nil {
		d.in6.ac = map[netip.Addr]*acEntry{}
	}
	if e := d.in6.ac[p]; e != nil {
		e.users++
		return
	}
	rt := &route6{table: uapi.RT_TABLE_LOCAL, dst: netip.PrefixFrom(p, 128), typ: uapi.RTN_ANYCAST, dev: d}
	d.in6.ac[p] = &acEntry{users: 1, rt: rt}
	n.add6(rt)
}

// leaveAnycast is addrconf_leave_anycast: the last user takes the route.
func (n *Netns) leaveAnycast(d *Device, a *inet6Addr) {
	if a.plen >= 127 {
		return
	}
	p := netip.PrefixFrom(a.addr, a.plen).Masked().Addr()
	e := d.in6.ac[p]
	if e == nil {
		return
	}
	if e.users--; e.users > 0 {
		return
	}
	delete(d.in6.ac, p)
	if n.routed6(e.rt) {
		n.del6(e.rt)
	}
}

// routed6 reports whether r is still in the FIB.
func (n *Netns) routed6(r *route6) bool {
	for _, x := range n.fib6.byDev[r.dev] {
		if x == r {
			return true
		}
	}
	return false
}

// forwardChange is dev_forward_change after a device's forwarding
// changed: every address not tentative joins or leaves its anycast.
func (n *Netns) forwardChange(d *Device, on bool) {
	if d.in6 == nil || d.in6.forwarding == on {
		return
	}
	d.in6.forwarding = on
	for _, a := range d.in6.addrs {
		if a.flags&uapi.IFA_F_TENTATIVE != 0 {
			continue
		}
		if on {
			n.joinAnycast(d, a)
		} else {
			n.leaveAnycast(d, a)
		}
	}
}

// forwardingSysctl is addrconf_fixup_forwarding: all sets default and
// every device, default only itself (devices made later copy it), a
// device itself.
func (n *Netns) forwardingSysctl(dev string, d *Device, on bool) {
	switch dev {
	case "default":
		n.fwd6Default = on
	case "all":
		n.fwd6Default = on
		for _, x := range n.devSnapshot() {
			if n.alive(x) {
				n.forwardChange(x, on)
			}
		}
	default:
		n.forwardChange(d, on)
	}
}
