package sim

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// Namespaces a script names (`netns add`, `netns exec`, `-n`) and devices
// moving between them: __dev_change_net_namespace (net/core/dev.c) for
// `link set DEV netns NS`, and the peer ids (peernet2id_alloc) a veth
// whose peer lives elsewhere reports. Read from Linux ~6.15-6.17.

// netnsAdd is `ip netns add NAME`: a new namespace with its loopback,
// started from the same configuration as the target's own.
func (t *Target) netnsAdd(name string) error {
	if _, ok := t.namespaces[name]; ok || name == "" {
		return rtnl.Errf(uapi.EEXIST, "Cannot create namespace file: File exists")
	}
	ns := newNetns(name, t.rng, t.opts.Index, t.opts.FIB, &eventLog{record: t.ev.record, req: t.ev.req, trace: t.ev.trace}, t.macs)
	if err := ns.startConf(t.opts.Start); err != nil {
		return err
	}
	ns.takeInetWork()
	ns.lookupNetns = t.Named
	t.namespaces[name] = ns
	t.order = append(t.order, name)
	t.ranks = append(t.ranks, name)
	return nil
}

// netnsDel is `ip netns del NAME`: the namespace's exit (cleanup_net,
// as ExitNetns has it), which takes a veth's peer in another namespace
// too. No one listens in the namespace any more: what it sent
// in this request is not reported (what it sent before is). The batch
// is priced to this request.
func (t *Target) netnsDel(name string) error {
	n := t.Named(name)
	if n == nil {
		return rtnl.Errf(uapi.ENOENT, "Cannot remove namespace file %q: No such file or directory", name)
	}
	n.exit()
	// unhash_nsid: every namespace forgets its id for this one.
	for _, o := range t.namespaces {
		delete(o.nsids, n)
	}
	main := t.Netns()
	main.unregistered = append(main.unregistered, n.unregistered...)
	n.unregistered = nil
	kept := n.ev.list[:0]
	for _, e := range n.ev.list {
		if e.Request != t.ev.req {
			kept = append(kept, e)
		}
	}
	n.ev.list = kept
	t.dead = append(t.dead, n)
	delete(t.namespaces, name)
	t.order = slices.DeleteFunc(t.order, func(s string) bool { return s == name })
	return nil
}

// Named returns the namespace a script named (nil when there is none).
func (t *Target) Named(name string) *Netns {
	if name == "" {
		return nil
	}
	return t.namespaces[name]
}

// errNoNetns is `ip netns exec NAME` of a name no namespace has.
func errNoNetns(name string) error {
	return rtnl.Errf(uapi.ENOENT, "Cannot open network namespace %q: No such file or directory", name)
}

// nsid is peernet2id_alloc: the id n knows peer by, the lowest unused
// one the first time it is asked.
func (n *Netns) nsid(peer *Netns) int {
	if id, ok := n.nsids[peer]; ok {
		return id
	}
	if n.nsids == nil {
		n.nsids = map[*Netns]int{}
	}
	// idr_alloc: the lowest id free (a dead namespace's is freed).
	used := map[int]bool{}
	for _, v := range n.nsids {
		used[v] = true
	}
	id := 0
	for used[id] {
		id++
	}
	n.nsids[peer] = id
	return id
}

// otherNetns resolves the namespace a link request names (iproute2's
// netns_get_fd comes before anything is sent).
func (n *Netns) otherNetns(name string) (*Netns, error) {
	dst := n.lookupNetns(name)
	if dst == nil {
		return nil, errNoNetns(name)
	}
	return dst, nil
}

// linkAddIn is rtnl_newlink with IFLA_NET_NS_FD: the device is looked
// up (EEXIST) and made in dst, as this kernel does; a veth peer with
// attributes of its own but no netns stays in the requester's.
func (n *Netns) linkAddIn(op rtnl.LinkAdd) error {
	dst, err := n.otherNetns(op.Netns)
	if err != nil {
		return err
	}
	if op.Kind == rtnl.KindMacvlan || op.Master != nil || op.Vxlan.Dev != "" {
		return fmt.Errorf("%w: a macvlan, a bridge port or a vxlan on a lower made in another namespace", ErrNotModelled)
	}
	op.Netns = ""
	return dst.linkAddPeerIn(op, n)
}

