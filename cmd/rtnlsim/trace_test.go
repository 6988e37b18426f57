package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/sim"
)

const traceScript = "link add d0 type ifb\nlink set d0 up\naddr add 10.0.0.1/24 dev d0\nroute add 10.1.0.0/16 via 10.0.0.2 dev d0\nlink del d0\n"

// tracePricesFile writes a profile file whose steps all cost something.
func tracePricesFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "prices.json")
	require.NoError(t, sim.WriteProfileFile(path, sim.ProfileFile{Profile: "linux-6.18", Cost: cost.Params{
		RequestNs: 13000, RCUBarrierNs: 16_000_000, SynchronizeNetNs: 3_000_000, SynchronizeNetExpeditedNs: 1_500_000,
		UnregisterDeviceNs: 3_000_000, NotifierCallNs: 700, NotificationNs: 1100, IfaWalkNs: 5, FibOpNs: 1310,
		FibFlushLeafNs: 90, TrieSuffixVisitNs: 40}}))
	return path
}

func TestRunTraceText(t *testing.T) {
	prices := tracePricesFile(t)
	out, _, err := runCLI(t, traceScript, "run", "--target", "sim", "--profile", prices, "--trace", "-")
	require.NoError(t, err)
	// Only the trace: no --show given.
	require.NotContains(t, out, "link/ether")
	// The requests in script order, each with its steps and events.
	at := -1
	for _, want := range []string{
		"[1] line 1, thread 0: link add d0 type ifb", "NETDEV_REGISTER d0", "RTM_NEWLINK x1",
		"[2] line 2, thread 0: link set d0 up", "NETDEV_UP d0",
		"[3] line 3", "inetaddr chain  NETDEV_UP 1", "RTM_NEWADDR x1", "fib_table_insert 3",
		"[4] line 4", "RTM_NEWROUTE x1",
		"[5] line 5, thread 0: link del d0", "synchronize_net_expedited", "rtnl_unlock", "rcu_barrier",
		"returns", "NETDEV_UNREGISTER d0", "RTM_DELLINK x1", "synchronize_net expedited 3, rcu_barrier 1",
		"total:", "(prices: " + prices,
	} {
		i := strings.Index(out[at+1:], want)
		require.GreaterOrEqual(t, i, 0, "%q after offset %d in\n%s", want, at, out)
		at += 1 + i
	}
	// Per-request totals and the run's total are the cost engine's.
	costOut, _, err := runCLI(t, traceScript, "run", "--target", "sim", "--profile", prices, "--show", "cost", "--format", "json", "-")
	require.NoError(t, err)
	var c struct {
		Cost cost.Result `json:"cost"`
	}
	require.NoError(t, json.Unmarshal([]byte(costOut), &c))
	require.Contains(t, out, "total: "+dur(c.Cost.VirtualNs)+" virtual on 1 thread(s)")
	for _, r := range c.Cost.Requests {
		require.Contains(t, out, "returns: "+dur(r.End-r.Arrive)+" = ")
	}
}

func TestRunTraceJSON(t *testing.T) {
	prices := tracePricesFile(t)
	out, _, err := runCLI(t, traceScript, "run", "--target", "sim", "--profile", prices, "--trace", "--threads", "2",
		"--show", "links,cost", "--format", "json", "-")
	require.NoError(t, err)
	var res struct {
		Links []json.RawMessage `json:"links"`
		Cost  struct {
			cost.Result
		} `json:"cost"`
		Trace traceJSON `json:"trace"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	require.NotEmpty(t, res.Links)
	tr := res.Trace
	require.Equal(t, 2, tr.Threads)
	require.Len(t, tr.Requests, 5)
	require.Equal(t, res.Cost.VirtualNs, tr.VirtualNs)
	for i, r := range tr.Requests {
		require.Equal(t, i+1, r.Line)
		c := res.Cost.Requests[i]
		require.Equal(t, c.Thread, r.Thread)
		require.Equal(t, c.End-c.Arrive, r.TotalNs)
		require.Equal(t, c.Arrive+c.LockWait, r.TakeNs)
	}
	require.Equal(t, "link del d0", tr.Requests[4].Request)
	require.Equal(t, "NETDEV_UNREGISTER", tr.Requests[4].NetdevEvents[2].Name)
	require.EqualValues(t, 16_000_000, tr.Requests[4].Unlocked[0].UnitNs)
	require.Equal(t, 0, tr.Requests[2].Thread, "lines 1 to 3 are thread 0's")
	require.Equal(t, 1, tr.Requests[3].Thread, "lines 4 and 5 are thread 1's")

	// With nothing shown the trace is the only key besides errors.
	out, _, err = runCLI(t, "link add d0 type ifb\nlink add d0 type ifb\n", "run", "--target", "sim", "--trace", "--format", "json", "-")
	require.NoError(t, err)
	var only map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(out), &only))
	require.Len(t, only, 2)
	var tj traceJSON
	require.NoError(t, json.Unmarshal(only["trace"], &tj))
	require.Equal(t, "EEXIST", tj.Requests[1].Errno)
}

func TestRunTraceRefusals(t *testing.T) {
	// Refused before any namespace is made: no root needed.
	_, _, err := runCLI(t, traceScript, "run", "--target", "kernel", "--trace", "-")
	require.ErrorContains(t, err, "--trace: the kernel target cannot be traced")
	// Without --target, --trace runs on the sim.
	out, _, err := runCLI(t, traceScript, "run", "--trace", "-")
	require.NoError(t, err)
	require.Contains(t, out, "[5] line 5, thread 0: link del d0")
}

// Three threads deleting one device each: the third shares the barrier the
// second started, and the timeline says so.
func TestRunTraceSharedBarrierText(t *testing.T) {
	prices := tracePricesFile(t)
	src := "link add x0 type ifb\nlink del x0\nlink add y0 type ifb\nlink del y0\nlink add z0 type ifb\nlink del z0\n"
	out, _, err := runCLI(t, src, "run", "--target", "sim", "--profile", prices, "--trace", "--threads", "3", "-")
	require.NoError(t, err)
	require.Contains(t, out, "[6] line 6, thread 2: link del z0   -> rtnl_dellink")
	require.Contains(t, out, "shared a barrier another thread started")
	require.Contains(t, out, "for a barrier already running, then ran its own")
	require.Contains(t, out, "timeline:")
	require.Contains(t, out, "thread 2 [6] returns from rcu_barrier (shared)")
	// Two threads cannot share one: the barrier's caller waits in it.
	out, _, err = runCLI(t, src, "run", "--target", "sim", "--profile", prices, "--trace", "--threads", "2", "-")
	require.NoError(t, err)
	require.NotContains(t, out, "(shared)")
}
