// Package xarray is a Go model of the Linux XArray (lib/xarray.c) with the
// semantics rtnlsim needs for net->dev_by_index: uint32 indices, a radix tree
// of 64-slot nodes whose height grows at the top when a larger index is stored
// (as xas_expand does) and shrinks when the root is left with a single child in
// slot 0 (as xas_shrink does), reserved entries (the kernel's XA_ZERO_ENTRY),
// free-index tracking for Alloc / AllocCyclic, and in-order search.
//
// The model is deterministic, has no package-level mutable state and is not
// safe for concurrent use (the kernel serialises writers with xa_lock; rtnlsim
// serialises everything under its model rtnl_lock).
//
// Work is counted in Counters: a node visit is one node whose slots an
// operation reads or writes.
package xarray

import (
	"iter"
	"math"
	"math/bits"

	"github.com/rtnlsim/rtnlsim/uapi"
)

// Geometry of the tree, as XA_CHUNK_SHIFT / XA_CHUNK_SIZE in the kernel's
// default configuration (CONFIG_BASE_SMALL=0).
const (
	ChunkShift = 6
	ChunkSize  = 1 << ChunkShift
	chunkMask  = ChunkSize - 1
)

// Errors, with the errno values the kernel functions return.
var (
	// ErrBusy: Insert/Reserve found the index occupied (value or reserved);
	// Alloc found no free index in the range (xa_alloc's -EBUSY).
	ErrBusy error = uapi.EBUSY
	// ErrInvalid: Alloc on an array created without FlagAlloc (the kernel
	// WARNs and returns -EINVAL), or a store at index 0 of a FlagZeroBusy
	// array (the model reserves that index for good; see FlagZeroBusy).
	ErrInvalid error = uapi.EINVAL
)

// Flags select array behaviour, as xa_init_flags does.
type Flags uint8

const (
	// FlagAlloc tracks free indices so Alloc and AllocCyclic work
	// (XA_FLAGS_ALLOC).
	FlagAlloc Flags = 1 << iota
	// FlagZeroBusy makes index 0 permanently busy, so allocation starts at 1
	// (the ZERO_BUSY part of XA_FLAGS_ALLOC1). The kernel would let a caller
	// overwrite index 0 explicitly; the model refuses with ErrInvalid because
	// no ifindex is ever 0.
	FlagZeroBusy
)

// FlagsAlloc1 is XA_FLAGS_ALLOC1, the flags of net->dev_by_index.
const FlagsAlloc1 = FlagAlloc | FlagZeroBusy

// Limit is an inclusive index range for Alloc (struct xa_limit).
type Limit struct{ Min, Max uint32 }

// Common limits (xa_limit_32b, xa_limit_31b).
var (
	Limit32b = Limit{0, math.MaxUint32}
	Limit31b = Limit{0, math.MaxInt32}
)

// Counters are work counters. They only grow; read them with Counters and
// clear them with ResetCounters.
type Counters struct {
	NodeVisits uint64 // nodes whose slots an operation read or wrote
	NodeAllocs uint64 // nodes allocated
	NodeFrees  uint64 // nodes freed
	Grows      uint64 // levels added at the top of the tree (xas_expand)
	Shrinks    uint64 // levels removed at the top of the tree (xas_shrink)
}

type node[T any] struct {
	shift  uint8 // 0 for a leaf; children of a node cover 1<<shift indices
	offset uint8 // slot of this node in its parent
	count  uint8 // occupied slots (children, values and reserved entries)
	parent *node[T]
	used   uint64 // slot occupied
	resv   uint64 // leaf: the slot holds a reserved entry, not a value
	full   uint64 // interior: the child below the slot has no free index
	kids   *[ChunkSize]*node[T]
	vals   *[ChunkSize]T
}

func (n *node[T]) leaf() bool { return n.shift == 0 }

// freeMask has a bit set for every slot below which some index is free (the
// kernel's XA_FREE_MARK on the slot).
func (n *node[T]) freeMask() uint64 {
	if n.leaf() {
		return ^n.used
	}
	return ^(n.used & n.full)
}

// maxIndex is the largest index a tree with this root can hold.
func (n *node[T]) maxIndex() uint64 {
	return uint64(ChunkSize)<<n.shift - 1
}

type headKind uint8

const (
	headEmpty    headKind = iota
	headValue             // a single value at index 0, no node (height 0)
	headReserved          // a single reserved entry at index 0, no node
	headNode              // root points to a node
)

