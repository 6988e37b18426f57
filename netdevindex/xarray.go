package netdevindex

import (
	"errors"

	"github.com/rtnlsim/rtnlsim/xarray"
)

// Xarray models net->dev_by_index: an xarray with XA_FLAGS_ALLOC1 from
// which ifindexes are reserved (dev_index_reserve) and in which registered
// devices are stored (list_netdevice); dumps walk it in ifindex order
// (for_each_netdev_dump).

// Xarray is the xarray netdev index. Use NewXarray.
type Xarray[D any] struct {
	xa     *xarray.XArray[D]
	next   uint32 // net->ifindex: the AllocCyclic cursor
	seq    uint32
	wraps  uint64
	listed int
	base   uint64 // node visits at the last ResetSteps
}

// NewXarray returns an empty xarray index.
func NewXarray[D any]() *Xarray[D] {
	return &Xarray[D]{xa: xarray.New[D](xarray.FlagsAlloc1), seq: 1}
}

// Kind reports KindXarray.
func (x *Xarray[D]) Kind() Kind { return KindXarray }

// Len is the number of listed devices (reservations not counted).
func (x *Xarray[D]) Len() int { return x.listed }

// Seq is dev_base_seq.
func (x *Xarray[D]) Seq() uint32 { return x.seq }

// Steps is the number of xarray node visits since the last ResetSteps
// (Lookup, Reserve, List, Unlist and DumpChunk all count).
func (x *Xarray[D]) Steps() uint64 { return x.xa.Counters().NodeVisits - x.base }

// ResetSteps clears the step counter.
func (x *Xarray[D]) ResetSteps() { x.base = x.xa.Counters().NodeVisits }

// XArray exposes the underlying array (height, node count, counters).
func (x *Xarray[D]) XArray() *xarray.XArray[D] { return x.xa }

// NextIfindex is net->ifindex, where the next cyclic allocation starts.
func (x *Xarray[D]) NextIfindex() uint32 { return x.next }

// Wraps counts allocations for which xa_alloc_cyclic returned 1 (wrapped).
func (x *Xarray[D]) Wraps() uint64 { return x.wraps }

// Reserve is dev_index_reserve. ifindex 0: xa_alloc_cyclic in xa_limit_31b
// from net->ifindex (0 is never handed out, freed ifindexes are not reused
// until the cursor wraps past INT_MAX; the wrap is not an error). Explicit
// ifindex: xa_insert of a reservation; EINVAL above INT_MAX; EEXIST when a
// listed device has it (rtnl_newlink finds that device before
// register_netdevice and, with NLM_F_EXCL as `ip link add` sends, fails with
// EEXIST); EBUSY when it is only reserved; EBUSY when no ifindex is free.
func (x *Xarray[D]) Reserve(ifindex uint32) (uint32, error) {
	if ifindex > IfindexMax {
		return 0, errIfindexInvalid
	}
	if ifindex == 0 {
		id, wrapped, err := x.xa.AllocCyclicReserved(xarray.Limit31b, &x.next)
		if err != nil {
			return 0, errIfindexBusy
		}
		if wrapped {
			x.wraps++
		}
		return id, nil
	}
	if err := x.xa.Reserve(ifindex); err != nil {
		if errors.Is(err, xarray.ErrBusy) && !x.xa.Reserved(ifindex) {
			return 0, errIfindexExist
		}
		return 0, errIfindexBusy
	}
	return ifindex, nil
}

// Release is dev_index_release: give up a reservation that was not listed.
func (x *Xarray[D]) Release(ifindex uint32) {
	if x.xa.Reserved(ifindex) {
		x.xa.Erase(ifindex)
	}
}

// List is the xarray half of list_netdevice: store d over its reservation.
func (x *Xarray[D]) List(ifindex uint32, d D) {
	if _, had, err := x.xa.Store(ifindex, d); err == nil && !had {
		x.listed++
	}
	x.seq = nextDevBaseSeq(x.seq)
}

// Unlist is the xarray half of unlist_netdevice (xa_erase).
func (x *Xarray[D]) Unlist(ifindex uint32) (D, bool) {
	d, ok := x.xa.Erase(ifindex)
	if ok {
		x.listed--
		x.seq = nextDevBaseSeq(x.seq)
	}
	return d, ok
}

// Add reserves ifindex (or allocates one when 0) and lists d there.
func (x *Xarray[D]) Add(ifindex uint32, d D) (uint32, error) {
	id, err := x.Reserve(ifindex)
	if err != nil {
		return 0, err
	}
	x.List(id, d)
	return id, nil
}

// Del unregisters the device at ifindex.
func (x *Xarray[D]) Del(ifindex uint32) (D, bool) { return x.Unlist(ifindex) }

// Lookup is xa_load(&net->dev_by_index, ifindex). (The kernel looks devices
// up through the hash; this is the xarray's own lookup, for comparison.)
func (x *Xarray[D]) Lookup(ifindex uint32) (D, bool) { return x.xa.Load(ifindex) }

// DumpChunk walks devices in ifindex order from c.Ifindex (xa_find, which
// skips reservations). The chunk ends at the first device that does not fit,
// and the cursor is its ifindex; at the end the cursor is one past the last
// device returned.
func (x *Xarray[D]) DumpChunk(c Cursor, k int, filter func(D) bool) ([]Entry[D], Cursor, bool) {
	if k < 1 {
		k = 1
	}
	var out []Entry[D]
	i := c.Ifindex
	for {
		id, d, ok := x.xa.Find(i, ^uint32(0))
		if !ok {
			return out, Cursor{Ifindex: i}, true
		}
		if filter == nil || filter(d) {
			if len(out) == k {
				return out, Cursor{Ifindex: id}, false
			}
			out = append(out, Entry[D]{id, d})
		}
		if id == ^uint32(0) {
			return out, Cursor{Ifindex: id}, true
		}
		i = id + 1
	}
}
