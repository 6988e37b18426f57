package netdevindex

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/uapi"
)

func TestHashChainHeadInsertion(t *testing.T) {
	h := NewHash[string]()
	for _, i := range []uint32{2, 258, 514, 3} {
		_, err := h.Add(i, "x")
		require.NoError(t, err)
	}
	require.Equal(t, []uint32{514, 258, 2}, h.Chain(2))
	require.Equal(t, 2, Bucket(514))
	h.ResetSteps()
	_, ok := h.Lookup(2) // last in its chain
	require.True(t, ok)
	require.Equal(t, uint64(3), h.Steps())
	_, ok = h.Lookup(770) // same bucket, absent: walks the whole chain
	require.False(t, ok)
	require.Equal(t, uint64(6), h.Steps())
}

// addAuto adds the named devices with allocated ifindexes and returns them.
func addAuto(t *testing.T, idx Index[string], names ...string) []uint32 {
	t.Helper()
	var got []uint32
	for _, name := range names {
		id, err := idx.Add(0, name)
		require.NoError(t, err)
		got = append(got, id)
	}
	return got
}

func TestIfindexAllocation(t *testing.T) {
	for _, opts := range []Options{Since69(), Since65(), Before65()} {
		n := NewTable[string](opts)
		got := addAuto(t, n, "lo", "a", "b")
		require.Equal(t, []uint32{1, 2, 3}, got, "%+v", opts)
		n.Del(2)
		id, err := n.Add(0, "c")
		require.NoError(t, err)
		require.Equal(t, uint32(4), id, "freed ifindex not reused before the wrap")
		id, err = n.Add(2, "d")
		require.NoError(t, err)
		require.Equal(t, uint32(2), id, "explicit ifindex honoured")
		_, err = n.Add(2, "e")
		require.ErrorIs(t, err, uapi.EEXIST)
		_, err = n.Add(IfindexMax+1, "f")
		require.ErrorIs(t, err, uapi.EINVAL)
		id, err = n.Add(IfindexMax, "g")
		require.NoError(t, err)
		require.Equal(t, uint32(IfindexMax), id)
		d, ok := n.Lookup(4)
		require.True(t, ok)
		require.Equal(t, "c", d)
	}
}

func TestIfindexWrap(t *testing.T) {
	// Start the cursor just below INT_MAX (as after 2^31 allocations).
	n := NewTable[string](Since69())
	addAuto(t, n, "lo", "a", "b")
	n.Del(2)
	n.Xarray().next = IfindexMax - 1
	id, err := n.Add(0, "x")
	require.NoError(t, err)
	require.Equal(t, uint32(IfindexMax-1), id)
	id, err = n.Add(0, "y")
	require.NoError(t, err)
	require.Equal(t, uint32(IfindexMax), id)
	require.Equal(t, uint64(0), n.Xarray().Wraps())
	// xa_alloc_cyclic returns 1 here; dev_index_reserve treats it as success.
	id, err = n.Add(0, "z")
	require.NoError(t, err)
	require.Equal(t, uint32(2), id, "after the wrap the lowest free ifindex, 0 never")
	require.Equal(t, uint64(1), n.Xarray().Wraps())

	h := NewTable[string](Before65())
	addAuto(t, h, "lo", "a", "b")
	h.Del(2)
	h.Hash().last = IfindexMax - 1
	id, _ = h.Add(0, "y")
	require.Equal(t, uint32(IfindexMax), id)
	id, _ = h.Add(0, "z")
	require.Equal(t, uint32(2), id)
}

func TestReserveRelease(t *testing.T) {
	x := NewXarray[string]()
	id, err := x.Reserve(0)
	require.NoError(t, err)
	require.Equal(t, uint32(1), id)
	_, err = x.Reserve(1)
	require.ErrorIs(t, err, uapi.EBUSY, "reserved, not listed")
	devs, _, done := x.DumpChunk(Cursor{}, 10, nil)
	require.True(t, done)
	require.Empty(t, devs, "dumps skip reservations")
	x.Release(1)
	id, err = x.Reserve(0)
	require.NoError(t, err)
	require.Equal(t, uint32(2), id, "released ifindex not reused before the wrap")
	x.List(2, "a")
	_, err = x.Reserve(2)
	require.ErrorIs(t, err, uapi.EEXIST)
}

