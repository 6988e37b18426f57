package sim

import (
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// The address list's requests with their walks counted from the indexes
// (ifaindex.go) instead of made: the same results, list order,
// notifications and FIB calls as the literal walks of devinet.go, in the
// same order, and the same WalkSteps, in O(log n) per walk plus the work
// each request does anyway (one notification or FIB call per address it
// touches).

// linkAfter links a after prev (at the head when prev is nil).
func (d *InDevice) linkAfter(a, prev *Ifaddr) {
	d.index().place(a, prev)
	if prev == nil {
		a.next, d.head = d.head, a
		return
	}
	a.next, prev.next = prev.next, a
}

// unlink takes a out of the list; a.next is left as it was, as the
// kernel's splice leaves it.
func (d *InDevice) unlink(a *Ifaddr) {
	ix := d.ix
	if r := ix.rank(a); r == 0 {
		d.head = a.next
	} else {
		ix.at(r - 1).next = a.next
	}
	ix.remove(a)
}

// walkTo charges a walk from the head that stops at a (all of the list
// when a is nil).
func (d *InDevice) walkTo(a *Ifaddr) {
	if d.ix == nil {
		return
	}
	if a == nil {
		d.Count.WalkSteps += d.ix.len()
		return
	}
	d.Count.WalkSteps += d.ix.rank(a) + 1
}

func (d *InDevice) findMatchingCounted(ifa *Ifaddr) *Ifaddr {
	if d.ix == nil {
		return nil
	}
	g := groupOf(ifa)
	a := d.ix.firstWithLocal(ifa.Local, func(a *Ifaddr) bool { return groupOf(a) == g })
	d.walkTo(a)
	return a
}

// insertCounted is insert's walk answered by the indexes. Every address
// of a subnet has the subnet's scope (a different one is refused), so the
// walk stops at the subnet's first address when the scope differs or the
// local is the same, else at the address with the same local, if any.
func (d *InDevice) insertCounted(ifa *Ifaddr) error {
	ix := d.index()
	if s := ix.subnet(groupOf(ifa)); s != nil {
		first := s.first()
		switch {
		case first.Local == ifa.Local:
			d.walkTo(first)
			return rtnl.Errf(uapi.EEXIST, "address exists")
		case first.Scope != ifa.Scope:
			d.walkTo(first)
			return rtnl.Errf(uapi.EINVAL, "ipv4: Invalid scope value")
		}
		g := groupOf(ifa)
		if same := ix.firstWithLocal(ifa.Local, func(a *Ifaddr) bool { return groupOf(a) == g }); same != nil {
			d.walkTo(same)
			return rtnl.Errf(uapi.EEXIST, "address exists")
		}
		ifa.Flags |= uapi.IFA_F_SECONDARY
	}
	d.walkTo(nil)
	if ifa.Secondary() {
		d.linkAfter(ifa, ix.last())
	} else {
		d.linkAfter(ifa, ix.lastPrimary(ifa.Scope, 0, nil))
	}
	d.rtmsgIfa("RTM_NEWADDR", ifa)
	d.notifyInetaddr(true, ifa)
	return nil
}

// delMatch is inet_rtm_deladdr's test of one address.
func delMatch(r IfaRequest, ifa *Ifaddr) bool {
	return (!r.HasLocal || ifa.Local == r.Local) && (!r.HasLabel || ifa.Label == r.Label) &&
		(!r.HasAddress || r.Prefixlen == ifa.Prefixlen && inetIfaMatch(r.Address, ifa))
}

func (d *InDevice) delAddrCounted(r IfaRequest) error {
	var found *Ifaddr
	if r.HasLocal {
		if d.ix != nil {
			found = d.ix.firstWithLocal(r.Local, func(a *Ifaddr) bool { return delMatch(r, a) })
		}
	} else {
		// Without IFA_LOCAL any address may match: this search walks.
		for a := d.head; a != nil && found == nil; a = a.next {
			if delMatch(r, a) {
				found = a
			}
		}
	}
	d.walkTo(found)
	if found == nil {
		return rtnl.Errf(uapi.EADDRNOTAVAIL, "ipv4: Address not found")
	}
	d.delCounted(found, false)
	return nil
}

// delCounted is del (__inet_del_ifa) on ifa1 with its walks counted: the
// rest of the list after a primary is charged up to the subnet's first
// secondary after it (promotion), or to the end; the promoted address
// moves after the last primary of at least ifa1's scope before it, or to
// ifa1's place.
func (d *InDevice) delCounted(ifa1 *Ifaddr, flush bool) {
	ix := d.ix
	var promote, prevProm, lastPrim *Ifaddr
	doPromote := d.promote() && !flush
	r1 := ix.rank(ifa1)
	var pred1 *Ifaddr // ifa1's predecessor: its slot after the unlink
	if r1 > 0 {
		pred1 = ix.at(r1 - 1)
	}
	lastPrim = pred1
	s := ix.subnet(groupOf(ifa1))
	if !d.Dead && !ifa1.Secondary() {
		var secs []*Ifaddr
		s.eachFrom(ifa1, func(a *Ifaddr) bool {
			if a == ifa1 || !a.Secondary() {
				return true
			}
			secs = append(secs, a)
			return !doPromote
		})
		n := ix.len()
		if !doPromote || len(secs) == 0 {
			d.Count.WalkSteps += n - r1 - 1
			for _, a := range secs {
				d.unlink(a)
				d.rtmsgIfa("RTM_DELADDR", a)
				d.notifyInetaddr(false, a)
			}
		} else {
			promote = secs[0]
			rp := ix.rank(promote)
			d.Count.WalkSteps += rp - r1
			if rp > r1+1 {
				prevProm = ix.at(rp - 1)
			}
			if p := ix.lastPrimary(ifa1.Scope, ifa1.label, promote); p != nil {
				lastPrim = p
			}
			// Routes of the promoted subnet are removed silently while
			// every address is still listed.
			d.Count.WalkSteps += n - rp
			s.eachFrom(promote, func(a *Ifaddr) bool {
				d.Count.PromoteFibDel++
				if d.hooks != nil {
					d.hooks.fibDelIfaddr(a, ifa1)
				}
				return true
			})
		}
	}
	d.unlink(ifa1)
	d.rtmsgIfa("RTM_DELADDR", ifa1)
	d.notifyInetaddr(false, ifa1)
	if promote != nil {
		nextSec := promote.next
		if prevProm != nil {
			d.Count.PromoteMoves++
			d.unlink(promote)
			d.linkAfter(promote, lastPrim)
		}
		ix.setPrimary(promote)
		d.Count.Promotions++
		d.rtmsgIfa("RTM_NEWADDR", promote)
		d.notifyInetaddr(true, promote)
		if nextSec != nil {
			d.Count.WalkSteps += ix.len() - ix.rank(nextSec)
			ix.subnet(groupOf(ifa1)).eachFrom(nextSec, func(a *Ifaddr) bool {
				d.Count.PromoteFibAdd++
				if d.hooks != nil {
					d.hooks.fibAddIfaddr(a)
				}
				return true
			})
		}
	}
	ifa1.next = nil
}

// flushOneRequestCounted is flushOneRequest with each delete's walk
// counted.
func (d *InDevice) flushOneRequestCounted(f FlushFilter) {
	var prev *Ifaddr
	for cur := d.head; cur != nil; {
		d.Count.WalkSteps++
		if !f.match(d.Name, cur) {
			prev, cur = cur, cur.next
			continue
		}
		d.delCounted(cur, true)
		if prev == nil {
			cur = d.head
		} else {
			cur = prev.next
		}
	}
}

// firstInSubnet is inet_ifa_byprefix's search: the first address with
// this mask whose subnet holds prefix, and the addresses it looked at.
func (d *InDevice) firstInSubnet(prefix, mask uint32) (*Ifaddr, int) {
	if d.literal {
		steps := 0
		for a := d.head; a != nil; a = a.next {
			steps++
			if a.Mask == mask && inetIfaMatch(prefix, a) {
				return a, steps
			}
		}
		return nil, steps
	}
	if d.ix == nil {
		return nil, 0
	}
	a := d.ix.subnet(ifaGroup{mask, prefix & mask}).first()
	if a == nil {
		return nil, d.ix.len()
	}
	return a, d.ix.rank(a) + 1
}

// scanCountable says whether fib_del_ifaddr's scan for ifa (prim its
// primary, iprim the primary a promotion deletes, or nil) can be answered
// from the indexes: prim is a listed or just unlinked primary, no other
// primary shares its local (which would make the scan look up more
// subnets, same_prefsrc), its subnet has no second primary, and ifa is
// still listed only when a promotion moves its routes.
func (d *InDevice) scanCountable(ifa, prim, iprim *Ifaddr) bool {
	if d.ix == nil || prim.Secondary() || iprim == nil && d.listed(ifa) {
		return false
	}
	for _, a := range d.ix.byLocal[prim.Local] {
		if a != prim && a != ifa && !a.Secondary() && (iprim == nil || groupOf(a) != groupOf(iprim)) {
			return false
		}
	}
	s := d.ix.subnet(groupOf(prim))
	primaries := 0
	if s != nil {
		primaries = s.primaries
	}
	if d.listed(prim) {
		primaries--
	}
	return primaries == 0
}

// scanChecks is how many entries fib_del_ifaddr's scan for ifa compares
// with it when scanCountable holds: all listed ones but ifa itself and,
// when a promotion deletes iprim, those of iprim's subnet and mask.
func (d *InDevice) scanChecks(ifa, iprim *Ifaddr) int {
	n := d.ix.len()
	if d.listed(ifa) {
		n--
	}
	if iprim == nil {
		return n
	}
	if s := d.ix.subnet(groupOf(iprim)); s != nil {
		n -= s.members.Len()
		if d.listed(ifa) && groupOf(ifa) == groupOf(iprim) {
			n++ // ifa is one of them, and already left out
		}
	}
	return n
}

// listed says whether a is in the list.
func (d *InDevice) listed(a *Ifaddr) bool { return d.ix != nil && a.listed }

// scanCounted is fib_del_ifaddr's scan when scanCountable holds. The
// addresses it takes into account are those of prim's subnet other than
// ifa (none when a promotion deletes that subnet's primary, iprim): the
// secondaries, and prim itself when ifa is a secondary. None has ifa's
// local (a subnet holds a local once: adding it again is EEXIST). ifa is
// in prim's subnet, so prim's network and broadcast addresses are ifa's
// own: for a prefix shorter than /31 prim keeps ifa's broadcast in use
// when it is one of them (the network and broadcast routes matter only
// when ifa is the primary). Without iprim, ifa is no longer listed
// (scanCountable), so the subnet's counts hold only the others. gone is
// whether ifa is no longer listed.
func (d *InDevice) scanCounted(ifa, prim, iprim *Ifaddr) (ok int, gone bool) {
	gone = !d.listed(ifa)
	if iprim != nil {
		return 0, gone
	}
	s := d.ix.subnet(groupOf(prim))
	if s == nil {
		return 0, gone
	}
	brd := ifa.Address | ^ifa.Mask
	anyAddr := ifa.Address & ifa.Mask
	if s.brd[ifa.Broadcast] > 0 {
		ok |= brdOK
	}
	if s.brd[brd] > 0 {
		ok |= brd1OK
	}
	if s.brd[anyAddr] > 0 {
		ok |= brd0OK
	}
	if prim != ifa && prim.Prefixlen < 31 && anyAddr != 0 && (ifa.Broadcast == brd || ifa.Broadcast == anyAddr) {
		ok |= brdOK
	}
	return ok, gone
}
