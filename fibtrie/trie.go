package fibtrie

import (
	"math/bits"

	"github.com/rtnlsim/rtnlsim/uapi"
)

const keyLength = 32

// Resize thresholds in percent and the per-resize work bound, as in fib_trie.c.
const (
	halveThreshold       = 25
	inflateThreshold     = 50
	halveThresholdRoot   = 15
	inflateThresholdRoot = 30
	maxWork              = 10
	// syncMem is the default sysctl_fib_sync_mem: after this many bytes of
	// freed tnodes the kernel calls synchronize_net().
	syncMem = 512 * 1024
)

// node is the kernel's key_vector plus its tnode header. A leaf has bits == 0
// and holds aliases; a tnode has bits > 0 and 1<<bits children. The trie's
// own anchor is a node with pos == 32 (IS_TRIE) and a single child slot.
type node struct {
	key    uint32
	pos    uint8
	bits   uint8
	slen   uint8
	parent *node
	child  []*node
	// 32 bits each, as the kernel's full_children and empty_children
	// (and a node of 144 bytes)
	full  uint32 // children that are tnodes with no skipped bits
	empty uint32 // nil children
	leaf  []*Alias
	// occ marks the slots that hold a child, one bit each, then (for more
	// than 64 slots) one bit per nonzero word of those: update_suffix's
	// scan jumps over empty slots instead of reading each, and counts
	// them all the same.
	occ []uint64
	// clean: the last fib_table_flush of a dead-nexthop sweep found
	// nothing to do below this tnode, and nothing changed here since
	// (a clean tnode's subtree is all clean). inSum: this node's counts
	// are in its parent's flushState.sum (it is clean, or a leaf without
	// dead aliases that has not changed since).
	clean, inSum bool
	fl           *flushState
	// A 1-bit tnode's children, a small tnode's occupancy word and a
	// leaf's first alias live here, which saves a tree of a hundred
	// thousand routes most of its allocations.
	pair [2]*node
	occ1 [1]uint64
	one  [1]*Alias
}

// flushState is what fib_table_flush's walks left recorded in a tnode:
// own, what a walk of the tnode counts while it is clean, and sum, the
// counts of the children marked in agg, which a walk adds instead of
// visiting them.
type flushState struct {
	own, sum flushCounts
	agg      []uint64
}

// flushCounts is the work fib_table_flush does under a node that it
// leaves as it was.
type flushCounts struct {
	leaves, suffixCalls, suffixVisits, resizes uint64
}

func (c *flushCounts) add(o flushCounts, sign uint64) {
	c.leaves += sign * o.leaves
	c.suffixCalls += sign * o.suffixCalls
	c.suffixVisits += sign * o.suffixVisits
	c.resizes += sign * o.resizes
}

// counts is what a walk of the clean node n counts.
func (n *node) counts() flushCounts {
	if n.isLeaf() {
		return flushCounts{leaves: 1}
	}
	return n.fl.own
}

// aggregate puts the counts of tp's child n at slot i in tp's sum.
func aggregate(tp *node, i uint64, n *node) {
	if tp.fl == nil {
		tp.fl = &flushState{agg: make([]uint64, occWords(tp.bits))}
	}
	tp.fl.sum.add(n.counts(), 1)
	tp.fl.agg[i>>6] |= 1 << (i & 63)
	n.inSum = true
}

// unaggregate takes n's counts out of its parent's sum.
func unaggregate(n *node) {
	n.inSum = false
	tp := n.parent
	if tp == nil || tp.isTrie() || tp.fl == nil {
		return
	}
	i := getIndex(n.key, tp)
	tp.fl.sum.add(n.counts(), ^uint64(0)) // subtracts
	tp.fl.agg[i>>6] &^= 1 << (i & 63)
}

// touch marks tn and the tnodes above it as changed: a flush must walk
// them again.
func touch(tn *node) {
	for ; tn != nil && tn.clean; tn = tn.parent {
		tn.clean = false
		if tn.inSum {
			unaggregate(tn)
		}
	}
}

// touchLeaf marks leaf l changed (its aliases, or one of them dead).
func touchLeaf(l *node) {
	if l.inSum {
		unaggregate(l)
	}
	touch(l.parent)
}

func (n *node) isTrie() bool { return n.pos >= keyLength }
func (n *node) isLeaf() bool { return n.bits == 0 }

// childLength is 1<<bits for tnodes and 0 for leaves and the trie anchor.
func (n *node) childLength() uint64 { return (uint64(1) << n.bits) &^ 1 }

// getIndex gives the child slot of key in kv; 0 for the trie anchor because
// a 32-bit value shifted by 32 is 0 in 64-bit arithmetic, as in the kernel.
func getIndex(key uint32, kv *node) uint64 { return uint64(key^kv.key) >> kv.pos }

// trie is one LC-trie (one struct trie). Several tables may share one (the
// merged local/main case).
type trie struct {
	kv  node
	fib *FIB
	// chain is inflate's list of the nodes it frees, kept between calls
	// so that an inflate does not allocate one (replace frees them
	// before it resizes further, so nested inflates may reuse it).
	chain []*node
}

