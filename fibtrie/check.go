package fibtrie

import "fmt"

// Check verifies the structural invariants of every trie and returns the
// first violation: parent pointers; child keys agree with their slot; tnode
// keys have no bits below pos+bits; full/empty counts; leaves hold a
// non-empty alias list ordered by (slen ascending, table descending) with
// matching keys and their slen is that of the last alias; walks come in
// strictly ascending key order; no tnode is childless. Tnode slen must be at
// least the largest suffix below (and pos); exactSlen demands equality,
// which holds only while no leaf has been removed by a delete. The device
// index holds exactly the aliases of the tries. Resize
// thresholds are not checked: a node off the changed path may legitimately
// be outside them (see pathThresholds in the tests).
func (f *FIB) Check(exactSlen bool) error {
	held := 0
	for _, tb := range f.trieTables() {
		if err := tb.t.check(exactSlen); err != nil {
			return fmt.Errorf("table %d: %w", tb.id, err)
		}
		var err error
		walkLeaves(tb.t.root(), func(l *node) bool {
			for _, fa := range l.leaf {
				if l := f.byOIF[fa.OIF]; int(fa.oifAt) >= len(l) || l[fa.oifAt] != fa || int(fa.at) >= len(f.all) || f.all[fa.at] != fa {
					err = fmt.Errorf("table %d: alias %s/%d not indexed by device", tb.id, FormatIP(fa.Dst), fa.Len)
					return false
				}
				held++
			}
			return true
		})
		if err != nil {
			return err
		}
	}
	indexed := 0
	for _, m := range f.byOIF {
		indexed += len(m)
	}
	if indexed != held || len(f.all) != held {
		return fmt.Errorf("%d aliases indexed by device, %d in the tries", indexed, held)
	}
	return nil
}

func (t *trie) check(exact bool) error {
	r := t.root()
	if r == nil {
		return nil
	}
	if r.parent != &t.kv {
		return fmt.Errorf("root parent is not the trie")
	}
	if _, err := checkNode(r, &t.kv, exact); err != nil {
		return err
	}
	var last uint32
	first := true
	var err error
	walkLeaves(r, func(l *node) bool {
		if !first && l.key <= last {
			err = fmt.Errorf("walk out of order: %s after %s", FormatIP(l.key), FormatIP(last))
			return false
		}
		first, last = false, l.key
		return true
	})
	return err
}

