package seed004

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/internal/repro"
	"github.com/rtnlsim/rtnlsim/internal/testseed"
)

// TestSeed004Table: the seed-era profile gives back both printed figures
// (fitted), puts the setns loop's own mean at about the netnsid mean
// (the benchmark's unreset sum), with a setns price near this machine's
// scaled one; the thread's reading of 162 would need setns 10x dearer.
func TestSeed004Table(t *testing.T) {
	tb, err := repro.Run(context.Background(), "004", repro.Options{})
	require.NoError(t, err)
	require.Len(t, tb.Rows, 5)
	require.InDelta(t, 81.5, *tb.Rows[0].Model.Value, 0.5)
	require.InDelta(t, 162.5, *tb.Rows[1].Model.Value, 1)
	path := *tb.Rows[2].Model.Value
	require.InDelta(t, 81, path, 1.5, "the setns loop's own mean")
	require.InDelta(t, -50, *tb.Rows[2].ErrorPct, 1)
	for _, r := range tb.Rows[3:] {
		require.Equal(t, repro.Qualitative, r.Role)
		require.NotNil(t, r.Agrees)
		require.False(t, *r.Agrees, "%s: %s", r.Scenario, r.Model.Text)
	}
	require.Nil(t, tb.Rows[0].Kernel, "no kernel column without --kernel")
}

// TestSeed004KernelColumn runs `repro 004 --kernel` at tiny sizes (at most
// 3 containers, 2 blocks of 5 reads: a few seconds, most of it making
// namespaces) and checks that every row has its kernel cell, measured.
// Needs root; RTNLSIM_REQUIRE_KERNEL=1 makes its absence a failure.
func TestSeed004KernelColumn(t *testing.T) {
	testseed.NeedRoot(t)
	tb, err := repro.Run(context.Background(), "004", repro.Options{Kernel: true,
		KernelSizes: map[string]int{"004/containers": 3, "004/reads": 5, "004/repeats": 2}})
	require.NoError(t, err)
	for _, r := range tb.Rows {
		require.NotNil(t, r.Kernel, r.Scenario)
		require.NotEmpty(t, r.Kernel.Text, r.Scenario)
	}
	for _, r := range tb.Rows[:3] {
		require.NotNil(t, r.Kernel.Measured, r.Scenario)
		require.Positive(t, *r.Kernel.Measured, r.Scenario)
		require.NotNil(t, r.Kernel.ErrorPct, r.Scenario)
	}
	require.Greater(t, len(tb.Notes), 10, "the grid's rows are in the notes")
}
