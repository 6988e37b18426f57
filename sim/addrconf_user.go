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

// IPv6 addresses of the user: `addr add|change|replace|del ADDR/LEN dev X
// [nodad] [noprefixroute] [metric N] [valid_lft N] [preferred_lft N]`,
// read in Linux ~6.17 net/ipv6/addrconf.c
// (inet6_rtm_newaddr, inet6_addr_add, inet6_addr_modify, addrconf_add_dev,
// ipv6_add_addr, addrconf_prefix_route, modify_prefix_route,
// check_cleanup_prefix_route, addrconf_dad_begin, addrconf_dad_stop,
// fixup_permanent_addr, inet6_addr_del, ipv6_del_addr) and checked on
// 6.18 (props/TestSimAddrsRoutesMatchKernel and the ipv6-user-addr-*
// regression scripts). Lifetimes do not run down (the model keeps no
// clock): those that could run out in a run are not modelled.

// minLft6 is the shortest finite lifetime modelled (but a preferred_lft
// of 0): a shorter one could run out while a script runs, which the
// model, without a clock, cannot follow. The differ takes lifetimes this
// far below the model's as equal.
const minLft6 = 120

// addrLifetimes6 is inet6_rtm_newaddr's reading of IFA_CACHEINFO: forever
// for a lifetime not given (iproute2 has refused a valid_lft of 0 and a
// preferred_lft above it); nil for forever and forever.
func addrLifetimes6(a rtnl.Addr) (*lifetimes6, error) {
	l := lifetimes6{foreverLft, foreverLft}
	if a.ValidLft != nil {
		l.valid = *a.ValidLft
	}
	if a.PreferredLft != nil {
		l.pref = *a.PreferredLft
	}
	if (l.valid != foreverLft && l.valid < minLft6) || (l.pref != foreverLft && l.pref != 0 && l.pref < minLft6) {
		return nil, fmt.Errorf("%w: an IPv6 lifetime below %d s (it could run out in a run)", ErrNotModelled, minLft6)
	}
	if l.valid == foreverLft && l.pref == foreverLft {
		return nil, nil
	}
	return &l, nil
}

// lftFlags6 is the flags inet6_rtm_newaddr derives from the lifetimes:
// permanent for a valid_lft of forever, deprecated for a preferred_lft
// of 0.
func lftFlags6(l *lifetimes6) uint32 {
	if l == nil {
		return uapi.IFA_F_PERMANENT
	}
	var f uint32
	if l.valid == foreverLft {
		f |= uapi.IFA_F_PERMANENT
	}
	if l.pref == 0 {
		f |= uapi.IFA_F_DEPRECATED
	}
	return f
}