func newTrie(f *FIB) *trie {
	t := &trie{fib: f}
	t.kv.pos = keyLength
	t.kv.slen = keyLength
	t.kv.child = make([]*node, 1)
	return t
}

func (t *trie) root() *node { return t.kv.child[0] }

func (t *trie) c() *Counters { return &t.fib.counters }

// tnodeSize is TNODE_SIZE(n) on x86_64: the 40-byte header the kernel
// prints as "size of tnode" plus one 8-byte pointer per child.
func tnodeSize(children uint64) uint64 { return 40 + 8*children }

func (t *trie) leafNew(key uint32, fa *Alias) *node {
	t.c().LeafAllocs++
	l := t.fib.reuse(0)
	if l == nil {
		l = &node{}
	}
	l.key, l.slen = key, fa.slen()
	l.one[0] = fa
	l.leaf = l.one[:]
	return l
}

func (t *trie) tnodeNew(key uint32, pos, nbits uint8) *node {
	t.c().TnodeAllocs++
	shift := uint(pos) + uint(nbits)
	n := t.fib.reuse(nbits)
	if n == nil {
		n = &node{}
		if nbits > 1 {
			n.child = make([]*node, 1<<nbits)
		}
		if words := occWords(nbits); words > 1 {
			n.occ = make([]uint64, words+(words+63)/64)
		}
	}
	n.pos, n.bits, n.slen = pos, nbits, pos
	if nbits == 1 {
		n.child = n.pair[:]
	}
	if occWords(nbits) == 1 {
		n.occ = n.occ1[:]
	}
	if shift < keyLength {
		n.key = key >> shift << shift
	}
	n.empty = uint32(1) << nbits
	return n
}

// tnodeFull: n is a tnode that skips no bits below tn, so inflating tn
// would absorb it.
func tnodeFull(tn, n *node) bool {
	return n != nil && uint(n.pos)+uint(n.bits) == uint(tn.pos) && !n.isLeaf()
}

// putChild stores n at slot i and keeps the empty/full counts and the
// node's suffix length current.
func putChild(tn *node, i uint64, n *node) {
	chi := tn.child[i]
	if chi != nil && chi.inSum {
		unaggregate(chi)
	}
	if n != nil && n.inSum {
		unaggregate(n) // from the parent it leaves
	}
	if n == nil && chi != nil {
		tn.empty++
	}
	if n != nil && chi == nil {
		tn.empty--
	}
	wasfull, isfull := tnodeFull(tn, chi), tnodeFull(tn, n)
	if wasfull && !isfull {
		tn.full--
	} else if !wasfull && isfull {
		tn.full++
	}
	if n != nil && tn.slen < n.slen {
		tn.slen = n.slen
	}
	tn.child[i] = n
	touch(tn)
	w, b := i>>6, uint64(1)<<(i&63)
	sum := tn.occ[occWords(tn.bits):]
	if n != nil {
		tn.occ[w] |= b
		if len(sum) > 0 {
			sum[w>>6] |= 1 << (w & 63)
		}
	} else if tn.occ[w] &^= b; tn.occ[w] == 0 && len(sum) > 0 {
		sum[w>>6] &^= 1 << (w & 63)
	}
}

// putFresh is putChild into an empty slot of a tnode that inflate or
// halve has just made (not clean, no flush state), without the checks
// that cannot apply there, and it repoints n's parent (the kernel's
// update_children, done as the node fills). A nil n leaves the slot
// empty.
func putFresh(tn *node, i uint64, n *node) {
	if n == nil {
		return
	}
	if n.inSum {
		unaggregate(n) // from the parent it leaves
	}
	tn.empty--
	if tnodeFull(tn, n) {
		tn.full++
	}
	if tn.slen < n.slen {
		tn.slen = n.slen
	}
	tn.child[i] = n
	n.parent = tn // a new intermediate's children get theirs as it fills
	w := i >> 6
	tn.occ[w] |= 1 << (i & 63)
	if sum := tn.occ[occWords(tn.bits):]; len(sum) > 0 {
		sum[w>>6] |= 1 << (w & 63)
	}
}

// occWords is the number of 64-slot words of a tnode of nbits.
func occWords(nbits uint8) uint64 { return (uint64(1)<<nbits + 63) / 64 }

// strideMask has the bits of a word at multiples of stride (2 to 32).
var strideMask = func() (m [64]uint64) {
	for s := 1; s < 64; s <<= 1 {
		for b := 0; b < 64; b += s {
			m[s] |= 1 << b
		}
	}
	return m
}()

