package sim

import (
	"fmt"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// Notifications on RTNLGRP_LINK, sent where the kernel sends them:
// rtmsg_ifinfo (family link) from rtnl_configure_link, __dev_notify_flags,
// netdev_state_change, rtnetlink_event (CHANGEMTU, CHANGEADDR, CHANGENAME,
// FEAT_CHANGE, CHANGEUPPER, CHANGE_TX_QUEUE_LEN) and the unregister path;
// br_ifinfo_notify (family bridge) for bridge ports. rtnetlink's notifier
// was registered before the bridge's and macvlan's, so a device's own
// notification comes before what those listeners do, except for
// NETDEV_CHANGE, where netdev_state_change calls the listeners first.

// eventLog is the notifications of one target, numbered by request.
type eventLog struct {
	record   bool // keep them (Options.Events); otherwise only count
	req      int  // the request being applied, 1-based
	deferred bool // linkwatch or DAD work is running
	dad      bool // the deferred work is DAD's (sim/addrconf.go)
	list     []rtnl.Event
	trace    *traceRec // rtnlsim run --trace (sim/trace.go); nil: off
}

// send sends a notification that the cost model prices as a netdev
// notifier call and a notification (reqNotifications).
func (n *Netns) send(typ, family string, obj func() any) {
	n.reqNotifications++
	n.logEvent(typ, family, obj)
}

// logEvent traces a notification and, when the target keeps them,
// records it with its request and whether deferred work sent it.
func (n *Netns) logEvent(typ, family string, obj func() any) {
	n.ev.trace.sent(typ, family)
	if !n.ev.record {
		return
	}
	n.ev.list = append(n.ev.list, rtnl.Event{Type: typ, Family: family, Object: obj(),
		Request: n.ev.req, Deferred: n.ev.deferred})
}

// linkEvent is rtmsg_ifinfo(RTM_NEWLINK): nothing for a device that is
// not (or no longer) NETREG_REGISTERED.
func (n *Netns) linkEvent(d *Device) {
	if !n.alive(d) || d.unregistering || d.initializing {
		return
	}
	n.send("RTM_NEWLINK", "link", func() any { return renderLink(d) })
}

// delLinkEvent is the RTM_DELLINK that unregister_netdevice_many builds
// after NETDEV_UNREGISTER: down, qdisc noop, no master.
func (n *Netns) delLinkEvent(d *Device) {
	if d.initializing {
		return
	}
	n.send("RTM_DELLINK", "link", func() any { return renderLink(d) })
}

// bridgeEvent is br_ifinfo_notify for port p (no reg_state check: it is
// sent for a port that is being unregistered too).
func (n *Netns) bridgeEvent(typ string, p *Device) {
	n.send(typ, "bridge", func() any { return renderBridgePort(p) })
}

// renderBridgePort is br_fill_ifinfo's message as the kernel target
// renders it: the link header without qdisc, linkmode, group, txqlen,
// broadcast and alias.
func renderBridgePort(p *Device) rtnl.Link {
	l := renderLink(p)
	if l.LinkNetnsid != nil {
		// br_fill_ifinfo sends IFLA_LINK without the peer's namespace,
		// and only when it is not the device's own ifindex: a client
		// names the ifindex as it knows it here.
		l.LinkIndex, l.LinkNetnsid = nil, nil
		mdown := false
		if pi := p.Peer().ifindex; pi != p.ifindex {
			name := fmt.Sprintf("if%d", pi)
			mdown = true
			if o := p.ns.ByIndex(pi); o != nil {
				name, mdown = o.name, !o.Up()
			}
			l.LinkPeer = &name
		}
		l.Flags = rtnl.LinkFlags(p.ifinfoFlags(), mdown)
	}
	l.Qdisc, l.Linkmode, l.Group, l.Txqlen, l.Broadcast, l.Ifalias, l.Altnames = "", "", "", nil, "", "", nil
	return l
}
