package sim

// NetdevIndex is what a namespace keeps, per kernel era: the hash always
// (dev_get_by_index looks devices up there), plus since 6.5 the xarray
// (ifindex allocation), with dumps walking one or the other.

// NetdevIndexOptions selects the kernel era.
type NetdevIndexOptions struct {
	// Xarray keeps net->dev_by_index and allocates ifindexes from it with
	// xa_alloc_cyclic (6.5 and later). Without it ifindexes come from
	// dev_new_index over the hash (before 6.5).
	Xarray bool
	// DumpVia is the structure rtnl_dump_ifinfo walks. IndexXarray requires
	// Xarray.
	DumpVia IndexKind
}

// Kernel eras of the netdev index.
var (
	// NetdevIndexSince69: xarray allocation and xarray dumps (the rtnetlink
	// dump moved to for_each_netdev_dump in the 6.9 development cycle).
	NetdevIndexSince69 = NetdevIndexOptions{Xarray: true, DumpVia: IndexXarray}
	// NetdevIndexSince65: xarray allocation, dumps still walk the hash.
	NetdevIndexSince65 = NetdevIndexOptions{Xarray: true, DumpVia: IndexHash}
	// NetdevIndexBefore65: hash only (the linux-6.4 profile).
	NetdevIndexBefore65 = NetdevIndexOptions{Xarray: false, DumpVia: IndexHash}
)

// NetdevIndex is a namespace's netdev index. It implements Index.
type NetdevIndex[D any] struct {
	opts NetdevIndexOptions
	hash *HashIndex[D]
	xa   *XarrayIndex[D] // nil before 6.5
}

// NewNetdevIndex returns an empty index for the given era. DumpVia
// IndexXarray without Xarray is corrected to IndexHash.
func NewNetdevIndex[D any](opts NetdevIndexOptions) *NetdevIndex[D] {
	if !opts.Xarray {
		opts.DumpVia = IndexHash
	}
	if opts.DumpVia == "" {
		opts.DumpVia = IndexXarray
	}
	n := &NetdevIndex[D]{opts: opts, hash: NewHashIndex[D]()}
	if opts.Xarray {
		n.xa = NewXarrayIndex[D]()
	}
	return n
}

// Options returns the era options in use.
func (n *NetdevIndex[D]) Options() NetdevIndexOptions { return n.opts }

// Hash is dev_index_head.
func (n *NetdevIndex[D]) Hash() *HashIndex[D] { return n.hash }

// Xarray is net->dev_by_index, nil before 6.5.
func (n *NetdevIndex[D]) Xarray() *XarrayIndex[D] { return n.xa }

// Kind is the structure dumps walk.
func (n *NetdevIndex[D]) Kind() IndexKind { return n.opts.DumpVia }

// Len is the number of listed devices.
func (n *NetdevIndex[D]) Len() int { return n.hash.Len() }

// Seq is dev_base_seq. Every List and every successful Unlist goes through
// the hash, so its sequence is the namespace's.
func (n *NetdevIndex[D]) Seq() uint32 { return n.hash.Seq() }

// Reserve is the ifindex step of register_netdevice. With the xarray it is
// XarrayIndex.Reserve (dev_index_reserve). Before 6.5: ifindex 0 takes
// dev_new_index, an explicit ifindex is checked against the hash (EEXIST,
// as rtnl_newlink reports it) and nothing is held until List.
func (n *NetdevIndex[D]) Reserve(ifindex uint32) (uint32, error) {
	if n.xa != nil {
		return n.xa.Reserve(ifindex)
	}
	return n.hash.reserve(ifindex)
}

// Release is dev_index_release (registration failed after Reserve).
func (n *NetdevIndex[D]) Release(ifindex uint32) {
	if n.xa != nil {
		n.xa.Release(ifindex)
	}
}

// List is list_netdevice: head of the hash chain, and the xarray slot.
func (n *NetdevIndex[D]) List(ifindex uint32, d D) {
	n.hash.List(ifindex, d)
	if n.xa != nil {
		n.xa.List(ifindex, d)
	}
}

// Unlist is unlist_netdevice.
func (n *NetdevIndex[D]) Unlist(ifindex uint32) (D, bool) {
	if n.xa != nil {
		n.xa.Unlist(ifindex)
	}
	return n.hash.Unlist(ifindex)
}

// Add is Reserve then List.
func (n *NetdevIndex[D]) Add(ifindex uint32, d D) (uint32, error) {
	id, err := n.Reserve(ifindex)
	if err != nil {
		return 0, err
	}
	n.List(id, d)
	return id, nil
}

// Del is Unlist.
func (n *NetdevIndex[D]) Del(ifindex uint32) (D, bool) { return n.Unlist(ifindex) }

// Lookup is dev_get_by_index: through the hash in every era.
func (n *NetdevIndex[D]) Lookup(ifindex uint32) (D, bool) { return n.hash.Lookup(ifindex) }

// DumpChunk is one rtnl_dump_ifinfo call over the era's dump structure.
func (n *NetdevIndex[D]) DumpChunk(c IndexCursor, k int, filter func(D) bool) ([]IndexEntry[D], IndexCursor, bool) {
	if n.opts.DumpVia == IndexXarray {
		return n.xa.DumpChunk(c, k, filter)
	}
	return n.hash.DumpChunk(c, k, filter)
}

// Steps is the sum of hash chain steps and xarray node visits.
func (n *NetdevIndex[D]) Steps() uint64 {
	s := n.hash.Steps()
	if n.xa != nil {
		s += n.xa.Steps()
	}
	return s
}

// ResetSteps clears both step counters.
func (n *NetdevIndex[D]) ResetSteps() {
	n.hash.ResetSteps()
	if n.xa != nil {
		n.xa.ResetSteps()
	}
}

var (
	_ Index[int] = (*HashIndex[int])(nil)
	_ Index[int] = (*XarrayIndex[int])(nil)
	_ Index[int] = (*NetdevIndex[int])(nil)
)