// prevChild is the last slot below i (1 to childLength) that holds a
// child not marked in skip (nil or one bit per slot), and whether there
// is one.
func (tn *node) prevChild(i uint64, skip []uint64) (uint64, bool) {
	nw := occWords(tn.bits)
	sum := tn.occ[nw:]
	word := func(w uint64) uint64 {
		if skip == nil {
			return tn.occ[w]
		}
		return tn.occ[w] &^ skip[w]
	}
	j := i - 1
	w := j >> 6
	word0 := word(w) & (^uint64(0) >> (63 - j&63))
	for word0 == 0 {
		if w == 0 {
			return 0, false
		}
		w--
		if len(sum) > 0 {
			// the previous nonzero word, from the summary bits
			sw := w >> 6
			s := sum[sw] & (^uint64(0) >> (63 - w&63))
			for s == 0 {
				if sw == 0 {
					return 0, false
				}
				sw--
				s = sum[sw]
			}
			w = sw<<6 + 63 - uint64(bits.LeadingZeros64(s))
		}
		word0 = word(w)
	}
	return w<<6 + 63 - uint64(bits.LeadingZeros64(word0)), true
}

// nextChild is the first slot at or after i (a multiple of stride, a
// power of two) that is a multiple of stride and holds a child, or
// childLength when there is none.
func (tn *node) nextChild(i, stride uint64) uint64 {
	cl := tn.childLength()
	if stride >= 64 {
		for ; i < cl; i += stride {
			if tn.occ[i>>6]&1 != 0 {
				return i
			}
		}
		return cl
	}
	nw := occWords(tn.bits)
	sum := tn.occ[nw:]
	mask := strideMask[stride]
	w := i >> 6
	word := tn.occ[w] & mask &^ (uint64(1)<<(i&63) - 1)
	for word == 0 {
		w++
		if w >= nw {
			return cl
		}
		if len(sum) > 0 {
			// the next nonzero word, from the summary bits
			sw := w >> 6
			s := sum[sw] &^ (uint64(1)<<(w&63) - 1)
			for s == 0 {
				sw++
				if sw >= uint64(len(sum)) {
					return cl
				}
				s = sum[sw]
			}
			w = sw<<6 + uint64(bits.TrailingZeros64(s))
		}
		word = tn.occ[w] & mask
	}
	return min(cl, w<<6+uint64(bits.TrailingZeros64(word)))
}

func putChildRoot(tp *node, key uint32, n *node) {
	if tp.isTrie() {
		if n != nil && n.inSum {
			unaggregate(n)
		}
		tp.child[0] = n
		return
	}
	putChild(tp, getIndex(key, tp), n)
}

// tnodeFree frees a rebuilt tnode and the full children it absorbed,
// accounting bytes towards the synchronize_net() threshold.
func (t *trie) tnodeFree(chain []*node) {
	c := t.c()
	for _, n := range chain {
		t.fib.freeSize += tnodeSize(uint64(1) << n.bits)
		c.TnodeFrees++
		t.fib.retire(n)
	}
	if t.fib.freeSize >= syncMem {
		t.fib.freeSize = 0
		c.SynchronizeNet++
	}
}

func (t *trie) replace(old, tn *node, chain []*node) *node {
	tp := old.parent
	tn.parent = tp
	putChildRoot(tp, tn.key, tn)
	t.tnodeFree(chain)
	// children that are full may now themselves need resizing
	for i := tn.childLength(); i > 0; {
		i--
		in := tn.child[i]
		if tnodeFull(tn, in) {
			tn = t.resize(in)
		}
	}
	return tp
}

func (t *trie) inflate(old *node) *node {
	t.c().Inflates++
	tn := t.tnodeNew(old.key, old.pos-1, old.bits+1)
	chain := append(t.chain[:0], old)
	m := uint32(1) << tn.pos
	for i := old.childLength(); i > 0; {
		i--
		in := old.child[i]
		if in == nil {
			continue
		}
		if !tnodeFull(old, in) {
			putFresh(tn, getIndex(in.key, tn), in)
			continue
		}
		chain = append(chain, in)
		if in.bits == 1 {
			putFresh(tn, 2*i+1, in.child[1])
			putFresh(tn, 2*i, in.child[0])
			continue
		}
		// split a full child in two, one bit further down
		node1 := t.tnodeNew(in.key|m, in.pos, in.bits-1)
		node0 := t.tnodeNew(in.key, in.pos, in.bits-1)
		for k, j := in.childLength(), in.childLength()/2; j > 0; {
			k--
			j--
			putFresh(node1, j, in.child[k])
			putFresh(node0, j, in.child[j])
			k--
			j--
			putFresh(node1, j, in.child[k])
			putFresh(node0, j, in.child[j])
		}
		node1.parent = tn
		node0.parent = tn
		putFresh(tn, 2*i+1, node1)
		putFresh(tn, 2*i, node0)
	}
	t.chain = chain
	return t.replace(old, tn, chain)
}

