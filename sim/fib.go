package sim

import (
	"fmt"

	"github.com/rtnlsim/rtnlsim/fibtrie"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// The namespace's IPv4 FIB (fibtrie) as net/ipv4/fib_frontend.c drives it
// from addresses and devices: fib_magic, fib_add_ifaddr, fib_del_ifaddr,
// fib_disable_ip, fib_sync_down_addr, and the RTM_NEWROUTE / RTM_DELROUTE
// that fib_table_insert and fib_table_delete send (flushes send none).
// Read from Linux ~6.15-6.17 net/ipv4/fib_frontend.c.

// FibCounters count the FIB work the model does for addresses, devices
// and route requests.
type FibCounters struct {
	// Inserts and Deletes are fib_table_insert / fib_table_delete calls
	// (kernel-made and requested), whether or not they changed the FIB.
	Inserts, Deletes int
	// Flushes are fib_flush calls (each walks every table), and
	// FlushTnodes the tnodes their walks finished (resize calls,
	// cost.StepFibFlushTnode).
	Flushes, FlushTnodes int
	// IfaScanSteps are the addresses fib_del_ifaddr's scan and
	// inet_ifa_byprefix looked at; IfaScanFarSteps those of them beyond
	// each scan's first IfaWalkCacheEntries.
	IfaScanSteps, IfaScanFarSteps int
	// IfaScanCheckSteps are the entries of fib_del_ifaddr's scans that
	// went on to be compared with the deleted address: neither that
	// address itself nor one of the subnet a promotion moves
	// (cost.StepIfaScanCheck).
	IfaScanCheckSteps int
}

// IfaWalkCacheEntries is how many entries of one IPv4 address-list scan
// are priced at cost.StepIfaWalk alone; the rest of a longer scan also
// counts cost.StepIfaWalkFar. It stands for the core's L2 cache (1 MiB
// here): each step loads the next in_ifaddr through the last one's
// pointer, so a scan pays the latency of wherever the list lives. Measured
// on this machine's 6.18 (deleting the primary of N addresses in one /8
// with promotion, through ip -b, median of 3; one scan of all N per
// secondary): N = 1000 to 24,000 fit one price per call, one per step and
// one per step beyond the first C of a scan within 5% for C = 5000 (3.3
// us, 3.2 ns and 4.5 ns), within 9% for C = 4000 or 6000, and no better
// than 28% without the third term.
const IfaWalkCacheEntries = 5000

// scanned charges one address-list scan of steps entries.
func (c *FibCounters) scanned(steps int) {
	c.IfaScanSteps += steps
	c.IfaScanFarSteps += max(0, steps-IfaWalkCacheEntries)
}

// fibInsert is fib_table_insert with its notification.
func (n *Netns) fibInsert(r fibtrie.Route, flags fibtrie.Flags) error {
	n.fibCount.Inserts++
	changed, err := n.fib.InsertChanged(r, flags)
	if err == nil && changed {
		n.routeEvent("RTM_NEWROUTE", r)
	}
	return err
}

// fibRemove is fib_table_delete with its notification.
func (n *Netns) fibRemove(r fibtrie.Route) error {
	n.fibCount.Deletes++
	a, err := n.fib.Remove(r)
	if err == nil {
		n.routeEvent("RTM_DELROUTE", a.Route)
	}
	return err
}

// fibFlush is fib_flush: every table's dead aliases go, silently except
// those announce says were marked by fib_sync_down_addr (their prefsrc
// went: pfsrc_removed), each with an RTM_DELROUTE. announce may be nil.
func (n *Netns) fibFlush(announce func(*fibtrie.Alias) bool) {
	n.fibCount.Flushes++
	defer n.countFlushTnodes()()
	if announce == nil {
		n.fib.Flush(nil)
		return
	}
	n.fib.FlushEach(nil, func(a *fibtrie.Alias) {
		if announce(a) {
			// A multipath route dumps its fib_info's flags: DEAD too.
			r := n.renderRouteDead(a.Route, a.IsMulti())
			n.send("RTM_DELROUTE", "inet", func() any { return r })
		}
	})
}

// countFlushTnodes starts counting the tnodes a flush walk finishes (the
// trie's resize calls, cost.StepFibFlushTnode); the function it returns
// ends the count.
func (n *Netns) countFlushTnodes() func() {
	resizes := n.fib.Counters().ResizeCalls
	return func() { n.fibCount.FlushTnodes += int(n.fib.Counters().ResizeCalls - resizes) }
}

// unmerge is fib_unmerge: its walk of main (fib_table_flush_external)
// finishes tnodes as a flush does.
func (n *Netns) unmerge() {
	defer n.countFlushTnodes()()
	n.fib.Unmerge()
}

// fibMagic is fib_magic: a kernel route of an address, in main for a
// unicast prefix and in local otherwise, proto kernel, scope link (host
// for local), prefsrc the primary's local address, through the device;
// added with NLM_F_CREATE|NLM_F_APPEND, or deleted.
func (n *Netns) fibMagic(add bool, typ fibtrie.RouteType, dst uint32, plen int, d *Device, prim *Ifaddr, prio uint32) {
	r := fibtrie.Route{Dst: dst, Len: uint8(plen), Table: fibtrie.TableLocal, Type: typ,
		Scope: fibtrie.ScopeLink, Protocol: uapi.RTPROT_KERNEL, PrefSrc: prim.Local,
		OIF: int(d.ifindex), Priority: prio}
	if typ == fibtrie.TypeUnicast {
		r.Table = fibtrie.TableMain
	}
	if typ == fibtrie.TypeLocal {
		r.Scope = fibtrie.ScopeHost
	} else {
		// fib_check_nh_nongw: a nexthop without carrier is LINKDOWN.
		r.LinkDown = !d.carrier
	}
	if add {
		// fib_table_insert checks the kernel's own route as it checks a
		// request (fib_create_info): when the prefsrc is no longer local
		// (a user deleted its local route), the route is not added.
		n.fib.NewTable(r.Table)
		c := fibConfig{Route: r, dev: d}
		if n.fibCreateInfo(&c) != nil {
			return
		}
		_ = n.fibInsert(c.Route, fibtrie.FlagCreate|fibtrie.FlagAppend)
	} else {
		_ = n.fibRemove(r)
	}
}

// byPrefix is inet_ifa_byprefix: the first address of the list with
// this mask whose subnet holds prefix.
func (n *Netns) byPrefix(in *InDevice, prefix, mask uint32) *Ifaddr {
	a, steps := in.firstInSubnet(prefix, mask)
	n.fibCount.scanned(steps)
	return a
}

// fibAddIfaddr is fib_add_ifaddr: the local route always; with the
// device up, the explicit broadcast, and for a primary the prefix route
// (unless IFA_F_NOPREFIXROUTE) and the subnet broadcast.
func (n *Netns) fibAddIfaddr(d *Device, ifa *Ifaddr) {
	prim := ifa
	mask, addr := ifa.Mask, ifa.Local
	prefix := ifa.Address & mask
	if ifa.Secondary() {
		if prim = n.byPrefix(d.in, prefix, mask); prim == nil {
			return
		}
	}
	n.fibMagic(true, fibtrie.TypeLocal, addr, 32, d, prim, 0)
	if !d.Up() {
		return
	}
	if ifa.Broadcast != 0 && ifa.Broadcast != 0xffffffff {
		n.fibMagic(true, fibtrie.TypeBroadcast, ifa.Broadcast, 32, d, prim, 0)
	}
	if prefix != 0 && !ifa.Secondary() && (prefix != addr || ifa.Prefixlen < 32) {
		if ifa.Flags&uapi.IFA_F_NOPREFIXROUTE == 0 {
			n.fibMagic(true, prefixRouteType(d), prefix, ifa.Prefixlen, d, prim, prim.RtPriority)
		}
		if ifa.Prefixlen < 31 {
			n.fibMagic(true, fibtrie.TypeBroadcast, prefix|^mask, 32, d, prim, 0)
		}
	}
}

// fibModifyPrefixMetric is fib_modify_prefix_metric: the prefix route
// of an up device's primary, which has one, is added at the new metric,
// then the one at the old metric deleted (local for the loopback, as
// fib_add_ifaddr makes it).
func (n *Netns) fibModifyPrefixMetric(d *Device, ifa *Ifaddr, metric uint32) {
	prefix := ifa.Address & ifa.Mask
	if !d.Up() || ifa.Flags&(uapi.IFA_F_SECONDARY|uapi.IFA_F_NOPREFIXROUTE) != 0 || prefix == 0 ||
		(prefix == ifa.Local && ifa.Prefixlen == 32) {
		return
	}
	n.fibMagic(true, prefixRouteType(d), prefix, ifa.Prefixlen, d, ifa, metric)
	n.fibMagic(false, prefixRouteType(d), prefix, ifa.Prefixlen, d, ifa, ifa.RtPriority)
}

// prefixRouteType is a prefix route's type: local on the loopback.
func prefixRouteType(d *Device) fibtrie.RouteType {
	if d.flags&uapi.IFF_LOOPBACK != 0 {
		return fibtrie.TypeLocal
	}
	return fibtrie.TypeUnicast
}

// What fib_del_ifaddr's scan finds still in use (its ok bits): the
// local address, the address's broadcast, the subnet's network address
// and its broadcast address.
const (
	localOK = 1 << iota
	brdOK
	brd0OK
	brd1OK
)

// fibDelIfaddr is fib_del_ifaddr: the prefix route of a primary, then,
// after a scan of the device's other addresses for one that still needs
// them, the broadcast and local routes; a local address that is gone for
// good also takes the main table's routes that use it as prefsrc
// (fib_sync_down_addr, then fib_flush). iprim is the primary being
// deleted when a promotion moves the subnet's routes: its subnet's
// addresses count as gone.
func (n *Netns) fibDelIfaddr(d *Device, ifa, iprim *Ifaddr) {
	in := d.in
	prim := ifa
	var prim1 *Ifaddr
	brd := ifa.Address | ^ifa.Mask
	anyAddr := ifa.Address & ifa.Mask
	ok := 0
	subnet := false
	gone := true
	samePrefsrc := false
	if ifa.Secondary() {
		prim = n.byPrefix(in, anyAddr, ifa.Mask)
		if prim == nil || (iprim != nil && iprim != prim) {
			return
		}
	} else if anyAddr != 0 && (anyAddr != ifa.Local || ifa.Prefixlen < 32) {
		if ifa.Flags&uapi.IFA_F_NOPREFIXROUTE == 0 {
			typ := fibtrie.TypeUnicast
			if d.flags&uapi.IFF_LOOPBACK != 0 {
				typ = fibtrie.TypeLocal
			}
			n.fibMagic(false, typ, anyAddr, ifa.Prefixlen, d, prim, 0)
		}
		subnet = true
	}
	if !in.Dead && !in.literal && in.scanCountable(ifa, prim, iprim) {
		ok, gone = in.scanCounted(ifa, prim, iprim)
		n.fibCount.scanned(in.Len())
		n.fibCount.IfaScanCheckSteps += in.scanChecks(ifa, iprim)
	} else if !in.Dead {
		steps := 0
		for ifa1 := in.head; ifa1 != nil; ifa1 = ifa1.next {
			steps++
			if ifa1 == ifa {
				gone = false // promotion keeps the address
				continue
			}
			if iprim != nil && ifa1.Mask == iprim.Mask && inetIfaMatch(ifa1.Address, iprim) {
				continue
			}
			n.fibCount.IfaScanCheckSteps++
			if ifa1.Secondary() {
				if ifa1.Mask == prim.Mask && inetIfaMatch(ifa1.Address, prim) {
					prim1 = prim
				} else {
					if !samePrefsrc {
						continue
					}
					if prim1 == nil || ifa1.Mask != prim1.Mask || !inetIfaMatch(ifa1.Address, prim1) {
						prim1 = n.byPrefix(in, ifa1.Address, ifa1.Mask)
					}
					if prim1 == nil || prim1.Local != prim.Local {
						continue
					}
				}
			} else {
				if prim.Local != ifa1.Local {
					continue
				}
				prim1 = ifa1
				if prim != prim1 {
					samePrefsrc = true
				}
			}
			if ifa.Local == ifa1.Local {
				ok |= localOK
			}
			if ifa.Broadcast == ifa1.Broadcast {
				ok |= brdOK
			}
			if brd == ifa1.Broadcast {
				ok |= brd1OK
			}
			if anyAddr == ifa1.Broadcast {
				ok |= brd0OK
			}
			if prim1 == ifa1 && ifa1.Prefixlen < 31 {
				brd1 := ifa1.Address | ^ifa1.Mask
				any1 := ifa1.Address & ifa1.Mask
				if any1 != 0 {
					if ifa.Broadcast == brd1 || ifa.Broadcast == any1 {
						ok |= brdOK
					}
					if brd == brd1 || brd == any1 {
						ok |= brd1OK
					}
					if anyAddr == brd1 || anyAddr == any1 {
						ok |= brd0OK
					}
				}
			}
		}
		n.fibCount.scanned(steps)
	}
	if ok&brdOK == 0 {
		n.fibMagic(false, fibtrie.TypeBroadcast, ifa.Broadcast, 32, d, prim, 0)
	}
	if subnet && ifa.Prefixlen < 31 {
		if ok&brd1OK == 0 {
			n.fibMagic(false, fibtrie.TypeBroadcast, brd, 32, d, prim, 0)
		}
		if ok&brd0OK == 0 {
			n.fibMagic(false, fibtrie.TypeBroadcast, anyAddr, 32, d, prim, 0)
		}
	}
	if ok&localOK == 0 {
		n.fibMagic(false, fibtrie.TypeLocal, ifa.Local, 32, d, prim, 0)
		// inet_addr_type_dev_table: without l3mdev it is
		// inet_addr_type_table in the local table, with no device.
		if gone && n.inetAddrTypeTable(ifa.Local, fibtrie.TableLocal) != fibtrie.TypeLocal {
			// fib_sync_down_addr: the routes lose their prefsrc
			// (pfsrc_removed), and the flush announces their removal.
			pfsrc := map[*fibtrie.Alias]bool{}
			if n.fib.MarkDead(func(a *fibtrie.Alias) bool {
				if a.Table == fibtrie.TableMain && a.PrefSrc == ifa.Local {
					pfsrc[a] = true
					return true
				}
				return false
			}) > 0 {
				n.fibFlush(func(a *fibtrie.Alias) bool { return pfsrc[a] })
			}
		}
	}
}

// fibDisableIP is fib_disable_ip: the device's nexthops die (on
// NETDEV_DOWN host-scope ones stay; force takes them too), and a flush
// removes the routes left with no live nexthop.
func (n *Netns) fibDisableIP(d *Device, force bool) {
	if n.fib.SyncDownDev(int(d.ifindex), force) > 0 {
		n.fibFlush(nil)
	}
}

// fibDisableIPUnregister is fib_disable_ip on NETDEV_UNREGISTER: as
// with force, and a multipath route with any nexthop through the
// device goes as a whole.
func (n *Netns) fibDisableIPUnregister(d *Device) {
	if n.fib.SyncDownDevUnregister(int(d.ifindex)) > 0 {
		n.fibFlush(nil)
	}
}

// fibSyncUp is fib_sync_up(dev, RTNH_F_DEAD) (NETDEV_UP, an address
// added): for an up device with IPv4, its multipath nexthops live again,
// and lose LINKDOWN too when it has carrier.
func (n *Netns) fibSyncUp(d *Device) {
	if !d.Up() || d.in == nil {
		return
	}
	n.fib.SyncUpMulti(int(d.ifindex), true, d.carrier)
}

// fibNetdevUp is fib_netdev_event's NETDEV_UP: every address's routes
// again (those that exist stay, EEXIST, unannounced).
func (n *Netns) fibNetdevUp(d *Device) {
	if d.in == nil {
		return
	}
	for ifa := d.in.head; ifa != nil; ifa = ifa.next {
		n.fibAddIfaddr(d, ifa)
	}
	n.fibSyncUp(d)
}

// fibNetdevChange is fib_netdev_event's NETDEV_CHANGE: with carrier the
// device's nexthops lose LINKDOWN (fib_sync_up), without it those that are
// not host scope get it (fib_sync_down_dev).
func (n *Netns) fibNetdevChange(d *Device) {
	if d.in == nil {
		return
	}
	n.fib.SetLinkDownDev(int(d.ifindex), !d.carrier)
}

// routeEvent sends RTM_NEWROUTE or RTM_DELROUTE (rtmsg_fib) for r.
func (n *Netns) routeEvent(typ string, r fibtrie.Route) {
	n.send(typ, "inet", func() any { return n.renderRoute(r) })
}

// renderRoute is fib_dump_info as `ip -j route` prints it.
func (n *Netns) renderRoute(r fibtrie.Route) rtnl.RouteEntry { return n.renderRouteDead(r, false) }

// devName is a nexthop device's name as iproute2 prints it.
func (n *Netns) devName(oif int) string {
	if d := n.ByIndex(uint32(oif)); d != nil {
		return d.name
	}
	return fmt.Sprintf("if%d", oif)
}

// renderRouteDead is renderRoute for a route whose fib_info may be DEAD
// (dead): a multipath route's rtm_flags are the fib_info's flags, and
// RTA_MULTIPATH has each nexthop's gateway, device, weight and flags; a
// route of one nexthop has that nexthop's flags and no weight.
func (n *Netns) renderRouteDead(r fibtrie.Route, dead bool) rtnl.RouteEntry {
	if id := r.NhID(); id != 0 {
		out := n.renderRouteDead(n.nhResolved(r), dead)
		out.NhID = &id
		n.nhVia(&out, id)
		return out
	}
	var flags uint32
	if r.LinkDown {
		flags |= uapi.RTNH_F_LINKDOWN
		// fib_nexthop_info: a linkdown nexthop whose device ignores
		// such routes is shown dead too (a multipath route's own flags
		// are its fib_info's: each nexthop gets this below).
		if !r.IsMulti() && n.ignoreLinkdown(n.ByIndex(uint32(r.OIF))) {
			flags |= uapi.RTNH_F_DEAD
		}
	}
	if dead {
		flags |= uapi.RTNH_F_DEAD
	}
	// ONLINK: a multipath route's own flags are its fib_info's, which
	// hold the request's; one nexthop shows that nexthop's flag, which
	// without RTA_MULTIPATH is the request's too.
	onlink := r.Onlink
	if nhs := r.Nexthops(); len(nhs) == 1 {
		onlink = nhs[0].Onlink
	}
	if onlink {
		flags |= uapi.RTNH_F_ONLINK
	}
	out := rtnl.RouteEntry{Flags: rtnl.RouteFlags(flags), Family: 4}
	// RTA_FLOW is the one nexthop's realms; RTA_METRICS the metrics that
	// are not 0, of any route.
	if v := r.Realms(); v != 0 {
		out.Flow = rtnl.FlowOf(v)
	}
	if mtu, lock := r.MTU(); mtu != 0 || lock {
		out.Metrics = []rtnl.RouteMetrics{{MTU: mtu, Lock: lock}}
	}
	if r.IsMulti() {
		for _, nh := range r.Nexthops() {
			var f uint32
			if nh.Dead {
				f |= uapi.RTNH_F_DEAD
			}
			if nh.Onlink {
				f |= uapi.RTNH_F_ONLINK
			}
			if nh.LinkDown {
				f |= uapi.RTNH_F_LINKDOWN
				if n.ignoreLinkdown(n.ByIndex(uint32(nh.OIF))) {
					f |= uapi.RTNH_F_DEAD
				}
			}
			e := rtnl.NexthopEntry{Weight: int(nh.Weight), Flags: rtnl.RouteFlags(f)}
			if nh.Gateway != 0 {
				e.Gateway = fibtrie.FormatIP(nh.Gateway)
			}
			if nh.Gateway6.IsValid() {
				e.Via = rtnl.ViaOf(nh.Gateway6)
			}
			if nh.OIF != 0 {
				e.Dev = n.devName(nh.OIF)
			}
			out.Nexthops = append(out.Nexthops, e)
		}
		r.Gateway, r.OIF = 0, 0
	} else if gw := r.Gateway6(); gw.IsValid() {
		out.Via = rtnl.ViaOf(gw)
	}
	if r.Type != fibtrie.TypeUnicast {
		out.Type = rtnl.RouteTypeName(uint8(r.Type))
	}
	switch {
	case r.Len == 32:
		out.Dst = fibtrie.FormatIP(r.Dst)
	case r.Len == 0:
		out.Dst = "default"
	default:
		out.Dst = fmt.Sprintf("%s/%d", fibtrie.FormatIP(r.Dst), r.Len)
	}
	if r.TOS != 0 {
		out.Tos = rtnl.DSFieldName(r.TOS)
	}
	if r.Gateway != 0 {
		out.Gateway = fibtrie.FormatIP(r.Gateway)
	}
	if r.OIF != 0 {
		out.Dev = fmt.Sprintf("if%d", r.OIF)
		if d := n.ByIndex(uint32(r.OIF)); d != nil {
			out.Dev = d.name
		}
	}
	if r.Table != fibtrie.TableMain {
		out.Table = rtnl.TableName(r.Table)
	}
	if r.Protocol != uapi.RTPROT_BOOT {
		out.Protocol = rtnl.ProtoName(r.Protocol)
	}
	if r.Scope != fibtrie.ScopeUniverse {
		out.Scope = rtnl.ScopeName(uint8(r.Scope))
	}
	if r.PrefSrc != 0 {
		out.Prefsrc = fibtrie.FormatIP(r.PrefSrc)
	}
	if r.Priority != 0 {
		m := r.Priority
		out.Metric = &m
	}
	return out
}

// Routes returns `ip -j route show table all` for IPv4: every table in
// the kernel's hash order, each in key order.
func (n *Netns) Routes() []rtnl.RouteEntry {
	out := []rtnl.RouteEntry{}
	for _, id := range n.fib.TableIDs() {
		n.fib.Walk(id, func(a *fibtrie.Alias) bool {
			out = append(out, n.renderRoute(a.Route))
			return true
		})
	}
	return append(out, n.Routes6()...)
}
