package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/internal/ipbatch"
	"github.com/rtnlsim/rtnlsim/sim"
)

// recordedAt makes reports as a fidelity run at scale would have written
// them, each with a kernel median of kernelNs and a model wall of 1 ms.
func recordedAt(t *testing.T, scale float64, kernelNs int64) ([]workload, []ipbatch.Report) {
	ws := fidelityWorkloads(scale)
	var rs []ipbatch.Report
	for _, w := range ws {
		s, err := scenario(w)
		require.NoError(t, err)
		rs = append(rs, ipbatch.Report{Name: w.name, Threads: max(w.threads, 1), Runs: 3, Profile: "recorded",
			SetupLines: len(s.Setup), MainLines: len(s.Main),
			Kernel:    ipbatch.Stats{MedianNs: kernelNs, MinNs: kernelNs, MaxNs: kernelNs},
			ModelWall: ipbatch.Stats{MedianNs: 1e6}, ModelVirtualNs: 1, FasterBy: float64(kernelNs) / 1e6})
	}
	return ws, rs
}

// Pricing recorded workloads again gives each the prediction a model run
// with that profile gives, its error against the recorded kernel median,
// and keeps the recorded times; another profile gives other predictions.
func TestRepredict(t *testing.T) {
	const kernelNs = 50_000_000
	ws, recorded := recordedAt(t, 0.02, kernelNs)
	ctx := context.Background()
	def, err := sim.LoadProfile(sim.DefaultProfile)
	require.NoError(t, err)
	got, err := repredict(ctx, recorded, ws, def)
	require.NoError(t, err)
	require.Len(t, got, len(recorded))
	for i, r := range got {
		s, err := scenario(ws[i])
		require.NoError(t, err)
		m, err := ipbatch.ModelRun(ctx, s.Setup, s.Main, def.Options(0), max(ws[i].threads, 1))
		require.NoError(t, err)
		require.Equal(t, m.VirtualNs, r.ModelVirtualNs, r.Name)
		require.InDelta(t, 100*float64(m.VirtualNs-kernelNs)/kernelNs, r.ErrorPct, 1e-9, r.Name)
		require.Equal(t, def.Name, r.Profile)
		require.Equal(t, recorded[i].Kernel, r.Kernel, r.Name)
		require.Equal(t, recorded[i].ModelWall, r.ModelWall, r.Name)
		require.Equal(t, recorded[i].FasterBy, r.FasterBy, r.Name)
	}
	other, err := sim.LoadProfile("../../docs/profiles/this-machine-2026-12-02-pm.json")
	require.NoError(t, err)
	again, err := repredict(ctx, recorded, ws, other)
	require.NoError(t, err)
	differ := 0
	for i := range got {
		if again[i].ModelVirtualNs != got[i].ModelVirtualNs {
			differ++
		}
	}
	require.Equal(t, len(got), differ, "every workload's prediction depends on the prices")
}

// A recorded workload this set does not have, or has at another size,
// is an error, not a silent skip.
func TestRepredictRefusesOtherWorkloads(t *testing.T) {
	ws, recorded := recordedAt(t, 0.02, 1)
	p, err := sim.LoadProfile(sim.DefaultProfile)
	require.NoError(t, err)
	unknown := append([]ipbatch.Report(nil), recorded...)
	unknown[0].Name = "z-nothing"
	_, err = repredict(context.Background(), unknown, ws, p)
	require.ErrorContains(t, err, `"z-nothing" is not in this set`)
	_, err = repredict(context.Background(), recorded, fidelityWorkloads(0.04), p)
	require.ErrorContains(t, err, "is not in this set at this scale")
	longer := append([]ipbatch.Report(nil), recorded...)
	longer[1].MainLines++
	_, err = repredict(context.Background(), longer, ws, p)
	require.ErrorContains(t, err, "another scale?")
}

// The recorded file is never the output: -repredict F -json F would
// overwrite the kernel's times with a copy that no longer says which
// prices made its predictions.
func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "speed.json")
	require.NoError(t, os.WriteFile(f, []byte("[]"), 0o644))
	require.True(t, sameFile(f, f))
	require.True(t, sameFile(f, filepath.Join(dir, ".", "speed.json")))
	require.NoError(t, os.Link(f, filepath.Join(dir, "hard.json")))
	require.True(t, sameFile(f, filepath.Join(dir, "hard.json")))
	require.False(t, sameFile(f, filepath.Join(dir, "other.json")))
}
