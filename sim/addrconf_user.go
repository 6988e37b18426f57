package sim

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// IPv6 addresses of the user: `addr add|del ADDR/LEN dev X [nodad]
// [noprefixroute] [metric N]`, read in Linux ~6.17 net/ipv6/addrconf.c
// (inet6_rtm_newaddr, inet6_addr_add, addrconf_add_dev, ipv6_add_addr,
// addrconf_prefix_route, addrconf_dad_begin, addrconf_dad_stop,
// fixup_permanent_addr, inet6_addr_del, ipv6_del_addr) and checked on
// 6.18 (props/TestSimAddrsRoutesMatchKernel and the ipv6-user-addr-*
// regression scripts). Addresses
// with lifetimes, and replacing one that exists, are not modelled.

// errIPv6ReplaceNotModelled refuses `addr replace|change` of an IPv6
// address the device has (inet6_addr_modify).
var errIPv6ReplaceNotModelled = fmt.Errorf("%w: replacing an IPv6 address the device has", ErrNotModelled)

// addrAdd6 is inet6_rtm_newaddr for a user address: ENODEV, EINVAL (no
// inet6_dev: an mtu below 1280), EEXIST for an address the device has
// (under add; replace and change of one are not modelled), EACCES with
// disable_ipv6; then inet6_addr_add: the multicast route (addrconf_add_dev),
// the address (tentative unless nodad), its prefix route unless
// noprefixroute, RTM_NEWADDR of the tentative address, and DAD queued.
// Routes through a device that is down fail (fib6_nh_init's ENETDOWN) and
// are skipped silently; the prefix route comes when it goes up
// (fixupPermanent).
func (n *Netns) addrAdd6(op rtnl.AddrAdd) error {
	a := op.Addr
	if !a.Prefix.Addr().Is6() {
		return rtnl.Errf(uapi.EINVAL, "") // extract_addr: no address
	}
	if a.Peer.IsValid() {
		return fmt.Errorf("%w: an IPv6 address with a peer", ErrNotModelled)
	}
	if (a.ValidLft != nil && *a.ValidLft != foreverLft) || (a.PreferredLft != nil && *a.PreferredLft != foreverLft) {
		return fmt.Errorf("%w: an IPv6 address with finite lifetimes", ErrNotModelled)
	}
	d := n.ByName(a.Dev)
	if d == nil {
		return enodev(a.Dev)
	}
	if d.in6 == nil {
		return rtnl.Errf(uapi.EINVAL, "") // ipv6_find_idev: ipv6_add_dev refuses an mtu below 1280
	}
	addr := a.Prefix.Addr()
	for _, x := range d.in6.addrs {
		if x.addr == addr {
			if op.Mode == rtnl.AddrModeAdd {
				return rtnl.Errf(uapi.EEXIST, "ipv6: address already assigned")
			}
			return errIPv6ReplaceNotModelled
		}
	}
	if d.v6Off {
		return rtnl.Errf(uapi.EACCES, "ipv6: IPv6 is disabled on this device")
	}
	if d.flags&uapi.IFF_LOOPBACK == 0 && d.Up() {
		n.add6(&route6{table: uapi.RT_TABLE_LOCAL, dst: mcastPrefix6, typ: uapi.RTN_MULTICAST, dev: d, metric: ip6RtPrioAddrconf})
	}
	// ipv6_add_addr: not the unspecified address, a multicast one, or
	// ::1 on another device than the loopback.
	if addr.IsUnspecified() || addr.IsMulticast() || (addr.IsLoopback() && d.flags&uapi.IFF_LOOPBACK == 0) {
		return rtnl.Errf(uapi.EADDRNOTAVAIL, "")
	}
	ia := &inet6Addr{addr: addr, plen: a.Prefix.Bits(), scope: scope6(addr), flags: uapi.IFA_F_PERMANENT, user: true}
	if a.NoDAD {
		ia.flags |= uapi.IFA_F_NODAD
	} else {
		ia.flags |= uapi.IFA_F_TENTATIVE
	}
	if a.NoPrefixRoute {
		ia.flags |= uapi.IFA_F_NOPREFIXROUTE
	}
	if a.Metric != nil {
		ia.metric = *a.Metric
	}
	d.in6AddAddr(ia)
	n.prefixRoute6(d, ia)
	if !a.NoDAD {
		n.addrEvent6("RTM_NEWADDR", true, d, ia)
	}
	n.fib6.dad = append(n.fib6.dad, dadWork{d, ia})
	return nil
}

