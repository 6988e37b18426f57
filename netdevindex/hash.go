package netdevindex

// Hash models dev_index_head: 256 bucket chains, new devices at the head
// of their chain, lookups walking the chain, dumps with a (bucket, position)
// cursor as rtnl_dump_ifinfo had before it moved onto the xarray. Used alone
// (without an xarray) it also allocates ifindexes as dev_new_index did before
// 6.5.

type hashEntry[D any] struct {
	ifindex uint32
	dev     D
	next    *hashEntry[D]
}

// Hash is the 256-bucket netdev index. The zero value is not usable; use
// NewHash.
type Hash[D any] struct {
	heads [HashEntries]*hashEntry[D]
	n     int
	last  uint32 // net->ifindex before 6.5: the last ifindex handed out
	seq   uint32
	steps uint64
}

// NewHash returns an empty hash index.
func NewHash[D any]() *Hash[D] { return &Hash[D]{seq: 1} }

// Kind reports KindHash.
func (h *Hash[D]) Kind() Kind { return KindHash }

// Len is the number of devices.
func (h *Hash[D]) Len() int { return h.n }

// Seq is dev_base_seq.
func (h *Hash[D]) Seq() uint32 { return h.seq }

// Steps is the number of chain entries visited by Lookup, NewIfindex and
// DumpChunk since the last ResetSteps.
func (h *Hash[D]) Steps() uint64 { return h.steps }

// ResetSteps clears the step counter.
func (h *Hash[D]) ResetSteps() { h.steps = 0 }

// find walks the bucket chain of ifindex. It returns the entry (nil when
// absent) and the number of chain entries visited.
func (h *Hash[D]) find(ifindex uint32) (*hashEntry[D], uint64) {
	var n uint64
	for e := h.heads[Bucket(ifindex)]; e != nil; e = e.next {
		n++
		if e.ifindex == ifindex {
			return e, n
		}
	}
	return nil, n
}

// Lookup is __dev_get_by_index: walk the bucket chain of ifindex.
func (h *Hash[D]) Lookup(ifindex uint32) (D, bool) {
	e, n := h.find(ifindex)
	h.steps += n
	if e == nil {
		var zero D
		return zero, false
	}
	return e.dev, true
}

// has is a lookup for preconditions: it counts no steps.
func (h *Hash[D]) has(ifindex uint32) bool {
	e, _ := h.find(ifindex)
	return e != nil
}

// NewIfindex is dev_new_index (before 6.5): the next ifindex after the last
// one handed out that no device uses, going back to 1 after INT_MAX.
// EBUSY when every ifindex is in use.
func (h *Hash[D]) NewIfindex() (uint32, error) {
	if h.n >= IfindexMax {
		return 0, errIfindexBusy
	}
	i := h.last
	for {
		i++
		if i > IfindexMax {
			i = 1
		}
		if _, ok := h.Lookup(i); !ok {
			h.last = i
			return i, nil
		}
	}
}

// List is the hash half of list_netdevice: put d at the head of its bucket
// chain (hlist_add_head_rcu). The caller guarantees ifindex is unused.
func (h *Hash[D]) List(ifindex uint32, d D) {
	b := Bucket(ifindex)
	h.heads[b] = &hashEntry[D]{ifindex: ifindex, dev: d, next: h.heads[b]}
	h.n++
	h.seq = nextDevBaseSeq(h.seq)
}

// Unlist is the hash half of unlist_netdevice (hlist_del_rcu). The kernel
// unlinks in O(1) through the device's own node, so no steps are counted.
func (h *Hash[D]) Unlist(ifindex uint32) (D, bool) {
	b := Bucket(ifindex)
	for p := &h.heads[b]; *p != nil; p = &(*p).next {
		if (*p).ifindex == ifindex {
			e := *p
			*p = e.next
			h.n--
			h.seq = nextDevBaseSeq(h.seq)
			return e.dev, true
		}
	}
	var zero D
	return zero, false
}

// reserve is the ifindex step of register_netdevice before 6.5: ifindex 0
// takes NewIfindex (dev_new_index); an explicit ifindex is refused above
// IfindexMax (EINVAL) or when a device has it (EEXIST, as rtnl_newlink
// reports it). Nothing is held until List.
func (h *Hash[D]) reserve(ifindex uint32) (uint32, error) {
	switch {
	case ifindex > IfindexMax:
		return 0, errIfindexInvalid
	case ifindex == 0:
		return h.NewIfindex()
	case h.has(ifindex):
		return 0, errIfindexExist
	}
	return ifindex, nil
}

// Add registers d at ifindex, or at NewIfindex() when ifindex is 0.
func (h *Hash[D]) Add(ifindex uint32, d D) (uint32, error) {
	id, err := h.reserve(ifindex)
	if err != nil {
		return 0, err
	}
	h.List(id, d)
	return id, nil
}

// Del unregisters the device at ifindex.
func (h *Hash[D]) Del(ifindex uint32) (D, bool) { return h.Unlist(ifindex) }

// DumpChunk walks buckets from c.Bucket; in the first bucket it skips the
// first c.Pos chain entries, in later ones none. Every chain entry, filtered
// or not, advances the position. The chunk ends at the first device that
// does not fit, and the cursor points at it.
func (h *Hash[D]) DumpChunk(c Cursor, k int, filter func(D) bool) ([]Entry[D], Cursor, bool) {
	if k < 1 {
		k = 1
	}
	var out []Entry[D]
	sIdx := c.Pos
	for b := c.Bucket; b < HashEntries; b, sIdx = b+1, 0 {
		idx := 0
		for e := h.heads[b]; e != nil; e, idx = e.next, idx+1 {
			h.steps++
			if filter != nil && !filter(e.dev) {
				continue
			}
			if idx < sIdx {
				continue
			}
			if len(out) == k {
				return out, Cursor{Bucket: b, Pos: idx}, false
			}
			out = append(out, Entry[D]{e.ifindex, e.dev})
		}
	}
	return out, Cursor{Bucket: HashEntries}, true
}

// Chain returns the ifindexes of bucket b in chain order (for tests and
// explanations).
func (h *Hash[D]) Chain(b int) []uint32 {
	var out []uint32
	for e := h.heads[b]; e != nil; e = e.next {
		out = append(out, e.ifindex)
	}
	return out
}
