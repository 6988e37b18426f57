package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// rtnlsim sweep writes the CSV (stdout or --csv) and the chart; three
// shards given to rtnlsim merge make the unsharded CSV byte for byte.
func TestSweepCLI(t *testing.T) {
	dir := t.TempDir()
	out, errOut, err := runCLI(t, "", "sweep", "seed000", "--n", "100..1000", "--points", "3", "--threads", "1,10")
	require.NoError(t, err)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 1+4*3)
	require.Equal(t, []string{"point", "points", "sweep", "scenario", "profile", "prices", "curve", "n", "seed", "status", "virtual_s"}, recs[0][:11])
	require.Equal(t, "one by one, 10 threads", recs[4][6])
	require.Equal(t, "320", recs[2][7])
	// Not a terminal: no progress bar, one summary line.
	require.Contains(t, errOut, "rtnlsim sweep seed000: 12 of 12 points (shard all, 0 skipped)")
	require.NotContains(t, errOut, "%")

	whole := filepath.Join(dir, "whole.csv")
	args := []string{"sweep", "seed001", "--n", "20,40,80,160", "--promote1-max-n", "40", "--seed", "5", "-q"}
	_, errOut, err = runCLI(t, "", append(args, "--csv", whole, "--plot", filepath.Join(dir, "whole.svg"))...)
	require.NoError(t, err)
	require.Empty(t, errOut)
	var parts []string
	for i := range 3 {
		p := filepath.Join(dir, fmt.Sprintf("part%d.csv", i))
		_, _, err = runCLI(t, "", append(args, "--shard", fmt.Sprintf("%d/3", i), "--csv", p)...)
		require.NoError(t, err)
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.Equal(t, 5, strings.Count(string(b), "\n"), "12 points dealt to 3 shards: 4 rows each")
		parts = append(parts, p)
	}
	merged := filepath.Join(dir, "merged.csv")
	_, _, err = runCLI(t, "", append([]string{"merge", "--out", merged, "--plot", filepath.Join(dir, "merged.png")}, parts...)...)
	require.NoError(t, err)
	a, err := os.ReadFile(whole)
	require.NoError(t, err)
	b, err := os.ReadFile(merged)
	require.NoError(t, err)
	require.Equal(t, string(a), string(b))
	require.Contains(t, string(a), "skipped")
	for _, f := range []string{"whole.svg", "merged.png"} {
		st, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err, f)
		require.Greater(t, st.Size(), int64(1000), f)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "whole.svg"))
	require.NoError(t, err)
	require.Contains(t, string(svg), "seed 001: flushing N IPv4 addresses")

	// A shard missing, a shard twice.
	_, _, err = runCLI(t, "", "merge", parts[0], parts[1])
	require.ErrorContains(t, err, "4 of the sweep's 12 points are missing")
	_, _, err = runCLI(t, "", "merge", parts[0], parts[0])
	require.ErrorContains(t, err, "a shard given twice")
	// Shards of two scenarios.
	s0 := filepath.Join(dir, "s0.csv")
	_, _, err = runCLI(t, "", "sweep", "seed000", "--n", "10", "-q", "--csv", s0)
	require.NoError(t, err)
	_, _, err = runCLI(t, "", "merge", s0, parts[0])
	require.ErrorContains(t, err, "not shards of one sweep")
}

func TestSweepCLIErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"sweep", "seed000", "--n", "100..abc"}, `"abc"`},
		{[]string{"sweep", "seed000", "--n", "1000..100"}, "must be above the lower end 1000"},
		{[]string{"sweep", "seed000", "--n", "100,1000", "--points", "5"}, "applies to a range"},
		{[]string{"sweep", "seed000"}, `required flag(s) "n" not set`},
		{[]string{"sweep", "seed007", "--n", "10"}, `unknown scenario "seed007"`},
		{[]string{"sweep", "seed000", "--n", "10", "--shard", "8/8"}, `--shard "8/8": shard 8 is outside 0..7`},
		{[]string{"sweep", "seed000", "--n", "10", "--threads", "1,x"}, `--threads "1,x": "x"`},
		{[]string{"sweep", "seed001", "--n", "10", "--threads", "2"}, "--threads applies to seed000 only"},
		{[]string{"sweep", "seed000", "--n", "10", "--plot", "x.gif"}, `unknown chart format ".gif"`},
		{[]string{"sweep", "seed000", "--n", "10", "--profile", "linux-5.0"}, `unknown base "linux-5.0"`},
		{[]string{"merge", "/nonexistent/a.csv"}, "no such file"},
	} {
		_, _, err := runCLI(t, "", c.args...)
		require.Error(t, err, c.args)
		require.ErrorContains(t, err, c.msg, c.args)
	}
}
