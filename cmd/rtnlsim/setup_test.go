package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
	"github.com/rtnlsim/rtnlsim/sim"
)

const (
	setupScript = "link add x0 type ifb\nlink add x1 type ifb\nlink set x0 up\nlink set x1 up\nlink add x9 type ifb\nlink del x9\n"
	mainScript  = "link set x0 group 5\nlink del x0\nlink del x1\n"
)

func writeTemp(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

type costOut struct {
	Cost struct {
		Threads   int   `json:"threads"`
		Lines     []int `json:"lines"`
		VirtualNs int64 `json:"virtual_ns"`
	} `json:"cost"`
	Events []rtnl.Event `json:"events"`
}

func runCost(t *testing.T, args ...string) costOut {
	t.Helper()
	out, errs, err := runCLI(t, "", append([]string{"run", "--format", "json"}, args...)...)
	require.NoError(t, err, errs)
	var c costOut
	require.NoError(t, json.Unmarshal([]byte(out), &c))
	return c
}

// The cost of run --setup is the main script's: what the cost engine makes
// of the work the main script adds after the setup, and not the price of
// setup and main run together.
func TestRunSetupCost(t *testing.T) {
	setup := writeTemp(t, "setup.ip", setupScript)
	main := writeTemp(t, "main.ip", mainScript)
	both := writeTemp(t, "both.ip", setupScript+mainScript)

	tg := sim.New(sim.Options{})
	for _, src := range []string{setupScript, mainScript} {
		reqs, err := script.ParseString(src)
		require.NoError(t, err)
		_, err = rtnl.Run(context.Background(), tg, reqs, rtnl.Show{}, nil)
		require.NoError(t, err)
		if src == setupScript {
			require.Len(t, tg.Work(), len(reqs))
		}
	}
	work := tg.Work()[6:]
	for _, threads := range []string{"1", "2"} {
		got := runCost(t, "--show", "cost", "--threads", threads, "--setup", setup, main)
		n := 1
		if threads == "2" {
			n = 2
		}
		want, err := cost.Simulate(sim.DefaultPrices(), cost.SplitInOrder(work, n))
		require.NoError(t, err)
		require.Equal(t, want.VirtualNs, got.Cost.VirtualNs, "threads %s", threads)
		require.Equal(t, []int{1, 2, 3}, got.Cost.Lines)
		require.Equal(t, n, got.Cost.Threads)

		whole := runCost(t, "--show", "cost", "--threads", threads, both)
		require.NotEqual(t, whole.Cost.VirtualNs, got.Cost.VirtualNs)
	}
	// An empty main script with --exit-netns prices the exit alone.
	empty := writeTemp(t, "empty.ip", "")
	exit := runCost(t, "--show", "cost", "--exit-netns", "--setup", setup, empty)
	require.Equal(t, []int{0}, exit.Cost.Lines)
	require.Positive(t, exit.Cost.VirtualNs)
}

// The setup's notifications are not shown; the main script's are numbered
// from its own first line.
func TestRunSetupEvents(t *testing.T) {
	setup := writeTemp(t, "setup.ip", setupScript)
	main := writeTemp(t, "main.ip", mainScript)
	got := runCost(t, "--show", "events", "--setup", setup, main)
	require.NotEmpty(t, got.Events)
	require.Equal(t, 1, got.Events[0].Request)
	for _, ev := range got.Events {
		require.NotEqual(t, "x9", eventName(ev), "an event of the setup: %+v", ev)
		require.LessOrEqual(t, ev.Request, 3)
	}
	whole := runCost(t, "--show", "events", writeTemp(t, "both.ip", setupScript+mainScript))
	require.Greater(t, len(whole.Events), len(got.Events))
	x9 := 0
	for _, ev := range whole.Events {
		if eventName(ev) == "x9" {
			x9++
		}
	}
	require.Positive(t, x9, "the check above would see a setup event")
}

func eventName(ev rtnl.Event) string {
	m, ok := ev.Object.(map[string]any)
	if !ok {
		return ""
	}
	s, _ := m["ifname"].(string)
	return s
}

// A refused setup line is named by file and line; the run goes on.
func TestRunSetupRefused(t *testing.T) {
	setup := writeTemp(t, "setup.ip", "link add x0 type ifb\n\nlink add x0 type ifb\n")
	main := writeTemp(t, "main.ip", "link del x0\n")
	out, errs, err := runCLI(t, "", "run", "--show", "links", "--setup", setup, main)
	require.NoError(t, err)
	require.Contains(t, errs, setup+":3: link add x0 type ifb: EEXIST")
	require.NotContains(t, out, "x0")
	// A setup that does not parse runs nothing.
	bad := writeTemp(t, "bad.ip", "link add x0 type ifb\nlink frob\n")
	_, errs, err = runCLI(t, "", "run", "--setup", bad, main)
	require.Error(t, err)
	require.Contains(t, errs, bad+": line 2")
}

// On the kernel too the setup's notifications are left out.
func TestRunSetupKernelEvents(t *testing.T) {
	requireKernel(t)
	setup := writeTemp(t, "setup.ip", "link add x0 type ifb\nlink add x9 type ifb\n")
	main := writeTemp(t, "main.ip", "link set x0 up\n")
	got := runCost(t, "--target", "kernel", "--show", "events", "--setup", setup, main)
	require.NotEmpty(t, got.Events)
	for _, ev := range got.Events {
		require.Equal(t, 1, ev.Request)
		require.NotEqual(t, "x9", eventName(ev))
	}
}

// The trace narrates the main script's requests alone, with their lines.
func TestRunSetupTrace(t *testing.T) {
	setup := writeTemp(t, "setup.ip", setupScript)
	main := writeTemp(t, "main.ip", mainScript)
	out, errs, err := runCLI(t, "", "run", "--trace", "--format", "json", "--setup", setup, main)
	require.NoError(t, err, errs)
	var got struct {
		Trace traceJSON `json:"trace"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.Len(t, got.Trace.Requests, 3)
	for i, r := range got.Trace.Requests {
		require.Equal(t, i+1, r.Line)
	}
	require.Equal(t, "link del x1", got.Trace.Requests[2].Request)
	c := runCost(t, "--show", "cost", "--setup", setup, main)
	require.Equal(t, c.Cost.VirtualNs, got.Trace.VirtualNs)
}
