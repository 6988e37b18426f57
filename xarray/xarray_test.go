package xarray

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHeightGrowsAndShrinks(t *testing.T) {
	xa := New[string](FlagsAlloc1)
	require.Equal(t, 0, xa.Height())

	_, _, err := xa.Store(1, "a")
	require.NoError(t, err)
	require.Equal(t, 1, xa.Height()) // leaf: slot 0 busy, slot 1 "a"
	require.Equal(t, 1, xa.Nodes())

	xa.Store(64, "b")
	require.Equal(t, 2, xa.Height())
	xa.Store(4096, "c")
	require.Equal(t, 3, xa.Height())
	xa.Store(math.MaxInt32, "d")
	require.Equal(t, 6, xa.Height()) // 2^31-1 needs shifts up to 30
	require.NoError(t, xa.checkInvariants())
	c := xa.Counters()
	require.Equal(t, uint64(6), c.Grows)

	xa.Erase(math.MaxInt32)
	require.Equal(t, 3, xa.Height())
	xa.Erase(4096)
	require.Equal(t, 2, xa.Height())
	xa.Erase(64)
	require.Equal(t, 1, xa.Height())
	xa.Erase(1)
	require.Equal(t, 0, xa.Height()) // the busy zero goes back into the head
	require.Equal(t, 0, xa.Nodes())
	require.Equal(t, uint64(6), xa.Counters().Shrinks)
	require.NoError(t, xa.checkInvariants())

	// A root whose only child is not in slot 0 does not shrink.
	xa.Store(100, "x")
	require.Equal(t, 2, xa.Height())
	xa.Store(70, "y")
	xa.Erase(100)
	require.Equal(t, 2, xa.Height())
	require.NoError(t, xa.checkInvariants())
}

func TestHeadHoldsIndexZero(t *testing.T) {
	xa := New[int](FlagAlloc)
	xa.Store(0, 7)
	require.Equal(t, 0, xa.Height())
	require.Equal(t, 0, xa.Nodes())
	v, ok := xa.Load(0)
	require.True(t, ok)
	require.Equal(t, 7, v)
	xa.Store(5, 8)
	require.Equal(t, 1, xa.Height())
	xa.Erase(5)
	require.Equal(t, 0, xa.Height())
	v, ok = xa.Load(0)
	require.True(t, ok)
	require.Equal(t, 7, v)
}

func TestInsertReserveBusy(t *testing.T) {
	xa := New[int](FlagsAlloc1)
	require.ErrorIs(t, xa.Insert(0, 1), ErrBusy)
	require.NoError(t, xa.Reserve(3))
	require.ErrorIs(t, xa.Insert(3, 1), ErrBusy)
	_, ok := xa.Load(3)
	require.False(t, ok)
	_, _, ok = xa.Find(0, math.MaxUint32)
	require.False(t, ok, "Find skips reserved entries")
	xa.Store(3, 9) // list_netdevice fills the reservation
	i, v, ok := xa.Find(0, math.MaxUint32)
	require.True(t, ok)
	require.Equal(t, uint32(3), i)
	require.Equal(t, 9, v)
}

// requireCyclic runs AllocCyclic and checks that it succeeded with index
// wantID, reporting a wrap exactly when wantWrapped.
func requireCyclic(t *testing.T, xa *XArray[int], v int, lim Limit, next *uint32, wantID uint32, wantWrapped bool) {
	t.Helper()
	id, wrapped, err := xa.AllocCyclic(v, lim, next)
	require.NoError(t, err)
	require.Equal(t, wantWrapped, wrapped)
	require.Equal(t, wantID, id)
}

// Seed 002's review point: xa_alloc_cyclic returns 1 (here wrapped=true) when
// the allocation succeeded after wrapping, and that is not an error.
func TestAllocCyclicWrap(t *testing.T) {
	xa := New[int](FlagsAlloc1)
	lim := Limit{0, 4}
	var next uint32
	var got []uint32
	for i := 0; i < 4; i++ {
		id, wrapped, err := xa.AllocCyclic(10+i, lim, &next)
		require.NoError(t, err)
		require.False(t, wrapped)
		got = append(got, id)
	}
	require.Equal(t, []uint32{1, 2, 3, 4}, got) // 0 is busy (XA_FLAGS_ALLOC1)
	require.Equal(t, uint32(5), next)
	_, _, err := xa.AllocCyclic(99, lim, &next)
	require.ErrorIs(t, err, ErrBusy)

	xa.Erase(2)
	requireCyclic(t, xa, 20, lim, &next, 2, true)
	require.Equal(t, uint32(3), next)

	// Without a wrap, freed indices below next are not reused.
	xa.Erase(1)
	xa.Erase(4)
	requireCyclic(t, xa, 21, lim, &next, 4, false)
}

func TestAllocCyclicNextOverflow(t *testing.T) {
	xa := New[int](FlagAlloc)
	next := uint32(math.MaxUint32)
	requireCyclic(t, xa, 1, Limit32b, &next, math.MaxUint32, false)
	require.Equal(t, uint32(0), next)
	// next overflowed to 0: the following allocation reports the wrap.
	requireCyclic(t, xa, 2, Limit32b, &next, 0, true)
	requireCyclic(t, xa, 3, Limit32b, &next, 1, false)
}

func TestAllocRange(t *testing.T) {
	xa := New[int](FlagAlloc)
	for i := uint32(10); i <= 12; i++ {
		id, err := xa.Alloc(int(i), Limit{10, 12})
		require.NoError(t, err)
		require.Equal(t, i, id)
	}
	_, err := xa.Alloc(1, Limit{10, 12})
	require.ErrorIs(t, err, ErrBusy)
	_, err = xa.Alloc(1, Limit{5, 4})
	require.ErrorIs(t, err, ErrBusy)
	_, err = New[int](0).Alloc(1, Limit32b)
	require.ErrorIs(t, err, ErrInvalid)
	// A full leaf is skipped through its parent's free bits.
	for i := uint32(64); i < 128; i++ {
		xa.Store(i, 1)
	}
	id, err := xa.Alloc(1, Limit{64, 1000})
	require.NoError(t, err)
	require.Equal(t, uint32(128), id)
}

func TestFindInOrder(t *testing.T) {
	xa := New[int](FlagsAlloc1)
	idx := []uint32{5, 1, 300000, 64, 63, 4096, math.MaxInt32}
	for _, i := range idx {
		require.NoError(t, xa.Insert(i, int(i)))
	}
	var seen []uint32
	for i, v := range xa.All() {
		require.Equal(t, int(i), v)
		seen = append(seen, i)
	}
	require.Equal(t, []uint32{1, 5, 63, 64, 4096, 300000, math.MaxInt32}, seen)
	i, _, ok := xa.FindAfter(64, 4096)
	require.True(t, ok)
	require.Equal(t, uint32(4096), i)
	_, _, ok = xa.FindAfter(64, 4095)
	require.False(t, ok)
}

func TestCountersCountNodeVisits(t *testing.T) {
	xa := New[int](FlagsAlloc1)
	for i := uint32(1); i <= 5000; i++ {
		xa.Store(i, int(i))
	}
	require.Equal(t, 3, xa.Height())
	xa.ResetCounters()
	_, ok := xa.Load(4321)
	require.True(t, ok)
	require.Equal(t, uint64(3), xa.Counters().NodeVisits)
}