// dumpAll runs a dump to the end with k devices per chunk, calling between
// chunks (after chunk number i, 0-based).
func dumpAll(idx Index[string], k int, between func(i int)) (got []string, intr bool) {
	d := NewDump[string](idx, nil)
	for i := 0; ; i++ {
		ch := d.Next(k)
		intr = intr || ch.Interrupted
		for _, e := range ch.Devs {
			got = append(got, e.Dev)
		}
		if ch.Done {
			return got, intr
		}
		if between != nil {
			between(i)
		}
	}
}

// The seed's case: A, B, C share a bucket chain; the first chunk returns A
// and B, then B is deleted: the hash dump resumes at chain position 2 of
// [A, C] and misses C. The xarray dump resumes at C's ifindex.
func TestSeedCaseDelBMissesC(t *testing.T) {
	build := func(opts Options) *Table[string] {
		n := NewTable[string](opts)
		// Chains grow at the head: create C first so the chain reads A, B, C.
		for _, dv := range []struct {
			name string
			idx  uint32
		}{{"C", 2}, {"B", 258}, {"A", 514}} {
			_, err := n.Add(dv.idx, dv.name)
			require.NoError(t, err)
		}
		return n
	}
	hash := build(Since65())
	require.Equal(t, []uint32{514, 258, 2}, hash.Hash().Chain(2))
	got, intr := dumpAll(hash, 2, func(int) { hash.Del(258) })
	require.Equal(t, []string{"A", "B"}, got, "C missed")
	require.True(t, intr, "NLM_F_DUMP_INTR set on the chunk after the change")

	xa := build(Since69())
	got, intr = dumpAll(xa, 2, func(int) { xa.Del(258) })
	require.Equal(t, []string{"C", "B", "A"}, got, "ifindex order; nothing missed")
	require.True(t, intr)
}

// With one device per chunk two devices are enough: the first chunk returns
// A, A is deleted, position 1 of the chain [B] is past B.
func TestHashMissWithOneDevicePerChunk(t *testing.T) {
	n := NewTable[string](Since65())
	n.Add(2, "B")
	n.Add(258, "A")
	got, _ := dumpAll(n, 1, func(int) { n.Del(258) })
	require.Equal(t, []string{"A"}, got)
}

// An add at the head of the bucket being dumped shifts the chain: the hash
// dump returns a device twice.
func TestHashDuplicateOnAdd(t *testing.T) {
	n := NewTable[string](Since65())
	n.Add(2, "B")
	n.Add(258, "A")
	got, _ := dumpAll(n, 1, func(i int) {
		if i == 0 {
			n.Add(514, "N")
		}
	})
	require.Equal(t, []string{"A", "A", "B"}, got)
}

func TestDumpFilterAndCursor(t *testing.T) {
	for _, opts := range []Options{Since69(), Since65()} {
		n := NewTable[string](opts)
		for _, name := range []string{"lo", "a", "b", "c", "d"} {
			n.Add(0, name)
		}
		notB := func(d string) bool { return d != "b" }
		d := NewDump[string](n, notB)
		ch := d.Next(2)
		require.Equal(t, []Entry[string]{{1, "lo"}, {2, "a"}}, ch.Devs)
		require.False(t, ch.Done)
		if opts.DumpVia == KindXarray {
			require.Equal(t, Cursor{Ifindex: 4}, ch.Cursor, "cursor at the first device that did not fit")
		} else {
			require.Equal(t, Cursor{Bucket: 4, Pos: 0}, ch.Cursor)
		}
		ch = d.Next(2)
		require.Equal(t, []Entry[string]{{4, "c"}, {5, "d"}}, ch.Devs)
		require.True(t, ch.Done)
		require.False(t, ch.Interrupted)
		require.True(t, d.Next(2).Done)
	}
}

func TestXarrayIndexLookupSteps(t *testing.T) {
	x := NewXarray[int]()
	for i := 0; i < 5000; i++ {
		x.Add(0, i)
	}
	x.ResetSteps()
	d, ok := x.Lookup(4000)
	require.True(t, ok)
	require.Equal(t, 3999, d)
	require.Equal(t, uint64(3), x.Steps(), "three levels for ifindexes up to 5000")
	_, ok = x.Lookup(math.MaxInt32)
	require.False(t, ok)
}
