package sim

import (
	"fmt"
	"net"
	"reflect"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// The link requests, following net/core/rtnetlink.c (rtnl_newlink,
// do_setlink, rtnl_dellink, rtnl_group_changelink, rtnl_group_dellink) and
// the drivers' newlink/dellink, and resolving names first where the kernel
// target (like iproute2) resolves them in userspace before it sends
// anything: the master, then the macvlan lower, then the device.

func enodev(name string) error { return rtnl.Errf(uapi.ENODEV, "no device %q", name) }

// resolveMaster turns `master NAME` into the device (nil for nomaster).
func (n *Netns) resolveMaster(a rtnl.LinkAttrs) (master *Device, given bool, err error) {
	if a.Master == nil {
		return nil, false, nil
	}
	if *a.Master == "" {
		return nil, true, nil
	}
	m := n.ByName(*a.Master)
	if m == nil {
		return nil, true, enodev(*a.Master)
	}
	return m, true, nil
}

// validateAddr is the address part of the kinds' ->validate callbacks
// (ifb, dummy, veth, bridge, macvlan, vxlan all check IFLA_ADDRESS alike).
func validateAddr(a net.HardwareAddr) error {
	if a == nil {
		return nil
	}
	if len(a) != 6 {
		return rtnl.Errf(uapi.EINVAL, "")
	}
	if !validEther(a) {
		return rtnl.Errf(uapi.EADDRNOTAVAIL, "")
	}
	return nil
}

// validateMTU is dev_validate_mtu. Its new_mtu is an int: IFLA_MTU's
// u32 above INT_MAX is negative there, below every minimum, whatever the
// kind's range (a loopback or an ifb, without a maximum, included).
func validateMTU(d *Device, mtu uint32) error {
	if int32(mtu) < 0 || mtu < d.minMTU {
		return rtnl.Errf(uapi.EINVAL, "mtu less than device minimum")
	}
	if d.maxMTU > 0 && mtu > d.maxMTU {
		return rtnl.Errf(uapi.EINVAL, "mtu greater than device maximum")
	}
	return nil
}

func (n *Netns) linkAdd(op rtnl.LinkAdd) error {
	if op.Netns != "" {
		return n.linkAddIn(op)
	}
	return n.linkAddPeerIn(op, nil)
}

// linkAddPeerIn is linkAdd with the namespace a veth peer that names
// none of its own goes to when it is not the device's (peerNs nil).
func (n *Netns) linkAddPeerIn(op rtnl.LinkAdd, peerNs *Netns) error {
	master, _, err := n.resolveMaster(op.LinkAttrs)
	if err != nil {
		return err
	}
	var lower *Device
	if op.Lower != "" {
		if lower = n.ByName(op.Lower); lower == nil {
			return enodev(op.Lower)
		}
	}
	if op.Vxlan.Dev != "" && n.ByName(op.Vxlan.Dev) == nil {
		// iproute2 resolves a vxlan's dev before it sends anything.
		return enodev(op.Vxlan.Dev)
	}
	known := false
	for _, k := range rtnl.Kinds {
		known = known || k == op.Kind
	}
	// rtnl_newlink: the kind's ->validate runs before the device lookup.
	if known {
		if err := validateAddr(op.Address); err != nil {
			return err
		}
		if op.MTU != nil && (op.Kind == rtnl.KindVeth || op.Kind == rtnl.KindVxlan) &&
			(*op.MTU < ethMinMTU || *op.MTU > ethMaxMTU) {
			return rtnl.Errf(uapi.EINVAL, "")
		}
		if op.Kind == rtnl.KindVeth {
			// The peer's address and mtu are checked as early, before
			// the device lookup (EEXIST), as this kernel does.
			pa := op.PeerAttrs
			if err := validateAddr(pa.Address); err != nil {
				return err
			}
			if pa.MTU != nil && (*pa.MTU < ethMinMTU || *pa.MTU > ethMaxMTU) {
				return rtnl.Errf(uapi.EINVAL, "")
			}
		}
	}
	// __rtnl_newlink: an existing device (by ifindex, else by name) with
	// NLM_F_EXCL is EEXIST.
	if op.Index > 0 {
		if n.ByIndex(uint32(op.Index)) != nil {
			return rtnl.Errf(uapi.EEXIST, "")
		}
	} else if n.ByName(op.Name) != nil {
		return rtnl.Errf(uapi.EEXIST, "")
	}
	if !known {
		return rtnl.Errf(uapi.EOPNOTSUPP, "Unknown device type")
	}
	// rtnl_create_link: validate_linkmsg, then the attributes it takes
	// (IFLA_IFALIAS and IFLA_CARRIER are not among them: ignored).
	if op.Broadcast != nil && len(op.Broadcast) < 6 {
		return rtnl.Errf(uapi.EINVAL, "")
	}
	d := n.newDevice(op.Name, op.Kind)
	if op.Broadcast != nil {
		d.brd = append(net.HardwareAddr(nil), op.Broadcast[:6]...)
	}
	if op.MTU != nil {
		if err := validateMTU(d, *op.MTU); err != nil {
			return err
		}
		d.mtu = *op.MTU
	}
	if op.Address != nil {
		d.addr = append(net.HardwareAddr(nil), op.Address...)
		d.addrSet = true
	}
	if op.TxQueueLen != nil {
		d.txQLen = *op.TxQueueLen
	}
	if op.Group != nil {
		d.group = *op.Group
	}
	// ->newlink, or register_netdevice
	switch op.Kind {
	case rtnl.KindVeth:
		err = n.vethNewlink(d, op, peerNs)
	case rtnl.KindMacvlan:
		err = n.macvlanNewlink(d, lower, op)
	case rtnl.KindVxlan:
		err = n.vxlanNewlink(d, op)
	default:
		err = n.register(d, uint32(op.Index))
	}
	if err != nil {
		return err
	}
	if op.Kind == rtnl.KindBridge {
		// br_dev_newlink: an address given at creation is the bridge
		// id; then the options, whose failure unregisters the bridge
		// before any notification named it (its ifindex stays used).
		if op.Address != nil {
			n.brChangeID(d, d.addr)
		}
		if err := n.brChangelink(d, op.Bridge); err != nil {
			n.delete(d)
			return err
		}
	}
	// rtnl_configure_link: __dev_change_flags (NOARP and MULTICAST, the
	// device comes up if asked, then promiscuity and allmulti), then its
	// first RTM_NEWLINK (with everything changed), then NETDEV_UP;
	// do_set_master follows. A failure unregisters the new device (and,
	// through ->dellink, its veth peer).
	oldFlags := d.flags
	if err := n.devChangeFlags(d, op.LinkAttrs); err != nil {
		n.delete(d)
		return err
	}
	opened := d.Up()
	// A device its ->newlink configured already (vxlan) is notified
	// only of what changed (promiscuity and allmulti show in dev->flags
	// too, the user's being all a new device has); NETDEV_CHANGE follows
	// NETDEV_UP when NOARP or MULTICAST changed, configured or not
	// (__dev_notify_flags compares the flags themselves).
	changed, configured := d.flags^oldFlags, !d.initializing
	if !configured {
		n.configured(d)
	} else if changed != 0 || d.promisc || d.allmulti {
		n.linkEvent(d)
	}
	if opened {
		n.notifyUp(d)
		if changed&^uapi.IFF_UP != 0 {
			n.netdevChange(d, changed)
		}
	}
	if master != nil {
		if err := n.setMaster(d, master); err != nil {
			n.delete(d)
			return err
		}
	}
	return nil
}

// vethNewlink is veth_newlink: the peer (named, or veth%d) registers
// first, then the device (so a template of the device counts the peer's
// name); both start without carrier.
func (n *Netns) vethNewlink(d *Device, op rtnl.LinkAdd, peerNs *Netns) error {
	peerName := op.Peer
	if peerName == "" {
		peerName = "veth%d"
	}
	pa := op.PeerAttrs
	peerInfo := op.Peer != "" || op.PeerNetns != "" || !reflect.DeepEqual(pa, rtnl.LinkAttrs{})
	// rtnl_get_peer_net: the peer's own netns; with VETH_INFO_PEER but
	// none, the requester's; without VETH_INFO_PEER, the device's.
	pn := n
	switch {
	case op.PeerNetns != "":
		var err error
		if pn, err = n.otherNetns(op.PeerNetns); err != nil {
			return err
		}
	case peerInfo && peerNs != nil:
		pn = peerNs
	}
	p := pn.newDevice(peerName, rtnl.KindVeth)
	if peerInfo {
		// The peer's own attributes (rtnl_create_link with them).
		if pa.MTU != nil {
			p.mtu = *pa.MTU
		}
		if pa.TxQueueLen != nil {
			p.txQLen = *pa.TxQueueLen
		}
		if pa.Group != nil {
			p.group = *pa.Group
		}
		if pa.Address != nil {
			p.addr = append(net.HardwareAddr(nil), pa.Address...)
			p.addrSet = true
		}
	} else {
		// No VETH_INFO_PEER: the peer is made from the device's own
		// attributes (veth_newlink's tbp = tb): its mtu, txqueuelen,
		// group and broadcast, not its address, flags or index.
		if op.MTU != nil {
			p.mtu = *op.MTU
		}
		if op.TxQueueLen != nil {
			p.txQLen = *op.TxQueueLen
		}
		if op.Group != nil {
			p.group = *op.Group
		}
		if len(op.Broadcast) >= 6 {
			p.brd = append(net.HardwareAddr(nil), op.Broadcast[:6]...)
		}
	}
	if p.addr == nil {
		p.addr = pn.randomAddr(pn.previewName(p.name))
	}
	if err := pn.register(p, 0); err != nil {
		return err
	}
	pn.carrierOff(p)
	// The peer is configured (and notified) before the device registers,
	// so its first RTM_NEWLINK has no link yet.
	pn.configured(p)
	if d.addr == nil {
		d.addr = n.randomAddr(n.previewName(d.name))
	}
	if err := n.register(d, uint32(op.Index)); err != nil {
		pn.unregisterMany([]*Device{p})
		return err
	}
	n.carrierOff(d)
	d.relOf().peer, p.relOf().peer = p, d
	if pn != n {
		// Each side's namespace gets an id for the other's now (the
		// kernel shows both on this kernel, before either is dumped).
		pn.nsid(n)
		n.nsid(pn)
	}
	return nil
}

// macvlanNewlink is macvlan_common_newlink.
func (n *Netns) macvlanNewlink(d, lower *Device, op rtnl.LinkAdd) error {
	if lower == nil {
		return rtnl.Errf(uapi.EINVAL, "")
	}
	if lower.lower != nil && lower.kind == rtnl.KindMacvlan {
		lower = lower.lower
	}
	if op.MTU == nil {
		d.mtu = lower.mtu
	} else if d.mtu > lower.mtu {
		return rtnl.Errf(uapi.EINVAL, "")
	}
	d.minMTU, d.maxMTU = ethMinMTU, lower.maxMTU
	if d.addr == nil {
		d.addr = n.randomAddr(n.previewName(d.name))
	}
	if len(lower.vlanList()) == 0 {
		// macvlan_port_create
		if lower.linkType != uapi.ARPHRD_ETHER || lower.flags&uapi.IFF_LOOPBACK != 0 {
			return rtnl.Errf(uapi.EINVAL, "")
		}
		if lower.master != nil {
			return rtnl.Errf(uapi.EBUSY, "") // the bridge holds the rx handler
		}
	}
	// Only one macvlan on a passthru port, and a passthru macvlan only
	// on a port without others; it takes the lower's address.
	if lower.passthruPort {
		return rtnl.Errf(uapi.EINVAL, "")
	}
	if op.MacvlanMode == "passthru" {
		if len(lower.vlanList()) > 0 {
			return rtnl.Errf(uapi.EINVAL, "")
		}
		d.macvlanPassthru = true
		d.addr = append(net.HardwareAddr(nil), lower.addr...)
	}
	// The lower's carrier is the macvlan's from the start (observed on
	// 6.18: a macvlan made on a lower without carrier is
	// LOWERLAYERDOWN in its first notification), so register's
	// linkwatch_init_dev computes its operstate.
	d.carrier = lower.carrier
	d.lower = lower
	d.oneForAll = lowerOneForAll(lower) // macvlan_init copies the lower's features
	if err := n.register(d, uint32(op.Index)); err != nil {
		d.lower = nil
		return err
	}
	lower.passthruPort = d.macvlanPassthru
	lower.relOf().vlans = append(lower.vlanList(), d)
	n.ev.trace.netdev(lower, "NETDEV_PRECHANGEUPPER", "NETDEV_CHANGEUPPER")
	n.linkEvent(lower) // netdev_upper_dev_link: NETDEV_CHANGEUPPER
	if lower.carrier {
		n.carrierOn(d)
	} else {
		n.carrierOff(d)
	}
	n.fireLinkwatch(d)
	return nil
}

// vxlanNewlink is vxlan_newlink: a VNI and port already taken is EEXIST.
func (n *Netns) vxlanNewlink(d *Device, op rtnl.LinkAdd) error {
	if op.VNI == nil {
		return rtnl.Errf(uapi.EINVAL, "")
	}
	d.relOf().vni = *op.VNI
	// vxlan_config_apply: a port not given, or given as 0, is the
	// module's default.
	d.rel.dstPort = vxlanDefaultPort
	if op.DstPort != nil && *op.DstPort != 0 {
		d.rel.dstPort = *op.DstPort
	}
	// vxlan_config_validate: the lower by ifindex (iproute2 resolved
	// its name), then the VNI.
	var lower *Device
	if op.Vxlan.Dev != "" {
		if lower = n.ByName(op.Vxlan.Dev); lower == nil {
			return rtnl.Errf(uapi.ENODEV, "Invalid local interface, device not found")
		}
	}
	for x := range n.listed() {
		if x.kind == rtnl.KindVxlan && x.rel != nil && x.rel.vni == d.rel.vni && x.rel.dstPort == d.rel.dstPort {
			return rtnl.Errf(uapi.EEXIST, "A VXLAN device with the specified VNI already exists")
		}
	}
	if lower != nil {
		// vxlan_config_apply: the lower's mtu less the IPv4 headroom is
		// the most, and the mtu when none was given.
		maxMTU := max(int(lower.mtu)-vxlanHeadroom, ethMinMTU)
		if op.MTU == nil || d.mtu > uint32(maxMTU) {
			d.mtu = uint32(maxMTU)
		}
	}
	if err := n.register(d, uint32(op.Index)); err != nil {
		return err
	}
	if lower != nil {
		// netdev_upper_dev_link: NETDEV_CHANGEUPPER, an RTM_NEWLINK of
		// the lower (the vxlan, not configured yet, sends none).
		d.rel.vxLower = lower
		lower.relOf().vxlans = append(lower.rel.vxlans, d)
		n.linkEvent(lower)
	}
	// __vxlan_dev_create runs rtnl_configure_link itself.
	n.configured(d)
	return nil
}

// vxlanHeadroom is VXLAN_HEADROOM: the IPv4, UDP, VXLAN and Ethernet
// headers a vxlan's packets add.
const vxlanHeadroom = 50

// configured is the end of rtnl_configure_link for a new device: its
// first notification.
func (n *Netns) configured(d *Device) {
	d.initializing = false
	n.linkEvent(d)
}

// devOpen is __dev_open: ndo_validate_addr, ndo_open, IFF_UP,
// dev_activate.
func (n *Netns) devOpen(d *Device) error {
	n.ev.trace.netdev(d, "NETDEV_PRE_UP")
	// ndo_validate_addr (eth_validate_addr) before ndo_open: a passthru
	// macvlan that took a bridge's zero address cannot come up. (The
	// bridge itself has no ndo_validate_addr: it comes up with it.)
	if d.kind != "" && d.kind != rtnl.KindBridge && !validEther(d.addr) {
		return rtnl.Errf(uapi.EADDRNOTAVAIL, "")
	}
	switch d.kind {
	case rtnl.KindMacvlan:
		if !d.macvlanPassthru && n.macvlanAddrBusy(d, d.addr) {
			return rtnl.Errf(uapi.EADDRINUSE, "")
		}
		if d.holdsLowerPromisc() {
			n.linkEvent(d.lower) // macvlan_open: dev_set_promiscuity(lower, 1)
		}
	case rtnl.KindVeth:
		if p := d.Peer(); p != nil && p.Up() {
			n.carrierOn(d)
			n.carrierOn(p)
		}
	case rtnl.KindBridge:
		n.brOpen(d)
	}
	d.flags |= uapi.IFF_UP
	n.activate(d)
	d.txActive = d.carrier
	return nil
}

// devClose is __dev_close: ndo_stop and IFF_UP off.
func (n *Netns) devClose(d *Device) {
	n.ev.trace.netdev(d, "NETDEV_GOING_DOWN")
	switch d.kind {
	case rtnl.KindMacvlan:
		if d.holdsLowerPromisc() {
			n.linkEvent(d.lower) // macvlan_stop: dev_set_promiscuity(lower, -1)
		}
	case rtnl.KindVeth:
		n.carrierOff(d)
		if d.Peer() != nil {
			n.carrierOff(d.Peer())
		}
	case rtnl.KindBridge:
		n.brStop(d)
	}
	d.flags &^= uapi.IFF_UP
	d.txActive = false // dev_deactivate_many
}

// macvlanAddrBusy is macvlan_addr_busy: the lower's address, or that of
// another macvlan of the port that is up.
func (n *Netns) macvlanAddrBusy(d *Device, a net.HardwareAddr) bool {
	l := d.lower
	if l == nil {
		return false
	}
	if sameAddr(l.addr, a) {
		return true
	}
	for _, v := range l.vlanList() {
		if v != d && v.Up() && sameAddr(v.addr, a) {
			return true
		}
	}
	return false
}

// setMTU is netif_set_mtu_ext.
func (n *Netns) setMTU(d *Device, mtu uint32) error {
	if mtu == d.mtu {
		return nil
	}
	if err := validateMTU(d, mtu); err != nil {
		return err
	}
	switch d.kind {
	case rtnl.KindMacvlan:
		if d.lower != nil && d.lower.mtu < mtu {
			return rtnl.Errf(uapi.EINVAL, "")
		}
	case rtnl.KindBridge:
		d.mtuSetByUser = true
	case rtnl.KindVxlan:
		// vxlan_change_mtu: no more than the lower's less the headroom.
		if d.rel != nil && d.rel.vxLower != nil && int(mtu) > int(d.rel.vxLower.mtu)-vxlanHeadroom {
			return rtnl.Errf(uapi.EINVAL, "")
		}
	}
	d.mtu = mtu
	n.notifyChangeMTU(d)
	return nil
}

// setAddress is netif_set_mac_address with each kind's
// ndo_set_mac_address.
func (n *Netns) setAddress(d *Device, a net.HardwareAddr) error {
	if len(a) < 6 {
		return rtnl.Errf(uapi.EINVAL, "")
	}
	a = append(net.HardwareAddr(nil), a[:6]...)
	switch {
	case d.kind == rtnl.KindIfb:
		return rtnl.Errf(uapi.EOPNOTSUPP, "")
	case sameAddr(d.addr, a):
		// netif_set_mac_address skips ndo_set_mac_address for the
		// current address, and still marks it as set.
	case d.kind == rtnl.KindBridge:
		if err := n.brSetMACAddress(d, a); err != nil {
			return err
		}
	case d.kind == rtnl.KindMacvlan:
		if !validEther(a) {
			return rtnl.Errf(uapi.EADDRNOTAVAIL, "")
		}
		if d.macvlanPassthru && d.lower != nil {
			// The lower's address changes, and the macvlan follows
			// it (NETDEV_CHANGEADDR of a passthru port).
			if err := n.setAddress(d.lower, a); err != nil {
				return err
			}
			d.addr = append(net.HardwareAddr(nil), d.lower.addr...)
			break
		}
		if n.macvlanAddrBusy(d, a) {
			return rtnl.Errf(uapi.EADDRINUSE, "")
		}
		d.addr = a
	default: // eth_mac_addr
		if d.Up() && !d.liveAddr {
			return rtnl.Errf(uapi.EBUSY, "")
		}
		if !validEther(a) {
			return rtnl.Errf(uapi.EADDRNOTAVAIL, "")
		}
		d.addr = a
	}
	d.addrSet = true
	n.notifyChangeAddr(d)
	return nil
}

// rename is netif_change_name: a template (validName) counts the
// device's own name among those in use.
func (n *Netns) rename(d *Device, name string) error {
	if name == d.name {
		return nil
	}
	name, err := n.validName(name)
	if err != nil {
		return err
	}
	delete(n.byName, d.name)
	d.name = name
	n.byName[name] = d
	n.ev.trace.netdev(d, "NETDEV_CHANGENAME")
	n.linkEvent(d)      // NETDEV_CHANGENAME: rtnetlink_event,
	n.inetChangeName(d) // then inetdev_event,
	n.rulesDetach(d)    // fib_rules_event
	n.rulesAttach(d)
	return nil
}

// setMaster is do_set_master: leave the current master (unless it is the
// requested one), then join the new one; only a bridge takes ports.
func (n *Netns) setMaster(d, m *Device) error {
	if up := d.master; up != nil {
		if up == m {
			return nil
		}
		n.brDelIf(up, d)
	}
	if m == nil {
		return nil
	}
	if m.kind != rtnl.KindBridge {
		return rtnl.Errf(uapi.EOPNOTSUPP, "")
	}
	return n.brAddIf(m, d)
}

// setlink is do_setlink for the attributes the language has, in the
// kernel's order; changes made before a failure stay.
func (n *Netns) setlink(d *Device, a rtnl.LinkAttrs, newName string, master *Device, masterGiven bool) (err error) {
	return n.setlinkNotify(d, a, newName, master, masterGiven, false)
}

// setlinkNotify is do_setlink with DO_SETLINK_NOTIFY given (notify): a
// kind's changelink ran before it.
func (n *Netns) setlinkNotify(d *Device, a rtnl.LinkAttrs, newName string, master *Device, masterGiven, notify bool) (err error) {
	if (a.Address != nil && len(a.Address) < 6) || (a.Broadcast != nil && len(a.Broadcast) < 6) {
		return rtnl.Errf(uapi.EINVAL, "") // validate_linkmsg
	}
	defer func() {
		if notify {
			n.notifyChange(d) // netif_state_change
		}
	}()
	if a.Address != nil {
		if err := n.setAddress(d, a.Address); err != nil {
			return err
		}
	}
	if a.MTU != nil {
		if err := n.setMTU(d, *a.MTU); err != nil {
			return err
		}
	}
	if a.Group != nil {
		d.group = *a.Group
		notify = true
	}
	if newName != "" {
		if err := n.rename(d, newName); err != nil {
			return err
		}
	}
	if a.Alias != nil {
		// netif_set_alias: set, or cleared by an empty one; notified
		// (netif_state_change) even when it was the same.
		if *a.Alias != "" || d.rel != nil {
			d.relOf().alias = *a.Alias
		}
		notify = true
	}
	if a.Broadcast != nil {
		d.brd = append(net.HardwareAddr(nil), a.Broadcast[:6]...)
		n.notifyChangeAddr(d)
	}
	if err := n.changeFlags(d, a); err != nil {
		return err
	}
	if masterGiven {
		if err := n.setMaster(d, master); err != nil {
			return err
		}
	}
	if a.Carrier != nil {
		if err := n.changeCarrier(d); err != nil {
			return err
		}
	}
	if a.TxQueueLen != nil && *a.TxQueueLen != d.txQLen {
		return n.changeTxQueueLen(d, *a.TxQueueLen)
	}
	return nil
}

// changeFlags is netif_change_flags with the flags the request gave:
// __dev_change_flags (NOARP and MULTICAST at once, then open or close,
// then the promiscuity and allmulti the user asked for), then
// __dev_notify_flags: one RTM_NEWLINK if anything changed, NETDEV_UP or
// NETDEV_DOWN, and NETDEV_CHANGE for an up device whose other flags
// changed. A failed open does not stop the other changes, but nothing is
// notified.
func (n *Netns) changeFlags(d *Device, a rtnl.LinkAttrs) error {
	oldFlags, oldPromisc, oldAllmulti := d.flags, d.promisc, d.allmulti
	if err := n.devChangeFlags(d, a); err != nil {
		return err
	}
	changes := d.flags ^ oldFlags
	if changes == 0 && d.promisc == oldPromisc && d.allmulti == oldAllmulti {
		return nil
	}
	n.linkEvent(d)
	if changes&uapi.IFF_UP != 0 {
		if d.Up() {
			n.notifyUp(d)
		} else {
			n.notifyDown(d)
		}
	}
	if d.Up() && changes&^uapi.IFF_UP != 0 {
		n.netdevChange(d, changes)
	}
	return nil
}

// devChangeFlags is __dev_change_flags: NOARP and MULTICAST at once, then
// open or close, then the user's promiscuity and allmulti; the open's
// error is returned after the rest is done, nothing notified.
func (n *Netns) devChangeFlags(d *Device, a rtnl.LinkAttrs) error {
	setFlag(&d.flags, uapi.IFF_NOARP, a.ARP, true)
	setFlag(&d.flags, uapi.IFF_MULTICAST, a.Multicast, false)
	var openErr error
	if a.Up != nil && *a.Up != d.Up() {
		if *a.Up {
			openErr = n.devOpen(d)
		} else {
			if d.hasEnqueue() {
				n.reqDeactivateSyncs++ // dev_deactivate_many: synchronize_net
			}
			n.devClose(d)
		}
	}
	if a.Promisc != nil && *a.Promisc != d.promisc {
		wasPromiscuous := d.promiscuous()
		d.promisc = *a.Promisc
		// dev->flags' IFF_PROMISC changed: passed to a macvlan's lower
		// (macvlan_change_rx_flags), whose dev_set_promiscuity notifies.
		if d.promiscuous() != wasPromiscuous && d.passesPromiscuity() {
			n.linkEvent(d.lower)
		}
	}
	if a.AllMulti != nil {
		d.allmulti = *a.AllMulti
	}
	return openErr
}

// setFlag sets bit in *flags to v (inverted when invert), if v is given.
func setFlag(flags *uint32, bit uint32, v *bool, invert bool) {
	if v == nil {
		return
	}
	if *v != invert {
		*flags |= bit
	} else {
		*flags &^= bit
	}
}

// changeCarrier is netif_change_carrier: none of the kinds the model
// has but dummy has ndo_change_carrier.
func (n *Netns) changeCarrier(d *Device) error {
	if d.kind == rtnl.KindDummy {
		return fmt.Errorf("%w: carrier of a dummy device", ErrNotModelled)
	}
	return rtnl.Errf(uapi.EOPNOTSUPP, "")
}

// changeTxQueueLen is dev_change_tx_queue_len: the new length, its
// NETDEV_CHANGE_TX_QUEUE_LEN (an RTM_NEWLINK), then the qdisc's resize
// (dev_qdisc_change_tx_queue_len), up or down, of the qdisc the device
// got at its first activation: pfifo_fast's rings cannot take more than
// pfifoFastMaxLen, and the old length comes back (ENOMEM; no second
// notification). noop (never activated) and noqueue have nothing to
// resize.
func (n *Netns) changeTxQueueLen(d *Device, qlen uint32) error {
	old := d.txQLen
	d.txQLen = qlen
	n.linkEvent(d) // NETDEV_CHANGE_TX_QUEUE_LEN
	if d.qdisc == "pfifo_fast" && qlen > pfifoFastMaxLen {
		d.txQLen = old
		return rtnl.Errf(uapi.ENOMEM, "")
	}
	return nil
}

func (n *Netns) linkSet(op rtnl.LinkSet) error {
	if op.Netns != "" {
		return n.linkSetNetns(op)
	}
	master, masterGiven, err := n.resolveMaster(op.LinkAttrs)
	if err != nil {
		return err
	}
	if op.Dev == "" {
		if op.GroupSel == nil {
			return rtnl.Errf(uapi.EINVAL, "link set needs a device or a group")
		}
		if op.Group != nil {
			return rtnl.Errf(uapi.EINVAL, "link set group cannot also change the group")
		}
		// rtnl_group_changelink: every device of the group, in list
		// order, until one fails.
		a := op.LinkAttrs
		a.Group = op.GroupSel
		for _, d := range n.devSnapshot() {
			if !n.alive(d) || d.group != *op.GroupSel {
				continue
			}
			if err := n.setlink(d, a, "", master, masterGiven); err != nil {
				return err
			}
		}
		return nil
	}
	d := n.ByName(op.Dev)
	if d == nil {
		return enodev(op.Dev)
	}
	if op.Kind == "" {
		return n.setlink(d, op.LinkAttrs, op.NewName, master, masterGiven)
	}
	// rtnl_changelink: the device's own kind's changelink, before
	// do_setlink; its failure ends the request, nothing notified.
	if d.kind != op.Kind {
		return rtnl.Errf(uapi.EOPNOTSUPP, "")
	}
	if err := n.brChangelink(d, op.Bridge); err != nil {
		return err
	}
	return n.setlinkNotify(d, op.LinkAttrs, op.NewName, master, masterGiven, true)
}

// linkProp is rtnl_linkprop: each alternative name in order
// (rtnl_alt_ifname): added unless the namespace has a device or an
// alternative name of it (EEXIST; longer than ALTIFNAMSIZ-1, ERANGE from
// the attribute policy); deleted if it is one of the device's (ENOENT
// for no such name, EINVAL for the device's own name or another's). The
// first failure ends the request, the names before it changed, nothing
// notified; otherwise a change is notified by netdev_state_change (an up
// device).
func (n *Netns) linkProp(op rtnl.LinkProp) error {
	d := n.ByName(op.Dev)
	if d == nil {
		return enodev(op.Dev)
	}
	changed := false
	for _, a := range op.AltNames {
		if len(a) > altIfNameSize-1 {
			return rtnl.Errf(uapi.ERANGE, "Attribute failed policy validation") // validate_nla: NLA_STRING too long
		}
		owner := n.byName[a]
		switch {
		case !op.Del && owner != nil:
			return rtnl.Errf(uapi.EEXIST, "")
		case !op.Del:
			d.relOf().altNames = append(d.AltNames(), a)
			n.byName[a] = d
		case owner == nil:
			return rtnl.Errf(uapi.ENOENT, "")
		case owner != d || a == d.name:
			return rtnl.Errf(uapi.EINVAL, "")
		default:
			d.rel.altNames = without(d.rel.altNames, a)
			delete(n.byName, a)
		}
		changed = true
	}
	if changed {
		n.notifyChange(d)
	}
	return nil
}

// altIfNameSize is ALTIFNAMSIZ.
const altIfNameSize = 128

// delete is rtnl_delete_link without the loopback check.
func (n *Netns) delete(d *Device) { n.unregisterMany([]*Device{d}) }

// unregisterMany runs each device's ->dellink into one list, then
// unregister_netdevice_many over it. A device queued already (a veth's
// peer, a device named twice) is not dellinked again.
func (n *Netns) unregisterMany(devs []*Device) {
	var b unregBatch
	for _, d := range devs {
		if n.alive(d) && !b.has(d) {
			n.dellink(d, &b)
		}
	}
	n.unregisterBatch(b.list)
}

// unregBatch is the list_kill of an unregister: unregister_netdevice_queue
// moves a device queued again to the tail.
type unregBatch struct {
	list []*Device
	in   map[*Device]bool
}

func (b *unregBatch) has(d *Device) bool { return b.in[d] }

func (b *unregBatch) queue(d *Device) {
	if b.in[d] {
		b.list = without(b.list, d)
	}
	if b.in == nil {
		b.in = map[*Device]bool{}
	}
	b.in[d] = true
	b.list = append(b.list, d)
}

// dellink is each kind's ->dellink: veth_dellink clears both peers and
// queues both ends; macvlan_dellink leaves its lower's port (the
// unlinking is an RTM_NEWLINK of the lower); br_dev_delete releases the
// ports (del_nbp) before the bridge is queued.
func (n *Netns) dellink(d *Device, b *unregBatch) {
	switch {
	case d.kind == rtnl.KindVeth:
		p := d.Peer()
		if p != nil {
			d.rel.peer = nil
		}
		b.queue(d)
		if p != nil {
			p.rel.peer = nil
			b.queue(p)
		}
		return
	case d.kind == rtnl.KindMacvlan && d.lower != nil:
		l := d.lower
		if d.macvlanPassthru {
			l.passthruPort = false
		}
		l.rel.vlans = without(l.rel.vlans, d)
		n.linkEvent(l)
	case d.kind == rtnl.KindBridge:
		for len(d.portList()) > 0 {
			n.delNbp(d, d.portList()[0])
		}
	case d.kind == rtnl.KindVxlan && d.rel != nil && d.rel.vxLower != nil:
		// vxlan_dellink: netdev_upper_dev_unlink notifies the lower.
		l := d.rel.vxLower
		l.rel.vxlans = without(l.rel.vxlans, d)
		d.rel.vxLower = nil
		n.linkEvent(l)
	}
	b.queue(d)
}

// unregisterBatch is unregister_netdevice_many: dev_close_many closes
// every device that is up, then notifies each (RTM_NEWLINK, NETDEV_DOWN);
// the devices leave the lists (no more RTM_NEWLINK for them); then each in
// turn gets NETDEV_UNREGISTER (a port leaves its bridge, a lower takes its
// macvlans down in a nested unregister) and its RTM_DELLINK.
func (n *Netns) unregisterBatch(list []*Device) {
	// A veth's peer may live in another namespace: each device is
	// handled, and notified, where it lives (ns); what it costs is
	// charged to this request.
	ns := func(d *Device) *Netns {
		if d.ns != nil {
			return d.ns
		}
		return n
	}
	var closed []*Device
	for _, d := range list {
		d.upAtUnregister = d.Up()
		d.v6AtUnregister = d.v6
		d.queueAtUnregister = d.hasEnqueue()
		if d.Up() {
			ns(d).devClose(d)
			closed = append(closed, d)
		}
	}
	inBatch := n.v6.inBatch
	n.v6.inBatch = true
	for _, d := range closed {
		ns(d).linkEvent(d)
		ns(d).notifyDown(d)
	}
	n.v6.inBatch = inBatch
	for _, d := range list {
		d.unregistering = true
	}
	for _, d := range list {
		dn := ns(d)
		d.qdisc = "noop" // dev_shutdown
		// NETDEV_UNREGISTER: inetdev_event, fib_netdev_event, then the
		// bridge and macvlan listeners.
		dn.ev.trace.netdev(d, "NETDEV_UNREGISTER")
		dn.inetdevDestroy(d)
		dn.fibDisableIPUnregister(d)
		dn.nexthopFlushDev(d, true) // nh_netdev_event
		dn.rulesDetach(d)           // fib_rules_event
		dn.v6Unregister(d)          // addrconf_notify (cost estimate)
		if br := d.master; br != nil {
			dn.brDelIf(br, d)
		}
		if len(d.vlanList()) > 0 {
			var nested unregBatch
			for _, v := range append([]*Device(nil), d.vlanList()...) {
				dn.dellink(v, &nested)
			}
			dn.unregisterBatch(nested.list)
		}
		if len(d.vxlanList()) > 0 {
			// vxlan_handle_lowerdev_unregister: the vxlans on it go
			// too, in a batch of their own, in the order of the
			// namespace's vxlan list (the newest first).
			var nested unregBatch
			vs := append([]*Device(nil), d.vxlanList()...)
			for i := len(vs) - 1; i >= 0; i-- {
				if v := vs[i]; !nested.has(v) && !v.unregistering {
					dn.dellink(v, &nested)
				}
			}
			dn.unregisterBatch(nested.list)
		}
		dn.delLinkEvent(d)
		dn.ev.trace.preUninitEvent(d)
		dn.unlist(d)
		if dn != n {
			n.unregistered = append(n.unregistered, dn.unregistered...)
			dn.unregistered = nil
		}
	}
}

func (n *Netns) linkDel(op rtnl.LinkDel) error {
	d := n.ByName(op.Dev)
	if d == nil {
		return enodev(op.Dev)
	}
	return n.deleteLink(d)
}

// deleteLink is rtnl_delete_link: devices without rtnl_link_ops (the
// loopback) cannot be deleted.
func (n *Netns) deleteLink(d *Device) error {
	if d.kind == "" {
		return rtnl.Errf(uapi.EOPNOTSUPP, "")
	}
	n.delete(d)
	return nil
}

// linkDelGroup is rtnl_group_dellink.
func (n *Netns) linkDelGroup(op rtnl.LinkDelGroup) error {
	if op.Group == 0 {
		return rtnl.Errf(uapi.EPERM, "")
	}
	var devs []*Device
	for d := range n.listed() {
		if d.group != op.Group {
			continue
		}
		if d.kind == "" {
			return rtnl.Errf(uapi.EOPNOTSUPP, "")
		}
		devs = append(devs, d)
	}
	if len(devs) == 0 {
		return rtnl.Errf(uapi.ENODEV, "")
	}
	// Every member's ->dellink, in list order, then one batch; a veth
	// end the group names again is queued again (moved to the tail).
	var b unregBatch
	for _, d := range devs {
		if n.alive(d) {
			n.dellink(d, &b)
		}
	}
	n.unregisterBatch(b.list)
	return nil
}