func (t *trie) halve(old *node) *node {
	t.c().Halves++
	tn := t.tnodeNew(old.key, old.pos+1, old.bits-1)
	for i := old.childLength(); i > 0; {
		i--
		node1 := old.child[i]
		i--
		node0 := old.child[i]
		if node1 == nil || node0 == nil {
			n := node1
			if n == nil {
				n = node0
			}
			putFresh(tn, i/2, n)
			continue
		}
		in := t.tnodeNew(node0.key, old.pos, 1)
		putFresh(in, 1, node1)
		putFresh(in, 0, node0)
		in.parent = tn
		putFresh(tn, i/2, in)
	}
	return t.replace(old, tn, []*node{old})
}

func (t *trie) collapse(old *node) *node {
	t.c().Collapses++
	var n *node
	for i := old.childLength(); n == nil && i > 0; {
		i--
		n = old.child[i]
	}
	tp := old.parent
	putChildRoot(tp, old.key, n)
	if n != nil {
		n.parent = tp
	}
	t.c().TnodeFrees++
	t.fib.retire(old)
	return tp
}

// updateSuffix recomputes tn.slen from its children. Slot i can only hold a
// suffix longer than pos if i has trailing zero bits, so the scan strides
// over slots that cannot raise the maximum.
func (t *trie) updateSuffix(tn *node) uint8 {
	c := t.c()
	c.UpdateSuffixCalls++
	slen := tn.pos
	// Only slot 0 can hold a suffix of pos+bits or more. 6.18 also stops at
	// the node's current slen, which no child can exceed; the 4.0-era rule
	// stops only at the last index bit.
	top := tn.pos + tn.bits - 1
	stop := min(top, tn.slen)
	if t.fib.opts.LegacyUpdateSuffix {
		stop = top
	}
	cl := tn.childLength()
	// The kernel reads every stride-th slot; the empty ones are counted
	// in one step.
	for i, stride := uint64(0), uint64(2); i < cl; i += stride {
		j := i
		if tn.child[i] == nil {
			j = tn.nextChild(i, stride)
		}
		if j >= cl {
			c.UpdateSuffixVisits += (cl - i + stride - 1) / stride
			break
		}
		c.UpdateSuffixVisits += (j-i)/stride + 1
		i = j
		n := tn.child[i]
		if n.slen <= slen {
			continue
		}
		stride <<= n.slen - slen
		slen = n.slen
		i &^= stride - 1
		if slen >= stop {
			break
		}
	}
	tn.slen = slen
	return slen
}

func shouldInflate(tp, tn *node) bool {
	used := tn.childLength()
	threshold := used * inflateThreshold
	if tp.isTrie() {
		threshold = used * inflateThresholdRoot
	}
	used -= uint64(tn.empty)
	used += uint64(tn.full)
	return used > 1 && tn.pos != 0 && 50*used >= threshold
}

func shouldHalve(tp, tn *node) bool {
	used := tn.childLength()
	threshold := used * halveThreshold
	if tp.isTrie() {
		threshold = used * halveThresholdRoot
	}
	used -= uint64(tn.empty)
	return used > 1 && tn.bits > 1 && 100*used < threshold
}

func shouldCollapse(tn *node) bool {
	return tn.childLength()-uint64(tn.empty) < 2
}

// resize inflates or halves tn until the thresholds hold (at most maxWork
// steps), collapses it when one child is left, and returns the parent.
func (t *trie) resize(tn *node) *node {
	c := t.c()
	c.ResizeCalls++
	tp := tn.parent
	cindex := getIndex(tn.key, tp)
	work := maxWork
	for shouldInflate(tp, tn) && work > 0 {
		tp = t.inflate(tn)
		c.ResizeSteps++
		work--
		tn = tp.child[cindex]
	}
	tp = tn.parent
	if work != maxWork {
		if work == 0 {
			c.MaxWorkHits++
		}
		return tp
	}
	for shouldHalve(tp, tn) && work > 0 {
		tp = t.halve(tn)
		c.ResizeSteps++
		work--
		tn = tp.child[cindex]
	}
	if work == 0 {
		c.MaxWorkHits++
	}
	if shouldCollapse(tn) {
		c.ResizeSteps++
		return t.collapse(tn)
	}
	return tn.parent
}

// nodePullSuffix lowers slen up the tree after a long suffix went away.
func (t *trie) nodePullSuffix(tn *node, slen uint8) {
	nodeSlen := tn.slen
	for nodeSlen > tn.pos && nodeSlen > slen {
		slen = t.updateSuffix(tn)
		if nodeSlen == slen {
			break
		}
		tn = tn.parent
		nodeSlen = tn.slen
	}
}

func nodePushSuffix(tn *node, slen uint8) {
	for tn.slen < slen {
		tn.slen = slen
		tn = tn.parent
	}
}

// leafPullSuffix is the 4.2-era helper that fib_table_flush called for
// every surviving leaf in 4.2-rc3.
func (t *trie) leafPullSuffix(tp, l *node) {
	for tp.slen > tp.pos && tp.slen > l.slen {
		if t.updateSuffix(tp) > l.slen {
			break
		}
		tp = tp.parent
	}
}

func (t *trie) rebalance(tn *node) {
	for !tn.isTrie() {
		tn = t.resize(tn)
	}
}

