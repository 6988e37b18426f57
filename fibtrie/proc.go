package fibtrie

import (
	"fmt"
	"strings"
)

// Struct sizes of the x86_64 Linux 6.18 kernel this package was checked
// against. LeafSize and TnodeHeaderSize are what that kernel prints on the
// first line of /proc/net/fib_triestat ("size of leaf: 48 bytes, size of
// tnode: 40 bytes"). AliasSize (sizeof(struct fib_alias)) is not printed; it
// was derived from "Total size": one leaf holding 2000 aliases (the same
// /24 with metrics 1..2000) shows 110 kB, and ceil((48+2000*s)/1024) = 110
// only for s = 56. PointerSize is sizeof(struct key_vector *).
const (
	LeafSize        = 48
	TnodeHeaderSize = 40
	AliasSize       = 56
	PointerSize     = 8
)

const maxStatDepth = 32

func tableHeader(b *strings.Builder, id uint32) {
	switch id {
	case TableLocal:
		b.WriteString("Local:\n")
	case TableMain:
		b.WriteString("Main:\n")
	default:
		// fib_trie_seq_show and fib_triestat_seq_show print the u32 tb_id
		// with %d: ids of 2^31 and above come out negative.
		fmt.Fprintf(b, "Id %d:\n", int32(id))
	}
}

func indent(b *strings.Builder, n int) {
	for ; n > 0; n-- {
		b.WriteString("   ")
	}
}

// Render returns /proc/net/fib_trie text (fib_trie_seq_show): every table in
// hash order; a table with an empty trie prints nothing, not even its name.
// While merged, Main and Local print the same shared trie.
func (f *FIB) Render() string {
	var b strings.Builder
	for _, tb := range f.tables() {
		r := tb.t.root()
		if r == nil {
			continue
		}
		tableHeader(&b, tb.id)
		renderNode(&b, r, 0)
	}
	return b.String()
}

// renderNode prints n indented by depth, the number of tnodes above n: what
// fib_trie_seq_show gets from the iterator depth less one for a tnode (it
// counts itself) and from the parent's depth for a leaf.
func renderNode(b *strings.Builder, n *node, depth int) {
	if !n.isLeaf() {
		indent(b, depth)
		fmt.Fprintf(b, "  +-- %s/%d %d %d %d\n", FormatIP(n.key),
			keyLength-int(n.pos)-int(n.bits), n.bits, n.full, n.empty)
		for _, ch := range n.child {
			if ch != nil {
				renderNode(b, ch, depth+1)
			}
		}
		return
	}
	indent(b, depth)
	fmt.Fprintf(b, "  |-- %s\n", FormatIP(n.key))
	for _, fa := range n.leaf {
		indent(b, depth+1)
		fmt.Fprintf(b, "  /%d %s %s", fa.Len, fa.Scope.ProcName(), fa.Type.ProcName())
		if fa.TOS != 0 {
			fmt.Fprintf(b, " tos=%d", fa.TOS)
		}
		b.WriteByte('\n')
	}
}

// TrieStat is struct trie_stat (trie_collect_stats).
type TrieStat struct {
	TotDepth     uint32
	MaxDepth     uint32
	Tnodes       uint32
	Leaves       uint32
	NullPointers uint64
	Prefixes     uint32
	NodeSizes    [maxStatDepth]uint32
}

func collectStats(n *node, depth uint32, s *TrieStat) {
	if n == nil {
		return
	}
	if n.isLeaf() {
		s.Leaves++
		s.TotDepth += depth
		s.MaxDepth = max(s.MaxDepth, depth)
		s.Prefixes += uint32(len(n.leaf))
		return
	}
	s.Tnodes++
	if n.bits < maxStatDepth {
		s.NodeSizes[n.bits]++
	}
	s.NullPointers += uint64(n.empty)
	for _, ch := range n.child {
		collectStats(ch, depth+1, s)
	}
}

// Stats returns trie_collect_stats for one table (nil if it does not exist).
func (f *FIB) Stats(tableID uint32) *TrieStat {
	tb := f.getTable(tableID)
	if tb == nil {
		return nil
	}
	var s TrieStat
	collectStats(tb.t.root(), 0, &s)
	return &s
}

// RenderStat returns /proc/net/fib_triestat text (fib_triestat_seq_show):
// every table, empty ones included, in hash order.
func (f *FIB) RenderStat() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Basic info: size of leaf: %d bytes, size of tnode: %d bytes.\n", LeafSize, TnodeHeaderSize)
	for _, tb := range f.tables() {
		tableHeader(&b, tb.id)
		var s TrieStat
		collectStats(tb.t.root(), 0, &s)
		showStats(&b, &s)
	}
	return b.String()
}

func showStats(b *strings.Builder, s *TrieStat) {
	var avdepth uint32
	if s.Leaves != 0 {
		avdepth = s.TotDepth * 100 / s.Leaves
	}
	fmt.Fprintf(b, "\tAver depth:     %d.%02d\n", avdepth/100, avdepth%100)
	fmt.Fprintf(b, "\tMax depth:      %d\n", s.MaxDepth)
	fmt.Fprintf(b, "\tLeaves:         %d\n", s.Leaves)
	bytes := uint32(LeafSize) * s.Leaves
	fmt.Fprintf(b, "\tPrefixes:       %d\n", s.Prefixes)
	bytes += AliasSize * s.Prefixes
	fmt.Fprintf(b, "\tInternal nodes: %d\n\t", s.Tnodes)
	bytes += TnodeHeaderSize * s.Tnodes
	top := maxStatDepth
	for top > 0 && s.NodeSizes[top-1] == 0 {
		top--
	}
	var pointers uint32
	for i := 1; i < top; i++ {
		if s.NodeSizes[i] != 0 {
			fmt.Fprintf(b, "  %d: %d", i, s.NodeSizes[i])
			pointers += (1 << i) * s.NodeSizes[i]
		}
	}
	b.WriteByte('\n')
	fmt.Fprintf(b, "\tPointers: %d\n", pointers)
	bytes += PointerSize * pointers
	fmt.Fprintf(b, "Null ptrs: %d\n", s.NullPointers)
	fmt.Fprintf(b, "Total size: %d  kB\n", (bytes+1023)/1024)
}