// XArray is a sparse array of T indexed by uint32. The zero value is an empty
// array with no flags; use New for an allocating array.
type XArray[T any] struct {
	flags   Flags
	kind    headKind
	val     T
	root    *node[T]
	wrapped bool // XA_FLAGS_ALLOC_WRAPPED
	values  int
	nodes   int
	c       Counters
}

// New returns an empty array with the given flags.
func New[T any](flags Flags) *XArray[T] {
	return &XArray[T]{flags: flags}
}

func (xa *XArray[T]) zeroBusy() bool { return xa.flags&FlagZeroBusy != 0 }

// Counters returns the work counters.
func (xa *XArray[T]) Counters() Counters { return xa.c }

// ResetCounters sets all work counters to zero.
func (xa *XArray[T]) ResetCounters() { xa.c = Counters{} }

// Len is the number of values stored (reserved entries not counted).
func (xa *XArray[T]) Len() int { return xa.values }

// Nodes is the number of tree nodes currently allocated.
func (xa *XArray[T]) Nodes() int { return xa.nodes }

// Height is the number of node levels: 0 when the array is empty or holds only
// index 0 directly in its head, else root shift / ChunkShift + 1.
func (xa *XArray[T]) Height() int {
	if xa.kind != headNode {
		return 0
	}
	return int(xa.root.shift)/ChunkShift + 1
}

// Load returns the value at index; reserved and empty indices give ok=false.
func (xa *XArray[T]) Load(index uint32) (v T, ok bool) {
	switch xa.kind {
	case headValue:
		if index == 0 {
			return xa.val, true
		}
		return v, false
	case headNode:
	default:
		return v, false
	}
	i := uint64(index)
	n := xa.root
	if i > n.maxIndex() {
		return v, false
	}
	for {
		xa.c.NodeVisits++
		off := (i >> n.shift) & chunkMask
		bit := uint64(1) << off
		if n.used&bit == 0 {
			return v, false
		}
		if n.leaf() {
			if n.resv&bit != 0 {
				return v, false
			}
			return n.vals[off], true
		}
		n = n.kids[off]
	}
}

// entry reports whether index i holds a value or a reserved entry, and
// whether it is a reserved one (the busy index 0 of a FlagZeroBusy array
// counts as reserved), without counting work (used for preconditions).
func (xa *XArray[T]) entry(i uint64) (occupied, reserved bool) {
	switch xa.kind {
	case headEmpty:
		busy := i == 0 && xa.zeroBusy()
		return busy, busy
	case headValue:
		return i == 0, false
	case headReserved:
		return i == 0, i == 0
	}
	n := xa.root
	if i > n.maxIndex() {
		return false, false
	}
	for {
		off := (i >> n.shift) & chunkMask
		bit := uint64(1) << off
		if n.used&bit == 0 {
			return false, false
		}
		if n.leaf() {
			return true, n.resv&bit != 0
		}
		n = n.kids[off]
	}
}

func (xa *XArray[T]) occupied(i uint64) bool {
	occ, _ := xa.entry(i)
	return occ
}

// Occupied reports whether index holds a value or a reserved entry.
func (xa *XArray[T]) Occupied(index uint32) bool { return xa.occupied(uint64(index)) }

// Reserved reports whether index holds a reserved entry (or is index 0 of a
// FlagZeroBusy array).
func (xa *XArray[T]) Reserved(index uint32) bool {
	_, resv := xa.entry(uint64(index))
	return resv
}

func (xa *XArray[T]) newNode(shift uint8, parent *node[T], offset uint8) *node[T] {
	n := &node[T]{shift: shift, parent: parent, offset: offset}
	if shift == 0 {
		n.vals = new([ChunkSize]T)
	} else {
		n.kids = new([ChunkSize]*node[T])
	}
	xa.nodes++
	xa.c.NodeAllocs++
	return n
}

func (xa *XArray[T]) freeNode(n *node[T]) {
	xa.nodes--
	xa.c.NodeFrees++
	n.parent = nil
}

// leafFromHead turns a head that holds index 0 directly (value, reserved, or
// the implicit busy zero) into a leaf holding it in slot 0: the first step of
// xas_expand when the head is an entry.
func (xa *XArray[T]) leafFromHead() {
	n := xa.newNode(0, nil, 0)
	n.used = 1
	n.count = 1
	if xa.kind == headValue {
		n.vals[0] = xa.val
	} else {
		n.resv = 1
	}
	var zero T
	xa.val = zero
	xa.kind = headNode
	xa.root = n
	xa.c.Grows++
}

