package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// IPv4 on the sim target's devices: each device's in_device (devinet.go)
// wired to the namespace's FIB (fib.go) and notifications, as
// net/ipv4/devinet.c's inetdev_event and the address requests do.

// inetdevInit is inetdev_init at NETDEV_REGISTER (and when a valid mtu
// comes back): an empty list whose configuration is a copy of
// net.ipv4.conf.default, the state bits included: a device made after
// default's promote_secondaries was written (or with the bit copied set
// from the host) is not reached by later writes of default.
func (n *Netns) inetdevInit(d *Device) {
	in := NewInDevice(d.name)
	in.Promote = n.promoteDefault
	in.promoteSet = n.promoteDefaultSet
	in.PromoteAll = n.promoteAll
	in.ignoreLinkdown = n.linkdownDefault
	in.ignoreLinkdownSet = n.linkdownDefaultSet
	in.IfaFlush = n.ifaFlush
	in.literal = n.literalWalks
	in.Count = &n.inetCount
	in.hooks = d
	d.in = in
	n.routeConfInit(in)
}

// inetdevDestroy is inetdev_destroy (NETDEV_UNREGISTER, or an mtu below
// 68): the device is dead, every address goes without promotion, and IPv4
// is gone from the device.
func (n *Netns) inetdevDestroy(d *Device) {
	if d.in == nil {
		return
	}
	d.in.Destroy()
	d.in = nil
}

// inetUp is inetdev_event's NETDEV_UP: the loopback gets 127.0.0.1/8
// (already there: nothing happens).
func (n *Netns) inetUp(d *Device) {
	if d.in == nil || d.mtu < ethMinMTU {
		return
	}
	if d.flags&uapi.IFF_LOOPBACK != 0 {
		lo := uint32(0x7f000001)
		ifa := &Ifaddr{Local: lo, Address: lo, Prefixlen: 8, Mask: inetMakeMask(8),
			Scope: uapi.RT_SCOPE_HOST, Label: d.name, Flags: uapi.IFA_F_PERMANENT}
		d.in.setAll = true
		_ = d.in.insert(ifa)
	}
}

// inetChangeName is inetdev_changename: every label becomes the new name
// (the second and later keep or get a ":N" suffix), each with an
// RTM_NEWADDR.
func (n *Netns) inetChangeName(d *Device) {
	if d.in == nil {
		return
	}
	d.in.Name = d.name
	named := 0
	for ifa := d.in.head; ifa != nil; ifa = ifa.next {
		old := ifa.Label
		ifa.Label = d.name
		named++
		if named > 1 {
			suffix := ""
			if i := strings.IndexByte(old, ':'); i >= 0 {
				suffix = old[i:]
			} else {
				suffix = ":" + strconv.Itoa(named)
			}
			if len(suffix)+len(d.name) < uapi.IFNAMSIZ {
				ifa.Label += suffix
			} else {
				ifa.Label = ifa.Label[:uapi.IFNAMSIZ-len(suffix)-1] + suffix
			}
		}
		d.rtmsgIfa("RTM_NEWADDR", ifa)
	}
}

// inetChangeMTU is inetdev_event's NETDEV_CHANGEMTU: an mtu below 68
// destroys the in_device, a valid one makes a new, empty one.
func (n *Netns) inetChangeMTU(d *Device) {
	switch {
	case d.in != nil && d.mtu < ethMinMTU:
		n.inetdevDestroy(d)
	case d.in == nil && d.mtu >= ethMinMTU:
		n.inetdevInit(d)
	}
}

// The inetHooks of a device: its address list's notifications and FIB
// calls.

func (d *Device) rtmsgIfa(typ string, ifa *Ifaddr) {
	n := d.ns
	ifindex, name := int(d.ifindex), d.name
	n.send(typ, "inet", func() any {
		return rtnl.AddrEvent{Ifindex: ifindex, Ifname: name, AddrInfo: renderIfaddr(ifa)}
	})
}

func (d *Device) inetaddrEvent(up bool, ifa *Ifaddr) {
	if up {
		d.ns.fibAddIfaddr(d, ifa)
		d.ns.fibSyncUp(d)
		return
	}
	d.ns.fibDelIfaddr(d, ifa, nil)
	if d.in.head == nil {
		// The last address is gone: fib_disable_ip(dev, NETDEV_DOWN, true).
		d.ns.fibDisableIP(d, true)
	}
}

