package netdevindex

// Table is what a namespace keeps, per kernel era: the hash always
// (dev_get_by_index looks devices up there), plus since 6.5 the xarray
// (ifindex allocation), with dumps walking one or the other.

// Options selects the kernel era.
type Options struct {
	// Xarray keeps net->dev_by_index and allocates ifindexes from it with
	// xa_alloc_cyclic (6.5 and later). Without it ifindexes come from
	// dev_new_index over the hash (before 6.5).
	Xarray bool
	// DumpVia is the structure rtnl_dump_ifinfo walks. KindXarray requires
	// Xarray.
	DumpVia Kind
}

// Kernel eras of the netdev index.
// Since69 is xarray allocation and xarray dumps (the rtnetlink dump moved
// to for_each_netdev_dump in the 6.9 development cycle).
func Since69() Options { return Options{Xarray: true, DumpVia: KindXarray} }

// Since65 is xarray allocation with dumps that still walk the hash.
func Since65() Options { return Options{Xarray: true, DumpVia: KindHash} }

// Before65 is the hash alone (the linux-6.4 profile).
func Before65() Options { return Options{Xarray: false, DumpVia: KindHash} }

// Table is a namespace's netdev index. It implements Index.
type Table[D any] struct {
	opts Options
	hash *Hash[D]
	xa   *Xarray[D] // nil before 6.5
}

// NewTable returns an empty index for the given era. DumpVia
// KindXarray without Xarray is corrected to KindHash.
func NewTable[D any](opts Options) *Table[D] {
	if !opts.Xarray {
		opts.DumpVia = KindHash
	}
	if opts.DumpVia == "" {
		opts.DumpVia = KindXarray
	}
	n := &Table[D]{opts: opts, hash: NewHash[D]()}
	if opts.Xarray {
		n.xa = NewXarray[D]()
	}
	return n
}

// Options returns the era options in use.
func (n *Table[D]) Options() Options { return n.opts }

// Hash is dev_index_head.
func (n *Table[D]) Hash() *Hash[D] { return n.hash }

// Xarray is net->dev_by_index, nil before 6.5.
func (n *Table[D]) Xarray() *Xarray[D] { return n.xa }

// Kind is the structure dumps walk.
func (n *Table[D]) Kind() Kind { return n.opts.DumpVia }

// Len is the number of listed devices.
func (n *Table[D]) Len() int { return n.hash.Len() }

// Seq is dev_base_seq. Every List and every successful Unlist goes through
// the hash, so its sequence is the namespace's.
func (n *Table[D]) Seq() uint32 { return n.hash.Seq() }

// Reserve is the ifindex step of register_netdevice. With the xarray it is
// Xarray.Reserve (dev_index_reserve). Before 6.5: ifindex 0 takes
// dev_new_index, an explicit ifindex is checked against the hash (EEXIST,
// as rtnl_newlink reports it) and nothing is held until List.
func (n *Table[D]) Reserve(ifindex uint32) (uint32, error) {
	if n.xa != nil {
		return n.xa.Reserve(ifindex)
	}
	return n.hash.reserve(ifindex)
}

// Release is dev_index_release (registration failed after Reserve).
func (n *Table[D]) Release(ifindex uint32) {
	if n.xa != nil {
		n.xa.Release(ifindex)
	}
}

// List is list_netdevice: head of the hash chain, and the xarray slot.
func (n *Table[D]) List(ifindex uint32, d D) {
	n.hash.List(ifindex, d)
	if n.xa != nil {
		n.xa.List(ifindex, d)
	}
}

// Unlist is unlist_netdevice.
func (n *Table[D]) Unlist(ifindex uint32) (D, bool) {
	if n.xa != nil {
		n.xa.Unlist(ifindex)
	}
	return n.hash.Unlist(ifindex)
}

// Add is Reserve then List.
func (n *Table[D]) Add(ifindex uint32, d D) (uint32, error) {
	id, err := n.Reserve(ifindex)
	if err != nil {
		return 0, err
	}
	n.List(id, d)
	return id, nil
}

// Del is Unlist.
func (n *Table[D]) Del(ifindex uint32) (D, bool) { return n.Unlist(ifindex) }

// Lookup is dev_get_by_index: through the hash in every era.
func (n *Table[D]) Lookup(ifindex uint32) (D, bool) { return n.hash.Lookup(ifindex) }

// DumpChunk is one rtnl_dump_ifinfo call over the era's dump structure.
func (n *Table[D]) DumpChunk(c Cursor, k int, filter func(D) bool) ([]Entry[D], Cursor, bool) {
	if n.opts.DumpVia == KindXarray {
		return n.xa.DumpChunk(c, k, filter)
	}
	return n.hash.DumpChunk(c, k, filter)
}

// Steps is the sum of hash chain steps and xarray node visits.
func (n *Table[D]) Steps() uint64 {
	s := n.hash.Steps()
	if n.xa != nil {
		s += n.xa.Steps()
	}
	return s
}

// ResetSteps clears both step counters.
func (n *Table[D]) ResetSteps() {
	n.hash.ResetSteps()
	if n.xa != nil {
		n.xa.ResetSteps()
	}
}

var (
	_ Index[int] = (*Hash[int])(nil)
	_ Index[int] = (*Xarray[int])(nil)
	_ Index[int] = (*Table[int])(nil)
)
