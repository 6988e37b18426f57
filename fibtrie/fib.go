package fibtrie

import (
	"slices"

	"github.com/rtnlsim/rtnlsim/uapi"
)

// hashSize is FIB_TABLE_HASHSZ with CONFIG_IP_MULTIPLE_TABLES: tables are
// listed (in /proc too) by bucket id&255, newest first within a bucket.
const hashSize = 256

type table struct {
	id uint32
	t  *trie
}

// FIB is the IPv4 FIB of one network namespace: its tables and their tries.
// Until a custom rule exists, the local table is an alias of the main
// table's trie, as the kernel keeps them (fib_new_table with alias).
// A FIB is not safe for concurrent use (the kernel serialises writers with
// RTNL); aliases returned by Lookup and Walk are the FIB's own and must not
// be changed.
type FIB struct {
	opts     Options
	counters Counters
	buckets  [hashSize][]*table
	byID     map[uint32]*table
	unmerged bool
	freeSize uint64 // tnode_free_size
	// all holds the aliases of every trie, in no order, and byOIF the
	// same by nexthop device (as the kernel's fib_info_devhash finds a
	// device's nexthops): MarkDead and SyncDownDev find them without a
	// walk. Alias.at and Alias.oifAt are their places there.
	all   []*Alias
	byOIF map[int][]*Alias
	// multi holds the aliases of two or more nexthops (IsMulti), which
	// byOIF lists under their first nexthop's device only: the device
	// events look at each of their nexthops.
	multi []*Alias
	// Freed nodes wait in limbo until the next insert or delete begins
	// (no node of the trie is held then, the way RCU waits for readers),
	// then go to spare, by bits, for the allocations to reuse: a
	// promotion's deletes and re-adds rebuild tens of thousands of tnodes.
	// Callbacks of Walk and FlushEach therefore must not change the FIB.
	limbo []*node
	spare [keyLength + 1][]*node
}

// retire puts a node that left the trie in limbo.
func (f *FIB) retire(n *node) { f.limbo = append(f.limbo, n) }

// quiesce makes the nodes in limbo reusable.
func (f *FIB) quiesce() {
	if len(f.limbo) == 0 {
		return
	}
	for _, n := range f.limbo {
		f.spare[n.bits] = append(f.spare[n.bits], n)
	}
	clear(f.limbo)
	f.limbo = f.limbo[:0]
}

// reuseNodes is false only in the test that compares reuse with fresh
// allocation.
var reuseNodes = true

// reuse is a spare node of nbits, reset, or nil.
func (f *FIB) reuse(nbits uint8) *node {
	s := f.spare[nbits]
	if len(s) == 0 || !reuseNodes {
		return nil
	}
	n := s[len(s)-1]
	s[len(s)-1] = nil
	f.spare[nbits] = s[:len(s)-1]
	child, occ := n.child, n.occ
	*n = node{}
	if nbits > 1 {
		clear(child)
		n.child = child
	}
	if occWords(nbits) > 1 {
		clear(occ)
		n.occ = occ
	}
	return n
}

// linkAlias enters a new alias in all and byOIF.
func (f *FIB) linkAlias(a *Alias) {
	a.at = int32(len(f.all))
	f.all = append(f.all, a)
	if f.byOIF == nil {
		f.byOIF = map[int][]*Alias{}
	}
	l := f.byOIF[a.OIF]
	a.oifAt = int32(len(l))
	f.byOIF[a.OIF] = append(l, a)
	if a.IsMulti() {
		f.multi = append(f.multi, a)
	}
}

// unlinkAlias takes a freed alias out of all and byOIF (the last one of
// each list takes its place).
func (f *FIB) unlinkAlias(a *Alias) {
	last := f.all[len(f.all)-1]
	f.all[a.at], last.at = last, a.at
	f.all[len(f.all)-1] = nil
	f.all = f.all[:len(f.all)-1]
	l := f.byOIF[a.OIF]
	last = l[len(l)-1]
	l[a.oifAt], last.oifAt = last, a.oifAt
	l[len(l)-1] = nil
	if len(l) == 1 {
		delete(f.byOIF, a.OIF)
	} else {
		f.byOIF[a.OIF] = l[:len(l)-1]
	}
	if a.IsMulti() {
		i := slices.Index(f.multi, a)
		f.multi = slices.Delete(f.multi, i, i+1)
	}
}

// markDead sets a.Dead and marks a's leaf's tnodes changed.
func (f *FIB) markDead(a *Alias) {
	a.Dead = true
	l, _ := f.getTable(a.Table).t.findNode(a.Dst)
	if l == nil {
		panic("fibtrie: an indexed alias is in no leaf")
	}
	touchLeaf(l)
}