func (d *Device) fibDelIfaddr(ifa, iprim *Ifaddr) { d.ns.fibDelIfaddr(d, ifa, iprim) }
func (d *Device) modifyPrefixMetric(ifa *Ifaddr, metric uint32) {
	d.ns.fibModifyPrefixMetric(d, ifa, metric)
}
func (d *Device) fibAddIfaddr(ifa *Ifaddr) { d.ns.fibAddIfaddr(d, ifa) }

// Address requests.

// inDevOf is the device of an address request: ENODEV without one,
// ENOBUFS without IPv4 on it (inet_rtm_to_ifa), ENODEV for deletes
// (inetdev_by_index).
func (n *Netns) inDevOf(dev string, del bool) (*Device, error) {
	d := n.ByName(dev)
	if d == nil {
		return nil, enodev(dev)
	}
	if d.in == nil {
		if del {
			return nil, rtnl.Errf(uapi.ENODEV, "ipv4: Device not found")
		}
		return nil, rtnl.Errf(uapi.ENOBUFS, "")
	}
	return d, nil
}

// addrAdd is inet_rtm_newaddr for an IPv4 `addr add`.
func (n *Netns) addrAdd(op rtnl.AddrAdd) error {
	if !op.Prefix.Addr().Is4() {
		return n.addrAdd6(op)
	}
	r := IfaRequestOf(op.Addr, true)
	// ipaddr_modify: add sends NLM_F_EXCL, replace and change
	// NLM_F_REPLACE.
	r.Excl, r.Replace = op.Mode == rtnl.AddrModeAdd, op.Mode != rtnl.AddrModeAdd
	if r.Prefixlen > 32 {
		return rtnl.Errf(uapi.EINVAL, "ipv4: Invalid prefix length")
	}
	if r.Local == 0 {
		return nil
	}
	d, err := n.inDevOf(op.Dev, false)
	if err != nil {
		return err
	}
	d.in.setAll = true
	return d.in.NewAddr(r)
}

// addrDel is inet_rtm_deladdr for an IPv4 `addr del`.
func (n *Netns) addrDel(op rtnl.AddrDel) error {
	if !op.Prefix.Addr().Is4() {
		return n.addrDel6(op)
	}
	d, err := n.inDevOf(op.Dev, true)
	if err != nil {
		return err
	}
	return d.in.DelAddr(IfaRequestOf(op.Addr, false))
}

// addrFlush is `ip addr flush` (ipAddrFlush): each round's dump holds
// the device's IPv4 addresses, then its IPv6 ones, unless -4, -6 or the
// family of a `to` prefix narrows it. The +ifa-flush profile deletes the
// IPv4 ones in one request first.
func (n *Netns) addrFlush(op rtnl.AddrFlush) error {
	d := n.ByName(op.Dev)
	if d == nil {
		return enodev(op.Dev)
	}
	v4, v6 := op.Family != 6, op.Family != 4
	if op.Family == 0 && op.To.IsValid() {
		v4, v6 = op.To.Addr().Is4(), op.To.Addr().Is6()
	}
	v4, v6 = v4 && d.in != nil, v6 && d.in6 != nil
	f := FlushFilter{To: op.To, Label: op.Label, Scope: op.Scope, Secondary: op.Secondary}
	if v4 && d.in.IfaFlush {
		if err := d.in.flushOneRequest(f); err != nil || !v6 || len(d.in6.addrs) == 0 {
			return err
		}
		v4 = false
	}
	if n.flushWholeDump {
		return n.wholeDumpFlush(d, v4, v6, f)
	}
	return n.ipAddrFlush(d, v4, v6, f)
}

// wholeDumpFlush is a flush by a client that reads each round's whole
// dump, then deletes what matched in dump order (IPv4, then IPv6),
// EADDRNOTAVAIL ignored (a primary deleted without promotion takes its
// secondaries with it).
func (n *Netns) wholeDumpFlush(d *Device, v4, v6 bool, f FlushFilter) error {
	return flushRounds(&n.inetCount, f, func() (int, error) {
		var dels []IfaRequest
		if v4 {
			for a := d.in.head; a != nil; a = a.next {
				n.inetCount.WalkSteps++
				if f.match(d.name, a) {
					dels = append(dels, delRequestOf(a))
				}
			}
		}
		var dels6 []*inet6Addr
		if v6 {
			for _, a := range d.in6.addrs {
				if f.match6(d.name, a) {
					dels6 = append(dels6, a)
				}
			}
		}
		for _, r := range dels {
			n.inetCount.Requests++
			if err := d.in.DelAddr(r); err != nil && rtnl.Errno(err) != uapi.EADDRNOTAVAIL {
				return 0, err
			}
		}
		for _, a := range dels6 {
			n.inetCount.Requests++
			n.delAddr6(d, a)
		}
		return len(dels) + len(dels6), nil
	})
}

