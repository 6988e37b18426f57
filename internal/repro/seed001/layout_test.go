package seed001

import (
	"math"
	"testing"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/stretchr/testify/require"
)

func TestLayoutAddrs(t *testing.T) {
	a, err := Layout{K: 3, M: 2}.Addrs()
	require.NoError(t, err)
	var got []string
	for _, p := range a {
		got = append(got, p.String())
	}
	require.Equal(t, []string{"10.0.0.1/24", "10.0.0.2/24", "10.0.1.1/24", "10.0.1.2/24", "10.0.2.1/24", "10.0.2.2/24"}, got)
	a, err = Layout{K: 2, M: 300}.Addrs()
	require.NoError(t, err)
	require.Equal(t, "10.0.0.1/23", a[0].String())
	require.Equal(t, "10.0.2.1/23", a[300].String())
	a, err = Layout{K: 1, M: 40000}.Addrs()
	require.NoError(t, err)
	require.Equal(t, "10.0.156.64/16", a[39999].String())
	_, err = Layout{K: 70000, M: 1}.Addrs()
	require.ErrorContains(t, err, "do not fit")
}

// The flush does not handle subnets independently: its FIB operations are
// K times one subnet's, but every fib_del_ifaddr scans the whole device
// list, so K subnets walk more than K times one subnet's list steps. That
// is why the layout counts come from runs of K subnets, not from one.
func TestLayoutSubnetsShareListWalks(t *testing.T) {
	for _, ifaFlush := range []bool{false, true} {
		for _, m := range []int{1, 3, 6} {
			run := func(k int) Result {
				r, err := Flush(Case{Promote: true, Up: true, IfaFlush: ifaFlush, Layout: Layout{K: k, M: m}})
				require.NoError(t, err)
				return r
			}
			one := run(1)
			for _, k := range []int{2, 5} {
				c := run(k)
				require.Equal(t, int64(k)*one.FibOps, c.FibOps, "ifa-flush=%v %dx%d", ifaFlush, k, m)
				require.Greater(t, c.IfaWalk, int64(k)*one.IfaWalk, "ifa-flush=%v %dx%d", ifaFlush, k, m)
			}
		}
	}
}

// The polynomials give the sim's own counts at layouts off their grid,
// from every address a primary to all in one subnet.
func TestLayoutCountsMatchSim(t *testing.T) {
	const n = 600
	ms := []int{1, 2, 24, 100, 600}
	before, after, err := LayoutCounts(n, ms)
	require.NoError(t, err)
	for i, m := range ms {
		for j, ifaFlush := range []bool{false, true} {
			r, err := Flush(Case{Promote: true, Up: true, IfaFlush: ifaFlush, Layout: Layout{K: n / m, M: m}})
			require.NoError(t, err)
			got := [][]map[string]float64{before, after}[j][i]
			want := map[string]int64{"request": r.Requests, "ifa_walk": r.IfaWalk, "fib_op": r.FibOps}
			require.Len(t, got, len(want))
			for s, v := range want {
				require.Equal(t, float64(v), got[s], "%d subnets of %d, ifa-flush=%v: %s", n/m, m, ifaFlush, s)
			}
		}
	}
	_, _, err = LayoutCounts(n, []int{7})
	require.ErrorContains(t, err, "do not split")
}

// All 40,000 in one subnet is the table's one-/8 row: both extrapolations
// agree.
func TestLayoutOneSubnetIsOneSlash8(t *testing.T) {
	before, after, err := LayoutCounts(seed001N, []int{seed001N})
	require.NoError(t, err)
	for i, c := range []Case{{Promote: true, Up: true}, {Promote: true, Up: true, IfaFlush: true}} {
		want, err := polyCounts(seed001Counts(c), []int{60, 120, 180, 240}, []int{300}, seed001N)
		require.NoError(t, err)
		got := [][]map[string]float64{before, after}[i][0]
		for _, s := range layoutSteps {
			require.Equal(t, want[s], got[s], "%v: %s", c, s)
		}
	}
}

// A planted layout is found: the "published" pair is made by direct sim
// runs of 1,200 addresses in 100 subnets of 12 (S=11) at 3 times
// FlushPrices; the search, at FlushPrices, must put that layout on the
// pair exactly, with the factor 3, and every fitting layout must be a
// neighbour of it.
func TestSearchRecoversPlantedLayout(t *testing.T) {
	const n, m = 1200, 12
	planted := cost.Params{RequestNs: 3 * FlushPrices.RequestNs, IfaWalkNs: 3 * FlushPrices.IfaWalkNs, FibOpNs: 3 * FlushPrices.FibOpNs}
	pub := make([]float64, 2)
	for i, ifaFlush := range []bool{false, true} {
		r, err := Flush(Case{Promote: true, Up: true, IfaFlush: ifaFlush, Layout: Layout{K: n / m, M: m}})
		require.NoError(t, err)
		pub[i] = float64(r.Work.PlainNs(planted)) / 1e9
	}
	both, err := SearchLayouts(n, []cost.Params{FlushPrices}, pub[0], pub[1], 10)
	require.NoError(t, err)
	fits := both[0]
	best := fits[0]
	for _, f := range fits {
		t.Logf("S=%4d: before/after %.3f, factor %.3f, before %+.2f%% fits=%v", f.Layout.S(), f.Ratio(), f.Factor, f.ErrPct, f.Fits)
		if math.Abs(f.ErrPct) < math.Abs(best.ErrPct) {
			best = f
		}
	}
	require.Equal(t, Layout{K: n / m, M: m}, best.Layout)
	require.InDelta(t, 0, best.ErrPct, 1e-9)
	require.InDelta(t, 3, best.Factor, 1e-9)
	first, last, contiguous := FitRange(fits)
	require.True(t, contiguous)
	require.LessOrEqual(t, fits[first].Layout.M, m)
	require.GreaterOrEqual(t, fits[last].Layout.M, m)
	require.LessOrEqual(t, last-first, 2, "a 10%% band around S=11 holds its neighbours at most")
	require.False(t, fits[len(fits)-1].Fits)
	require.Contains(t, Conclusion(fits, 10), "one /8 does not")
}

// The seed's search: S=3 and S=4 fit, S=1 and S=7 and one /8 do not, at
// the one-/8 prices and at the prices fitted away from one /8.
func TestSearchSeed001(t *testing.T) {
	both, err := SearchLayouts(seed001N, []cost.Params{FlushPrices, LayoutPrices}, seed001Before, seed001After, seed001Tol)
	require.NoError(t, err)
	for i, fits := range both {
		first, last, contiguous := FitRange(fits)
		require.True(t, contiguous)
		require.Equal(t, 3, fits[first].Layout.S(), "prices %d", i)
		require.Equal(t, 4, fits[last].Layout.S(), "prices %d", i)
		c := Conclusion(fits, seed001Tol)
		require.Contains(t, c, "fits S in [3, 4] secondaries per subnet")
		require.Contains(t, c, "one /8 does not")
	}
	require.Contains(t, Conclusion(both[0], seed001Tol), "S=1 gives -48.0%")
}