// findNode returns the leaf holding exactly key (or nil) and the tnode where
// the search ended.
func (t *trie) findNode(key uint32) (l, tp *node) {
	n := &t.kv
	var index uint64
	for {
		tp = n
		n = tp.child[index]
		if n == nil {
			return nil, tp
		}
		index = uint64(key^n.key) >> n.pos
		if index >= uint64(1)<<n.bits {
			return nil, tp
		}
		if n.isLeaf() {
			return n, tp
		}
	}
}

// findAlias returns the index of the first alias of the (slen, table)
// section whose tos is <= tos and whose priority is >= prio (or whose tos is
// lower), i.e. the position a new alias goes before; -1 if none. It is
// fib_find_alias with find_first false, the only way insert and delete
// call it.
func findAlias(fah []*Alias, slen, tos uint8, prio uint32, tb uint32) int {
	for i, fa := range fah {
		s := fa.slen()
		if s < slen {
			continue
		}
		if s != slen {
			break
		}
		if fa.Table > tb {
			continue
		}
		if fa.Table != tb {
			break
		}
		if fa.TOS > tos {
			continue
		}
		if fa.Priority >= prio || fa.TOS < tos {
			return i
		}
	}
	return -1
}

func insertAt(s []*Alias, i int, a *Alias) []*Alias {
	s = append(s, nil)
	copy(s[i+1:], s[i:])
	s[i] = a
	return s
}

// insert is fib_table_insert for table r.Table of this trie. changed is
// false when it succeeds without changing anything (a replace that finds
// the route already first in its run), which the kernel does not notify.
func (t *trie) insert(r *Route, flags Flags) (changed bool, err error) {
	c := t.c()
	key := r.Dst
	slen := uint8(keyLength - r.Len)
	l, tp := t.findNode(key)
	at := -1
	if l != nil {
		at = findAlias(l.leaf, slen, r.TOS, r.Priority, r.Table)
	}
	if at >= 0 && l.leaf[at].TOS == r.TOS && l.leaf[at].Priority == r.Priority {
		if flags&FlagExcl != 0 {
			return false, uapi.EEXIST
		}
		first, match := at, -1
		j := at
		for ; j < len(l.leaf); j++ {
			fa := l.leaf[j]
			if fa.slen() != slen || fa.Table != r.Table || fa.TOS != r.TOS || fa.Priority != r.Priority {
				break
			}
			if sameInfo(fa, r) {
				match = j
				break
			}
		}
		if flags&FlagReplace != 0 {
			if match >= 0 {
				if match == first {
					return false, nil
				}
				return false, uapi.EEXIST
			}
			// swap in the new alias at the first position of the run
			c.AliasAllocs++
			c.AliasFrees++
			t.fib.unlinkAlias(l.leaf[first])
			touchLeaf(l)
			l.leaf[first] = &Alias{Route: *r}
			l.leaf[first].cloneExtra()
			t.fib.linkAlias(l.leaf[first])
			return true, nil
		}
		if match >= 0 {
			return false, uapi.EEXIST
		}
		if flags&FlagAppend != 0 {
			if j >= len(l.leaf) {
				at = -1
			} else {
				at = j
			}
		} else {
			at = first
		}
	}
	if flags&FlagCreate == 0 {
		return false, uapi.ENOENT
	}
	c.AliasAllocs++
	fa := &Alias{Route: *r}
	fa.cloneExtra()
	t.fib.linkAlias(fa)
	t.insertAlias(tp, l, fa, at, key)
	return true, nil
}

func (t *trie) insertAlias(tp, l *node, fa *Alias, at int, key uint32) {
	if l == nil {
		t.insertNode(tp, fa, key)
		return
	}
	touchLeaf(l)
	if at >= 0 {
		l.leaf = insertAt(l.leaf, at, fa)
	} else {
		// tail of the alias's (slen, table) section
		last := -1
		for i, a := range l.leaf {
			if fa.slen() < a.slen() || (fa.slen() == a.slen() && fa.Table > a.Table) {
				break
			}
			last = i
		}
		l.leaf = insertAt(l.leaf, last+1, fa)
	}
	if l.slen < fa.slen() {
		l.slen = fa.slen()
		nodePushSuffix(tp, fa.slen())
	}
}

func (t *trie) insertNode(tp *node, fa *Alias, key uint32) {
	l := t.leafNew(key, fa)
	if n := tp.child[getIndex(key, tp)]; n != nil {
		// key and n diverge at their highest differing bit: a 1-bit tnode
		// there holds both
		tn := t.tnodeNew(key, uint8(31-bits.LeadingZeros32(key^n.key)), 1)
		tn.parent = tp
		putChild(tn, getIndex(key, tn)^1, n)
		putChildRoot(tp, key, tn)
		n.parent = tn
		tp = tn
	}
	nodePushSuffix(tp, fa.slen())
	l.parent = tp
	putChildRoot(tp, key, l)
	t.rebalance(tp)
}

