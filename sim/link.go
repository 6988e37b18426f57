package sim

import (
	"net"
	"slices"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// Device is a struct net_device of the model: the fields rtnl_fill_ifinfo
// reports, the state the drivers keep (carrier, operstate, qdisc), and the
// links between devices (veth peer, macvlan lower, bridge master and ports).
type Device struct {
	noCopy noCopy // the model holds devices by pointer; a copy would be a second, stale device
	// The fields are ordered by size so that a device packs into 224
	// bytes (a million of them are registered in a test).
	ns    *Netns
	name  string
	kind  string // one of rtnl.Kinds, or "" for the loopback
	addr  net.HardwareAddr
	brd   net.HardwareAddr
	qdisc string
	// in is the device's in_device (dev->ip_ptr): nil when IPv4 is off
	// (an mtu below 68, see inetdev_event).
	in *InDevice
	// in6 is its inet6_dev (dev->ip6_ptr, sim/addrconf.go): nil below an
	// mtu of 1280.
	in6 *inet6Dev

	master *Device // the bridge this device is a port of
	// macvlan: the real lower device
	lower *Device
	// rel holds what only some kinds use (veth peer, macvlans of a lower,
	// bridge ports and id, vxlan id): nil until one is set.
	rel *devRel

	seq uint64 // registration order (dev_base_head)

	ifindex  uint32
	flags    uint32 // dev->flags: IFF_UP and the kind's static flags
	mtu      uint32
	minMTU   uint32
	maxMTU   uint32 // 0: no maximum (dev_validate_mtu)
	group    uint32
	txQLen   uint32
	linkType uint16

	addrSet  bool // addr_assign_type == NET_ADDR_SET
	noQueue  bool // IFF_NO_QUEUE
	liveAddr bool // IFF_LIVE_ADDR_CHANGE

	carrier bool // !__LINK_STATE_NOCARRIER
	// promisc, allmulti: dev->gflags, what the user asked for (ip link
	// set promisc/allmulticast), which is what dumps show as PROMISC and
	// ALLMULTI; promiscuity a bridge or macvlan takes does not show.
	promisc, allmulti bool
	// txActive: the tx queues hold the qdisc (dev_activate hands it over
	// only with carrier; dev_deactivate, at close or when linkwatch finds
	// the carrier gone, takes it back), which addrconf_link_ready asks.
	txActive  bool
	operstate uint8 // dev->operstate, as linkwatch last set it
	lwPending bool  // __LINK_STATE_LINKWATCH_PENDING

	// macvlan: mode passthru; on a lower, a passthru macvlan holds the port
	macvlanPassthru bool
	passthruPort    bool
	// bridge: BROPT_MTU_SET_BY_USER; on a port, whether it is not
	// DISABLED, and whether it is LISTENING (enabled under STP: the
	// forward-delay timer, which the model does not run, would move it on)
	mtuSetByUser  bool
	portEnabled   bool
	portListening bool

	// initializing is rtnl_link_initializing: made by RTM_NEWLINK and not
	// configured yet, so no notification names it.
	initializing bool
	// unregistering: in an unregister batch past dev_close_many, so
	// rtmsg_ifinfo no longer reports it.
	unregistering bool
	// upAtUnregister: up when its unregister batch began (the cost
	// model prices an up device's close); v6AtUnregister: it held its
	// estimated IPv6 link-local address then; queueAtUnregister: its
	// qdisc had an enqueue (not noqueue), so dev_deactivate_many waits.
	upAtUnregister, v6AtUnregister, queueAtUnregister bool
	// v6: the cost model's estimate says the kernel gave it a link-local
	// address and three IPv6 routes (sim/ipv6cost.go); v6Off is its
	// net.ipv6.conf.DEV.disable_ipv6.
	v6, v6Off bool
	// features is a bridge's feature class (brUpdateFeatures).
	features uint8
	// oneForAll: a macvlan has the NETIF_F_ONE_FOR_ALL features that
	// ifb and veth ports give a bridge and vxlan ports do not
	// (lowerOneForAll). It takes them from its lower when created and
	// keeps them: macvlan_fix_features ORs its own ONE_FOR_ALL features
	// back in (netdev_increment_features), so a lower that loses them
	// changes nothing and a lower that gains them changes the macvlan.
	oneForAll bool
}

// devRel is the part of a device that only some kinds use.
type devRel struct {
	// veth
	peer *Device
	// on a lower, its macvlans
	vlans []*Device
	// bridge: ports (port_list order: newest first), bridge_id.addr
	ports    []*Device
	bridgeID net.HardwareAddr
	// bridge: STP on (the kernel's: br_stp_start runs /sbin/bridge-stp
	// only in init_net, which no target uses), and bridge_forward_delay
	// in centiseconds once set (brForwardDelay)
	stp         bool
	fwdDelaySet bool
	fwdDelay    uint32
	// vxlan
	vni     uint32
	dstPort uint16
	// vxlan: its lower (IFLA_VXLAN_LINK; an upper of it, not its
	// iflink: dumps name none); on a lower, its vxlans
	vxLower *Device
	vxlans  []*Device
	// alias is dev->ifalias ("" when none).
	alias string
	// altNames are the device's alternative names, in the order added
	// (the name_node list after its own).
	altNames []string
}

// relOf returns d.rel, made if need be, to set one of its fields.
func (d *Device) relOf() *devRel {
	if d.rel == nil {
		d.rel = &devRel{}
	}
	return d.rel
}

// vlanList is a lower's macvlans.
func (d *Device) vlanList() []*Device {
	if d.rel == nil {
		return nil
	}
	return d.rel.vlans
}

// portList is a bridge's ports in port_list order (not a copy).
func (d *Device) portList() []*Device {
	if d.rel == nil {
		return nil
	}
	return d.rel.ports
}

// hasEnqueue: the qdisc its tx queue uses has an enqueue function, so
// closing it makes dev_deactivate_many call synchronize_net (sync_needed
// from qdisc->enqueue, net/sched/sch_generic.c). A noqueue qdisc has none
// (noqueue_init clears it); noop_qdisc, which a queue uses until
// dev_activate finds carrier, has one; pfifo_fast has one.
func (d *Device) hasEnqueue() bool { return d.qdisc != "noqueue" || !d.carrier }

// holdsLowerPromisc: a macvlan that is passthru, or promiscuous itself
// (a bridge's port, or asked by the user), keeps its lower promiscuous
// while it is up (macvlan_open, macvlan_stop).
func (d *Device) holdsLowerPromisc() bool {
	return d.kind == rtnl.KindMacvlan && d.lower != nil && (d.macvlanPassthru || d.promiscuous())
}

// passesPromiscuity: a change of the device's own IFF_PROMISC reaches its
// lower (macvlan_change_rx_flags: an up macvlan that is not passthru).
func (d *Device) passesPromiscuity() bool {
	return d.kind == rtnl.KindMacvlan && d.Up() && !d.macvlanPassthru && d.lower != nil
}

// promiscuous is IFF_PROMISC in dev->flags: dev->promiscuity, which the
// bridge raises for its ports and the user's promisc flag raises, is
// above 0.
func (d *Device) promiscuous() bool { return d.master != nil || d.promisc }

// AltNames are the device's alternative names, oldest first.
func (d *Device) AltNames() []string {
	if d.rel == nil {
		return nil
	}
	return d.rel.altNames
}

// Alias is the device's ifalias, "" when it has none.
func (d *Device) Alias() string {
	if d.rel == nil {
		return ""
	}
	return d.rel.alias
}

// without returns s without its first x, in order.
func without[T comparable](s []T, x T) []T {
	if i := slices.Index(s, x); i >= 0 {
		return slices.Delete(s, i, i+1)
	}
	return s
}

// Up reports IFF_UP.
func (d *Device) Up() bool { return d.flags&uapi.IFF_UP != 0 }

// Address returns a copy of the device's link-layer address.
func (d *Device) Address() net.HardwareAddr { return append(net.HardwareAddr(nil), d.addr...) }

// Master returns the bridge the device is a port of, or nil.
func (d *Device) Master() *Device { return d.master }

// Peer returns the other end of a veth pair, or nil.
func (d *Device) Peer() *Device {
	if d.rel == nil {
		return nil
	}
	return d.rel.peer
}

// Lower returns a macvlan's lower device, or nil.
func (d *Device) Lower() *Device { return d.lower }

// Ports returns a bridge's ports in port_list order.
func (d *Device) Ports() []*Device { return append([]*Device(nil), d.portList()...) }

// Carrier reports netif_carrier_ok.
func (d *Device) Carrier() bool { return d.carrier }

// OperState is what IFLA_OPERSTATE reports: dev->operstate while the
// device runs, IF_OPER_DOWN otherwise.
func (d *Device) OperState() uint8 {
	if !d.Up() {
		return ifOperDown
	}
	return d.operstate
}

// operUp is netif_oper_up: operstate UP or UNKNOWN.
func (d *Device) operUp() bool {
	return d.operstate == ifOperUp || d.operstate == ifOperUnknown
}

// iflink is dev_get_iflink: the peer for veth, the lower for macvlan, the
// device itself otherwise.
func (d *Device) iflink() *Device {
	switch {
	case d.Peer() != nil:
		return d.Peer()
	case d.lower != nil:
		return d.lower
	}
	return d
}

// vxlanList is the vxlans whose lower d is.
func (d *Device) vxlanList() []*Device {
	if d.rel == nil {
		return nil
	}
	return d.rel.vxlans
}

// ifinfoFlags is dev_get_flags as rtnl_fill_ifinfo reports it.
func (d *Device) ifinfoFlags() uint32 {
	f := d.flags
	if d.promisc {
		f |= uapi.IFF_PROMISC
	}
	if d.allmulti {
		f |= uapi.IFF_ALLMULTI
	}
	if d.Up() {
		if d.operUp() {
			f |= uapi.IFF_RUNNING
		}
		if d.carrier {
			f |= uapi.IFF_LOWER_UP
		}
	}
	return f
}

// RFC 2863 operational states (IF_OPER_*).
const (
	ifOperUnknown        = 0
	ifOperDown           = 2
	ifOperLowerLayerDown = 3
	ifOperUp             = 6
)

// Limits the drivers set (ETH_MIN_MTU, ETH_DATA_LEN, ETH_MAX_MTU).
const (
	ethMinMTU  = 68
	ethDataLen = 1500
	ethMaxMTU  = 65535
	// vxlanDefaultPort is the vxlan module's default dst port (vxlan_port).
	vxlanDefaultPort = 8472
)

var broadcastEther = net.HardwareAddr{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}[:6:6]

// newDevice is alloc_netdev plus the kind's setup function: the defaults
// each driver sets before rtnl_create_link applies the request's attributes.
func (n *Netns) newDevice(name, kind string) *Device {
	d := &Device{ns: n, name: name, kind: kind, linkType: uapi.ARPHRD_ETHER, qdisc: "noop", carrier: true,
		initializing: true, features: featNoPorts}
	d.brd = broadcastEther // shared: no device writes its broadcast address in place
	// ether_setup
	d.flags = uapi.IFF_BROADCAST | uapi.IFF_MULTICAST
	d.mtu, d.minMTU, d.maxMTU = ethDataLen, ethMinMTU, ethDataLen
	d.txQLen = 1000
	switch kind {
	case rtnl.KindIfb:
		// ifb_setup: NOARP, no multicast, TX_Q_LIMIT 32, no MTU range,
		// no ndo_set_mac_address.
		d.flags = uapi.IFF_BROADCAST | uapi.IFF_NOARP
		d.txQLen = 32
		d.minMTU, d.maxMTU = 0, 0
	case rtnl.KindDummy:
		d.flags = uapi.IFF_BROADCAST | uapi.IFF_NOARP
		d.noQueue, d.liveAddr = true, true
		d.minMTU, d.maxMTU = 0, 0
	case rtnl.KindVeth:
		d.noQueue, d.liveAddr = true, true
		d.maxMTU = ethMaxMTU
	case rtnl.KindBridge:
		d.noQueue = true
		d.maxMTU = ethMaxMTU
	case rtnl.KindMacvlan:
		d.noQueue = true
		d.maxMTU = ethMaxMTU // macvlan_common_setup
	case rtnl.KindVxlan:
		d.noQueue, d.liveAddr = true, true
		d.maxMTU = ethMaxMTU
	}
	return d
}

// newLoopback is loopback_setup.
func (n *Netns) newLoopback() *Device {
	d := &Device{ns: n, name: "lo", linkType: uapi.ARPHRD_LOOPBACK, qdisc: "noop", carrier: true}
	d.flags = uapi.IFF_LOOPBACK
	d.mtu, d.minMTU, d.maxMTU = 65536, 0, 0
	d.txQLen = 1000
	d.noQueue, d.liveAddr = true, true
	d.addr = make(net.HardwareAddr, 6)
	d.brd = make(net.HardwareAddr, 6)
	return d
}

// validEther is is_valid_ether_addr: not multicast, not all zero.
func validEther(a net.HardwareAddr) bool {
	if len(a) != 6 || a[0]&1 != 0 {
		return false
	}
	for _, b := range a {
		if b != 0 {
			return true
		}
	}
	return false
}

func sameAddr(a, b net.HardwareAddr) bool { return string(a) == string(b) }

// lessAddr is memcmp(a, b, ETH_ALEN) < 0.
func lessAddr(a, b net.HardwareAddr) bool { return string(a) < string(b) }

// IPv4 reports whether the device has IPv4 (an in_device): false once its
// mtu went below 68 (inetdev_event destroys it).
func (d *Device) IPv4() bool { return d.in != nil }

// IPv4Addrs is the device's IPv4 address list in the kernel's order, in
// `ip -j addr show` addr_info shape; nil without IPv4.
func (d *Device) IPv4Addrs() []rtnl.AddrInfo {
	if d.in == nil {
		return nil
	}
	return d.in.Render()
}

// Ifindex is the device's interface index.
func (d *Device) Ifindex() uint32 { return d.ifindex }

// Name is the device's name.
func (d *Device) Name() string { return d.name }

// Kind is the device's rtnl_link_ops kind (one of rtnl.Kinds), "" for the
// loopback.
func (d *Device) Kind() string { return d.kind }

// MTU is the device's mtu.
func (d *Device) MTU() uint32 { return d.mtu }

// Group is the device's group.
func (d *Device) Group() uint32 { return d.group }

// TxQLen is the device's tx_queue_len.
func (d *Device) TxQLen() uint32 { return d.txQLen }

// noCopy makes go vet's copylocks check report a copy of the struct that
// holds it (`*a = *b` through two handles included): Lock and Unlock are
// what it looks for.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}