// expand adds levels at the top until the tree can hold index i.
func (xa *XArray[T]) expand(i uint64) {
	for i > xa.root.maxIndex() {
		old := xa.root
		n := xa.newNode(old.shift+ChunkShift, nil, 0)
		n.kids[0] = old
		n.used = 1
		n.count = 1
		if old.freeMask() == 0 {
			n.full = 1
		}
		old.parent = n
		old.offset = 0
		xa.root = n
		xa.c.Grows++
	}
}

// slot finds or creates the leaf slot for index i. It returns nil for the head
// slot (index 0 stored without a node, allowed only when allowRoot).
func (xa *XArray[T]) slot(i uint64, allowRoot bool) (*node[T], uint) {
	switch xa.kind {
	case headEmpty:
		if xa.zeroBusy() {
			// The head counts as a reserved entry at index 0.
			xa.kind = headReserved
			xa.leafFromHead()
			break
		}
		if i == 0 && allowRoot {
			return nil, 0
		}
		var shift uint8
		for (i >> shift) >= ChunkSize {
			shift += ChunkShift
		}
		xa.root = xa.newNode(shift, nil, 0)
		xa.kind = headNode
	case headValue, headReserved:
		if i == 0 && (allowRoot || xa.kind == headReserved) {
			return nil, 0
		}
		xa.leafFromHead()
	}
	xa.expand(i)
	n := xa.root
	for {
		xa.c.NodeVisits++
		off := uint((i >> n.shift) & chunkMask)
		if n.leaf() {
			return n, off
		}
		child := n.kids[off]
		if child == nil {
			child = xa.newNode(n.shift-ChunkShift, n, uint8(off))
			n.kids[off] = child
			n.used |= 1 << off
			n.count++
		}
		n = child
	}
}

// fixFull recomputes the full bits from n up to the root after n changed.
func (xa *XArray[T]) fixFull(n *node[T]) {
	for n.parent != nil {
		p := n.parent
		bit := uint64(1) << n.offset
		var want uint64
		if n.freeMask() == 0 {
			want = bit
		}
		if p.full&bit == want {
			return
		}
		p.full = p.full&^bit | want
		n = p
	}
}

// put stores a value (reserved=false) or a reserved entry at i and returns
// the previous value if there was one.
func (xa *XArray[T]) put(i uint64, v T, reserved bool) (old T, had bool) {
	n, off := xa.slot(i, !reserved)
	if n == nil {
		switch xa.kind {
		case headValue:
			old, had = xa.val, true
			xa.values--
		}
		if reserved {
			var zero T
			xa.kind, xa.val = headReserved, zero
		} else {
			xa.kind, xa.val = headValue, v
			xa.values++
		}
		return old, had
	}
	bit := uint64(1) << off
	if n.used&bit != 0 {
		if n.resv&bit == 0 {
			old, had = n.vals[off], true
			xa.values--
		}
	} else {
		n.used |= bit
		n.count++
	}
	if reserved {
		var zero T
		n.resv |= bit
		n.vals[off] = zero
	} else {
		n.resv &^= bit
		n.vals[off] = v
		xa.values++
	}
	xa.fixFull(n)
	return old, had
}

// Store puts v at index, replacing a value or a reserved entry, and returns
// the previous value (xa_store). On a FlagZeroBusy array index 0 is refused
// with ErrInvalid.
func (xa *XArray[T]) Store(index uint32, v T) (old T, had bool, err error) {
	if index == 0 && xa.zeroBusy() {
		return old, false, ErrInvalid
	}
	old, had = xa.put(uint64(index), v, false)
	return old, had, nil
}

// Insert puts v at index only if the index is empty (xa_insert): a value or a
// reserved entry there gives ErrBusy, as does index 0 of a FlagZeroBusy
// array (occupied counts it).
func (xa *XArray[T]) Insert(index uint32, v T) error {
	if xa.occupied(uint64(index)) {
		return ErrBusy
	}
	xa.put(uint64(index), v, false)
	return nil
}

// Reserve puts a reserved entry at index if it is empty (xa_insert with a
// NULL entry, or xa_reserve on an empty index); ErrBusy otherwise. Loads of a
// reserved index see nothing, Find skips it, Alloc does not hand it out.
func (xa *XArray[T]) Reserve(index uint32) error {
	if xa.occupied(uint64(index)) {
		return ErrBusy
	}
	var zero T
	xa.put(uint64(index), zero, true)
	return nil
}

