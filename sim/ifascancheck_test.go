package sim

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/script"
)

// Deleting the primary of n addresses in one /8 without promotion deletes
// the secondaries one by one, each unlinked before its fib_del_ifaddr,
// whose scan then compares every address still listed: n-1, n-2, ... 1
// (the primary's own scan finds the list empty). With promotion the scan
// for each secondary skips the promoted subnet's entries and compares
// none; the primary's own scan, once it is unlinked, compares the n-1
// still listed. The same counted and literal, and the request's cost
// work carries them.
func TestIfaScanCheckSteps(t *testing.T) {
	const n = 300
	for _, promote := range []bool{false, true} {
		want := n * (n - 1) / 2
		if promote {
			want = n - 1
		}
		for _, literal := range []bool{false, true} {
			tg, _, err := walkRun("linux-6.18", literal, slash8Lines(n, promote))
			require.NoError(t, err)
			before := tg.Netns().fibCount.IfaScanCheckSteps
			reqs, err := script.ParseString("addr del 10.0.0.1/8 dev i0\n")
			require.NoError(t, err)
			require.NoError(t, tg.Apply(context.Background(), reqs[0]))
			got := tg.Netns().fibCount.IfaScanCheckSteps - before
			require.Equal(t, want, got, "promote=%v literal=%v", promote, literal)
			work := tg.Work()
			require.Equal(t, int64(want), work[len(work)-1].Count(cost.StepIfaScanCheck), "promote=%v literal=%v", promote, literal)
		}
	}
}