func (t *trie) removeAlias(tp, l *node, i int) {
	t.c().AliasFrees++
	t.fib.unlinkAlias(l.leaf[i])
	touchLeaf(l)
	l.leaf = append(l.leaf[:i], l.leaf[i+1:]...)
	if len(l.leaf) == 0 {
		if tp.slen == l.slen {
			t.nodePullSuffix(tp, tp.pos)
		}
		putChildRoot(tp, l.key, nil)
		t.c().LeafFrees++
		t.fib.retire(l)
		t.rebalance(tp)
		return
	}
	if i < len(l.leaf) {
		return // not the tail: the leaf's longest suffix is unchanged
	}
	l.slen = l.leaf[i-1].slen()
	t.nodePullSuffix(tp, l.slen)
}

// delete is fib_table_delete. Zero fields of r (and ScopeAny) match
// anything; its realms count only with a device or a gateway
// (fib_nh_match), its metrics only when given (metricsMatch). It
// returns the alias it removed.
func (t *trie) delete(r *Route) (*Alias, error) {
	key := r.Dst
	slen := uint8(keyLength - r.Len)
	l, tp := t.findNode(key)
	if l == nil {
		return nil, uapi.ESRCH
	}
	at := findAlias(l.leaf, slen, r.TOS, 0, r.Table)
	if at < 0 {
		return nil, uapi.ESRCH
	}
	for j := at; j < len(l.leaf); j++ {
		fa := l.leaf[j]
		if fa.slen() != slen || fa.Table != r.Table || fa.TOS != r.TOS {
			break
		}
		if (r.Type == TypeUnspec || fa.Type == r.Type) &&
			(r.Scope == ScopeAny || fa.Scope == r.Scope) &&
			(r.PrefSrc == 0 || fa.PrefSrc == r.PrefSrc) &&
			(r.Protocol == 0 || fa.Protocol == r.Protocol) &&
			(r.Priority == 0 || fa.Priority == r.Priority) &&
			nhIDMatch(&fa.Route, r) &&
			(r.OIF == 0 || fa.OIF == r.OIF) &&
			(!r.HasGateway() || sameGateway(fa.Gateway, fa.Gateway6(), r.Gateway, r.Gateway6())) &&
			(r.Realms() == 0 || (r.OIF == 0 && !r.HasGateway()) || fa.Realms() == r.Realms()) &&
			(r.Nexthops() == nil || r.OIF != 0 || r.HasGateway() || nexthopsMatch(&fa.Route, r.Nexthops())) &&
			metricsMatch(&fa.Route, r) {
			t.removeAlias(tp, l, j)
			return fa, nil
		}
	}
	return nil, uapi.ESRCH
}

// nhIDMatch is fib_nh_match's part for nexthop objects: a request with
// RTA_NH_ID matches only a route using that nexthop; a route using one
// is matched only by a request without a device, gateway or nexthop
// list.
func nhIDMatch(fa, r *Route) bool {
	if id := r.NhID(); id != 0 {
		return fa.NhID() == id
	}
	return fa.NhID() == 0 || (r.OIF == 0 && !r.HasGateway() && r.Nexthops() == nil)
}

// metricsMatch is fib_metrics_match: the metrics a delete request
// carries must each equal the route's (the MTU as sent, so one the
// kernel clamped does not match; RTAX_LOCK as a whole).
func metricsMatch(fa, r *Route) bool {
	if r.Extra == nil {
		return true
	}
	mtu, lock := fa.MTU()
	return (!r.Extra.MTUGiven || mtu == r.Extra.MTU) && (!r.Extra.MTULock || lock)
}

// nexthopsMatch is fib_nh_match for a request with RTA_MULTIPATH and
// no top-level device or gateway: the route's nexthops in order, each
// against the request's entry of the same place, whose device and
// gateway are compared when given (weight and flags never are). A
// request with fewer entries than the route does not match; extra
// entries are not looked at.
func nexthopsMatch(fa *Route, req []Nexthop) bool {
	nhs := fa.Nexthops()
	if nhs == nil {
		nhs = []Nexthop{{Gateway: fa.Gateway, Gateway6: fa.Gateway6(), OIF: fa.OIF}}
	}
	if len(req) < len(nhs) {
		return false
	}
	for i := range nhs {
		if req[i].OIF != 0 && req[i].OIF != nhs[i].OIF {
			return false
		}
		switch {
		case req[i].Gateway6.IsValid():
			// RTA_VIA is compared only with a nexthop that has a
			// gateway: one without matches any.
			if (nhs[i].Gateway != 0 || nhs[i].Gateway6.IsValid()) && nhs[i].Gateway6 != req[i].Gateway6 {
				return false
			}
		case req[i].Gateway != 0 && !sameGateway(req[i].Gateway, req[i].Gateway6, nhs[i].Gateway, nhs[i].Gateway6):
			return false
		}
	}
	return true
}

func prefixMismatch(key uint32, n *node) uint32 {
	p := n.key
	return (key ^ p) & (p | -p)
}

