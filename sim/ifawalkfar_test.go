package sim

import (
	"context"
	"testing"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/script"
	"github.com/stretchr/testify/require"
)

// Deleting the primary of n addresses in one /8 with promotion scans the
// whole list once per secondary (n entries, the primary still on it) and
// once for the primary itself (n-1): each scan's entries past the first
// IfaWalkCacheEntries count as far, the same counted and literal, and the
// request's cost work carries them.
func TestIfaScanFarSteps(t *testing.T) {
	const n = IfaWalkCacheEntries + 200
	want := (n-1)*(n-IfaWalkCacheEntries) + (n - 1 - IfaWalkCacheEntries)
	for _, literal := range []bool{false, true} {
		tg, _, err := walkRun("linux-6.18", literal, slash8Lines(n, true))
		require.NoError(t, err)
		before := tg.Netns().fibCount
		require.Zero(t, before.IfaScanFarSteps, "the setup's scans are short")
		reqs, err := script.ParseString("addr del 10.0.0.1/8 dev i0\n")
		require.NoError(t, err)
		require.NoError(t, tg.Apply(context.Background(), reqs[0]))
		require.Equal(t, want, tg.Netns().fibCount.IfaScanFarSteps, "literal=%v", literal)
		work := tg.Work()
		var far int64
		for _, s := range work[len(work)-1].Locked {
			if s.Step == cost.StepIfaWalkFar {
				far += s.N
			}
		}
		require.Equal(t, int64(want), far, "literal=%v", literal)
	}
}
