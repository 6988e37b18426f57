package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPlotRefused(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "x.svg")
	src := "link add x0 type ifb\nlink del x0\n"
	_, _, err := runCLI(t, src, "run", "--plot", svg, "-")
	require.ErrorContains(t, err, "--plot draws the virtual cost of the run: add cost to --show")
	_, _, err = runCLI(t, src, "run", "--target", "kernel", "--show", "cost", "--plot", svg, "-")
	require.ErrorContains(t, err, "--plot: the kernel target has no virtual time to draw")
	_, _, err = runCLI(t, src, "run", "--show", "cost", "--plot", filepath.Join(dir, "x.jpeg"), "-")
	require.ErrorContains(t, err, `unknown chart format ".jpeg"`)
	_, err = os.Stat(svg)
	require.True(t, os.IsNotExist(err), "a refused run writes no chart")
}

// fills counts each fill colour of an SVG.
func fills(svg string) map[string]int {
	n := map[string]int{}
	for _, m := range regexp.MustCompile(`fill:#([0-9A-F]{6})`).FindAllStringSubmatch(svg, -1) {
		n[m[1]]++
	}
	return n
}

// TestPlotLanes draws examples/delete-two.ip at this machine's prices
// (docs/tutorial.md traces it): on two threads the second deletion shares
// the first one's barrier and waited for rtnl_lock, on one thread nothing
// is shared. Each legend sample is one fill of its colour too.
func TestPlotLanes(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	t.Chdir(root)
	dir := t.TempDir()
	draw := func(threads string) string {
		path := filepath.Join(dir, "t"+threads+".svg")
		_, _, err := runCLI(t, "", "run", "--show", "cost", "--threads", threads, "--plot", path,
			"--profile", "docs/profiles/this-machine.json", "examples/delete-two.ip")
		require.NoError(t, err)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		return string(b)
	}
	two := draw("2")
	require.Contains(t, two, "<svg")
	require.Contains(t, two, "rtnlsim run examples/delete-two.ip: 6 request(s) on 2 user thread(s), profile docs/profiles/this-machine.json")
	require.Contains(t, two, "rcu_barrier calls 2, barriers run 1")
	require.Contains(t, two, ">thread 1<")
	require.Contains(t, two, "virtual time (ms)")
	for _, st := range laneStyles {
		require.Contains(t, two, ">"+st.name+"<", "legend")
	}
	f := fills(two)
	require.Equal(t, 2, f["AEC7E8"], "the shared barrier: legend and thread 1's")
	require.Equal(t, 6, f["FF7F0E"]-1, "three expedited grace periods per deletion, each between other steps")
	require.Equal(t, draw("2"), two, "the same run draws the same file")

	one := draw("1")
	require.NotContains(t, one, ">thread 1<")
	f = fills(one)
	require.Equal(t, 1, f["AEC7E8"], "one thread shares no barrier: the legend's sample only")
	require.Equal(t, 1, f["BDBDBD"], "one thread never waits for rtnl_lock: the legend's sample only")
}