// lookupFlow is fib_table_lookup: descend to the longest candidate, then
// backtrack by clearing the lowest set bit of the child index, one level
// at a time, until a leaf alias covers fl.Dst. Aliases with a tos match
// only that tos; aliases of a scope narrower than fl.Scope are passed over
// before the error-type check; error types are returned (the caller
// rejects); dead aliases, and with fl.OIF those through another device
// (fib_lookup_good_nhc), are passed over after it.
func (t *trie) lookupFlow(fl Flow) *Alias {
	key, tos := fl.Dst, fl.TOS
	c := t.c()
	c.Lookups++
	pn := &t.kv
	var cindex uint64
	n := pn.child[0]
	if n == nil {
		return nil
	}
	const (
		descend = iota
		check
		backtrace
		found
	)
	st := descend
	for {
		switch st {
		case descend:
			c.LookupVisits++
			index := uint64(key^n.key) >> n.pos
			if index >= uint64(1)<<n.bits {
				st = check
				continue
			}
			if n.isLeaf() {
				st = found
				continue
			}
			// only nodes holding shorter prefixes are worth returning to
			if n.slen > n.pos {
				pn, cindex = n, index
			}
			n = n.child[index]
			if n == nil {
				st = backtrace
			}
		case check:
			if prefixMismatch(key, n) != 0 || n.slen == n.pos {
				st = backtrace
				continue
			}
			if n.isLeaf() {
				st = found
				continue
			}
			n = n.child[0]
			if n == nil {
				st = backtrace
			} else {
				c.LookupVisits++
			}
		case backtrace:
			for cindex == 0 {
				if pn.isTrie() {
					return nil
				}
				c.Backtracks++
				pkey := pn.key
				pn = pn.parent
				cindex = getIndex(pkey, pn)
			}
			cindex &= cindex - 1
			n = pn.child[cindex]
			if n != nil {
				c.LookupVisits++
				st = check
			}
		case found:
			index := uint64(key ^ n.key)
			for _, fa := range n.leaf {
				if index >= uint64(1)<<fa.slen() {
					continue
				}
				if fa.TOS != 0 && fa.TOS != tos {
					continue
				}
				if fa.Scope < fl.Scope {
					continue
				}
				if fa.Type.IsError() {
					return fa
				}
				if fa.Dead || (fl.OIF != 0 && fa.OIF != fl.OIF && fa.Nexthops() == nil) ||
					((fa.Nexthops() != nil || fl.SkipLinkDown != nil) && fa.goodNexthop(fl) < 0) {
					continue
				}
				return fa
			}
			st = backtrace
		}
	}
}

// flushEach is fib_table_flush: drop the aliases of table tb that are
// dead (or live error routes too when the namespace goes away), calling
// removed (when not nil) for each alias it frees, in the order it frees
// them. The 4.2-rc3 profile also pulls the suffix of every surviving
// leaf, the seed 003 regression.
func (t *trie) flushEach(tb uint32, dead func(*Alias) bool, flushAll bool, removed func(*Alias)) int {
	keep := func(fa *Alias) bool {
		// A dead alias goes, error type or not (an error route dies only
		// with its prefsrc, fib_sync_down_addr: this kernel flushes it, as
		// kernel.TestKernelFlushesDeadErrorRoutes checks);
		// a live error route goes only with the namespace.
		isDead := fa.Dead || (dead != nil && dead(fa))
		k := fa.Table != tb || (!isDead && (!flushAll || !fa.Type.IsError()))
		if !k && removed != nil {
			removed(fa)
		}
		return k
	}
	var kept func(pn, n *node)
	if t.fib.opts.FlushPullsLeafSuffix {
		kept = t.leafPullSuffix
	}
	// Only the plain sweep of dead nexthops, whose result under a tnode
	// depends on nothing but that subtree, reuses earlier walks.
	return t.reverseFlush(keep, kept, flushReuse && dead == nil && !flushAll && kept == nil)
}

// flushReuse lets a test walk every flush in full, to compare.
var flushReuse = true

// flushExternal is fib_table_flush_external: drop aliases of other tables.
func (t *trie) flushExternal(tb uint32) {
	t.reverseFlush(func(fa *Alias) bool { return fa.Table == tb }, nil, false)
}

// flushFrame is a tnode reverseFlush is in: the counters when it went in,
// whether anything below changed, whether a dead alias was seen.
type flushFrame struct {
	before        Counters
	changed, dead bool
}

