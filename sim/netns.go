package sim

import (
	"math/rand/v2"
	"net"
	"strings"

	"github.com/rtnlsim/rtnlsim/fibtrie"
	"github.com/rtnlsim/rtnlsim/netdevindex"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// Netns is one network namespace of the model: its netdev index (ifindex
// allocation and dump order), the device list in registration order
// (dev_base_head, which group requests walk), the name table, the linkwatch
// queue, and the net.ipv4.conf sysctls written so far.
type Netns struct {
	noCopy  noCopy // held by pointer only, as Device
	name    string
	index   *netdevindex.Table[*Device]
	devs    *devList // dev_base_head (devlist.go)
	byName  map[string]*Device
	lw      []*Device // linkwatch queue, oldest first
	sysctls map[string]string
	rng     *rand.Rand
	nextSeq uint64
	lo      *Device
	// unregistered is the batch the current request unregistered, as the
	// cost model sees it (read and reset by Target.Apply).
	unregistered []UnregDev
	// ev is the target's notification log; reqNotifications counts the
	// current request's notifications for the cost model.
	ev               *eventLog
	reqNotifications int
	macs             func(req int, name string) net.HardwareAddr // Options.MACOrder, as addresses
	exited           bool                                        // ExitNetns ran
	// fib is the IPv4 FIB; fibCount and inetCount its and the address
	// lists' work so far.
	fib       *fibtrie.FIB
	fibCount  FibCounters
	inetCount DevinetCounters
	lastInet  inetSnapshot // the counters when the last request ended
	// v6 is the estimate of the kernel's IPv6 state the cost model
	// walks (sim/ipv6cost.go); fib6 the IPv6 routes addrconf makes, and
	// its DAD queue (sim/addrconf.go).
	v6   ipv6Est
	fib6 fib6
	// reqDeactivateSyncs counts dev_deactivate_many's synchronize_net in
	// plain closes (`link set down` of a device with a queue) in the
	// current request.
	reqDeactivateSyncs int
	// promoteAll and promoteDefault are net.ipv4.conf.{all,default}.
	// promote_secondaries, promoteDefaultSet default's state bit for it
	// (written, or copied set from the host: rtnl.StartConf); ifaFlush the
	// +ifa-flush profile switch.
	promoteAll, promoteDefault, promoteDefaultSet, ifaFlush bool
	// linkdownAll, linkdownDefault and linkdownDefaultSet are
	// net.ipv4.conf.{all,default}.ignore_routes_with_linkdown and
	// default's state bit (compiled-in: 0, not set).
	linkdownAll, linkdownDefault, linkdownDefaultSet bool
	// conf4 is what the input route path reads of net.ipv4.conf
	// (devconf4.go); nil until first needed.
	conf4 *routeConf
	// customLocalRoutes is fib_has_custom_local_routes: a local route
	// was once added by request. realmsSeen: a route request once had
	// realms (routeget_input.go).
	customLocalRoutes, realmsSeen bool
	// fwd6Default is net.ipv6.conf.default.forwarding (anycast6.go).
	fwd6Default bool
	// flushWholeDump is Options.FlushWholeDump.
	flushWholeDump bool
	// lookupNetns finds the namespace a script named (Target.Named);
	// nsids are the ids this namespace knows others by (peernet2id).
	lookupNetns func(name string) *Netns
	nsids       map[*Netns]int
	// rules4 and rules6 are the policy routing rules (rules.go), made
	// with the default rules when first needed.
	rules4, rules6 *ruleList
	// nh are the nexthop objects (nexthop.go), by id; nil until the
	// first.
	nh *nexthops
	// literalWalks makes the address lists walk step by step instead of
	// counting from their indexes (the tests' oracle for the counts).
	literalWalks bool
}

// setLiteralWalks switches every address list, present and future, to
// literal walks.
func (n *Netns) setLiteralWalks() {
	n.literalWalks = true
	for d := range n.listed() {
		if d.in != nil {
			d.in.literal, d.in.ix = true, nil
		}
	}
}

func newNetns(name string, rng *rand.Rand, opts netdevindex.Options, fib fibtrie.Options, ev *eventLog, macs func(req int, name string) net.HardwareAddr) *Netns {
	n := &Netns{name: name, index: netdevindex.NewTable[*Device](opts), byName: map[string]*Device{}, devs: newDevList(),
		sysctls: map[string]string{}, rng: rng, ev: ev, macs: macs, fib: fibtrie.New(fib)}
	lo := n.newLoopback()
	if err := n.register(lo, 0); err != nil {
		panic("sim: loopback registration failed: " + err.Error())
	}
	n.lo = lo
	return n
}

// Loopback returns the namespace's lo.
func (n *Netns) Loopback() *Device { return n.lo }

// ByName is __dev_get_by_name.
func (n *Netns) ByName(name string) *Device { return n.byName[name] }

// byDevName is the device whose own name is name: the /proc/sys
// directories go by it, not by alternative names.
func (n *Netns) byDevName(name string) *Device {
	if d := n.byName[name]; d != nil && d.name == name {
		return d
	}
	return nil
}

// ByIndex is __dev_get_by_index.
func (n *Netns) ByIndex(ifindex uint32) *Device {
	d, _ := n.index.Lookup(ifindex)
	return d
}

// Devices returns the devices in dump order (ifindex order on the xarray,
// bucket order on the hash).
func (n *Netns) Devices() []*Device {
	var out []*Device
	c := netdevindex.Cursor{}
	for {
		chunk, next, done := n.index.DumpChunk(c, 1<<30, nil)
		for _, e := range chunk {
			out = append(out, e.Dev)
		}
		if done {
			return out
		}
		c = next
	}
}

// randomAddr is eth_hw_addr_random: random bytes, unicast, locally
// administered; or the address Options.MACOrder ranks for this device of
// this request.
func (n *Netns) randomAddr(name string) net.HardwareAddr {
	if n.macs != nil {
		if a := n.macs(n.ev.req, NetnsDevName(n.name, name)); a != nil {
			return append(net.HardwareAddr(nil), a...)
		}
	}
	a := make(net.HardwareAddr, 6)
	v := n.rng.Uint64()
	for i := range a {
		a[i] = byte(v >> (8 * i))
	}
	a[0] &^= 0x01
	a[0] |= 0x02
	return a
}

// maxNetdevices is __dev_alloc_name's bitmap of numbers: one page of
// bits.
const maxNetdevices = 8 * 4096

// validName is dev_get_valid_name (dev_prep_valid_name) for a device
// being registered or renamed: a name with a '%' is a template that
// allocName turns into the name to use; any other must be free (EEXIST).
func (n *Netns) validName(name string) (string, error) {
	if strings.Contains(name, "%") {
		var err error
		if name, err = n.allocName(name); err != nil {
			return "", err
		}
	}
	if n.byName[name] != nil {
		return "", rtnl.Errf(uapi.EEXIST, "")
	}
	return name, nil
}

// NetnsDevName is how Options.MACOrder names a device of a namespace a
// script made ("NS/NAME"; the target's own devices by NAME alone), so
// that devices of one name in two namespaces are told apart.
func NetnsDevName(netns, name string) string {
	if netns == "" {
		return name
	}
	return netns + "/" + name
}

// previewName is the name validName would give now, or the name itself
// when it would refuse: the name under which the drivers that pick a
// random MAC address before register_netdevice (veth, macvlan) look the
// address up in Options.MACOrder, which is keyed by the names the kernel
// gave.
func (n *Netns) previewName(name string) string {
	if v, err := n.validName(name); err == nil {
		return v
	}
	return name
}

// allocName is __dev_alloc_name: the template must hold one "%d" and no
// other '%' (EINVAL). Every device whose name the template prints with
// some number in [0, maxNetdevices) marks that number used: sscanf reads
// the number where the "%d" is (greedily, as many digits as follow), and
// snprintf of the template with it must give the name back, so "x05" or
// "x1y" marks nothing for "x%d". The lowest number not marked is printed
// into the template, cut to IFNAMSIZ-1 bytes; none free is ENFILE. The
// name printed may still be taken (cut short, or one the scan could not
// read back: "a01" for "a%d1"): validName's EEXIST, as 6.18 answers.
func (n *Netns) allocName(tmpl string) (string, error) {
	p := strings.IndexByte(tmpl, '%')
	if p < 0 || !strings.HasPrefix(tmpl[p:], "%d") || strings.Contains(tmpl[p+2:], "%") {
		return "", rtnl.Errf(uapi.EINVAL, "")
	}
	prefix, suffix := tmpl[:p], tmpl[p+2:]
	print := func(i int) string {
		s := prefix + itoa(i) + suffix
		if len(s) > uapi.IFNAMSIZ-1 {
			s = s[:uapi.IFNAMSIZ-1]
		}
		return s
	}
	inuse := map[int]bool{}
	for name := range n.byName {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		// vsscanf's %d: every digit there, stored into an int (an
		// alternative name can hold more digits than fit; it is longer
		// than any name the template prints, so it marks nothing).
		var v int64
		j := 0
		for ; j < len(rest) && rest[j] >= '0' && rest[j] <= '9'; j++ {
			v = v*10 + int64(rest[j]-'0')
		}
		if j == 0 {
			continue // no number: nothing converted
		}
		if i := int(int32(v)); i >= 0 && i < maxNetdevices && print(i) == name {
			inuse[i] = true
		}
	}
	for i := range maxNetdevices {
		if !inuse[i] {
			return print(i), nil
		}
	}
	return "", rtnl.Errf(uapi.ENFILE, "")
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// register is register_netdevice: the name (validName: a template
// gets its number) must be free (EEXIST), the
// ifindex is reserved (explicit or cyclic), the device is listed, and a
// device registered without carrier gets its operstate computed
// (linkwatch_init_dev).
func (n *Netns) register(d *Device, ifindex uint32) error {
	name, err := n.validName(d.name)
	if err != nil {
		return err
	}
	d.name = name
	if ifindex != 0 && n.ByIndex(ifindex) != nil {
		// dev_index_reserve's xa_insert: rtnl_newlink's lookup (EEXIST)
		// came before, so a device holding the ifindex now was
		// registered by this same request (a veth peer).
		return rtnl.Errf(uapi.EBUSY, "")
	}
	id, err := n.index.Reserve(ifindex)
	if err != nil {
		return &rtnl.Error{Errno: err.(uapi.Errno)}
	}
	d.ifindex = id
	n.index.List(id, d)
	n.nextSeq++
	d.seq = n.nextSeq
	n.listDev(d)
	n.byName[d.name] = d
	if d.addr == nil {
		d.addr = n.randomAddr(d.name)
	}
	if !d.carrier {
		n.rfc2863(d)
	}
	n.ev.trace.netdev(d, "NETDEV_POST_INIT", "NETDEV_REGISTER")
	n.inetdevInit(d)       // NETDEV_REGISTER
	n.rulesAttach(d)       // fib_rules_event
	d.v6Off = n.v6.dfltOff // ipv6_add_dev copies net.ipv6.conf.default
	if d.mtu >= ipv6MinMTU {
		d.in6 = n.newInet6Dev() // addrconf_notify's NETDEV_REGISTER
	}
	return nil
}

// unlist is the bookkeeping half of unregistering: the device leaves the
// index, the list, the name table and the linkwatch queue.
func (n *Netns) unlist(d *Device) {
	// An UP device also holds an IPv6 link-local address on the kernel,
	// which its close removes. The batch closed it already: what counts
	// is whether it was up when the batch began.
	up := d.upAtUnregister
	n.unregistered = append(n.unregistered, UnregDev{Ifindex: int32(d.ifindex), Up: up,
		IPv6LLA: up && d.v6AtUnregister, NoQueue: up && !d.queueAtUnregister})
	n.index.Unlist(d.ifindex)
	n.unlistDev(d)
	if n.byName[d.name] == d {
		delete(n.byName, d.name)
	}
	for _, a := range d.AltNames() {
		if n.byName[a] == d {
			delete(n.byName, a) // netdev_name_node_alt_flush
		}
	}
	n.lw = without(n.lw, d)
	d.lwPending = false
	d.ns = nil
}

// alive reports whether d is still registered here.
func (n *Netns) alive(d *Device) bool { return d != nil && d.ns == n }

// Carrier and linkwatch (net/core/link_watch.c, net/sched/sch_generic.c).

// carrierOn is netif_carrier_on: an actual change queues a linkwatch event.
func (n *Netns) carrierOn(d *Device) {
	if !d.carrier {
		d.carrier = true
		n.fireLinkwatch(d)
	}
}

// carrierOff is netif_carrier_off.
func (n *Netns) carrierOff(d *Device) {
	if d.carrier {
		d.carrier = false
		n.fireLinkwatch(d)
	}
}

// fireLinkwatch is linkwatch_fire_event: queue once until processed.
func (n *Netns) fireLinkwatch(d *Device) {
	if d.lwPending {
		return
	}
	d.lwPending = true
	// One queue per namespace, each run after every request (finish):
	// a veth's peer elsewhere is queued where it lives.
	if d.ns != nil {
		n = d.ns
	}
	n.lw = append(n.lw, d)
}

// defaultOperstate is default_operstate: without carrier, DOWN, or
// LOWERLAYERDOWN when the iflink device exists and has no carrier either.
func (n *Netns) defaultOperstate(d *Device) uint8 {
	if !d.carrier {
		// The iflink is looked up by ifindex in the device's own
		// namespace: a veth peer elsewhere may be no device here, or
		// another one.
		l := d.iflink()
		if l == d || l.ifindex == d.ifindex {
			return ifOperDown
		}
		p := n.ByIndex(l.ifindex)
		if p == nil || p.carrier {
			return ifOperDown
		}
		return ifOperLowerLayerDown
	}
	return ifOperUp
}

// rfc2863 is rfc2863_policy for link_mode DEFAULT.
func (n *Netns) rfc2863(d *Device) { d.operstate = n.defaultOperstate(d) }

// runDeferred runs the work a request left to workqueues: linkwatch's,
// then the DAD work that linkwatch's NETDEV_CHANGE may have queued too.
func (n *Netns) runDeferred() {
	n.runLinkwatch()
	n.runDAD()
}

// runLinkwatch is __linkwatch_run_queue run to completion: each queued
// device gets its operstate, its qdisc (dev_activate when up with
// carrier) and, when up, a NETDEV_CHANGE to the devices stacked on it.
// The kernel runs this asynchronously (up to a second later for
// non-urgent events); the model runs it after every request, in queue
// order.
func (n *Netns) runLinkwatch() {
	n.ev.deferred = true
	defer func() { n.ev.deferred = false }()
	for len(n.lw) > 0 {
		d := n.lw[0]
		n.lw = n.lw[1:]
		d.lwPending = false
		if !n.alive(d) {
			continue
		}
		n.rfc2863(d)
		if d.Up() {
			if d.carrier {
				n.activate(d)
			}
			d.txActive = d.carrier // dev_activate or dev_deactivate
			n.notifyChange(d)
		}
	}
}

// activate is dev_activate: the first activation attaches the default
// qdisc (noqueue for IFF_NO_QUEUE devices; pfifo_fast, this machine's
// net.core.default_qdisc, otherwise). attach_default_qdiscs falls back to
// noqueue when pfifo_fast cannot be made: with a zero tx_queue_len, and
// with one its rings cannot hold (pfifoFastMaxLen). It stays after the
// device goes down.
func (n *Netns) activate(d *Device) {
	if d.qdisc != "noop" {
		return
	}
	if d.noQueue || d.txQLen == 0 || d.txQLen > pfifoFastMaxLen {
		d.qdisc = "noqueue"
	} else {
		d.qdisc = "pfifo_fast"
	}
}

// pfifoFastMaxLen is the longest tx_queue_len pfifo_fast's ptr_rings
// take: __ptr_ring_init_queue_alloc refuses more than KMALLOC_MAX_SIZE /
// sizeof(void *) entries (4 MiB of 8-byte pointers on this machine), so
// pfifo_fast_init fails (the device gets the noqueue fallback) and
// pfifo_fast_change_tx_queue_len is ENOMEM.
const pfifoFastMaxLen = 1 << 19

// Netdevice notifier events the modelled listeners react to (the bridge's
// br_device_event, macvlan_device_event, inetdev_event).

// notifyUp is NETDEV_UP. br_device_event notifies the port's state
// unless enabling it already did (as for DOWN, CHANGE and CHANGEADDR).
func (n *Netns) notifyUp(d *Device) {
	n.ev.trace.netdev(d, "NETDEV_UP")
	n.inetUp(d)      // inetdev_event
	n.fibNetdevUp(d) // fib_netdev_event
	n.v6Up(d)        // addrconf_notify (cost estimate)
	n.macvlanTransfer(d)
	if br := d.master; br != nil {
		if br.Up() && d.operUp() {
			n.brEnablePort(br, d)
		} else {
			n.bridgeEvent("RTM_NEWLINK", d)
		}
	}
}

// notifyDown is NETDEV_DOWN.
func (n *Netns) notifyDown(d *Device) {
	n.ev.trace.netdev(d, "NETDEV_DOWN")
	n.fibDisableIP(d, false)    // fib_netdev_event
	n.nexthopFlushDev(d, false) // nh_netdev_event
	n.v6Down(d)                 // addrconf_notify (cost estimate)
	n.macvlanTransfer(d)
	if br := d.master; br != nil {
		if br.Up() {
			n.brDisablePort(br, d)
		} else {
			n.bridgeEvent("RTM_NEWLINK", d)
		}
	}
}

// notifyChange is netdev_state_change (and linkwatch's
// netif_state_change): for a device that is up, NETDEV_CHANGE to the
// listeners, then RTM_NEWLINK.
func (n *Netns) notifyChange(d *Device) {
	if !d.Up() {
		return
	}
	n.netdevChange(d, 0)
	n.linkEvent(d)
}

// netdevChange is the NETDEV_CHANGE notifier chain; flagsChanged is the
// device flags __dev_notify_flags saw change (0 from netif_state_change).
func (n *Netns) netdevChange(d *Device, flagsChanged uint32) {
	n.ev.trace.netdev(d, "NETDEV_CHANGE")
	n.fibNetdevChange(d) // fib_netdev_event
	if !d.carrier {
		n.nexthopFlushDev(d, false) // nh_netdev_event
	}
	n.v6Change(d, flagsChanged&uapi.IFF_NOARP != 0) // addrconf_notify
	n.macvlanTransfer(d)
	if br := d.master; br != nil {
		if !n.brPortCarrierCheck(br, d) {
			n.bridgeEvent("RTM_NEWLINK", d)
		}
	}
}

// notifyChangeMTU is NETDEV_CHANGEMTU.
func (n *Netns) notifyChangeMTU(d *Device) {
	n.ev.trace.netdev(d, "NETDEV_CHANGEMTU")
	n.linkEvent(d)
	n.inetChangeMTU(d) // inetdev_event
	// macvlan_device_event: drivers/net registers before net/ipv6 (both
	// built in), so a lower's macvlans take its smaller mtu, with all
	// their notifications, before the lower's IPv6 reacts.
	for _, v := range append([]*Device(nil), d.vlanList()...) {
		if v.mtu <= d.mtu {
			continue
		}
		_ = n.setMTU(v, d.mtu)
	}
	n.v6ChangeMTU(d) // addrconf_notify
	if br := d.master; br != nil {
		n.brMTUAutoAdjust(br)
	}
}

// notifyChangeAddr is NETDEV_CHANGEADDR.
func (n *Netns) notifyChangeAddr(d *Device) {
	n.ev.trace.netdev(d, "NETDEV_CHANGEADDR")
	n.linkEvent(d)
	if br := d.master; br != nil {
		if n.brRecalculateID(br) {
			n.notifyChangeAddr(br)
		}
		n.bridgeEvent("RTM_NEWLINK", d)
	}
	// A passthru macvlan takes its lower's new address.
	if d.passthruPort {
		for _, v := range d.vlanList() {
			v.addr = append(net.HardwareAddr(nil), d.addr...)
		}
	}
}

// macvlanTransfer is macvlan_device_event for NETDEV_UP, NETDEV_DOWN and
// NETDEV_CHANGE of a lower: netif_stacked_transfer_operstate to each
// macvlan (the carrier follows the lower's carrier).
func (n *Netns) macvlanTransfer(lower *Device) {
	for _, v := range lower.vlanList() {
		if lower.carrier {
			n.carrierOn(v)
		} else {
			n.carrierOff(v)
		}
	}
}

// DevinetCounters is the address-list work of the namespace so far
// (walk steps, promotions), summed over its devices.
func (n *Netns) DevinetCounters() DevinetCounters { return n.inetCount }

// Name is the namespace's name ("" for the target's first namespace).
func (n *Netns) Name() string { return n.name }
