package ipbatch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/internal/nscheck"
	"github.com/rtnlsim/rtnlsim/internal/testseed"
	"github.com/rtnlsim/rtnlsim/sim"
)

func TestMain(m *testing.M) { nscheck.Main(m) }

// The batch files run in the run's namespace (their devices are there,
// after the setup's), and a refused line fails the run with ip's message.
func TestKernelRun(t *testing.T) {
	testseed.NeedKernel(t)
	ctx := context.Background()
	dir := t.TempDir()
	setup := parse(t, "sysctl net.ipv6.conf.all.disable_ipv6=1\nlink add s0 type ifb\n")
	files, err := WriteBatches(dir, "ok", [][]string{{"link set s0 up", "link add a0 type ifb"}, {"link add b0 type ifb"}})
	require.NoError(t, err)
	_, err = KernelRun(ctx, setup, "setup.ip", files)
	require.NoError(t, err)

	bad, err := WriteBatches(dir, "bad", [][]string{{"link add a0 type ifb", "link add a0 type ifb"}})
	require.NoError(t, err)
	_, err = KernelRun(ctx, nil, "", bad)
	require.ErrorContains(t, err, "Command failed")
	require.ErrorContains(t, err, "File exists")

	// Without the setup's device the first line fails: the slices did
	// not run in a namespace that had it.
	_, err = KernelRun(ctx, nil, "", files[:1])
	require.ErrorContains(t, err, "s0")

	// A refused setup line is named by file and line.
	_, err = KernelRun(ctx, parse(t, "link add s0 type ifb\nlink add s0 type ifb\n"), "setup.ip", nil)
	require.ErrorContains(t, err, "setup.ip:2")
}

// Measure reports K kernel runs, K empty-batch runs and the model's
// prediction; no timing is judged.
func TestMeasureKernel(t *testing.T) {
	testseed.NeedKernel(t)
	var main strings.Builder
	for i := range 20 {
		fmt.Fprintf(&main, "link add m%d type ifb\n", i)
	}
	r, err := Measure(context.Background(), Scenario{Name: "add20", Setup: parse(t, "link add s0 type ifb\nlink set s0 up\n"),
		Main: parse(t, main.String()+"link del s0\n")},
		Options{Threads: 2, Runs: 3, Profile: sim.MustParseProfile(sim.DefaultProfile)})
	require.NoError(t, err)
	require.Len(t, r.Kernel.AllNs, 3)
	require.Len(t, r.ProcessStart.AllNs, 3)
	require.Len(t, r.ModelWall.AllNs, 3)
	require.Positive(t, r.Kernel.MinNs)
	require.Positive(t, r.ModelVirtualNs) // the delete's rcu_barrier
	require.Empty(t, r.ModelMainRefused)
	require.Equal(t, 21, r.MainLines)
}

// A device moves to a namespace the setup named: ip finds it under its
// mounted name, the device is gone from the run's namespace afterwards,
// and the mount is gone when the run ends.
func TestKernelRunNamedNetns(t *testing.T) {
	testseed.NeedKernel(t)
	ctx := context.Background()
	dir := t.TempDir()
	setup := parse(t, "netns add mv\nlink add s0 type ifb\nlink add s1 type ifb\n")
	names := setupNetns(setup)
	line := func(l string) string { return renameNetns(l, names) }
	files, err := WriteBatches(dir, "ok", [][]string{{line("link set s0 netns mv"), line("link set s1 netns mv")}})
	require.NoError(t, err)
	_, err = KernelRun(ctx, setup, "setup.ip", files)
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(runNetns, mountedName("mv")))
	require.True(t, os.IsNotExist(err), "the mount outlived the run: %v", err)

	moved, err := WriteBatches(dir, "moved", [][]string{{line("link set s0 netns mv"), "link set s0 up"}})
	require.NoError(t, err)
	_, err = KernelRun(ctx, setup, "setup.ip", moved)
	require.ErrorContains(t, err, `Cannot find device "s0"`)

	// Without the rename, ip does not know the name.
	plain, err := WriteBatches(dir, "plain", [][]string{{"link set s0 netns mv"}})
	require.NoError(t, err)
	_, err = KernelRun(ctx, setup, "setup.ip", plain)
	require.ErrorContains(t, err, "netns")
}
