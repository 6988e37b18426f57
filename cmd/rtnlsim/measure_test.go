package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/internal/ipbatch"
	"github.com/rtnlsim/rtnlsim/internal/testseed"
)

// measure refuses what ip -b cannot run before it needs root.
func TestMeasureRefusesExtensions(t *testing.T) {
	main := writeTemp(t, "main.ip", "link add d0 type ifb\nsysctl net.ipv4.conf.all.promote_secondaries=1\nlink del list d0\n")
	_, _, err := runCLI(t, "", "measure", "--runs", "1", main)
	require.ErrorContains(t, err, "line 2 (sysctl")
	require.ErrorContains(t, err, "line 3 (link del list")
	_, _, err = runCLI(t, "", "measure", "--runs", "0", main)
	require.ErrorContains(t, err, "--runs")
}

// A tiny script on the kernel and the model: K results of each, the
// model's prediction, text and JSON. No timing is judged.
func TestMeasureKernelTiny(t *testing.T) {
	testseed.NeedRoot(t)
	requireKernel(t)
	var b strings.Builder
	for i := range 20 {
		fmt.Fprintf(&b, "link add d%d type ifb\n", i)
	}
	b.WriteString("link del s0\n")
	main := writeTemp(t, "tiny.ip", b.String())
	setup := writeTemp(t, "setup.ip", "sysctl net.ipv6.conf.all.disable_ipv6=1\nlink add s0 type ifb\n")
	js := filepath.Join(t.TempDir(), "out.json")
	out, errs, err := runCLI(t, "", "measure", "--runs", "2", "--threads", "2", "--setup", setup, "--json", js, main)
	require.NoError(t, err, errs)
	require.Contains(t, out, "tiny")
	require.Contains(t, errs, "kernel run 2/2")
	raw, err := os.ReadFile(js)
	require.NoError(t, err)
	var rs []ipbatch.Report
	require.NoError(t, json.Unmarshal(raw, &rs))
	require.Len(t, rs, 1)
	r := rs[0]
	require.Equal(t, 2, r.Threads)
	require.Len(t, r.Kernel.AllNs, 2)
	require.Len(t, r.ProcessStart.AllNs, 2)
	require.Len(t, r.ModelWall.AllNs, 2)
	require.Positive(t, r.ModelVirtualNs)
	require.Positive(t, r.FasterBy)
	require.Equal(t, 21, r.MainLines)
	require.Equal(t, 2, r.SetupLines)

	// A line the kernel refuses fails the run with ip's message.
	failing := writeTemp(t, "failing.ip", "link add d0 type ifb\nlink add d0 type ifb\n")
	_, _, err = runCLI(t, "", "measure", "--runs", "1", failing)
	require.ErrorContains(t, err, "Command failed")
}
