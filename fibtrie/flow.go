package fibtrie

// Flow is the part of a struct flowi4 that fib_table_lookup looks at.
type Flow struct {
	Dst uint32
	TOS uint8
	// Scope is flowi4_scope: aliases whose scope is narrower (a smaller
	// RT_SCOPE_* value) are passed over.
	Scope Scope
	// OIF is flowi4_oif: when non-zero, aliases whose nexthop is another
	// device are passed over (error-type routes are returned before
	// their nexthop is looked at, as in the kernel).
	OIF int
	// SkipLinkDown, when not nil, says whether a nexthop through device
	// oif that has no carrier is passed over (ip_ignore_linkdown); nil
	// for lookups that ignore the link state (FIB_LOOKUP_IGNORE_LINKSTATE,
	// as gateway checks do).
	SkipLinkDown func(oif int) bool
}

// LookupFlow is fib_table_lookup in one table for fl. Like Lookup, it
// returns an error-type alias when one matches first (the caller turns
// it into fib_props' error) and nil when nothing matches (-EAGAIN).
func (f *FIB) LookupFlow(tableID uint32, fl Flow) *Alias {
	tb := f.getTable(tableID)
	if tb == nil {
		return nil
	}
	return tb.t.lookupFlow(fl)
}

// NewTable is fib_new_table: the table exists afterwards (empty when
// new). inet_rtm_newroute makes the table before the route is checked,
// so a refused request may still leave a new, empty table behind.
func (f *FIB) NewTable(id uint32) { f.newTable(id) }

// HasTable is fib_get_table != NULL.
func (f *FIB) HasTable(id uint32) bool { return f.getTable(id) != nil }

// FlushEach is fib_flush (Flush) calling removed, when not nil, for every
// alias it frees, in the order fib_table_flush frees them: tables in hash order,
// each trie's leaves from the highest key down, a leaf's aliases in list
// order. The kernel notifies (RTM_DELROUTE) the freed routes whose
// fib_info lost its prefsrc (fib_sync_down_addr), in that order. removed
// must not change the FIB.
func (f *FIB) FlushEach(dead func(*Alias) bool, removed func(*Alias)) int {
	n := 0
	for _, tb := range f.tables() {
		n += tb.t.flushEach(tb.id, dead, false, removed)
	}
	return n
}
