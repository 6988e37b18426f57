package ipbatch

import (
	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/rtnl"
)

// The name lookups a client makes before it sends a request: kernel
// requests the sim target does not make (it resolves names for free), so
// a prediction of what a client's run costs adds them.

// LookupWork is one name lookup as the kernel target makes it
// (kernel/apply.go ifindex): an RTM_GETLINK by IFLA_IFNAME, answered with
// one rtnl_fill_ifinfo, under rtnl_lock (6.18 registers rtnl_getlink
// without RTNL_FLAG_DOIT_UNLOCKED). Measured alone on this machine it
// costs about twice a plain RTM_NEWLINK (33 us against 17.5 us).
func LookupWork() cost.Work {
	var w cost.Work
	w.AddLocked(cost.StepRequest, 1)
	w.AddLocked(cost.StepLinkFill, 1) // the reply's rtnl_fill_ifinfo
	return w
}

// IPLookupWork is one name lookup as ip makes it (iproute2's
// ll_link_get): the kernel target's lookup (LookupWork) on a rtnetlink
// socket opened for it and closed after (socket, bind, getsockname,
// close: nl_socket, outside rtnl_lock). The socket and the fill come
// together in every lookup, so the calibration cannot price them apart.
func IPLookupWork() cost.Work {
	w := LookupWork()
	w.AddUnlocked(cost.StepNlSocket, 1)
	return w
}

// LineWork is one script line as ip -b sends it: on its own, waiting for
// the ack (cost.StepClientLine), outside rtnl_lock.
func LineWork() cost.Work {
	var w cost.Work
	w.AddUnlocked(cost.StepClientLine, 1)
	return w
}

// Lookups counts the name lookups the kernel target makes before it sends
// r (kernel/apply.go): the device of link set, addr add/del/flush and
// route requests with a dev, a link's master and lower device, each device
// of a list delete. The sim target resolves names for free, so
// calibration adds these.
func Lookups(r rtnl.Request) int {
	n := 0
	LookedUp(r, false, func(string) { n++ })
	return n
}

// LookedUp calls f for each device name a client resolves before it sends
// r. ip (iproute2) also resolves the name of `link del NAME`; the kernel
// target resolves each device of a list delete, which ip cannot send.
func LookedUp(r rtnl.Request, ip bool, f func(name string)) {
	named := func(s string) {
		if s != "" {
			f(s)
		}
	}
	master := func(m *string) {
		if m != nil {
			named(*m)
		}
	}
	if rt, ok := rtnl.RouteOf(r.Op); ok {
		named(rt.Dev)
		return
	}
	switch op := r.Op.(type) {
	case rtnl.LinkAdd:
		named(op.Lower)
		master(op.Master)
	case rtnl.LinkSet:
		named(op.Dev)
		master(op.Master)
	case rtnl.LinkDel:
		if ip {
			named(op.Dev)
		}
	case rtnl.LinkDelList:
		if !ip {
			for _, d := range op.Devs {
				f(d)
			}
		}
	case rtnl.LinkProp:
		named(op.Dev) // iplink_prop_mod: ll_name_to_index, both targets
	case rtnl.AddrAdd:
		named(op.Addr.Dev)
	case rtnl.AddrDel:
		named(op.Addr.Dev)
	case rtnl.AddrFlush:
		named(op.Dev)
	case rtnl.RouteFlush:
		named(op.Dev)
	}
}

// IPLookups counts the name lookups of one `ip -b` process (iproute2
// 6.1, seen with strace): ll_name_to_index sends an RTM_GETLINK by
// IFLA_IFNAME, on a socket of its own (IPLookupWork), for a name not in
// the process's cache and caches the answer, so a batch resolves each device name once. Unlike the kernel
// target, `link del NAME` resolves its name too. Not counted: the one
// RTM_NEWLINK probe of the process's first link command (about one
// request in a whole batch).
type IPLookups struct{ seen map[string]bool }

// NewIPLookups is a fresh process: nothing resolved yet.
func NewIPLookups() *IPLookups { return &IPLookups{seen: map[string]bool{}} }

// Lookups counts r's lookups and remembers the names it resolved.
func (c *IPLookups) Lookups(r rtnl.Request) int {
	n := 0
	LookedUp(r, true, func(name string) {
		if !c.seen[name] {
			c.seen[name] = true
			n++
		}
	})
	return n
}
