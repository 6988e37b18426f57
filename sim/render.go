package sim

import (
	"fmt"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// renderLink builds the `ip -j link show` object of a device exactly as the
// kernel target renders the RTM_NEWLINK message rtnl_fill_ifinfo would
// send: IFLA_LINK (as a name, with M-DOWN when that device is not up) only
// when it differs from the device, the qdisc, master, operstate (DOWN for a
// device that is not running), linkmode DEFAULT, group, txqlen, type and
// addresses.
func renderLink(d *Device) rtnl.Link {
	l := rtnl.Link{Ifindex: int(d.ifindex), Ifname: d.name}
	mdown := false
	if il := d.iflink(); il != d && il.ns != d.ns && il.ns != nil && d.ns != nil {
		// rtnl_fill_link_netnsid: the peer's namespace's id, allocated
		// here the first time it is needed; with it IFLA_LINK is always
		// sent, even when the peer's ifindex is the device's own.
		idx, id := int(il.ifindex), d.ns.nsid(il.ns)
		l.LinkIndex, l.LinkNetnsid = &idx, &id
	} else if il != d && il.ns == nil {
		// Gone already (its RTM_DELLINK went out earlier in the batch):
		// a client that read that has forgotten the name.
		name := fmt.Sprintf("if%d", il.ifindex)
		l.LinkPeer, mdown = &name, true
	} else if il != d {
		name := il.name
		l.LinkPeer = &name
		mdown = !il.Up()
	}
	l.Flags = rtnl.LinkFlags(d.ifinfoFlags(), mdown)
	l.MTU = int(d.mtu)
	l.Qdisc = d.qdisc
	if d.master != nil {
		l.Master = d.master.name
	}
	l.Operstate = rtnl.OperState(d.OperState())
	l.Linkmode = rtnl.LinkMode(0)
	l.Group = rtnl.GroupName(d.group)
	if d.txQLen != 0 { // print_txqlen leaves a 0 out
		q := int(d.txQLen)
		l.Txqlen = &q
	}
	l.LinkType = rtnl.LinkType(d.linkType)
	l.Address = rtnl.HWAddr(d.addr)
	l.Broadcast = rtnl.HWAddr(d.brd)
	l.Ifalias = d.Alias()
	l.Altnames = append([]string(nil), d.AltNames()...)
	return l
}

// Links renders the namespace's devices in dump order.
func (n *Netns) Links() []rtnl.Link {
	out := []rtnl.Link{}
	for _, d := range n.Devices() {
		out = append(out, renderLink(d))
	}
	return out
}