// New returns an empty FIB, as in a fresh namespace with lo down.
func New(opts Options) *FIB {
	return &FIB{opts: opts, byID: map[uint32]*table{}}
}

// Options returns the behaviour switches this FIB was made with.
func (f *FIB) Options() Options { return f.opts }

// Counters returns the work done so far.
func (f *FIB) Counters() Counters { return f.counters }

// ResetCounters zeroes the work counters.
func (f *FIB) ResetCounters() { f.counters = Counters{} }

func normTable(id uint32) uint32 {
	if id == 0 {
		return TableMain
	}
	return id
}

func (f *FIB) getTable(id uint32) *table { return f.byID[normTable(id)] }

// newTable is fib_new_table: the local table shares main's trie while merged.
func (f *FIB) newTable(id uint32) *table {
	id = normTable(id)
	if tb := f.byID[id]; tb != nil {
		return tb
	}
	var tr *trie
	if id == TableLocal && !f.unmerged {
		tr = f.newTable(TableMain).t
	} else {
		tr = newTrie(f)
	}
	tb := &table{id: id, t: tr}
	h := id & (hashSize - 1)
	f.buckets[h] = append([]*table{tb}, f.buckets[h]...)
	f.byID[id] = tb
	return tb
}

// tables lists the tables in the kernel's hash order.
func (f *FIB) tables() []*table {
	var out []*table
	for _, b := range f.buckets {
		out = append(out, b...)
	}
	return out
}

// trieTables lists the tables in hash order, leaving out a table whose trie
// an earlier one already has (local while merged with main): one table per
// trie.
func (f *FIB) trieTables() []*table {
	var out []*table
	seen := map[*trie]bool{}
	for _, tb := range f.tables() {
		if !seen[tb.t] {
			seen[tb.t] = true
			out = append(out, tb)
		}
	}
	return out
}

// TableIDs lists existing tables in the order /proc prints them.
func (f *FIB) TableIDs() []uint32 {
	var ids []uint32
	for _, tb := range f.tables() {
		ids = append(ids, tb.id)
	}
	return ids
}

// Merged reports whether local and main still share one trie.
func (f *FIB) Merged() bool { return !f.unmerged }

func validate(r *Route) error {
	if r.Len > keyLength {
		return uapi.EINVAL
	}
	if r.Len < keyLength && r.Dst<<r.Len != 0 {
		return uapi.EINVAL // host bits set (fib_valid_key_len)
	}
	return nil
}

// Insert is RTM_NEWROUTE with the given netlink flags (fib_table_insert).
// It returns EEXIST, ENOENT or EINVAL as the kernel does.
func (f *FIB) Insert(r Route, flags Flags) error {
	_, err := f.InsertChanged(r, flags)
	return err
}

// InsertChanged is Insert that also says whether the FIB changed: a
// replace of the route that is already first in its run succeeds without
// a change, and without the kernel's RTM_NEWROUTE.
func (f *FIB) InsertChanged(r Route, flags Flags) (bool, error) {
	r.Table = normTable(r.Table)
	if err := validate(&r); err != nil {
		return false, err
	}
	f.quiesce()
	tb := f.newTable(r.Table)
	return tb.t.insert(&r, flags)
}

// Add is `ip route add` (NLM_F_CREATE|NLM_F_EXCL).
func (f *FIB) Add(r Route) error { return f.Insert(r, FlagCreate|FlagExcl) }

// Replace is `ip route replace` (NLM_F_CREATE|NLM_F_REPLACE).
func (f *FIB) Replace(r Route) error { return f.Insert(r, FlagCreate|FlagReplace) }

// Append is `ip route append` (NLM_F_CREATE|NLM_F_APPEND).
func (f *FIB) Append(r Route) error { return f.Insert(r, FlagCreate|FlagAppend) }

// Prepend is `ip route prepend` (NLM_F_CREATE).
func (f *FIB) Prepend(r Route) error { return f.Insert(r, FlagCreate) }

// Delete is RTM_DELROUTE (fib_table_delete): Dst, Len, Table and TOS select
// the alias run; Type 0, Scope ScopeAny and zero Protocol, PrefSrc,
// Priority, OIF, Gateway match anything. ESRCH when nothing matches.
func (f *FIB) Delete(r Route) error {
	_, err := f.Remove(r)
	return err
}

// Remove is Delete returning a copy of the alias it removed, which is
// what the kernel's RTM_DELROUTE reports.
func (f *FIB) Remove(r Route) (Alias, error) {
	r.Table = normTable(r.Table)
	if err := validate(&r); err != nil {
		return Alias{}, err
	}
	tb := f.getTable(r.Table)
	if tb == nil {
		return Alias{}, uapi.ESRCH
	}
	f.quiesce()
	a, err := tb.t.delete(&r)
	if err != nil {
		return Alias{}, err
	}
	return *a, nil
}