// Addrs returns `ip -j addr show`: every device in dump order with its
// IPv4 addresses in list order, then its IPv6 ones (the dump of every
// family does AF_INET first).
func (n *Netns) Addrs() []rtnl.LinkAddrs {
	var out []rtnl.LinkAddrs
	for _, d := range n.Devices() {
		var infos []rtnl.AddrInfo
		if d.in != nil {
			infos = d.in.Render()
		}
		infos = append(infos, d.addrs6()...)
		if infos == nil {
			infos = []rtnl.AddrInfo{}
		}
		out = append(out, rtnl.AddrsOf(renderLink(d), infos))
	}
	return out
}

// promoteSysctl applies a write of net.ipv4.conf.KEY.promote_secondaries:
// all is read as it is (IN_DEV_ORCONF); default sets its own state bit
// (which devices made later copy) and is copied to every device whose
// bit is clear (devinet_copy_dflt_conf; adding an address sets them all,
// ipv4_devconf_setall); a device's own value is set.
func (n *Netns) promoteSysctl(dev string, on bool) {
	switch dev {
	case "all":
		n.promoteAll = on
		for d := range n.listed() {
			if d.in != nil {
				d.in.PromoteAll = on
			}
		}
	case "default":
		n.promoteDefault = on
		n.promoteDefaultSet = true
		for d := range n.listed() {
			if d.in != nil && !d.in.setAll && !d.in.promoteSet {
				d.in.Promote = on
			}
		}
	default:
		d := n.ByName(dev)
		d.in.Promote = on
		d.in.promoteSet = true
	}
}

// linkdownSysctl is a write of ignore_routes_with_linkdown: all, default
// (which reaches the devices that have not had the key, nor an address,
// written), or a device.
func (n *Netns) linkdownSysctl(dev string, on bool) {
	switch dev {
	case "all":
		n.linkdownAll = on
	case "default":
		n.linkdownDefault, n.linkdownDefaultSet = on, true
		for d := range n.listed() {
			if d.in != nil && !d.in.setAll && !d.in.ignoreLinkdownSet {
				d.in.ignoreLinkdown = on
			}
		}
	default:
		d := n.byDevName(dev)
		d.in.ignoreLinkdown, d.in.ignoreLinkdownSet = on, true
	}
}

// ignoreLinkdown is ip_ignore_linkdown: the device's value or all's.
func (n *Netns) ignoreLinkdown(d *Device) bool {
	return n.linkdownAll || (d != nil && d.in != nil && d.in.ignoreLinkdown)
}

// startConf sets the net.ipv4.conf state the namespace starts from
// (rtnl.StartConf): all and default, and the loopback, registered before
// any request, as inetdev_init made it (a copy of default, bits included)
// with the value read for it.
func (n *Netns) startConf(sc rtnl.StartConf) error {
	val := func(dev string) (bool, error) {
		k := "net.ipv4.conf." + dev + ".promote_secondaries"
		v, ok := sc.Values[k]
		if !ok {
			return false, nil
		}
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return false, fmt.Errorf("%s=%q: %w", k, v, err)
		}
		return i != 0, nil
	}
	var err error
	if n.promoteAll, err = val("all"); err != nil {
		return err
	}
	if n.promoteDefault, err = val("default"); err != nil {
		return err
	}
	n.promoteDefaultSet = slices.Contains(sc.DefaultSet, "promote_secondaries")
	if err := n.startRouteConf(sc); err != nil {
		return err
	}
	lo := n.ByName("lo")
	if lo == nil || lo.in == nil {
		return nil
	}
	lo.in.PromoteAll = n.promoteAll
	lo.in.promoteSet = n.promoteDefaultSet
	lo.in.Promote = n.promoteDefault
	if _, ok := sc.Values["net.ipv4.conf.lo.promote_secondaries"]; ok {
		if lo.in.Promote, err = val("lo"); err != nil {
			return err
		}
	}
	return nil
}