// Erase removes the value or reserved entry at index and returns the value
// (xa_erase). Empty nodes are freed bottom-up and the tree height shrinks as
// xas_delete_node / xas_shrink do. Index 0 of a FlagZeroBusy array stays busy.
func (xa *XArray[T]) Erase(index uint32) (old T, had bool) {
	i := uint64(index)
	switch xa.kind {
	case headEmpty:
		return old, false
	case headValue:
		if i != 0 {
			return old, false
		}
		old, had = xa.val, true
		var zero T
		xa.val = zero
		xa.kind = headEmpty
		xa.values--
		return old, had
	case headReserved:
		if i == 0 && !xa.zeroBusy() {
			xa.kind = headEmpty
		}
		return old, false
	}
	if i == 0 && xa.zeroBusy() {
		return old, false
	}
	n := xa.root
	if i > n.maxIndex() {
		return old, false
	}
	var off uint
	for {
		xa.c.NodeVisits++
		off = uint((i >> n.shift) & chunkMask)
		if n.used&(1<<off) == 0 {
			return old, false
		}
		if n.leaf() {
			break
		}
		n = n.kids[off]
	}
	bit := uint64(1) << off
	if n.resv&bit == 0 {
		old, had = n.vals[off], true
		xa.values--
	}
	var zero T
	n.vals[off] = zero
	n.used &^= bit
	n.resv &^= bit
	n.count--
	xa.fixFull(n)
	xa.deleteNode(n)
	return old, had
}

// deleteNode frees n and its ancestors while they are empty, then shrinks the
// tree if the deletion stopped at the root (xas_delete_node).
func (xa *XArray[T]) deleteNode(n *node[T]) {
	for n.count == 0 {
		p := n.parent
		off := n.offset
		xa.freeNode(n)
		if p == nil {
			xa.root = nil
			xa.kind = headEmpty
			return
		}
		xa.c.NodeVisits++
		bit := uint64(1) << off
		p.kids[off] = nil
		p.used &^= bit
		p.full &^= bit
		p.count--
		n = p
	}
	if n.parent == nil {
		xa.shrink()
	}
}

// shrink removes root levels while the root has one occupied slot, slot 0
// (xas_shrink). A leaf root whose only entry is at index 0 becomes a head
// entry; the busy zero of a FlagZeroBusy array becomes an empty head.
func (xa *XArray[T]) shrink() {
	for {
		n := xa.root
		xa.c.NodeVisits++
		if n.count != 1 || n.used&1 == 0 {
			return
		}
		if !n.leaf() {
			child := n.kids[0]
			child.parent = nil
			child.offset = 0
			xa.root = child
			xa.freeNode(n)
			xa.c.Shrinks++
			continue
		}
		switch {
		case n.resv&1 == 0:
			xa.kind, xa.val = headValue, n.vals[0]
		case xa.zeroBusy():
			xa.kind = headEmpty
		default:
			xa.kind = headReserved
		}
		xa.root = nil
		xa.freeNode(n)
		xa.c.Shrinks++
		return
	}
}

// findFree returns the lowest free index in [min, max].
func (xa *XArray[T]) findFree(min, max uint64) (uint64, bool) {
	if min > max {
		return 0, false
	}
	if xa.kind != headNode {
		if min == 0 && xa.occupied(0) {
			min = 1
		}
		return min, min <= max
	}
	top := xa.root.maxIndex()
	if min > top {
		return min, min <= max
	}
	id, ok := xa.freeIn(xa.root, 0, min, max)
	if !ok {
		id = top + 1
	}
	return id, id <= max
}

// freeIn finds the lowest free index >= from below node n (whose first index
// is base), giving up past max.
func (xa *XArray[T]) freeIn(n *node[T], base, from, max uint64) (uint64, bool) {
	xa.c.NodeVisits++
	off := (from - base) >> n.shift
	free := n.freeMask() & (^uint64(0) << off)
	for free != 0 {
		s := uint(bits.TrailingZeros64(free))
		slotBase := base + uint64(s)<<n.shift
		start := from
		if slotBase > start {
			start = slotBase
		}
		if start > max {
			return 0, false
		}
		if n.leaf() || n.used&(1<<s) == 0 {
			return start, true
		}
		if id, ok := xa.freeIn(n.kids[s], slotBase, start, max); ok {
			return id, true
		}
		free &^= 1 << s
	}
	return 0, false
}

func (xa *XArray[T]) alloc(v T, reserved bool, min, max uint32) (uint32, error) {
	if xa.flags&FlagAlloc == 0 {
		return 0, ErrInvalid
	}
	id, ok := xa.findFree(uint64(min), uint64(max))
	if !ok {
		return 0, ErrBusy
	}
	xa.put(id, v, reserved)
	return uint32(id), nil
}

