package seed001

import (
	"testing"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/stretchr/testify/require"
)

// TestSeed001Growth: without promotion a flush's FIB operations grow
// linearly and its list steps quadratically; with promotion the FIB
// operations grow quadratically and the list steps cubically; +ifa-flush
// takes promotion away.
func TestSeed001Growth(t *testing.T) {
	var rows []Result
	at := func(c Case) Result {
		r, err := Flush(c)
		require.NoError(t, err)
		rows = append(rows, r)
		return r
	}
	for _, promote := range []bool{false, true} {
		a := at(Case{N: 250, Promote: promote, Up: true})
		b := at(Case{N: 500, Promote: promote, Up: true})
		c := at(Case{N: 1000, Promote: promote, Up: true})
		ratio := func(x, y int64) float64 { return float64(y) / float64(x) }
		fib, walk := ratio(b.FibOps, c.FibOps), ratio(b.IfaWalk, c.IfaWalk)
		t.Logf("promote=%v: doubling N multiplies fib ops by %.2f, list steps by %.2f (250->500: %.2f, %.2f)",
			promote, fib, walk, ratio(a.FibOps, b.FibOps), ratio(a.IfaWalk, b.IfaWalk))
		if promote {
			require.InDelta(t, 4, fib, 0.2)
			require.InDelta(t, 8, walk, 0.5)
			require.Equal(t, 999, c.Promotions)
		} else {
			require.InDelta(t, 2, fib, 0.1)
			require.InDelta(t, 4, walk, 0.2)
			require.Zero(t, c.Promotions)
		}
	}
	f := at(Case{N: 1000, Promote: true, Up: true, IfaFlush: true})
	require.Zero(t, f.Promotions)
	require.EqualValues(t, 1, f.Requests)
	t.Logf("\n%s", Format(rows))
}

// TestFitSeed001RecoversPrices: times made from known prices are fitted
// back to those prices.
func TestFitSeed001RecoversPrices(t *testing.T) {
	want := cost.Params{RequestNs: 15000, IfaWalkNs: 5, FibOpNs: 1500}
	cache := Cache{}
	var rows []Measured
	for _, promote := range []bool{false, true} {
		for _, n := range []int{200, 400} {
			c := Case{N: n, Promote: promote, Up: true}
			ns, _, err := Predict(want, c, cache)
			require.NoError(t, err)
			rows = append(rows, Measured{Case: c, Ns: ns})
		}
	}
	got, err := Fit(cost.Params{}, rows, cache)
	require.NoError(t, err)
	require.Equal(t, want.IfaWalkNs, got.IfaWalkNs)
	require.InDelta(t, want.RequestNs, got.RequestNs, 2)
	require.InDelta(t, want.FibOpNs, got.FibOpNs, 2)
}