// addrAdd6 is inet6_rtm_newaddr for a user address: ENODEV, EINVAL (no
// inet6_dev: an mtu below 1280), EEXIST for an address the device has
// under add (replace and change modify it: modifyAddr6), EACCES with
// disable_ipv6; then inet6_addr_add: the multicast route (addrconf_add_dev),
// the address (tentative unless nodad; dynamic with a finite valid_lft,
// deprecated with a preferred_lft of 0), its prefix route unless
// noprefixroute (expiring with a finite valid_lft), RTM_NEWADDR of the
// tentative address, and DAD queued.
// Routes through a device that is down fail (fib6_nh_init's ENETDOWN) and
// are skipped silently; a permanent address's prefix route comes when it
// goes up (fixupPermanent), a dynamic one's never.
func (n *Netns) addrAdd6(op rtnl.AddrAdd) error {
	a := op.Addr
	if !a.Prefix.Addr().Is6() {
		return rtnl.Errf(uapi.EINVAL, "") // extract_addr: no address
	}
	if a.Peer.IsValid() {
		return fmt.Errorf("%w: an IPv6 address with a peer", ErrNotModelled)
	}
	lft, err := addrLifetimes6(a)
	if err != nil {
		return err
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
			return n.modifyAddr6(d, x, a, lft)
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
	ia := &inet6Addr{addr: addr, plen: a.Prefix.Bits(), scope: scope6(addr), flags: lftFlags6(lft), user: true, lft: lft}
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
// noprefixroute; it expires with a finite valid_lft (RTF_EXPIRES) but
// through the loopback. One that is there already and expires takes the
// new expiry (add6).
func (n *Netns) prefixRoute6(d *Device, a *inet6Addr) {
	if a.flags&uapi.IFA_F_NOPREFIXROUTE != 0 || !d.Up() {
		return
	}
	pfx, _ := a.addr.Prefix(a.plen)
	expires := a.expires()
	if d.flags&uapi.IFF_LOOPBACK != 0 {
		// ip6_route_info_create: a route through the loopback becomes
		// a reject route, its flags set anew, RTF_EXPIRES lost.
		expires = 0
	}
	n.add6(&route6{table: uapi.RT_TABLE_MAIN, dst: pfx, typ: uapi.RTN_UNICAST, dev: d, metric: prio6(a.metric), expires: expires})
}

// prio6 is the metric of an address's prefix route: its own, 256 when 0.
func prio6(metric uint32) uint32 {
	if metric == 0 {
		return ip6RtPrioAddrconf
	}
	return metric
}

// expires is the expiry the address's prefix route gets: the valid_lft
// when finite, else none.
func (a *inet6Addr) expires() uint32 {
	if valid, _ := a.lifetimes(); valid != foreverLft {
		return valid
	}
	return 0
}

// modifyAddr6 is inet6_addr_modify for replace and change of an address
// the device has: its nodad, noprefixroute, permanent and deprecated
// flags and its lifetimes are the request's (tentative stays), its
// metric the request's when given and not 0; RTM_NEWADDR unless it is
// tentative. Then its prefix route: one it had (permanent, not
// noprefixroute) moves to a new metric (modify_prefix_route deletes and
// adds) or stops expiring; one it did not have is added (one there that
// expires takes the new expiry); with noprefixroute, one it had is
// cleaned up as at a delete.
//
// Not modelled: making an address with its prefix route at its metric
// dynamic (modify_prefix_route sets the route's expiry to the clock_t
// count as if it were a time in jiffies, long past: 6.18 shows it
// negative, and the route goes at a garbage collection), and nodad given
// to a tentative address (its DAD under way), and making an address kept
// over a down dynamic.
func (n *Netns) modifyAddr6(d *Device, x *inet6Addr, a rtnl.Addr, lft *lifetimes6) error {
	flags := lftFlags6(lft)
	if a.NoDAD {
		flags |= uapi.IFA_F_NODAD
	}
	if a.NoPrefixRoute {
		flags |= uapi.IFA_F_NOPREFIXROUTE
	}
	had := x.flags&uapi.IFA_F_PERMANENT != 0 && x.flags&uapi.IFA_F_NOPREFIXROUTE == 0
	metric := x.metric
	if a.Metric != nil && *a.Metric != 0 {
		metric = *a.Metric
	}
	var r *route6
	if had && !a.NoPrefixRoute {
		r = n.prefixRouteOf6(d, netip.PrefixFrom(x.addr, x.plen).Masked())
		if r != nil && r.metric == prio6(metric) && flags&uapi.IFA_F_PERMANENT == 0 {
			return fmt.Errorf("%w: an IPv6 address with its prefix route made dynamic", ErrNotModelled)
		}
	}
	if a.NoDAD && x.flags&uapi.IFA_F_TENTATIVE != 0 {
		return fmt.Errorf("%w: nodad given to a tentative IPv6 address", ErrNotModelled)
	}
	if x.predad && flags&uapi.IFA_F_PERMANENT == 0 {
		// addrconf_permanent_addr passes it over at up, and its DAD never
		// starts: it stays tentative, which the kernel target cannot wait out.
		return fmt.Errorf("%w: an IPv6 address kept over a down made dynamic", ErrNotModelled)
	}
	x.flags = x.flags&^(uapi.IFA_F_DEPRECATED|uapi.IFA_F_PERMANENT|uapi.IFA_F_NODAD|uapi.IFA_F_HOMEADDRESS|
		uapi.IFA_F_MANAGETEMPADDR|uapi.IFA_F_NOPREFIXROUTE) | flags
	x.lft, x.metric = lft, metric
	if x.flags&uapi.IFA_F_TENTATIVE == 0 {
		n.addrEvent6("RTM_NEWADDR", true, d, x)
	}
	switch {
	case a.NoPrefixRoute:
		if had {
			n.cleanupPrefixRoute6(d, x)
		}
	case r != nil && r.metric != prio6(metric):
		n.del6(r)
		n.prefixRoute6(d, x)
	case r != nil:
		r.expires = 0 // fib6_clean_expires: permanent still
	default:
		n.prefixRoute6(d, x)
	}
	return nil
}

// fixupPermanent is addrconf_permanent_addr at NETDEV_UP, ready or not:
// each permanent user address gets its prefix route back (fixup_permanent_addr),
// in addr_list order, and one kept over a down starts DAD again
// (addrconf_dad_start), which announces it and puts its local route back
// when it ends.
func (n *Netns) fixupPermanent(d *Device) {
	if d.in6 == nil {
		return
	}
	for _, a := range d.in6.addrs {
		if a.user && a.flags&uapi.IFA_F_PERMANENT != 0 {
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