// checkNode returns the largest suffix found in n's subtree.
func checkNode(n, parent *node, exact bool) (uint8, error) {
	if n.parent != parent {
		return 0, fmt.Errorf("node %s/%d: wrong parent", FormatIP(n.key), n.pos)
	}
	if !parent.isTrie() {
		if i := getIndex(n.key, parent); i >= parent.childLength() || parent.child[i] != n {
			return 0, fmt.Errorf("node %s: not in its slot of parent %s", FormatIP(n.key), FormatIP(parent.key))
		}
		if uint(n.pos)+uint(n.bits) > uint(parent.pos) {
			return 0, fmt.Errorf("node %s: pos+bits above parent pos", FormatIP(n.key))
		}
	}
	if n.isLeaf() {
		if n.pos != 0 || len(n.leaf) == 0 {
			return 0, fmt.Errorf("leaf %s: pos %d, %d aliases", FormatIP(n.key), n.pos, len(n.leaf))
		}
		for i, fa := range n.leaf {
			if fa.Dst != n.key {
				return 0, fmt.Errorf("leaf %s holds %s", FormatIP(n.key), FormatIP(fa.Dst))
			}
			if i > 0 {
				p := n.leaf[i-1]
				if p.slen() > fa.slen() || (p.slen() == fa.slen() && p.Table < fa.Table) {
					return 0, fmt.Errorf("leaf %s: alias order", FormatIP(n.key))
				}
			}
		}
		if want := n.leaf[len(n.leaf)-1].slen(); n.slen != want {
			return 0, fmt.Errorf("leaf %s: slen %d want %d", FormatIP(n.key), n.slen, want)
		}
		return n.slen, nil
	}
	shift := uint(n.pos) + uint(n.bits)
	if shift < 32 && n.key<<(32-shift) != 0 {
		return 0, fmt.Errorf("tnode %s/%d: key bits below pos+bits", FormatIP(n.key), 32-shift)
	}
	if uint64(len(n.child)) != n.childLength() {
		return 0, fmt.Errorf("tnode %s: child array length", FormatIP(n.key))
	}
	var empty, full uint64
	slen := n.pos
	nw := occWords(n.bits)
	for i, ch := range n.child {
		if (ch != nil) != (n.occ[i>>6]>>(i&63)&1 != 0) {
			return 0, fmt.Errorf("tnode %s: occupancy bit of slot %d", FormatIP(n.key), i)
		}
		if sum := n.occ[nw:]; len(sum) > 0 && (n.occ[i>>6] != 0) != (sum[i>>12]>>(i>>6&63)&1 != 0) {
			return 0, fmt.Errorf("tnode %s: occupancy summary of word %d", FormatIP(n.key), i>>6)
		}
		if ch == nil {
			empty++
			continue
		}
		if tnodeFull(n, ch) {
			full++
		}
		s, err := checkNode(ch, n, exact)
		if err != nil {
			return 0, err
		}
		slen = max(slen, s)
	}
	if err := checkFlushState(n); err != nil {
		return 0, err
	}
	if empty != uint64(n.empty) || full != uint64(n.full) {
		return 0, fmt.Errorf("tnode %s/%d: empty %d/%d full %d/%d", FormatIP(n.key), 32-shift,
			n.empty, empty, n.full, full)
	}
	// The kernel keeps tnode slen an upper bound, not always exact: when a
	// leaf's last alias goes, fib_remove_alias pulls the suffix while the
	// leaf is still linked, so the parent can keep the old, larger slen.
	if n.slen < slen {
		return 0, fmt.Errorf("tnode %s/%d pos %d: slen %d below suffix %d under it", FormatIP(n.key), 32-shift, n.pos, n.slen, slen)
	}
	if exact && n.slen != slen {
		return 0, fmt.Errorf("tnode %s/%d pos %d: slen %d want %d", FormatIP(n.key), 32-shift, n.pos, n.slen, slen)
	}
	// Not "at least two": when inflate cascades into a full child whose
	// split leaves one half empty, the kernel keeps a one-child tnode (see
	// TestGoldenOneChildTnode, checked against Linux 6.18).
	if n.childLength() == uint64(n.empty) {
		return 0, fmt.Errorf("tnode %s: no children", FormatIP(n.key))
	}
	return slen, nil
}

// checkFlushState holds what a tnode records for the flush walks to its
// children: its sum is the counts of the children marked in agg, exactly
// those that say inSum, each a clean tnode or a leaf without dead aliases.
func checkFlushState(n *node) error {
	var sum flushCounts
	for i, ch := range n.child {
		marked := n.fl != nil && n.fl.agg[i>>6]>>(i&63)&1 != 0
		if ch == nil {
			if marked {
				return fmt.Errorf("tnode %s: empty slot %d summed", FormatIP(n.key), i)
			}
			continue
		}
		if marked != ch.inSum {
			return fmt.Errorf("tnode %s: slot %d summed %v, child says %v", FormatIP(n.key), i, marked, ch.inSum)
		}
		if !marked {
			continue
		}
		if !ch.isLeaf() && !ch.clean {
			return fmt.Errorf("tnode %s: slot %d summed but not clean", FormatIP(n.key), i)
		}
		for _, fa := range ch.leaf {
			if fa.Dead {
				return fmt.Errorf("tnode %s: slot %d summed with a dead alias", FormatIP(n.key), i)
			}
		}
		sum.add(ch.counts(), 1)
	}
	if n.fl != nil && sum != n.fl.sum {
		return fmt.Errorf("tnode %s: flush sum %+v, children %+v", FormatIP(n.key), n.fl.sum, sum)
	}
	return nil
}