// prefixRoute6 is addrconf_prefix_route for a user address: its prefix in
// the main table at its metric (256 when 0), through an up device, unless
// noprefixroute.
func (n *Netns) prefixRoute6(d *Device, a *inet6Addr) {
	if a.flags&uapi.IFA_F_NOPREFIXROUTE != 0 || !d.Up() {
		return
	}
	metric := a.metric
	if metric == 0 {
		metric = ip6RtPrioAddrconf
	}
	pfx, _ := a.addr.Prefix(a.plen)
	n.add6(&route6{table: uapi.RT_TABLE_MAIN, dst: pfx, typ: uapi.RTN_UNICAST, dev: d, metric: metric})
}

// fixupPermanent is addrconf_permanent_addr at NETDEV_UP, ready or not:
// each user address gets its prefix route back (fixup_permanent_addr),
// in addr_list order, and one kept over a down starts DAD again
// (addrconf_dad_start), which announces it and puts its local route back
// when it ends.
func (n *Netns) fixupPermanent(d *Device) {
	if d.in6 == nil {
		return
	}
	for _, a := range d.in6.addrs {
		if a.user {
			n.prefixRoute6(d, a)
			if a.predad {
				a.predad = false
				n.fib6.dad = append(n.fib6.dad, dadWork{d, a})
			}
		}
	}
}

// redoStoppedDAD is addrconf_dad_run(idev, false) when the device becomes
// ready: the addresses whose DAD stopped for want of it start again.
func (n *Netns) redoStoppedDAD(d *Device) {
	for _, a := range d.in6.addrs {
		if a.dadStopped {
			a.dadStopped = false
			n.fib6.dad = append(n.fib6.dad, dadWork{d, a})
		}
	}
}

// dadNeedless is addrconf_dad_begin's first test: DAD ends at once for a
// NOARP or loopback device, with accept_dad below 1 for both all and the
// device, and for an address that is not tentative or has nodad.
func (n *Netns) dadNeedless(d *Device, a *inet6Addr) bool {
	return d.flags&(uapi.IFF_NOARP|uapi.IFF_LOOPBACK) != 0 ||
		(n.acceptDAD("all") < 1 && d.in6.acceptDAD < 1) ||
		a.flags&uapi.IFA_F_TENTATIVE == 0 || a.flags&uapi.IFA_F_NODAD != 0
}

// acceptDAD is net.ipv6.conf.KEY.accept_dad for all or default as
// written, else the kernel's initial value (all 0, default 1). A
// device's own is in its inet6_dev.
func (n *Netns) acceptDAD(key string) int {
	def := 1
	if key == "all" {
		def = 0
	}
	return n.conf6Int(key, "accept_dad", def)
}

// conf6Int is net.ipv6.conf.KEY.NAME as written, else def.
func (n *Netns) conf6Int(key, name string, def int) int {
	if v, ok := n.sysctls["net.ipv6.conf."+key+"."+name]; ok {
		if i, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
			return i
		}
	}
	return def
}

// newInet6Dev is ipv6_add_dev's inet6_dev: its conf copied from
// default's (accept_dad, forwarding and keep_addr_on_down are the parts
// the model reads).
func (n *Netns) newInet6Dev() *inet6Dev {
	return &inet6Dev{acceptDAD: n.acceptDAD("default"), forwarding: n.fwd6Default,
		keepAddr: n.conf6Int("default", "keep_addr_on_down", 0)}
}

// addrDel6 is inet6_addr_del: ENODEV, ENXIO without an inet6_dev,
// EADDRNOTAVAIL unless an address has that address and length; then
// ipv6_del_addr (delAddr6).
func (n *Netns) addrDel6(op rtnl.AddrDel) error {
	a := op.Addr
	d := n.ByName(a.Dev)
	if d == nil {
		return enodev(a.Dev)
	}
	if d.in6 == nil {
		return rtnl.Errf(uapi.ENXIO, "")
	}
	i := slices.IndexFunc(d.in6.addrs, func(x *inet6Addr) bool {
		return x.plen == a.Prefix.Bits() && x.addr == a.Prefix.Addr()
	})
	if i < 0 {
		return rtnl.Errf(uapi.EADDRNOTAVAIL, "ipv6: address not found")
	}
	n.delAddr6(d, d.in6.addrs[i])
	return nil
}

// scope6 is ipv6_addr_scope as a route scope: host for ::1, link for
// link-local addresses, site for fec0::/10, global otherwise.
func scope6(a netip.Addr) uint8 {
	switch {
	case a.IsLoopback():
		return uapi.RT_SCOPE_HOST
	case a.IsLinkLocalUnicast():
		return uapi.RT_SCOPE_LINK
	case siteLocal6.Contains(a):
		return uapi.RT_SCOPE_SITE
	}
	return uapi.RT_SCOPE_UNIVERSE
}

var siteLocal6 = netip.MustParsePrefix("fec0::/10")
