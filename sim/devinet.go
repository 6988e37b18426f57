package sim

import (
	"net/netip"
	"path"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// The IPv4 address list of one device, as net/ipv4/devinet.c keeps it in
// struct in_device: a singly linked list of struct in_ifaddr (ifa_list,
// ifa_next), walked and spliced through pointers to the link fields exactly
// as __inet_insert_ifa, inet_rtm_deladdr and __inet_del_ifa do, so that the
// list order, the IFA_F_SECONDARY flags and the notifications come out as
// the kernel's. Routes (fib_add_ifaddr / fib_del_ifaddr) are not modelled
// here; the places where the kernel calls them are counted.
//
// Read from Linux ~6.15-6.17 net/ipv4/devinet.c and checked against this
// machine's kernel by props/devinet_test.go.
//
// Each search stops at the first match in list order, and WalkSteps
// (StepIfaWalk) counts the elements up to it (all of them when none
// matches): the match's position in the list, set by the insertion rule
// and by promotions, not by the order of any key. The functions here make
// the walks step by step, as the kernel does; they run when the list is
// literal (the tests' oracle). Otherwise devinet_count.go answers each walk
// from indexes kept in list order (ifaindex.go) and charges the same
// count, so that a promoting flush of N addresses costs the model O(N^2
// log N) instead of the kernel's N^3/3 list steps;
// sim/fastwalk_prop_test.go holds the two to the same counts.

// Ifaddr is one struct in_ifaddr. Addresses are IPv4 in host byte order;
// zero means "not set" where the kernel tests for zero (ifa_broadcast).
// An Ifaddr of a list is read only: the list's indexes (ifaindex.go) key
// on its addresses, mask, scope and flags.
type Ifaddr struct {
	Local     uint32 // ifa_local
	Address   uint32 // ifa_address: the peer, or local
	Mask      uint32 // ifa_mask
	Prefixlen int    // ifa_prefixlen
	Broadcast uint32 // ifa_broadcast, 0: none
	Scope     uint8  // ifa_scope
	Flags     uint32 // ifa_flags (IFA_F_*)
	Label     string // ifa_label
	// RtPriority is ifa_rt_priority, the metric of the prefix route
	// (IFA_RT_PRIORITY; dumps report it when not 0).
	RtPriority uint32
	// ValidLft and PreferredLft are ifa_valid_lft and
	// ifa_preferred_lft, for an address that is not permanent.
	ValidLft, PreferredLft uint32
	next                   *Ifaddr
	label                  uint64 // the list-order label of ifaIndex
	listed                 bool   // in ifaIndex
}

// Secondary reports IFA_F_SECONDARY.
func (a *Ifaddr) Secondary() bool { return a.Flags&uapi.IFA_F_SECONDARY != 0 }

// IfaRequest is an RTM_NEWADDR / RTM_DELADDR request as the kernel sees
// it: the ifaddrmsg header and which attributes are present.
type IfaRequest struct {
	Prefixlen  int
	Scope      uint8
	Flags      uint32 // IFA_FLAGS (or ifa_flags)
	Local      uint32
	HasLocal   bool
	Address    uint32
	HasAddress bool
	Broadcast  uint32 // 0 with no IFA_BROADCAST
	// Valid and Preferred are IFA_CACHEINFO's lifetimes; forever
	// (0xffffffff) without it.
	Valid, Preferred uint32
	Label            string
	HasLabel         bool
	Excl             bool   // NLM_F_EXCL (newaddr)
	Replace          bool   // NLM_F_REPLACE (newaddr)
	RtPriority       uint32 // IFA_RT_PRIORITY (0 when absent)
}

// IfaNotice is one RTM_NEWADDR / RTM_DELADDR notification (rtmsg_ifa),
// as built at the moment it is sent.
type IfaNotice struct {
	Type      string // "RTM_NEWADDR" or "RTM_DELADDR"
	Local     netip.Addr
	Address   netip.Addr
	Prefixlen int
	Flags     uint32
	Label     string
}

// DevinetCounters count the work of the address list.
type DevinetCounters struct {
	// WalkSteps is the number of list elements visited by every walk:
	// find_matching_ifa, __inet_insert_ifa, inet_rtm_deladdr's search,
	// __inet_del_ifa's scan for secondaries, the promotion loops, and the
	// dumps of a flush.
	WalkSteps int
	// Promotions is the number of secondaries promoted to primary;
	// PromoteMoves those of them moved in the list (not right after the
	// deleted primary).
	Promotions, PromoteMoves int
	// Notifications counts rtmsg_ifa calls (RTM_NEWADDR and RTM_DELADDR).
	Notifications int
	// NotifierUp / NotifierDown count inetaddr_chain NETDEV_UP / NETDEV_DOWN
	// calls: each is a fib_add_ifaddr / fib_del_ifaddr (fib_inetaddr_event).
	NotifierUp, NotifierDown int
	// PromoteFibDel / PromoteFibAdd count the explicit fib_del_ifaddr(ifa,
	// ifa1) and fib_add_ifaddr(ifa) calls of __inet_del_ifa on promotion
	// (the routes of the promoted subnet re-added with the new prefsrc).
	PromoteFibDel, PromoteFibAdd int
	// FlushRounds counts the dump-and-delete rounds of Flush; Requests
	// the netlink requests a Flush made (its dumps and deletes).
	FlushRounds, Requests int
}

// InDevice is one device's struct in_device, for IPv4 addresses.
type InDevice struct {
	Name string // dev->name: the default label
	// Promote is net.ipv4.conf.DEV.promote_secondaries and PromoteAll
	// net.ipv4.conf.all.promote_secondaries: IN_DEV_PROMOTE_SECONDARIES
	// is IN_DEV_ORCONF, either one enables promotion.
	Promote, PromoteAll bool
	// Dead is in_dev->dead (inetdev_destroy): no promotion.
	Dead bool
	// IfaFlush is the +ifa-flush profile: a Flush is one request that
	// deletes without promoting (IFA_F_FLUSH, as the thread suggested).
	IfaFlush bool
	// setAll is ipv4_devconf_setall (an address was added: every value
	// counts as set) and promoteSet a write of the device's own
	// promote_secondaries: net.ipv4.conf.default no longer reaches it.
	setAll, promoteSet bool
	// ignoreLinkdown is ignore_routes_with_linkdown, and whether it was
	// written here (its state bit).
	ignoreLinkdown, ignoreLinkdownSet bool

	head *Ifaddr // ifa_list
	// ix indexes the list so that walks are counted, not made; literal
	// makes every walk step by step instead (the tests' oracle).
	ix      *ifaIndex
	literal bool
	// Count is where the work is counted: the list's own counters, or
	// the namespace's when the list belongs to a sim target's device.
	Count   *DevinetCounters
	notices []IfaNotice
	// hooks, when set, is the rest of the kernel: the notifications go
	// out through it and the inetaddr chain reaches the FIB (a device of
	// the sim target). Without it the list stands alone (the notices are
	// kept for TakeNotices, the FIB calls only counted).
	hooks inetHooks
}

// inetHooks is what the address list calls outside itself.
type inetHooks interface {
	// rtmsgIfa sends RTM_NEWADDR or RTM_DELADDR for ifa as it is now.
	rtmsgIfa(typ string, ifa *Ifaddr)
	// modifyPrefixMetric moves a primary's prefix route to metric
	// (fib_modify_prefix_metric).
	modifyPrefixMetric(ifa *Ifaddr, metric uint32)
	// inetaddrEvent is the inetaddr notifier chain (fib_inetaddr_event):
	// NETDEV_UP (up true) or NETDEV_DOWN for ifa.
	inetaddrEvent(up bool, ifa *Ifaddr)
	// fibDelIfaddr and fibAddIfaddr are the direct FIB calls of a
	// promotion.
	fibDelIfaddr(ifa, iprim *Ifaddr)
	fibAddIfaddr(ifa *Ifaddr)
}

// NewInDevice is inetdev_init's empty list for the device named name.
func NewInDevice(name string) *InDevice {
	return &InDevice{Name: name, Count: &DevinetCounters{}}
}

// index is the list's index, made with the first address.
func (d *InDevice) index() *ifaIndex {
	if d.ix == nil {
		d.ix = newIfaIndex()
	}
	return d.ix
}

// List returns the addresses in list order.
func (d *InDevice) List() []*Ifaddr {
	var out []*Ifaddr
	for a := d.head; a != nil; a = a.next {
		out = append(out, a)
	}
	return out
}

// Len is the number of addresses.
func (d *InDevice) Len() int {
	if !d.literal {
		if d.ix == nil {
			return 0
		}
		return d.ix.len()
	}
	n := 0
	for a := d.head; a != nil; a = a.next {
		n++
	}
	return n
}

func (d *InDevice) promote() bool { return d.Promote || d.PromoteAll }

// inetMakeMask is inet_make_mask.
func inetMakeMask(prefixlen int) uint32 {
	if prefixlen <= 0 {
		return 0
	}
	return ^uint32(0) << (32 - prefixlen)
}

// inetIfaMatch is inet_ifa_match: addr is in ifa's subnet (by ifa_address
// and ifa_mask).
func inetIfaMatch(addr uint32, ifa *Ifaddr) bool {
	return (addr^ifa.Address)&ifa.Mask == 0
}

func u32Of(a netip.Addr) uint32 {
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func addrOfU32(v uint32) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// IfaRequestOf builds the request iproute2's ipaddr_modify sends for an
// IPv4 `addr add` / `addr del` (as kernel/apply.go addrModify does):
// IFA_LOCAL and IFA_ADDRESS (the peer when given, with the peer's prefix
// length; none for a wildcard delete), IFA_LABEL when a label is given,
// scope host for 127/8 on add when no scope is given, IFA_BROADCAST when
// given or, on add, for `broadcast +` (the peer's prefix, else the local
// one, with the host bits set, for prefix lengths below 31), IFA_FLAGS
// always. add selects NLM_F_CREATE|EXCL.
func IfaRequestOf(a rtnl.Addr, add bool) IfaRequest {
	local := u32Of(a.Prefix.Addr())
	r := IfaRequest{
		Prefixlen: a.Prefix.Bits(),
		Local:     local, HasLocal: true,
		Address: local, HasAddress: true,
		Label: a.Label, HasLabel: a.Label != "",
		Excl: add,
	}
	if a.Metric != nil {
		r.RtPriority = *a.Metric
	}
	r.Valid, r.Preferred = foreverLft, foreverLft
	if a.ValidLft != nil {
		r.Valid = *a.ValidLft
	}
	if a.PreferredLft != nil {
		r.Preferred = *a.PreferredLft
	}
	brd := a.Prefix // what `broadcast +` derives from
	if a.Peer.IsValid() {
		r.Address = u32Of(a.Peer.Addr())
		r.Prefixlen = a.Peer.Bits()
		brd = a.Peer
	} else if a.Wildcard && !add {
		r.Address, r.HasAddress = 0, false
	}
	if a.Scope != nil {
		r.Scope = *a.Scope
	} else if add && a.Prefix.Addr().As4()[0] == 127 {
		r.Scope = uapi.RT_SCOPE_HOST
	}
	if a.Broadcast.IsValid() {
		r.Broadcast = u32Of(a.Broadcast)
	} else if a.BroadcastAuto && add && brd.Bits() < 31 {
		r.Broadcast = u32Of(brd.Addr()) | ^inetMakeMask(brd.Bits())
	}
	if a.NoPrefixRoute {
		r.Flags |= uapi.IFA_F_NOPREFIXROUTE
	}
	if a.NoDAD {
		r.Flags |= uapi.IFA_F_NODAD
	}
	return r
}

// TakeNotices returns the notifications since the last call and forgets
// them.
func (d *InDevice) TakeNotices() []IfaNotice {
	n := d.notices
	d.notices = nil
	return n
}

// rtmsgIfa is rtmsg_ifa: the notification as the address is now.
func (d *InDevice) rtmsgIfa(typ string, ifa *Ifaddr) {
	d.Count.Notifications++
	if d.hooks != nil {
		d.hooks.rtmsgIfa(typ, ifa)
		return
	}
	d.notices = append(d.notices, IfaNotice{Type: typ, Local: addrOfU32(ifa.Local),
		Address: addrOfU32(ifa.Address), Prefixlen: ifa.Prefixlen, Flags: ifa.Flags, Label: ifa.Label})
}

// The IPv6-only flags __inet_insert_ifa clears (IPV6ONLY_FLAGS).
const ipv6OnlyIfaFlags = uapi.IFA_F_NODAD | uapi.IFA_F_OPTIMISTIC | uapi.IFA_F_DADFAILED |
	uapi.IFA_F_HOMEADDRESS | uapi.IFA_F_TENTATIVE | uapi.IFA_F_MANAGETEMPADDR | uapi.IFA_F_STABLE_PRIVACY

// NewAddr is inet_rtm_newaddr for this device (infinite lifetimes):
// nothing for local 0.0.0.0; EINVAL for a prefix length above 32 or no
// IFA_LOCAL; find_matching_ifa (same mask, same subnet, same local) gives
// EEXIST under NLM_F_EXCL or without NLM_F_REPLACE, else a RTM_NEWADDR for
// the existing address; otherwise __inet_insert_ifa.
func (d *InDevice) NewAddr(r IfaRequest) error {
	if r.Prefixlen > 32 || r.Prefixlen < 0 {
		return rtnl.Errf(uapi.EINVAL, "ipv4: Invalid prefix length")
	}
	if !r.HasLocal {
		return rtnl.Errf(uapi.EINVAL, "ipv4: Local address is not supplied")
	}
	if r.Local == 0 {
		return nil
	}
	ifa := &Ifaddr{Local: r.Local, Address: r.Local, Prefixlen: r.Prefixlen,
		Mask: inetMakeMask(r.Prefixlen), Broadcast: r.Broadcast, Scope: r.Scope,
		Flags: r.Flags, Label: d.Name, RtPriority: r.RtPriority}
	if r.HasAddress {
		ifa.Address = r.Address
	}
	if r.HasLabel {
		ifa.Label = r.Label
	}
	if existing := d.findMatching(ifa); existing != nil {
		if r.Excl || !r.Replace {
			return rtnl.Errf(uapi.EEXIST, "ipv4: Address already assigned")
		}
		// Replace: the metric (the prefix route moves to it:
		// fib_modify_prefix_metric), proto and lifetimes (forever
		// when none is given) change; label, broadcast, scope and the
		// other flags stay.
		if existing.RtPriority != r.RtPriority {
			if d.hooks != nil {
				d.hooks.modifyPrefixMetric(existing, r.RtPriority)
			}
			existing.RtPriority = r.RtPriority
		}
		existing.setLifetime(r.Valid, r.Preferred)
		d.rtmsgIfa("RTM_NEWADDR", existing)
		return nil
	}
	ifa.setLifetime(r.Valid, r.Preferred)
	return d.insert(ifa)
}

// foreverLft is INFINITY_LIFE_TIME.
const foreverLft = 0xffffffff

// setLifetime is set_ifa_lifetime: a finite valid lifetime makes the
// address dynamic (not permanent), a preferred one of 0 deprecated. The
// model keeps no clock: lifetimes do not run down, and nothing expires.
func (a *Ifaddr) setLifetime(valid, preferred uint32) {
	flags := a.Flags &^ (uapi.IFA_F_PERMANENT | uapi.IFA_F_DEPRECATED)
	if valid == foreverLft {
		flags |= uapi.IFA_F_PERMANENT
	} else {
		a.ValidLft = valid
	}
	if preferred != foreverLft {
		if preferred == 0 {
			flags |= uapi.IFA_F_DEPRECATED
		}
		a.PreferredLft = preferred
	} else {
		a.PreferredLft = foreverLft
	}
	a.Flags = flags
}

// findMatching is find_matching_ifa: the first address with ifa's mask,
// subnet and local.
func (d *InDevice) findMatching(ifa *Ifaddr) *Ifaddr {
	if !d.literal {
		return d.findMatchingCounted(ifa)
	}
	for a := d.head; a != nil; a = a.next {
		d.Count.WalkSteps++
		if a.Mask == ifa.Mask && inetIfaMatch(a.Address, ifa) && a.Local == ifa.Local {
			return a
		}
	}
	return nil
}

// insert is __inet_insert_ifa. A primary goes right after the last
// primary whose scope is numerically >= its own (host 254 > link 253 >
// global 0), even when that primary's secondaries follow it, or at the
// head when there is none; a secondary (an address whose mask and subnet
// equal an existing address's) goes at the tail. The same local in the
// same subnet is EEXIST, a different scope in the same subnet EINVAL.
func (d *InDevice) insert(ifa *Ifaddr) error {
	ifa.Flags &^= uapi.IFA_F_SECONDARY
	ifa.Flags &^= ipv6OnlyIfaFlags
	if !d.literal {
		return d.insertCounted(ifa)
	}
	lastPrimary := &d.head
	ifap := &d.head
	for ifa1 := *ifap; ifa1 != nil; ifa1 = *ifap {
		d.Count.WalkSteps++
		if !ifa1.Secondary() && ifa.Scope <= ifa1.Scope {
			lastPrimary = &ifa1.next
		}
		if ifa1.Mask == ifa.Mask && inetIfaMatch(ifa1.Address, ifa) {
			if ifa1.Local == ifa.Local {
				return rtnl.Errf(uapi.EEXIST, "address exists")
			}
			if ifa1.Scope != ifa.Scope {
				return rtnl.Errf(uapi.EINVAL, "ipv4: Invalid scope value")
			}
			ifa.Flags |= uapi.IFA_F_SECONDARY
		}
		ifap = &ifa1.next
	}
	if !ifa.Secondary() {
		ifap = lastPrimary
	}
	ifa.next = *ifap
	*ifap = ifa
	d.rtmsgIfa("RTM_NEWADDR", ifa)
	d.notifyInetaddr(true, ifa)
	return nil
}

// notifyInetaddr is blocking_notifier_call_chain(&inetaddr_chain, ...).
func (d *InDevice) notifyInetaddr(up bool, ifa *Ifaddr) {
	if up {
		d.Count.NotifierUp++
	} else {
		d.Count.NotifierDown++
	}
	if d.hooks != nil {
		d.hooks.inetaddrEvent(up, ifa)
	}
}

// DelAddr is inet_rtm_deladdr: the first address in list order whose
// local equals IFA_LOCAL (when given), whose label equals IFA_LABEL (when
// given) and, when IFA_ADDRESS is given, whose prefix length equals the
// request's and whose subnet holds IFA_ADDRESS, is deleted by
// __inet_del_ifa; none is EADDRNOTAVAIL. Flags and scope are not compared.
func (d *InDevice) DelAddr(r IfaRequest) error {
	if !d.literal {
		return d.delAddrCounted(r)
	}
	for ifap := &d.head; *ifap != nil; ifap = &(*ifap).next {
		ifa := *ifap
		d.Count.WalkSteps++
		if r.HasLocal && ifa.Local != r.Local {
			continue
		}
		if r.HasLabel && ifa.Label != r.Label {
			continue
		}
		if r.HasAddress && (r.Prefixlen != ifa.Prefixlen || !inetIfaMatch(r.Address, ifa)) {
			continue
		}
		d.del(ifap, false)
		return nil
	}
	return rtnl.Errf(uapi.EADDRNOTAVAIL, "ipv4: Address not found")
}

// del is __inet_del_ifa on the address *ifap.
//
// Deleting a primary walks the rest of the list: it remembers last_prim,
// the link after the last primary whose scope is numerically >= the
// deleted one's (starting at the deleted address's own slot), and
// prev_prom, the element before the current one. Each secondary of the
// same mask and subnet is, without promotion, unlinked with its own
// RTM_DELADDR (before the primary's); with promotion the walk stops at the
// first such secondary. Then the primary is unlinked and announced. The
// promoted address, when it did not directly follow the primary, is moved
// to last_prim (as walked up to the promoted one); it loses
// IFA_F_SECONDARY and is announced with RTM_NEWADDR; the routes of the
// subnet's other secondaries after it are re-added (fib_add_ifaddr).
func (d *InDevice) del(ifap **Ifaddr, flush bool) {
	var promote, prevProm *Ifaddr
	ifa1 := *ifap
	lastPrim := ifap
	doPromote := d.promote() && !flush
	if !d.Dead && !ifa1.Secondary() {
		ifap1 := &ifa1.next
		for ifa := *ifap1; ifa != nil; ifa = *ifap1 {
			d.Count.WalkSteps++
			if !ifa.Secondary() && ifa1.Scope <= ifa.Scope {
				lastPrim = &ifa.next
			}
			if !ifa.Secondary() || ifa1.Mask != ifa.Mask || !inetIfaMatch(ifa1.Address, ifa) {
				ifap1 = &ifa.next
				prevProm = ifa
				continue
			}
			if !doPromote {
				*ifap1 = ifa.next
				d.rtmsgIfa("RTM_DELADDR", ifa)
				d.notifyInetaddr(false, ifa)
			} else {
				promote = ifa
				break
			}
		}
		// Routes of the promoted subnet are removed silently while every
		// address is still listed.
		for ifa := promote; ifa != nil; ifa = ifa.next {
			d.Count.WalkSteps++
			if ifa1.Mask == ifa.Mask && inetIfaMatch(ifa1.Address, ifa) {
				d.Count.PromoteFibDel++
				if d.hooks != nil {
					d.hooks.fibDelIfaddr(ifa, ifa1)
				}
			}
		}
	}
	*ifap = ifa1.next
	d.rtmsgIfa("RTM_DELADDR", ifa1)
	d.notifyInetaddr(false, ifa1)
	if promote != nil {
		nextSec := promote.next
		if prevProm != nil {
			d.Count.PromoteMoves++
			prevProm.next = nextSec
			lastSec := *lastPrim
			promote.next = lastSec
			*lastPrim = promote
		}
		promote.Flags &^= uapi.IFA_F_SECONDARY
		d.Count.Promotions++
		d.rtmsgIfa("RTM_NEWADDR", promote)
		d.notifyInetaddr(true, promote)
		for ifa := nextSec; ifa != nil; ifa = ifa.next {
			d.Count.WalkSteps++
			if ifa1.Mask != ifa.Mask || !inetIfaMatch(ifa1.Address, ifa) {
				continue
			}
			d.Count.PromoteFibAdd++
			if d.hooks != nil {
				d.hooks.fibAddIfaddr(ifa)
			}
		}
	}
	ifa1.next = nil
}

// Destroy is inetdev_destroy (device unregister): the device is dead, so
// the head is deleted until the list is empty, one RTM_DELADDR each, no
// promotion.
func (d *InDevice) Destroy() {
	d.Dead = true
	for !d.literal && d.head != nil {
		d.delCounted(d.head, false)
	}
	for d.head != nil {
		d.del(&d.head, false)
	}
}

// FlushFilter selects the addresses `ip addr flush dev DEV` deletes.
type FlushFilter struct {
	To    netip.Prefix // invalid: any; else the local address must be inside
	Label string       // glob on the label (the device name when empty); "" any
	// Scope and Secondary are iproute2's scope and flag filters (nil:
	// any): the dumped address's ifa_scope, and its IFA_F_SECONDARY.
	Scope     *uint8
	Secondary *bool
}

func (f FlushFilter) match(dev string, a *Ifaddr) bool {
	if (f.Scope != nil && a.Scope != *f.Scope) || (f.Secondary != nil && a.Secondary() != *f.Secondary) {
		return false
	}
	if f.To.IsValid() {
		if !f.To.Addr().Is4() || (a.Local^u32Of(f.To.Addr()))&inetMakeMask(f.To.Bits()) != 0 {
			return false
		}
	}
	if f.Label != "" {
		l := a.Label
		if l == "" {
			l = dev
		}
		if ok, _ := path.Match(f.Label, l); !ok {
			return false
		}
	}
	return true
}

// maxFlushRounds is iproute2's max_flush_loops.
const maxFlushRounds = 10

// Flush is `ip addr flush` of this device's IPv4 addresses as one
// iproute2 process runs it (sim/ipflush.go): rounds of a chunked dump and
// the deletes ip sends while it reads, failed deletes ignored (a primary
// deleted without promotion takes its secondaries with it), until a dump
// matches nothing; EBUSY after 10 rounds.
func (d *InDevice) Flush(f FlushFilter) error {
	if d.IfaFlush {
		return d.flushOneRequest(f)
	}
	return (&ipFlushSock{in: d, v4: true, f: f}).flush(d.Count)
}

// flushRounds is ipaddr_flush's loop: a dump, then round's deletes of
// what it matched, until a dump matches nothing; EBUSY after 10 rounds.
// A flush of primaries stops after one round that deleted some, so that
// the secondaries they promoted stay (iproute2 does so on purpose).
func flushRounds(c *DevinetCounters, f FlushFilter, round func() (matched int, err error)) error {
	for range maxFlushRounds {
		c.Requests++ // the dump
		n, err := round()
		if err != nil || n == 0 {
			return err
		}
		c.FlushRounds++
		if f.Secondary != nil && !*f.Secondary {
			return nil
		}
	}
	return rtnl.Errf(uapi.EBUSY, "flush remains incomplete after %d rounds", maxFlushRounds)
}

// flushOneRequest is the thread's suggestion (Michal Kubecek): one
// RTM_DELADDR with IFA_F_FLUSH deletes every matching address of the
// device, without promotion, in list order. Not in any kernel: the
// +ifa-flush profile's model of it.
func (d *InDevice) flushOneRequest(f FlushFilter) error {
	d.Count.Requests++
	d.Count.FlushRounds++
	if !d.literal {
		d.flushOneRequestCounted(f)
		return nil
	}
	for ifap := &d.head; *ifap != nil; {
		d.Count.WalkSteps++
		if !f.match(d.Name, *ifap) {
			ifap = &(*ifap).next
			continue
		}
		d.del(ifap, true)
	}
	return nil
}

// Render is the addresses in `ip -j addr show` addr_info shape, as the
// kernel's inet_fill_ifaddr reports them (IFA_ADDRESS, IFA_LOCAL,
// IFA_BROADCAST only when non-zero; IFA_LABEL when set; permanent
// lifetimes as infinite cacheinfo).
func (d *InDevice) Render() []rtnl.AddrInfo {
	var out []rtnl.AddrInfo
	for a := d.head; a != nil; a = a.next {
		out = append(out, renderIfaddr(a))
	}
	return out
}

func renderIfaddr(a *Ifaddr) rtnl.AddrInfo {
	out := rtnl.AddrInfo{Family: "inet", Prefixlen: a.Prefixlen}
	local, address := a.Local, a.Address
	if local == 0 {
		local = address
	}
	if address == 0 {
		address = local
	}
	if local != 0 {
		out.Local = addrOfU32(local).String()
		if address != local {
			out.Address = addrOfU32(address).String()
		}
	}
	if a.Broadcast != 0 {
		out.Broadcast = addrOfU32(a.Broadcast).String()
	}
	if a.RtPriority != 0 {
		m := a.RtPriority
		out.Metric = &m
	}
	out.Scope = rtnl.ScopeName(a.Scope)
	out.SetFlags(uapi.AF_INET, a.Flags)
	out.Label = a.Label
	// inet_fill_ifaddr's IFA_CACHEINFO: forever for a permanent
	// address, else what was set (no time passes in the model).
	valid, pref := uint32(foreverLft), uint32(foreverLft)
	if a.Flags&uapi.IFA_F_PERMANENT == 0 {
		valid, pref = a.ValidLft, a.PreferredLft
	}
	out.ValidLife, out.PreferredLife = &valid, &pref
	return out
}