// Lookup is fib_table_lookup in one table for a destination and tos 0.
// With the tables merged, a lookup in main also sees local routes, as in
// the kernel. It returns nil when nothing matches.
func (f *FIB) Lookup(tableID uint32, dst uint32) *Alias {
	return f.LookupTOS(tableID, dst, 0)
}

// LookupTOS is Lookup for a flow with the given tos.
func (f *FIB) LookupTOS(tableID uint32, dst uint32, tos uint8) *Alias {
	tb := f.getTable(tableID)
	if tb == nil {
		return nil
	}
	return tb.t.lookupFlow(Flow{Dst: dst, TOS: tos})
}

// FlushTable is fib_table_flush for one table: it removes the table's aliases
// that are dead (Alias.Dead or dead(a) true); live error-type routes
// (blackhole, unreachable, prohibit, throw) go only with flushAll, which the
// kernel passes when the namespace is dismantled. It returns the number
// removed.
func (f *FIB) FlushTable(tableID uint32, dead func(*Alias) bool, flushAll bool) int {
	tb := f.getTable(tableID)
	if tb == nil {
		return 0
	}
	return tb.t.flushEach(tb.id, dead, flushAll, nil)
}

// Flush is fib_flush: FlushTable over every table in hash order (so the
// merged trie is walked twice, once for main and once for local).
func (f *FIB) Flush(dead func(*Alias) bool) int { return f.FlushEach(dead, nil) }

// MarkDead sets Alias.Dead on every alias for which pred is true, as
// fib_sync_down_dev marks the nexthops of a departing device, and returns
// how many it marked.
func (f *FIB) MarkDead(pred func(*Alias) bool) int {
	n := 0
	for _, fa := range f.all {
		if !fa.Dead && pred(fa) {
			f.markDead(fa)
			n++
		}
	}
	return n
}

// SyncDownDev marks dead the routes whose nexthop is device oif, as
// fib_sync_down_dev does, and returns how many it marked; the caller then
// runs Flush if that is non-zero (fib_disable_ip). On NETDEV_DOWN (force
// false) a host-scope route keeps its nexthop (its nh scope is NOWHERE, the
// scope NETDEV_DOWN spares); on NETDEV_UNREGISTER (force true) all go.
// Deleting a device is both, in that order: two flushes.
func (f *FIB) SyncDownDev(oif int, force bool) int {
	n := 0
	for _, a := range f.byOIF[oif] {
		if !a.Dead && (force || a.Scope != ScopeHost) && !a.IsMulti() {
			f.markDead(a)
			n++
		}
	}
	return n + f.syncDownMulti(oif, EventDown)
}

// SyncDownDevUnregister is SyncDownDev(oif, true) for NETDEV_UNREGISTER:
// a route of several nexthops dies as a whole when any of them is
// through the device, however many others live.
func (f *FIB) SyncDownDevUnregister(oif int) int {
	return f.SyncDownDev(oif, true) + f.syncDownMulti(oif, EventUnregister)
}

// NetdevEvent is the device event fib_sync_down_dev handles.
type NetdevEvent uint8

const (
	EventDown       NetdevEvent = iota // NETDEV_DOWN: the device's nexthops die
	EventUnregister                    // NETDEV_UNREGISTER: their routes die
	EventChange                        // NETDEV_CHANGE without carrier: LINKDOWN
)

// syncDownMulti is fib_sync_down_dev for the routes of several nexthops:
// each live nexthop through oif gets DEAD and LINKDOWN (LINKDOWN alone on
// EventChange); a route whose nexthops are all dead now (counting, for
// EventChange, those that were DEAD before and those of oif) gets the
// same flags itself, and a dead route is what the flush removes. On
// EventUnregister a nexthop through oif counts as all of them. It
// returns how many routes it marked dead or, for EventChange, linkdown.
// Every nexthop of these routes has a scope below nowhere (a host-scope
// route has one nexthop), so force does not matter.
func (f *FIB) syncDownMulti(oif int, ev NetdevEvent) int {
	n := 0
	var dead []*Alias
	for _, a := range f.multi {
		if a.Dead || !usesDev(a, oif) {
			continue
		}
		nhs := a.Extra.Multi
		count := 0
		for i := range nhs {
			nh := &nhs[i]
			if nh.Dead {
				count++
			} else if nh.OIF == oif {
				if ev != EventChange {
					nh.Dead = true
				}
				nh.LinkDown = true
				count++
			}
			if ev == EventUnregister && nh.OIF == oif {
				count = len(nhs)
				break
			}
		}
		if count == len(nhs) {
			a.LinkDown = true
			if ev != EventChange {
				dead = append(dead, a)
			}
			n++
		}
	}
	for _, a := range dead {
		f.markDead(a)
	}
	return n
}

