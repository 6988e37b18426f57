package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/internal/calib"
	"github.com/rtnlsim/rtnlsim/internal/ipbatch"
	"github.com/rtnlsim/rtnlsim/sim"
)

// Every workload parses, its main script is ip -b lines, and the model
// runs setup and main without refusing a line (the kernel would run them
// all: ip -b stops at a refusal).
func TestWorkloadsRunOnTheModel(t *testing.T) {
	ws := workloads(0.02)
	require.Len(t, ws, 7)
	seen := map[string]bool{}
	for _, w := range ws {
		require.False(t, seen[w.name[:1]], w.name)
		seen[w.name[:1]] = true
		s, err := scenario(w)
		require.NoError(t, err)
		_, err = ipbatch.Lines(s.Main)
		require.NoError(t, err, w.name)
		m, err := ipbatch.ModelRun(context.Background(), s.Setup, s.Main, sim.Options{}, 1)
		require.NoError(t, err, w.name)
		require.Empty(t, m.SetupRefused, w.name)
		require.Empty(t, m.MainRefused, w.name)
	}
}

func TestWorkloadSizes(t *testing.T) {
	full := workloads(1)
	count := func(s, sub string) int { return strings.Count(s, sub) }
	require.Equal(t, "a-flush-2000", full[0].name)
	require.Equal(t, 2000, count(full[0].setup, "addr add"))
	require.Equal(t, 4000, count(full[1].setup, "addr add"))
	require.Equal(t, 16000, count(full[2].setup, "addr add"))
	require.Equal(t, "addr del 10.0.0.1/8 dev i0\n", full[2].main)
	require.Equal(t, 100000, count(full[3].main, "route add"))
	require.True(t, strings.HasSuffix(full[3].main, "route add 11.134.159.0/24 dev i0\nroute flush table main\n"))
	require.Equal(t, 2500, count(full[4].setup, "addr add"))
	require.Equal(t, 2500, count(full[4].main, "link del"))
	require.Equal(t, 2000, count(full[5].main, "group 5"))
	require.Equal(t, 2000, count(full[6].main, "link del"))
	for _, w := range full[:3] {
		require.Contains(t, w.setup, "net.ipv6.conf.default.disable_ipv6=1\n")
		require.Contains(t, w.setup, "promote_secondaries=1\nlink set i0 up\n")
	}
	require.Equal(t, "d-route-add-flush-10000", workloads(0.1)[3].name)
	require.Equal(t, 2, scaled(5, 0.001))
}

// The prediction set: the seven, then six more, each parsing, ip -b lines,
// run whole by the model on its threads; no name twice.
func TestFidelityWorkloadsRunOnTheModel(t *testing.T) {
	ws := fidelityWorkloads(0.02)
	require.Len(t, ws, 13)
	seen := map[string]bool{}
	threads := map[int]int{}
	for _, w := range ws {
		require.False(t, seen[w.name], w.name)
		seen[w.name] = true
		threads[max(w.threads, 1)]++
		s, err := scenario(w)
		require.NoError(t, err)
		_, err = ipbatch.Lines(s.Main)
		require.NoError(t, err, w.name)
		m, err := ipbatch.ModelRun(context.Background(), s.Setup, s.Main, sim.Options{}, max(w.threads, 1))
		require.NoError(t, err, w.name)
		require.Empty(t, m.SetupRefused, w.name)
		require.Empty(t, m.MainRefused, w.name)
	}
	require.Equal(t, map[int]int{1: 10, 2: 1, 4: 1, 10: 1}, threads)
	full := fidelityWorkloads(1)
	require.Equal(t, "h-del-devs-1000-by-10", full[9].name)
	require.Contains(t, full[11].setup, "promote_secondaries=0\n")
	require.Equal(t, 20000, strings.Count(full[12].setup, "route add"))
}

// 90% of ten is nine within 25% (25.0% included); eight is not enough, and
// nothing measured is no pass.
func TestGate(t *testing.T) {
	reports := func(errs ...float64) []ipbatch.Report {
		var out []ipbatch.Report
		for _, e := range errs {
			out = append(out, ipbatch.Report{ErrorPct: e})
		}
		return out
	}
	ok, pass := gate(reports(0, 1, -2, 25, -25, 10, 3, 4, 5, 90), 0.25, 0.9)
	require.Equal(t, 9, ok)
	require.True(t, pass)
	ok, pass = gate(reports(0, 1, -2, 25, -25.1, 10, 3, 4, 5, 90), 0.25, 0.9)
	require.Equal(t, 8, ok)
	require.False(t, pass)
	_, pass = gate(nil, 0.25, 0.9)
	require.False(t, pass)
}

// No fidelity row is a calibration scenario: where both sets have a
// workload of the same kind (one thread), the fidelity size is none of
// the calibrated sizes, so a row the fit saw cannot pass for a
// prediction.
func TestFidelityRowsAreNotCalibrated(t *testing.T) {
	z := calib.FullSizes
	for _, c := range []struct {
		row        string
		size       int
		calibrated []int
	}{
		{"a: promoting flush", sizes.flushA, z.Flush[:]},
		{"b: promoting flush", sizes.flushB, z.Flush[:]},
		{"c: deleting the primary", sizes.delPrimary, z.DelPrimary[:]},
		{"g: one-by-one deletion", sizes.del, z.OneByOne[:]},
		{"j: flush without promotion", fidelitySizes.flushNoPromote, z.Flush0[:]},
		{"k: route flush", fidelitySizes.routeFlush, z.Flush2[:]},
	} {
		require.NotContains(t, c.calibrated, c.size, "%s of %d is a calibration scenario", c.row, c.size)
	}
}

// -write makes its directory when missing, and each workload's two files
// hold its setup and main script.
func TestWriteScriptsMakesTheDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "dir")
	ws := workloads(0.01)
	require.NoError(t, writeScripts(dir, ws))
	for _, w := range ws {
		setup, err := os.ReadFile(filepath.Join(dir, w.name+".setup.ip"))
		require.NoError(t, err)
		main, err := os.ReadFile(filepath.Join(dir, w.name+".ip"))
		require.NoError(t, err)
		require.Equal(t, w.setup, string(setup))
		require.Equal(t, w.main, string(main))
	}
}