// reverseFlush is the walk both flushes make: children right to left, each
// tnode's suffix fixed (update_suffix) and the tnode resized once its
// children are done; on each leaf the aliases keep refuses are freed, an
// emptied leaf is unlinked, and kept (if any) is called for a leaf that
// stays. It returns how many aliases went. With reuse, what an earlier
// such walk found unchanged is not walked again: a tnode's sum (the
// counts of its children marked in agg) is added as it enters, a clean
// tnode below the root adds its own counts (the walk would find and do
// the same), and the walk records what it finds unchanged.
func (t *trie) reverseFlush(keep func(*Alias) bool, kept func(pn, n *node), reuse bool) int {
	c := t.c()
	pn := &t.kv
	cindex := uint64(1)
	found := 0
	stack := []flushFrame{{}}
	for {
		fr := &stack[len(stack)-1]
		if cindex == 0 {
			pkey := pn.key
			if pn.isTrie() {
				break
			}
			slen := pn.slen
			if pn.slen > pn.pos {
				t.updateSuffix(pn)
			}
			steps := c.ResizeSteps
			old := pn
			pn = t.resize(pn)
			changed := fr.changed || slen != old.slen || steps != c.ResizeSteps
			cindex = getIndex(pkey, pn)
			if !changed && reuse && !fr.dead && !pn.isTrie() {
				d := *c
				fc := flushCounts{d.FlushLeafVisits - fr.before.FlushLeafVisits,
					d.UpdateSuffixCalls - fr.before.UpdateSuffixCalls,
					d.UpdateSuffixVisits - fr.before.UpdateSuffixVisits,
					d.ResizeCalls - fr.before.ResizeCalls}
				d.FlushLeafVisits, d.UpdateSuffixCalls = fr.before.FlushLeafVisits, fr.before.UpdateSuffixCalls
				d.UpdateSuffixVisits, d.ResizeCalls = fr.before.UpdateSuffixVisits, fr.before.ResizeCalls
				if d == fr.before {
					if old.fl == nil {
						old.fl = &flushState{agg: make([]uint64, occWords(old.bits))}
					}
					old.fl.own = fc
					old.clean = true
					aggregate(pn, cindex, old)
				}
			} else if changed {
				touch(old)
			}
			dead := fr.dead
			stack = stack[:len(stack)-1]
			up := &stack[len(stack)-1]
			up.changed = up.changed || changed
			up.dead = up.dead || dead
			continue
		}
		if pn.occ == nil {
			cindex-- // the trie's anchor
		} else {
			var skip []uint64
			if reuse && pn.fl != nil {
				skip = pn.fl.agg // added as the tnode was entered
			}
			j, ok := pn.prevChild(cindex, skip)
			if !ok {
				cindex = 0
				continue
			}
			cindex = j // the slots between hold nothing to do
		}
		n := pn.child[cindex]
		if n == nil {
			continue
		}
		if !n.isLeaf() {
			if reuse && n.clean && !pn.isTrie() {
				own := n.fl.own
				c.FlushLeafVisits += own.leaves
				c.UpdateSuffixCalls += own.suffixCalls
				c.UpdateSuffixVisits += own.suffixVisits
				c.ResizeCalls += own.resizes
				aggregate(pn, cindex, n)
				continue
			}
			stack = append(stack, flushFrame{before: *c})
			pn = n
			cindex = n.childLength()
			if reuse && n.fl != nil {
				sum := n.fl.sum
				c.FlushLeafVisits += sum.leaves
				c.UpdateSuffixCalls += sum.suffixCalls
				c.UpdateSuffixVisits += sum.suffixVisits
				c.ResizeCalls += sum.resizes
			}
			continue
		}
		c.FlushLeafVisits++
		var slen uint8
		dead := false
		stay := n.leaf[:0]
		for _, fa := range n.leaf {
			dead = dead || fa.Dead
			if keep(fa) {
				slen = fa.slen()
				stay = append(stay, fa)
				continue
			}
			c.AliasFrees++
			t.fib.unlinkAlias(fa)
			found++
		}
		fr.dead = fr.dead || dead
		changed := len(stay) != len(n.leaf) || slen != n.slen
		if changed {
			fr.changed = true
			touchLeaf(n)
		}
		clear(n.leaf[len(stay):])
		n.leaf = stay
		n.slen = slen
		if len(n.leaf) == 0 {
			putChildRoot(pn, n.key, nil)
			c.LeafFrees++
			t.fib.retire(n)
		} else if kept != nil {
			kept(pn, n)
		} else if reuse && !changed && !dead && !n.inSum && !pn.isTrie() {
			aggregate(pn, cindex, n)
		}
	}
	return found
}

// walkLeaves visits the leaves under n in ascending key order until fn
// returns false, and reports whether it got to the end.
func walkLeaves(n *node, fn func(l *node) bool) bool {
	if n == nil {
		return true
	}
	if n.isLeaf() {
		return fn(n)
	}
	for _, ch := range n.child {
		if !walkLeaves(ch, fn) {
			return false
		}
	}
	return true
}

// LargestTnodeBits is the bits of the largest tnode of any table (the
// child array the seed 003 flush rescans).
func (f *FIB) LargestTnodeBits() uint8 {
	var b uint8
	for _, tb := range f.tables() {
		var walk func(n *node)
		walk = func(n *node) {
			if n == nil || n.isLeaf() {
				return
			}
			b = max(b, n.bits)
			for _, ch := range n.child {
				walk(ch)
			}
		}
		walk(tb.t.root())
	}
	return b
}
