package sim

import (
	"github.com/tidwall/btree"

	"github.com/rtnlsim/rtnlsim/uapi"
)

// The indexes that let an address list count its walks instead of making
// them. The kernel's walks stop at the first match in list order, and the
// model charges the elements visited up to it (StepIfaWalk): a position in
// the list. Each address therefore carries a label that grows along the
// list (order maintenance: a new address takes a label between its
// neighbours', and the whole list is relabelled, keeping its order, when
// two neighbours leave no room). A counted B-tree of the list by label
// (github.com/tidwall/btree: it keeps subtree sizes, so GetAt is
// O(log n), which github.com/google/btree does not offer) turns a label
// into a position; B-trees of the subnets' addresses and of the primaries
// of each scope, in list order, find the first or last address a walk
// would stop at. Every count stays the one the literal walk gives:
// sim/fastwalk_prop_test.go runs both on random request sequences.

// ifaGroup is a subnet as the walks compare it: same ifa_mask, and
// ifa_address inside it.
type ifaGroup struct{ mask, prefix uint32 }

func groupOf(a *Ifaddr) ifaGroup { return ifaGroup{a.Mask, a.Address & a.Mask} }

// ifaSubnet is one subnet's addresses in list order, with what
// fib_del_ifaddr's scan asks of them.
type ifaSubnet struct {
	members *btree.BTreeG[*Ifaddr]
	// brd counts the members' ifa_broadcast values, primaries those
	// without IFA_F_SECONDARY.
	brd       map[uint32]int
	primaries int
}

// ifaIndex is one address list's indexes.
type ifaIndex struct {
	seq     *btree.BTreeG[*Ifaddr]
	subnets map[ifaGroup]*ifaSubnet
	// primaries holds the addresses without IFA_F_SECONDARY by scope.
	primaries map[uint8]*btree.BTreeG[*Ifaddr]
	// byLocal is the addresses of each ifa_local (a handful at most).
	byLocal map[uint32][]*Ifaddr
}

// labelGap is the spacing of labels after a relabelling: room for 32
// insertions at one place before the next.
const labelGap = 1 << 32

func byLabel(a, b *Ifaddr) bool { return a.label < b.label }

func newLabelTree() *btree.BTreeG[*Ifaddr] {
	return btree.NewBTreeGOptions(byLabel, btree.Options{NoLocks: true})
}

func newIfaIndex() *ifaIndex {
	return &ifaIndex{seq: newLabelTree(), subnets: map[ifaGroup]*ifaSubnet{},
		primaries: map[uint8]*btree.BTreeG[*Ifaddr]{}, byLocal: map[uint32][]*Ifaddr{}}
}

func (ix *ifaIndex) len() int { return ix.seq.Len() }

// at is the address at position i (0-based), nil out of range.
func (ix *ifaIndex) at(i int) *Ifaddr {
	a, _ := ix.seq.GetAt(i)
	return a
}

