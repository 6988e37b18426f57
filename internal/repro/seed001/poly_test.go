package seed001

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The seed 001 counts at 40,000 come from polynomials through small sizes:
// they must give the model's own counts at a size well past the checks.
func TestSeed001PolynomialMatchesModel(t *testing.T) {
	for _, c := range []Case{{Promote: true, Up: true}, {Promote: true, Up: true, IfaFlush: true}} {
		got, err := polyCounts(seed001Counts(c), []int{60, 120, 180, 240}, []int{300}, 500)
		require.NoError(t, err)
		want, err := seed001Counts(c)(500)
		require.NoError(t, err)
		require.Len(t, got, len(want), "%v", c)
		for k, v := range want {
			require.Equal(t, float64(v), got[k], "%v: %s at N=500", c, k)
		}
	}
}