// linkSetNetns is `link set DEV netns NS` alone.
func (n *Netns) linkSetNetns(op rtnl.LinkSet) error {
	dst, err := n.otherNetns(op.Netns)
	if err != nil {
		return err
	}
	d := n.ByName(op.Dev)
	if d == nil {
		return enodev(op.Dev)
	}
	if op.NewName != "" || op.Kind != "" || !reflect.DeepEqual(op.LinkAttrs, rtnl.LinkAttrs{}) {
		return fmt.Errorf("%w: `netns` with other changes in one link set", ErrNotModelled)
	}
	return n.linkMove(d, dst)
}

// linkMove is __dev_change_net_namespace without a name pattern: the
// device closes, leaves n (its addresses, routes, rules and bridge go, as
// on unregister, and n sends RTM_DELLINK), then registers in dst under
// its ifindex when that is free there (another when not) and dst sends
// RTM_NEWLINK. The request is priced as an unregister of the device (it
// also waits for rcu_barrier and synchronize_net).
func (n *Netns) linkMove(d *Device, dst *Netns) error {
	if d.flags&uapi.IFF_LOOPBACK != 0 || d.kind == rtnl.KindBridge {
		return rtnl.Errf(uapi.EINVAL, "The interface netns is immutable")
	}
	switch {
	case d.kind == rtnl.KindMacvlan || d.kind == rtnl.KindVxlan:
		return fmt.Errorf("%w: moving a %s device to another namespace", ErrNotModelled, d.kind)
	case len(d.vlanList()) > 0 || len(d.vxlanList()) > 0:
		return fmt.Errorf("%w: moving the lower device of macvlans or vxlans to another namespace", ErrNotModelled)
	}
	if dst == n {
		return nil
	}
	if dst.byName[d.name] != nil {
		return rtnl.Errf(uapi.EEXIST, "An interface with the same name exists in the target netns")
	}
	for _, a := range d.AltNames() {
		if dst.byName[a] != nil {
			return rtnl.Errf(uapi.EEXIST, "")
		}
	}
	d.upAtUnregister = d.Up()
	d.v6AtUnregister = d.v6
	d.queueAtUnregister = d.hasEnqueue()
	if d.Up() {
		n.devClose(d)
		n.linkEvent(d)
		n.notifyDown(d)
	}
	// unlist_netdevice; the device stays NETREG_REGISTERED, so what the
	// notifiers change is still notified (RTM_NEWLINK).
	d.qdisc = "noop" // dev_shutdown
	n.ev.trace.netdev(d, "NETDEV_UNREGISTER")
	n.inetdevDestroy(d)
	n.fibDisableIPUnregister(d)
	n.nexthopFlushDev(d, true)
	n.rulesDetach(d)
	n.v6Unregister(d)
	d.in6 = nil // addrconf_ifdown frees the inet6_dev on unregister
	if br := d.master; br != nil {
		n.brDelIf(br, d)
	}
	n.nsid(dst)
	n.delLinkEvent(d)
	alts := d.AltNames()
	// linkwatch's queue is the kernel's, not the namespace's: an event
	// pending for the device still runs after the move.
	pending := d.lwPending
	n.unlist(d)
	ifindex := d.ifindex
	if dst.ByIndex(ifindex) != nil {
		ifindex = 0
	}
	d.ns = dst
	// The move lists the device and runs NETDEV_REGISTER, not
	// register_netdevice: the operstate linkwatch last set stays.
	operstate := d.operstate
	if err := dst.register(d, ifindex); err != nil {
		return err // the name and the altnames were checked above
	}
	d.operstate = operstate
	if pending {
		dst.fireLinkwatch(d)
	}
	for _, a := range alts {
		dst.byName[a] = d
	}
	if p := d.Peer(); p != nil && p.ns != dst {
		dst.nsid(p.ns)
	}
	dst.linkEvent(d)
	return nil
}
