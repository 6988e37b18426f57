package sim

import (
	"net"

	"golang.org/x/sys/unix"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// The link requests, following net/core/rtnetlink.c (rtnl_newlink,
// do_setlink, rtnl_dellink, rtnl_group_changelink, rtnl_group_dellink) and
// the drivers' newlink/dellink, and resolving names first where the kernel
// target (like iproute2) resolves them in userspace before it sends
// anything: the master, then the macvlan lower, then the device.

func enodev(name string) error { return rtnl.Errf(unix.ENODEV, "no device %q", name) }

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
		return rtnl.Errf(unix.EINVAL, "")
	}
	if !validEther(a) {
		return rtnl.Errf(unix.EADDRNOTAVAIL, "")
	}
	return nil
}

// validateMTU is dev_validate_mtu.
func validateMTU(d *Device, mtu uint32) error {
	if mtu < d.minMTU {
		return rtnl.Errf(unix.EINVAL, "mtu less than device minimum")
	}
	if d.maxMTU > 0 && mtu > d.maxMTU {
		return rtnl.Errf(unix.EINVAL, "mtu greater than device maximum")
	}
	return nil
}

func (n *Netns) linkAdd(op rtnl.LinkAdd) error {
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
			return rtnl.Errf(unix.EINVAL, "")
		}
	}
	// __rtnl_newlink: an existing device (by ifindex, else by name) with
	// NLM_F_EXCL is EEXIST.
	if op.Index > 0 {
		if n.ByIndex(uint32(op.Index)) != nil {
			return rtnl.Errf(unix.EEXIST, "")
		}
	} else if n.ByName(op.Name) != nil {
		return rtnl.Errf(unix.EEXIST, "")
	}
	if !known {
		return rtnl.Errf(unix.EOPNOTSUPP, "Unknown device type")
	}
	// rtnl_create_link
	d := n.newDevice(op.Name, op.Kind)
	if op.MTU != nil {
		if err := validateMTU(d, *op.MTU); err != nil {
			return err
		}
		d.MTU = *op.MTU
	}
	if op.Address != nil {
		d.addr = append(net.HardwareAddr(nil), op.Address...)
		d.addrSet = true
	}
	if op.TxQueueLen != nil {
		d.TxQLen = *op.TxQueueLen
	}
	if op.Group != nil {
		d.Group = *op.Group
	}
	// ->newlink, or register_netdevice
	switch op.Kind {
	case rtnl.KindVeth:
		err = n.vethNewlink(d, op)
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
	if op.Kind == rtnl.KindBridge && op.Address != nil {
		// br_dev_newlink: an address given at creation is the bridge id.
		n.brChangeID(d, d.addr)
	}
	// rtnl_configure_link, then do_set_master; a failure unregisters
	// the new device (and, through ->dellink, its veth peer).
	if op.Up != nil && *op.Up {
		if err := n.open(d); err != nil {
			n.delete(d)
			return err
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
// first, then the device; both start without carrier.
func (n *Netns) vethNewlink(d *Device, op rtnl.LinkAdd) error {
	peerName := op.Peer
	if peerName == "" {
		peerName = n.allocName("veth")
	}
	p := n.newDevice(peerName, rtnl.KindVeth)
	p.addr = n.randomAddr()
	if err := n.register(p, 0); err != nil {
		return err
	}
	n.carrierOff(p)
	if d.addr == nil {
		d.addr = n.randomAddr()
	}
	if err := n.register(d, uint32(op.Index)); err != nil {
		n.unregisterMany([]*Device{p})
		return err
	}
	n.carrierOff(d)
	d.peer, p.peer = p, d
	return nil
}

// macvlanNewlink is macvlan_common_newlink.
func (n *Netns) macvlanNewlink(d, lower *Device, op rtnl.LinkAdd) error {
	if lower == nil {
		return rtnl.Errf(unix.EINVAL, "")
	}
	if lower.lower != nil && lower.Kind == rtnl.KindMacvlan {
		lower = lower.lower
	}
	if op.MTU == nil {
		d.MTU = lower.MTU
	} else if d.MTU > lower.MTU {
		return rtnl.Errf(unix.EINVAL, "")
	}
	d.minMTU, d.maxMTU = ethMinMTU, lower.maxMTU
	if d.addr == nil {
		d.addr = n.randomAddr()
	}
	if len(lower.vlans) == 0 {
		// macvlan_port_create
		if lower.linkType != unix.ARPHRD_ETHER || lower.flags&unix.IFF_LOOPBACK != 0 {
			return rtnl.Errf(unix.EINVAL, "")
		}
		if lower.master != nil {
			return rtnl.Errf(unix.EBUSY, "") // the bridge holds the rx handler
		}
	}
	// Only one macvlan on a passthru port, and a passthru macvlan only
	// on a port without others; it takes the lower's address.
	if lower.passthruPort {
		return rtnl.Errf(unix.EINVAL, "")
	}
	if op.MacvlanMode == "passthru" {
		if len(lower.vlans) > 0 {
			return rtnl.Errf(unix.EINVAL, "")
		}
		d.macvlanPassthru = true
		d.addr = append(net.HardwareAddr(nil), lower.addr...)
	}
	if err := n.register(d, uint32(op.Index)); err != nil {
		return err
	}
	lower.passthruPort = d.macvlanPassthru
	d.lower = lower
	lower.vlans = append(lower.vlans, d)
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
		return rtnl.Errf(unix.EINVAL, "")
	}
	d.vni = *op.VNI
	d.dstPort = vxlanDefaultPort
	if op.DstPort != nil {
		d.dstPort = *op.DstPort
	}
	for _, x := range n.devs {
		if x.Kind == rtnl.KindVxlan && x.vni == d.vni && x.dstPort == d.dstPort {
			return rtnl.Errf(unix.EEXIST, "A VXLAN device with the specified VNI already exists")
		}
	}
	return n.register(d, uint32(op.Index))
}

// open is __dev_open plus NETDEV_UP.
func (n *Netns) open(d *Device) error {
	if d.Up() {
		return nil
	}
	// ndo_validate_addr (eth_validate_addr) before ndo_open: a passthru
	// macvlan that took a bridge's zero address cannot come up. (The
	// bridge itself has no ndo_validate_addr: it comes up with it.)
	if d.Kind != "" && d.Kind != rtnl.KindBridge && !validEther(d.addr) {
		return rtnl.Errf(unix.EADDRNOTAVAIL, "")
	}
	switch d.Kind {
	case rtnl.KindMacvlan:
		if !d.macvlanPassthru && n.macvlanAddrBusy(d, d.addr) {
			return rtnl.Errf(unix.EADDRINUSE, "")
		}
	case rtnl.KindVeth:
		if p := d.peer; p != nil && p.Up() {
			n.carrierOn(d)
			n.carrierOn(p)
		}
	case rtnl.KindBridge:
		n.brOpen(d)
	}
	d.flags |= unix.IFF_UP
	n.activate(d)
	n.notifyUp(d)
	return nil
}

// close is __dev_close plus NETDEV_DOWN.
func (n *Netns) close(d *Device) {
	if !d.Up() {
		return
	}
	switch d.Kind {
	case rtnl.KindVeth:
		n.carrierOff(d)
		if d.peer != nil {
			n.carrierOff(d.peer)
		}
	case rtnl.KindBridge:
		n.brStop(d)
	}
	d.flags &^= unix.IFF_UP
	n.notifyDown(d)
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
	for _, v := range l.vlans {
		if v != d && v.Up() && sameAddr(v.addr, a) {
			return true
		}
	}
	return false
}

// setMTU is netif_set_mtu_ext.
func (n *Netns) setMTU(d *Device, mtu uint32) error {
	if mtu == d.MTU {
		return nil
	}
	if err := validateMTU(d, mtu); err != nil {
		return err
	}
	switch d.Kind {
	case rtnl.KindMacvlan:
		if d.lower != nil && d.lower.MTU < mtu {
			return rtnl.Errf(unix.EINVAL, "")
		}
	case rtnl.KindBridge:
		d.mtuSetByUser = true
	}
	d.MTU = mtu
	n.notifyChangeMTU(d)
	return nil
}

// setAddress is netif_set_mac_address with each kind's
// ndo_set_mac_address.
func (n *Netns) setAddress(d *Device, a net.HardwareAddr) error {
	if len(a) < 6 {
		return rtnl.Errf(unix.EINVAL, "")
	}
	a = append(net.HardwareAddr(nil), a[:6]...)
	switch {
	case d.Kind == rtnl.KindIfb:
		return rtnl.Errf(unix.EOPNOTSUPP, "")
	case sameAddr(d.addr, a):
		// netif_set_mac_address skips ndo_set_mac_address for the
		// current address, and still marks it as set.
	case d.Kind == rtnl.KindBridge:
		if err := n.brSetMACAddress(d, a); err != nil {
			return err
		}
	case d.Kind == rtnl.KindMacvlan:
		if !validEther(a) {
			return rtnl.Errf(unix.EADDRNOTAVAIL, "")
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
			return rtnl.Errf(unix.EADDRINUSE, "")
		}
		d.addr = a
	default: // eth_mac_addr
		if d.Up() && !d.liveAddr {
			return rtnl.Errf(unix.EBUSY, "")
		}
		if !validEther(a) {
			return rtnl.Errf(unix.EADDRNOTAVAIL, "")
		}
		d.addr = a
	}
	d.addrSet = true
	n.notifyChangeAddr(d)
	return nil
}

// rename is netif_change_name.
func (n *Netns) rename(d *Device, name string) error {
	if name == d.Name {
		return nil
	}
	if n.byName[name] != nil {
		return rtnl.Errf(unix.EEXIST, "")
	}
	delete(n.byName, d.Name)
	d.Name = name
	n.byName[name] = d
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
	if m.Kind != rtnl.KindBridge {
		return rtnl.Errf(unix.EOPNOTSUPP, "")
	}
	return n.brAddIf(m, d)
}

// setlink is do_setlink for the attributes the language has, in the
// kernel's order; changes made before a failure stay.
func (n *Netns) setlink(d *Device, a rtnl.LinkAttrs, newName string, master *Device, masterGiven bool) (err error) {
	if a.Address != nil && len(a.Address) < 6 {
		return rtnl.Errf(unix.EINVAL, "") // validate_linkmsg
	}
	notify := false
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
		d.Group = *a.Group
		notify = true
	}
	if newName != "" {
		if err := n.rename(d, newName); err != nil {
			return err
		}
	}
	if a.Up != nil {
		if *a.Up {
			if err := n.open(d); err != nil {
				return err
			}
		} else {
			n.close(d)
		}
	}
	if masterGiven {
		if err := n.setMaster(d, master); err != nil {
			return err
		}
	}
	if a.TxQueueLen != nil {
		d.TxQLen = *a.TxQueueLen
	}
	return nil
}

func (n *Netns) linkSet(op rtnl.LinkSet) error {
	master, masterGiven, err := n.resolveMaster(op.LinkAttrs)
	if err != nil {
		return err
	}
	if op.Dev == "" {
		if op.GroupSel == nil {
			return rtnl.Errf(unix.EINVAL, "link set needs a device or a group")
		}
		if op.Group != nil {
			return rtnl.Errf(unix.EINVAL, "link set group cannot also change the group")
		}
		// rtnl_group_changelink: every device of the group, in list
		// order, until one fails.
		a := op.LinkAttrs
		a.Group = op.GroupSel
		for _, d := range append([]*Device(nil), n.devs...) {
			if !n.alive(d) || d.Group != *op.GroupSel {
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
	return n.setlink(d, op.LinkAttrs, op.NewName, master, masterGiven)
}

// dellinkList is a kind's ->dellink: what goes in the same unregister
// batch.
func (n *Netns) dellinkList(d *Device) []*Device {
	if d.peer != nil {
		return []*Device{d, d.peer}
	}
	return []*Device{d}
}

// delete is rtnl_delete_link without the loopback check.
func (n *Netns) delete(d *Device) { n.unregisterMany(n.dellinkList(d)) }

// unregisterMany is unregister_netdevice_many with the notifier work that
// changes surviving devices: a bridge releases its ports (br_dev_delete),
// a port leaves its bridge (br_del_if on NETDEV_UNREGISTER), the macvlans
// of a lower go with it (macvlan_device_event), a macvlan leaves its
// lower's port.
func (n *Netns) unregisterMany(list []*Device) {
	for i := 0; i < len(list); i++ {
		d := list[i]
		if !n.alive(d) {
			continue
		}
		if d.Kind == rtnl.KindBridge {
			for len(d.ports) > 0 {
				n.brDelIf(d, d.ports[0])
			}
		}
		if br := d.master; br != nil {
			n.brDelIf(br, d)
		}
		for _, v := range d.vlans {
			list = append(list, n.dellinkList(v)...)
		}
		if l := d.lower; l != nil {
			if d.macvlanPassthru {
				l.passthruPort = false
			}
			for j, v := range l.vlans {
				if v == d {
					l.vlans = append(l.vlans[:j], l.vlans[j+1:]...)
					break
				}
			}
		}
		if d.peer != nil {
			list = append(list, d.peer)
		}
		n.unlist(d)
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
	if d.Kind == "" {
		return rtnl.Errf(unix.EOPNOTSUPP, "")
	}
	n.delete(d)
	return nil
}

// linkDelGroup is rtnl_group_dellink.
func (n *Netns) linkDelGroup(op rtnl.LinkDelGroup) error {
	if op.Group == 0 {
		return rtnl.Errf(unix.EPERM, "")
	}
	var batch []*Device
	for _, d := range n.devs {
		if d.Group != op.Group {
			continue
		}
		if d.Kind == "" {
			return rtnl.Errf(unix.EOPNOTSUPP, "")
		}
		batch = append(batch, n.dellinkList(d)...)
	}
	if len(batch) == 0 {
		return rtnl.Errf(unix.ENODEV, "")
	}
	n.unregisterMany(batch)
	return nil
}

// linkDelList is the list delete as the kernel target emulates it: resolve
// every name first (one unknown: ENODEV, nothing deleted), then delete
// each distinct device, skipping those an earlier deletion took.
func (n *Netns) linkDelList(op rtnl.LinkDelList) error {
	var devs []*Device
	seen := map[*Device]bool{}
	for _, name := range op.Devs {
		d := n.ByName(name)
		if d == nil {
			return enodev(name)
		}
		if !seen[d] {
			seen[d] = true
			devs = append(devs, d)
		}
	}
	for _, d := range devs {
		if !n.alive(d) {
			continue
		}
		if err := n.deleteLink(d); err != nil {
			return err
		}
	}
	return nil
}