// Alloc stores v at the lowest free index in [lim.Min, lim.Max] and returns
// it (xa_alloc); ErrBusy when the range is full.
func (xa *XArray[T]) Alloc(v T, lim Limit) (uint32, error) {
	return xa.alloc(v, false, lim.Min, lim.Max)
}

// AllocReserved is Alloc with a reserved entry (xa_alloc with a NULL entry).
func (xa *XArray[T]) AllocReserved(lim Limit) (uint32, error) {
	var zero T
	return xa.alloc(zero, true, lim.Min, lim.Max)
}

func (xa *XArray[T]) allocCyclic(v T, reserved bool, lim Limit, next *uint32) (id uint32, wrapped bool, err error) {
	min := lim.Min
	from := lim.Min
	if *next > from {
		from = *next
	}
	id, err = xa.alloc(v, reserved, from, lim.Max)
	if err == nil && xa.wrapped {
		xa.wrapped = false
		wrapped = true
	}
	if err != nil && from > min {
		id, err = xa.alloc(v, reserved, min, lim.Max)
		if err == nil {
			wrapped = true
		}
	}
	if err == nil {
		*next = id + 1
		if *next == 0 {
			xa.wrapped = true
		}
	}
	return id, wrapped, err
}

// AllocCyclic stores v at the lowest free index in [max(lim.Min, *next),
// lim.Max], or failing that in [lim.Min, lim.Max], and sets *next to the
// index after it (xa_alloc_cyclic). wrapped is true where the kernel returns
// 1: the search had to restart from lim.Min, or *next itself overflowed to 0
// on the previous allocation. ErrBusy when the whole range is full.
func (xa *XArray[T]) AllocCyclic(v T, lim Limit, next *uint32) (id uint32, wrapped bool, err error) {
	return xa.allocCyclic(v, false, lim, next)
}

// AllocCyclicReserved is AllocCyclic with a reserved entry, as
// dev_index_reserve calls xa_alloc_cyclic with a NULL entry.
func (xa *XArray[T]) AllocCyclicReserved(lim Limit, next *uint32) (id uint32, wrapped bool, err error) {
	var zero T
	return xa.allocCyclic(zero, true, lim, next)
}

// Find returns the value with the lowest index in [from, max] (xa_find with
// XA_PRESENT): reserved entries are skipped.
func (xa *XArray[T]) Find(from, max uint32) (index uint32, v T, ok bool) {
	if from > max {
		return 0, v, false
	}
	switch xa.kind {
	case headValue:
		if from == 0 {
			return 0, xa.val, true
		}
		return 0, v, false
	case headNode:
	default:
		return 0, v, false
	}
	if uint64(from) > xa.root.maxIndex() {
		return 0, v, false
	}
	i, v, ok := xa.findIn(xa.root, 0, uint64(from), uint64(max))
	return uint32(i), v, ok
}

func (xa *XArray[T]) findIn(n *node[T], base, from, max uint64) (uint64, T, bool) {
	xa.c.NodeVisits++
	off := (from - base) >> n.shift
	mask := n.used
	if n.leaf() {
		mask &^= n.resv
	}
	mask &= ^uint64(0) << off
	for mask != 0 {
		s := uint(bits.TrailingZeros64(mask))
		slotBase := base + uint64(s)<<n.shift
		if slotBase > max { // from <= max here, so nothing further is in range
			break
		}
		if n.leaf() {
			return slotBase, n.vals[s], true
		}
		start := from
		if slotBase > start {
			start = slotBase
		}
		if i, v, ok := xa.findIn(n.kids[s], slotBase, start, max); ok {
			if i > max {
				break
			}
			return i, v, true
		}
		mask &^= 1 << s
	}
	var zero T
	return 0, zero, false
}

// FindAfter returns the value with the lowest index in (index, max]
// (xa_find_after).
func (xa *XArray[T]) FindAfter(index, max uint32) (uint32, T, bool) {
	if index == math.MaxUint32 {
		var zero T
		return 0, zero, false
	}
	return xa.Find(index+1, max)
}

// All iterates over the values in index order (xa_for_each). The array may be
// changed during the iteration; the walk resumes after the last index seen.
func (xa *XArray[T]) All() iter.Seq2[uint32, T] {
	return func(yield func(uint32, T) bool) {
		i, v, ok := xa.Find(0, math.MaxUint32)
		for ok {
			if !yield(i, v) {
				return
			}
			i, v, ok = xa.FindAfter(i, math.MaxUint32)
		}
	}
}