func usesDev(a *Alias, oif int) bool {
	for i := range a.Extra.Multi {
		if a.Extra.Multi[i].OIF == oif {
			return true
		}
	}
	return false
}

// SyncUpMulti is fib_sync_up for the routes of several nexthops: the
// nexthops through oif (whose device is up, with IPv4) lose DEAD (dead
// true: NETDEV_UP, an address added) and LINKDOWN (linkDown true: with
// carrier); a route with any nexthop then free of those flags loses them
// itself. It returns how many routes it looked at that kept one alive.
func (f *FIB) SyncUpMulti(oif int, dead, linkDown bool) int {
	n := 0
	for _, a := range f.multi {
		if a.Dead || !usesDev(a, oif) {
			continue
		}
		alive := 0
		for i := range a.Extra.Multi {
			nh := &a.Extra.Multi[i]
			if !(dead && nh.Dead) && !(linkDown && nh.LinkDown) {
				alive++
				continue
			}
			if nh.OIF != oif {
				continue
			}
			alive++
			if dead {
				nh.Dead = false
			}
			if linkDown {
				nh.LinkDown = false
			}
		}
		if alive > 0 {
			if linkDown {
				a.LinkDown = false
			}
			n++
		}
	}
	return n
}

// SetLinkDown sets or clears RTNH_F_LINKDOWN on the aliases for which
// pred is true (fib_sync_down_dev on NETDEV_CHANGE, fib_sync_up), and
// returns how many changed.
func (f *FIB) SetLinkDown(pred func(*Alias) bool, down bool) int {
	n := 0
	for _, fa := range f.all {
		if fa.LinkDown != down && pred(fa) {
			fa.LinkDown = down
			n++
		}
	}
	return n
}

// SetLinkDownDev is SetLinkDown for the aliases whose nexthop is device
// oif and not host scope (fib_sync_down_dev on NETDEV_CHANGE, fib_sync_up).
func (f *FIB) SetLinkDownDev(oif int, down bool) int {
	n := 0
	for _, fa := range f.byOIF[oif] {
		if fa.LinkDown != down && fa.Scope != ScopeHost && !fa.IsMulti() {
			fa.LinkDown = down
			n++
		}
	}
	if down {
		return n + f.syncDownMulti(oif, EventChange)
	}
	return n + f.SyncUpMulti(oif, false, true)
}

// Walk calls fn for the routes of one table in key order (then alias
// order), as a route dump sees them; fn returns false to stop. fn must not
// change the FIB.
func (f *FIB) Walk(tableID uint32, fn func(a *Alias) bool) {
	tb := f.getTable(tableID)
	if tb == nil {
		return
	}
	walkLeaves(tb.t.root(), func(l *node) bool {
		for _, fa := range l.leaf {
			if fa.Table != tb.id {
				continue
			}
			if !fn(fa) {
				return false
			}
		}
		return true
	})
}

// Routes returns a copy of one table's routes in dump order.
func (f *FIB) Routes(tableID uint32) []Alias {
	var out []Alias
	f.Walk(tableID, func(a *Alias) bool { out = append(out, *a); return true })
	return out
}

// Unmerge is fib_unmerge, run when the first custom rule appears: local
// gets its own trie holding clones of its aliases, and main's trie drops
// them (fib_table_flush_external).
func (f *FIB) Unmerge() {
	if f.unmerged {
		return
	}
	f.unmerged = true
	old := f.byID[TableLocal]
	if old == nil {
		return
	}
	lt := newTrie(f)
	walkLeaves(old.t.root(), func(l *node) bool {
		for _, fa := range l.leaf {
			if fa.Table != TableLocal {
				continue
			}
			cp := *fa
			cp.cloneExtra()
			f.counters.AliasAllocs++
			f.linkAlias(&cp)
			ll, tp := lt.findNode(l.key)
			lt.insertAlias(tp, ll, &cp, -1, l.key)
		}
		return true
	})
	mainT := old.t
	old.t = lt
	if mt := f.byID[TableMain]; mt != nil && mt.t == mainT {
		mainT.flushExternal(TableMain)
	}
}

// SharedInfo is fib_find_info's answer for r: a live alias of r's table
// whose fib_info r would share (sameInfo), nil for none. A new route
// takes the nexthop state (LINKDOWN) of the fib_info it shares.
func (f *FIB) SharedInfo(r *Route) *Alias {
	var found *Alias
	f.Walk(r.Table, func(a *Alias) bool {
		if !a.Dead && sameInfo(a, r) {
			found = a
			return false
		}
		return true
	})
	return found
}