// rank is a's position in the list (0-based): a walk from the head that
// stops at a visits rank(a)+1 addresses.
func (ix *ifaIndex) rank(a *Ifaddr) int {
	if first, ok := ix.seq.Min(); ok && first.label >= a.label {
		return 0
	}
	lo, hi := 0, ix.seq.Len()
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if ix.at(mid).label < a.label {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

func (ix *ifaIndex) last() *Ifaddr {
	a, _ := ix.seq.Max()
	return a
}

// subnet is a's subnet's entry, nil when it has no address.
func (ix *ifaIndex) subnet(g ifaGroup) *ifaSubnet { return ix.subnets[g] }

// first is the subnet's first address in list order.
func (s *ifaSubnet) first() *Ifaddr {
	if s == nil {
		return nil
	}
	a, _ := s.members.Min()
	return a
}

// eachFrom calls f for the subnet's addresses from a (included) on, in
// list order, until f returns false. f must not change the list.
func (s *ifaSubnet) eachFrom(a *Ifaddr, f func(*Ifaddr) bool) {
	if s == nil {
		return
	}
	s.members.Ascend(a, f)
}

// lastPrimary is the last address without IFA_F_SECONDARY whose scope is
// numerically >= scope and whose label lies in (after, before); after 0
// and before nil mean no bound. nil when there is none.
func (ix *ifaIndex) lastPrimary(scope uint8, after uint64, before *Ifaddr) *Ifaddr {
	var best *Ifaddr
	for s, t := range ix.primaries {
		if s < scope {
			continue
		}
		var cand *Ifaddr
		if before == nil {
			cand, _ = t.Max()
		} else {
			t.Descend(before, func(a *Ifaddr) bool {
				if a == before {
					return true
				}
				cand = a
				return false
			})
		}
		if cand != nil && cand.label > after && (best == nil || cand.label > best.label) {
			best = cand
		}
	}
	return best
}

// place gives a a label between prev's and prev's successor's (the head
// when prev is nil) and indexes it; the caller links it after prev.
func (ix *ifaIndex) place(a, prev *Ifaddr) {
	var lo, hi uint64
	var next *Ifaddr
	if prev != nil {
		lo, next = prev.label, prev.next
	} else {
		next = ix.at(0)
	}
	switch {
	case next != nil:
		hi = next.label
	case prev != nil && lo <= ^uint64(0)-labelGap:
		hi = lo + 2*labelGap
	default:
		hi = ^uint64(0)
	}
	if hi-lo < 2 {
		ix.relabel()
		ix.place(a, prev)
		return
	}
	a.label = lo + (hi-lo)/2
	ix.add(a)
}

// relabel spaces the labels evenly, in list order: every tree keeps its
// order.
func (ix *ifaIndex) relabel() {
	l := uint64(labelGap)
	ix.seq.Scan(func(a *Ifaddr) bool {
		a.label = l
		l += labelGap
		return true
	})
}

func (ix *ifaIndex) add(a *Ifaddr) {
	a.listed = true
	ix.seq.Set(a)
	g := groupOf(a)
	s := ix.subnets[g]
	if s == nil {
		s = &ifaSubnet{members: newLabelTree(), brd: map[uint32]int{}}
		ix.subnets[g] = s
	}
	s.members.Set(a)
	s.brd[a.Broadcast]++
	if !a.Secondary() {
		s.primaries++
		t := ix.primaries[a.Scope]
		if t == nil {
			t = newLabelTree()
			ix.primaries[a.Scope] = t
		}
		t.Set(a)
	}
	ix.byLocal[a.Local] = append(ix.byLocal[a.Local], a)
}

func (ix *ifaIndex) remove(a *Ifaddr) {
	a.listed = false
	ix.seq.Delete(a)
	g := groupOf(a)
	s := ix.subnets[g]
	s.members.Delete(a)
	if s.brd[a.Broadcast]--; s.brd[a.Broadcast] == 0 {
		delete(s.brd, a.Broadcast)
	}
	if !a.Secondary() {
		s.primaries--
		ix.primaries[a.Scope].Delete(a)
	}
	if s.members.Len() == 0 {
		delete(ix.subnets, g)
	}
	l := ix.byLocal[a.Local]
	for i, b := range l {
		if b == a {
			l = append(l[:i], l[i+1:]...)
			break
		}
	}
	if len(l) == 0 {
		delete(ix.byLocal, a.Local)
	} else {
		ix.byLocal[a.Local] = l
	}
}

// firstWithLocal is the first address in list order with ifa_local local
// for which ok holds, nil when none does.
func (ix *ifaIndex) firstWithLocal(local uint32, ok func(*Ifaddr) bool) *Ifaddr {
	var best *Ifaddr
	for _, a := range ix.byLocal[local] {
		if ok(a) && (best == nil || a.label < best.label) {
			best = a
		}
	}
	return best
}

// setPrimary clears a's IFA_F_SECONDARY (a promotion) in the indexes too.
func (ix *ifaIndex) setPrimary(a *Ifaddr) {
	ix.remove(a)
	a.Flags &^= uapi.IFA_F_SECONDARY
	ix.add(a)
}
