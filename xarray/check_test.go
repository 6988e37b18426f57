package xarray

import (
	"fmt"
	"math/bits"
)

// checkInvariants verifies the structure of the tree: counts, bitmaps, parent
// links, shifts, the full (no free index) bits, the node and value totals,
// and that an interior root was shrunk when it had only slot 0.
func (xa *XArray[T]) checkInvariants() error {
	switch xa.kind {
	case headEmpty, headValue, headReserved:
		if xa.root != nil {
			return fmt.Errorf("head kind %d with a root node", xa.kind)
		}
		if xa.nodes != 0 {
			return fmt.Errorf("no root but %d nodes", xa.nodes)
		}
		want := 0
		if xa.kind == headValue {
			want = 1
		}
		if xa.values != want {
			return fmt.Errorf("values=%d, want %d", xa.values, want)
		}
		if xa.kind == headReserved && xa.zeroBusy() {
			return fmt.Errorf("zero-busy array with a reserved head")
		}
		return nil
	}
	r := xa.root
	if r == nil || r.parent != nil {
		return fmt.Errorf("bad root")
	}
	if !r.leaf() && r.count == 1 && r.used&1 != 0 {
		return fmt.Errorf("interior root with only slot 0 was not shrunk")
	}
	nodes, values := 0, 0
	var walk func(n *node[T]) error
	walk = func(n *node[T]) error {
		nodes++
		if int(n.count) != bits.OnesCount64(n.used) {
			return fmt.Errorf("node shift %d: count %d, used bits %d", n.shift, n.count, bits.OnesCount64(n.used))
		}
		if n != r && n.count == 0 {
			return fmt.Errorf("empty non-root node")
		}
		if n.leaf() {
			if n.resv&^n.used != 0 {
				return fmt.Errorf("reserved bit on an empty slot")
			}
			if n.kids != nil || n.vals == nil || n.full != 0 {
				return fmt.Errorf("leaf with interior fields")
			}
			values += bits.OnesCount64(n.used &^ n.resv)
			return nil
		}
		if n.resv != 0 || n.vals != nil {
			return fmt.Errorf("interior node with leaf fields")
		}
		if n.full&^n.used != 0 {
			return fmt.Errorf("full bit on an empty slot")
		}
		for s := 0; s < ChunkSize; s++ {
			bit := uint64(1) << s
			k := n.kids[s]
			if (k != nil) != (n.used&bit != 0) {
				return fmt.Errorf("slot %d: child %v, used %v", s, k != nil, n.used&bit != 0)
			}
			if k == nil {
				continue
			}
			if k.parent != n || int(k.offset) != s || k.shift+ChunkShift != n.shift {
				return fmt.Errorf("slot %d: bad child links", s)
			}
			if (k.freeMask() == 0) != (n.full&bit != 0) {
				return fmt.Errorf("slot %d: full bit %v, child full %v", s, n.full&bit != 0, k.freeMask() == 0)
			}
			if err := walk(k); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(r); err != nil {
		return err
	}
	if nodes != xa.nodes {
		return fmt.Errorf("nodes=%d, counted %d", xa.nodes, nodes)
	}
	if values != xa.values {
		return fmt.Errorf("values=%d, counted %d", xa.values, values)
	}
	return nil
}

// minHeight is the height the kernel's expand/shrink leave for a largest
// occupied index m (m > 0).
func minHeight(m uint64) int {
	h := 1
	for m >= uint64(1)<<(ChunkShift*h) {
		h++
	}
	return h
}
