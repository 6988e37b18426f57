package sim

import (
	"fmt"
	"net"
	"slices"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// The bridge with STP off (BR_NO_STP, the default): a port is DISABLED or,
// once enabled, FORWARDING at once (br_make_forwarding); the bridge has
// carrier iff a port forwards, recomputed by br_port_state_selection, which
// runs when a port is enabled or disabled and when the bridge id changes
// (net/bridge/br_stp.c, br_stp_if.c, br_if.c). With STP on (the kernel's
// STP) a port enabled goes LISTENING instead, and only its forward-delay
// timer, twice, makes it FORWARDING; the model keeps no clock, so such a
// port listens for the rest of the run. Turning STP on or off moves no
// port: br_make_forwarding acts on BLOCKING ports only.

// brPortStateSelection is br_port_state_selection's carrier rule: a
// FORWARDING port gives the bridge carrier.
func (n *Netns) brPortStateSelection(br *Device) {
	live := false
	for _, p := range br.portList() {
		if p.portEnabled && !p.portListening {
			live = true
		}
	}
	if live {
		n.carrierOn(br)
	} else {
		n.carrierOff(br)
	}
}

// brEnablePort is br_stp_enable_port: the port goes BLOCKING, then
// FORWARDING, or LISTENING under STP (br_make_forwarding notifies), and
// is notified again.
func (n *Netns) brEnablePort(br, p *Device) {
	p.portEnabled = true
	p.portListening = br.rel != nil && br.rel.stp
	n.bridgeEvent("RTM_NEWLINK", p)
	n.brPortStateSelection(br)
	n.bridgeEvent("RTM_NEWLINK", p)
}

// brDisablePort is br_stp_disable_port (one notification, whatever the
// port's state was).
func (n *Netns) brDisablePort(br, p *Device) {
	p.portEnabled, p.portListening = false, false
	n.bridgeEvent("RTM_NEWLINK", p)
	n.brPortStateSelection(br)
}

// STP's bounds on its times (BR_MIN_* and BR_MAX_*), in centiseconds, as
// IFLA_BR_* carry them (clock_t).
const (
	brMinHelloTime, brMaxHelloTime       = 100, 1000
	brMinMaxAge, brMaxMaxAge             = 600, 4000
	brMinForwardDelay, brMaxForwardDelay = 200, 3000
	brDefaultForwardDelay                = 1500
)

// brForwardDelay is the bridge's bridge_forward_delay, in centiseconds.
func (d *Device) brForwardDelay() uint32 {
	if d.rel == nil || !d.rel.fwdDelaySet {
		return brDefaultForwardDelay
	}
	return d.rel.fwdDelay
}

// brChangelink is br_changelink for the options the language has, in
// its order (not the line's); an option before a failing one stays set.
// ageing_time, mcast_snooping and vlan_default_pvid change nothing the
// model shows (priority only what the port state selection does): this
// kernel is built without CONFIG_BRIDGE_VLAN_FILTERING (its
// vlan_default_pvid is not even checked, and vlan_filtering is
// EOPNOTSUPP whatever its value).
func (n *Netns) brChangelink(br *Device, o rtnl.BridgeOpts) error {
	err := n.brSetOpts(br, o)
	if fd := br.brForwardDelay(); !br.rel.stp && fd > 0 && fd < 100 {
		// Without STP a forwarding port's forward-delay timer still
		// fires (br_forward_delay_timer_expired notifies the port):
		// under a second after the port came up, within a run.
		return fmt.Errorf("%w: a bridge forward_delay under 100 (but 0) without STP", ErrNotModelled)
	}
	return err
}

// brSetOpts is brChangelink without the refusal.
func (n *Netns) brSetOpts(br *Device, o rtnl.BridgeOpts) error {
	r := br.relOf()
	if v := o.ForwardDelay; v != nil {
		// br_set_forward_delay: bounded only while STP is on.
		if r.stp && (*v < brMinForwardDelay || *v > brMaxForwardDelay) {
			return rtnl.Errf(uapi.ERANGE, "")
		}
		r.fwdDelay, r.fwdDelaySet = *v, true
	}
	if v := o.HelloTime; v != nil && (*v < brMinHelloTime || *v > brMaxHelloTime) {
		return rtnl.Errf(uapi.ERANGE, "")
	}
	if v := o.MaxAge; v != nil && (*v < brMinMaxAge || *v > brMaxMaxAge) {
		return rtnl.Errf(uapi.ERANGE, "")
	}
	if v := o.StpState; v != nil {
		if *v != 0 && !r.stp {
			// br_stp_start: the forward delay is brought into STP's
			// bounds; the port state selection moves no port.
			r.stp = true
			r.fwdDelay, r.fwdDelaySet = min(max(br.brForwardDelay(), brMinForwardDelay), brMaxForwardDelay), true
			n.brPortStateSelection(br)
		} else if *v == 0 {
			r.stp = false // br_stp_stop: listening ports go on listening
		}
	}
	if o.Priority != nil {
		// br_stp_set_bridge_priority: a bridge alone stays its own
		// root; the port state selection recomputes the carrier
		// (off for a new bridge, which has no port).
		n.brPortStateSelection(br)
	}
	if o.VlanFiltering != nil {
		return rtnl.Errf(uapi.EOPNOTSUPP, "")
	}
	return nil
}

// brPortCarrierCheck is br_port_carrier_check (NETDEV_CHANGE of a port);
// it reports whether it notified.
func (n *Netns) brPortCarrierCheck(br, p *Device) bool {
	if !br.Up() {
		return false
	}
	if p.Up() && p.operUp() {
		if !p.portEnabled {
			n.brEnablePort(br, p)
			return true
		}
	} else if p.portEnabled {
		n.brDisablePort(br, p)
		return true
	}
	return false
}

// Feature classes, measured on this machine's kernel (6.18) by watching
// for NETDEV_FEAT_CHANGE of a bridge as ports of each kind come and go:
// the bridge's features behave as the intersection of four classes (ifb
// and veth; vxlan; a macvlan on a vxlan; any other macvlan), and a
// bridge without ports has features no port set gives. dummy, which this
// kernel lacks, is assumed to be in the ifb class.
const (
	featNoPorts      uint8 = 0b1111
	featIfb          uint8 = 0b0110
	featVxlan        uint8 = 0b1110
	featMacvlanVxlan uint8 = 0b1010
	featMacvlan      uint8 = 0b0010
)

func featureClass(d *Device) uint8 {
	switch d.kind {
	case rtnl.KindVxlan:
		return featVxlan
	case rtnl.KindMacvlan:
		if !d.oneForAll {
			return featMacvlanVxlan
		}
		return featMacvlan
	}
	return featIfb
}

// lowerOneForAll is whether d has the ONE_FOR_ALL features a macvlan on
// it takes (Device.oneForAll): a vxlan has not, a macvlan as it took them,
// a bridge when any port has them or it has no ports (br_features_recompute
// ORs them over the ports; a bridge without ports keeps its own), any other
// kind has. Measured on 6.18 with a macvlan on a bridge as ports come and
// go: it is notified exactly when the bridge goes from only vxlan ports
// and macvlans on vxlans to having an ifb, veth or other macvlan port, or
// none.
func lowerOneForAll(d *Device) bool {
	switch d.kind {
	case rtnl.KindVxlan:
		return false
	case rtnl.KindMacvlan:
		return d.oneForAll
	case rtnl.KindBridge:
		if len(d.portList()) == 0 {
			return true
		}
		return slices.ContainsFunc(d.portList(), lowerOneForAll)
	}
	return true
}

// brUpdateFeatures is netdev_update_features of the bridge
// (br_features_recompute): a change is NETDEV_FEAT_CHANGE, an
// RTM_NEWLINK, then macvlan_device_event's netdev_update_features of each
// macvlan on the bridge, in the order they were made: one that gains the
// ONE_FOR_ALL features (Device.oneForAll) sends NETDEV_FEAT_CHANGE of its
// own, an RTM_NEWLINK, and, if it is a port, its bridge's update.
func (n *Netns) brUpdateFeatures(br *Device) {
	f := featNoPorts
	if len(br.portList()) > 0 {
		f = 0xff
		for _, p := range br.portList() {
			f &= featureClass(p)
		}
	}
	if f == br.features {
		return
	}
	br.features = f
	n.linkEvent(br)
	if !lowerOneForAll(br) {
		return
	}
	for _, v := range br.vlanList() {
		if !v.oneForAll {
			v.oneForAll = true
			n.linkEvent(v)
			if v.master != nil {
				n.brUpdateFeatures(v.master)
			}
		}
	}
}

// brOpen is br_dev_open's br_stp_enable_bridge.
func (n *Netns) brOpen(br *Device) {
	for _, p := range br.portList() {
		if p.Up() && p.operUp() {
			n.brEnablePort(br, p)
		}
	}
}

// brStop is br_dev_stop's br_stp_disable_bridge.
func (n *Netns) brStop(br *Device) {
	for _, p := range br.portList() {
		if p.portEnabled {
			n.brDisablePort(br, p)
		}
	}
}

// brRecalculateID is br_stp_recalculate_bridge_id: unless the address was
// set by the user, the bridge id (and the bridge's address) is the lowest
// port address, or zero without ports; a change runs
// br_stp_change_bridge_id.
func (n *Netns) brRecalculateID(br *Device) bool {
	if br.addrSet {
		return false
	}
	var addr net.HardwareAddr
	for _, p := range br.portList() {
		if addr == nil || lessAddr(p.addr, addr) {
			addr = p.addr
		}
	}
	if addr == nil {
		addr = make(net.HardwareAddr, 6)
	}
	var id net.HardwareAddr
	if br.rel != nil {
		id = br.rel.bridgeID
	}
	if sameAddr(id, addr) {
		return false
	}
	n.brChangeID(br, addr)
	return true
}

// brChangeID is br_stp_change_bridge_id.
func (n *Netns) brChangeID(br *Device, addr net.HardwareAddr) {
	br.relOf().bridgeID = append(net.HardwareAddr(nil), addr...)
	br.addr = append(net.HardwareAddr(nil), addr...)
	n.brPortStateSelection(br)
}

// brMTUMin is br_mtu_min: note that a port with mtu 0 resets the running
// minimum, as the kernel's loop does.
func brMTUMin(br *Device) uint32 {
	var m uint32
	for _, p := range br.portList() {
		if m == 0 || m > p.mtu {
			m = p.mtu
		}
	}
	if m == 0 {
		return ethDataLen
	}
	return m
}

// brMTUAutoAdjust is br_mtu_auto_adjust.
func (n *Netns) brMTUAutoAdjust(br *Device) {
	if br.mtuSetByUser {
		return
	}
	_ = n.setMTU(br, brMTUMin(br))
	br.mtuSetByUser = false
}

// brAddIf is br_add_if.
func (n *Netns) brAddIf(br, d *Device) error {
	if d.flags&uapi.IFF_LOOPBACK != 0 || d.linkType != uapi.ARPHRD_ETHER || !validEther(d.addr) {
		return rtnl.Errf(uapi.EINVAL, "")
	}
	if d.kind == rtnl.KindBridge {
		return rtnl.Errf(uapi.ELOOP, "Can not enslave a bridge to a bridge")
	}
	if d.master != nil {
		return rtnl.Errf(uapi.EBUSY, "")
	}
	// netdev_rx_handler_register: a macvlan lower holds the rx handler.
	if len(d.vlanList()) > 0 {
		return rtnl.Errf(uapi.EBUSY, "")
	}
	// netdev_master_upper_dev_link: the bridge is below d already (a
	// macvlan or a vxlan on the bridge).
	if d.lower == br || (d.rel != nil && d.rel.vxLower == br) {
		return rtnl.Errf(uapi.EBUSY, "")
	}
	// netdev_master_upper_dev_link (NETDEV_CHANGEUPPER), then
	// nbp_update_port_count's promiscuity (each an RTM_NEWLINK of the
	// port), then the bridge's features.
	d.master = br
	d.portEnabled, d.portListening = false, false
	n.ev.trace.netdev(d, "NETDEV_PRECHANGEUPPER", "NETDEV_CHANGEUPPER")
	n.linkEvent(d)
	n.promiscuity(d)
	br.relOf().ports = append([]*Device{d}, br.portList()...)
	n.brUpdateFeatures(br)
	changed := n.brRecalculateID(br)
	if d.Up() && d.operUp() && br.Up() {
		n.brEnablePort(br, d)
	}
	n.bridgeEvent("RTM_NEWLINK", d)
	if changed {
		n.notifyChangeAddr(br)
	}
	n.brMTUAutoAdjust(br)
	return nil
}

// brDelIf is br_del_if (ip link set nomaster, and NETDEV_UNREGISTER of a
// port).
func (n *Netns) brDelIf(br, d *Device) {
	n.delNbp(br, d)
	n.brMTUAutoAdjust(br)
	if n.brRecalculateID(br) {
		n.notifyChangeAddr(br)
	}
	n.brUpdateFeatures(br)
}

// delNbp is del_nbp, all that br_dev_delete does for each port of a
// bridge being deleted: promiscuity off (RTM_NEWLINK), the port disabled,
// its RTM_DELLINK (family bridge), and the upper link gone (RTM_NEWLINK).
func (n *Netns) delNbp(br, d *Device) {
	n.promiscuity(d)
	n.brDisablePort(br, d)
	n.bridgeEvent("RTM_DELLINK", d)
	br.rel.ports = without(br.rel.ports, d)
	d.master = nil
	d.portEnabled, d.portListening = false, false
	n.ev.trace.netdev(d, "NETDEV_PRECHANGEUPPER", "NETDEV_CHANGEUPPER")
	n.linkEvent(d)
}

// brSetMACAddress is br_set_mac_address.
func (n *Netns) brSetMACAddress(br *Device, a net.HardwareAddr) error {
	if !validEther(a) {
		return rtnl.Errf(uapi.EADDRNOTAVAIL, "")
	}
	if !sameAddr(br.addr, a) {
		n.brChangeID(br, a)
	}
	return nil
}

// promiscuity is dev_set_promiscuity(d, ±1) as the bridge does it to a
// port: an RTM_NEWLINK of d (__dev_notify_flags with IFF_PROMISC), and
// before it, for an up macvlan that is not passthru and that the user did
// not make promiscuous (its IFF_PROMISC changes), the same on its lower
// (macvlan_change_rx_flags).
func (n *Netns) promiscuity(d *Device) {
	if d.passesPromiscuity() && !d.promisc {
		n.linkEvent(d.lower)
	}
	n.linkEvent(d)
}
