package seed003

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSeed003Table: seed 003 end to end on the sim target (10K dummies,
// each up with a /24). Deleting one device costs rc3 thousands of times
// the fix's update_suffix visits; its two device flushes see every leaf;
// the rows the fit did not use land near the seed's figures (within a
// factor of two: the seed's machines and its v3.19 baseline are not
// this model's).
func TestSeed003Table(t *testing.T) {
	rows, p, err := Table(10)
	require.NoError(t, err)
	t.Logf("\n%s", FormatTable(rows, p))
	rc3, fixed, all, first := rows[0], rows[1], rows[2], rows[3]
	require.Greater(t, rc3.UpdateSuffixVisits, 1000*fixed.UpdateSuffixVisits)
	require.Equal(t, rc3.FlushLeafVisits, fixed.FlushLeafVisits)
	require.EqualValues(t, 10000, all.Deleted)
	for _, r := range []Row{all, first} {
		ratio := float64(r.Ns) / float64(r.SeedNs)
		require.True(t, ratio > 0.5 && ratio < 2, "%s %s: model %.1fs vs seed %.1fs", r.Scenario, r.Profile, float64(r.Ns)/1e9, float64(r.SeedNs)/1e9)
	}
}
