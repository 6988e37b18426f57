package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/internal/nscheck"
	"github.com/rtnlsim/rtnlsim/kernel"
)

func TestMain(m *testing.M) { nscheck.Main(m) }

// requireKernel skips a kernel test without root, unless
// RTNLSIM_REQUIRE_KERNEL=1 (CI), where it fails.
func requireKernel(t *testing.T) {
	t.Helper()
	tg, err := kernel.New(kernel.Options{})
	if err != nil {
		if os.Getenv("RTNLSIM_REQUIRE_KERNEL") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	tg.Close()
}

func runCLI(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	root := newRootCmd()
	var out, errb bytes.Buffer
	root.SetArgs(args)
	root.SetIn(strings.NewReader(stdin))
	root.SetOut(&out)
	root.SetErr(&errb)
	err := root.Execute()
	return out.String(), errb.String(), err
}

func TestSimTarget(t *testing.T) {
	requireKernel(t)
	out, _, err := runCLI(t, "link add x0 type ifb\nlink set x0 up\nlink add x0 type ifb\n",
		"run", "--target", "sim", "--format", "json", "--show", "links", "-")
	require.NoError(t, err)
	require.Contains(t, out, `"ifname":"x0"`)
	require.Contains(t, out, `"errno":"EEXIST"`)
	// What the model does not cover stops the run with a clear error, not
	// with an errno the kernel would not give.
	_, _, err = runCLI(t, "link add x0 type ifb\nroute add 2001:db8::/32 dev lo\n", "run", "--target", "sim", "-")
	require.ErrorContains(t, err, "not modelled")
	require.ErrorContains(t, err, "IPv6")
	_, _, err = runCLI(t, "link add x0 type ifb\n", "diff", "--show", "links,cost", "-")
	require.ErrorContains(t, err, "cost is the model's alone")
	// The sim's notifications, numbered by request.
	out, _, err = runCLI(t, "link add x0 type ifb\nlink set x0 up\n", "run", "--target", "sim", "--show", "events", "-")
	require.NoError(t, err)
	require.Contains(t, out, "[1] RTM_NEWLINK link 2: x0 <BROADCAST,NOARP> state DOWN")
	require.Contains(t, out, "[2] RTM_NEWLINK link 2: x0 <BROADCAST,NOARP,UP,LOWER_UP> state UNKNOWN")
	// The namespace's exit, priced as one more request.
	out, _, err = runCLI(t, "link add x0 type ifb\n", "run", "--target", "sim", "--show", "cost", "--exit-netns", "-")
	require.NoError(t, err)
	require.Contains(t, out, "(the namespace exits)")
	require.Contains(t, out, "rcu_barrier 2 (run 2)")
}

// rtnlsim diff agrees on a link script the model covers, and exits 1 with
// the difference when the kernel refuses what the model accepts (a dummy
// device: this kernel has no dummy module).
func TestDiff(t *testing.T) {
	requireKernel(t)
	out, _, err := runCLI(t, "link add v0 type veth peer name v1\nlink add br0 type bridge\nlink set v0 master br0\nlink set v0 up\nlink set v1 up\nlink set br0 up\nlink add v0 type ifb\n", "diff", "-")
	require.NoError(t, err, out)
	require.Contains(t, out, "agree")
	out, _, err = runCLI(t, "link add d0 type dummy\n", "diff", "-")
	require.Equal(t, exitError{1}, err)
	require.Contains(t, out, `line 1 "link add d0 type dummy": sim "ok", kernel "EOPNOTSUPP"`)
}

// Without --target, run runs the model: it has a cost, and its cost
// table says whose prices it used.
func TestRunDefaultsToSim(t *testing.T) {
	out, _, err := runCLI(t, "link add x0 type ifb\n", "run", "--show", "cost", "-")
	require.NoError(t, err)
	require.Contains(t, out, "(prices: sim.DefaultPrices")
}

func TestBadScriptNamesLines(t *testing.T) {
	_, stderr, err := runCLI(t, "link add x0 type ifb\nlink set x0 mtux 5\n\nroute frob\n", "run", "--target", "kernel", "-")
	require.Equal(t, exitError{1}, err)
	require.Contains(t, stderr, "<stdin>: line 2")
	require.Contains(t, stderr, "mtux")
	require.Contains(t, stderr, "<stdin>: line 4")
}

// A script that cannot be opened or read is not a script that does not
// parse: it is an error like any other (exit 2, "rtnlsim: ..."), for
// every command that reads one, and for a setup file too.
func TestUnreadableScriptIsNotAParseError(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nosuch.ip")
	dir := t.TempDir()
	for _, args := range [][]string{
		{"run", missing}, {"run", dir}, {"trie", missing}, {"diff", missing}, {"measure", missing},
		{"run", "--setup", missing, "-"},
		{"measure", "--setup", missing, filepath.Join("..", "..", "examples", "delete-two.ip")},
	} {
		_, stderr, err := runCLI(t, "link add x0 type ifb\n", args...)
		require.Error(t, err, args)
		var ee exitError
		require.False(t, errors.As(err, &ee), "%v: %v", args, err)
		require.Empty(t, stderr, args)
		if slices.Contains(args, dir) {
			require.ErrorContains(t, err, dir, args)
		} else {
			require.ErrorContains(t, err, missing, args)
		}
	}
}

func TestBadFlags(t *testing.T) {
	_, _, err := runCLI(t, "", "run", "--show", "links,bogus", "-")
	require.ErrorContains(t, err, `unknown observable "bogus"`)
	_, _, err = runCLI(t, "", "run", "--format", "yaml", "-")
	require.ErrorContains(t, err, "--format")
}

func TestRunKernelJSON(t *testing.T) {
	requireKernel(t)
	out, _, err := runCLI(t, "link add a0 type ifb\nlink set a0 up\naddr add 10.1.0.1/24 dev a0\nlink add a0 type ifb\n",
		"run", "--target", "kernel", "--format", "json", "--show", "links,addrs,routes,events", "-")
	require.NoError(t, err)
	var got map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	for _, k := range []string{"links", "addrs", "routes", "events", "errors"} {
		require.Contains(t, got, k)
	}
	var errs []map[string]any
	require.NoError(t, json.Unmarshal(got["errors"], &errs))
	require.Len(t, errs, 1)
	require.Equal(t, float64(4), errs[0]["line"])
	require.Equal(t, "EEXIST", errs[0]["errno"])
	require.Contains(t, string(got["links"]), `"ifname":"a0"`)
	require.Contains(t, string(got["events"]), `"RTM_NEWADDR"`)
}

// rtnlsim trie prints, text for text, the /proc/net/fib_trie and
// fib_triestat that the kernel shows after the same route lines (added
// through the kernel target, devices made first).
func TestTrieMatchesKernel(t *testing.T) {
	requireKernel(t)
	routes := `route add 10.0.0.0/24 dev d0
route add 10.0.1.0/24 dev d0 metric 5
route add blackhole 10.0.0.0/8
route add 10.0.0.0/24 dev d0
route append 10.0.1.0/24 dev d1 metric 5 tos 0x10
route add unreachable 192.0.2.0/24 table 100
route add 198.51.100.0/24 via 10.0.0.1 proto static
route replace 10.0.0.128/25 dev d1 scope host
route add local 10.0.0.77 dev d0
route del 10.0.0.0/24
route add 203.0.113.0/24 dev d1
route del 203.0.113.0/24 dev d1
`
	devices := "link add d0 type ifb\nlink add d1 type ifb\nlink set d0 up\nlink set d1 up\n"
	kout, _, err := runCLI(t, devices+routes, "run", "--target", "kernel", "--format", "json", "--show", "fibtrie", "-")
	require.NoError(t, err)
	var k struct {
		Fibtrie, Fibtriestat string
		Errors               []struct{ Line int }
	}
	require.NoError(t, json.Unmarshal([]byte(kout), &k))
	trie, stderr, err := runCLI(t, routes, "trie", "-")
	require.NoError(t, err)
	require.Contains(t, stderr, "line 4: route add 10.0.0.0/24 dev d0: EEXIST")
	// The same lines were refused (the kernel's numbers count the device lines).
	var kernelRefused []int
	for _, e := range k.Errors {
		kernelRefused = append(kernelRefused, e.Line-4)
	}
	require.Equal(t, kernelRefused, refusedLines(stderr))
	require.Equal(t, k.Fibtrie, trie)
	stat, _, err := runCLI(t, routes, "trie", "--stat", "-")
	require.NoError(t, err)
	require.Equal(t, k.Fibtriestat, stat)
}

func refusedLines(stderr string) []int {
	var out []int
	for _, l := range strings.Split(stderr, "\n") {
		var n int
		if _, err := fmt.Sscanf(l, "line %d:", &n); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// --show cost on the sim prices the script's own requests: one-by-one
// deletes pay a barrier each, and --threads overlaps them.
func TestSimCost(t *testing.T) {
	src := "link add x1 type ifb\nlink add x2 type ifb\nlink set x1 up\nlink set x2 up\nlink del x1\nlink del x2\n"
	out, _, err := runCLI(t, src, "run", "--target", "sim", "--show", "cost", "--format", "json", "-")
	require.NoError(t, err)
	var got struct {
		Cost struct {
			Threads   int   `json:"threads"`
			VirtualNs int64 `json:"virtual_ns"`
			Counters  struct {
				RCUBarrier int `json:"rcu_barrier"`
			} `json:"counters"`
		} `json:"cost"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.Equal(t, 2, got.Cost.Counters.RCUBarrier)
	require.Positive(t, got.Cost.VirtualNs)
	text, _, err := runCLI(t, src, "run", "--target", "sim", "--show", "cost", "--threads", "2", "-")
	require.NoError(t, err)
	require.Contains(t, text, "on 2 thread(s)")
	_, _, err = runCLI(t, src, "run", "--target", "kernel", "--show", "cost", "-")
	require.ErrorContains(t, err, "--target sim")
}

// diff's agreement line names what was compared; with an empty --show only the
// errnos were.
func TestReportDiffNamesWhatWasCompared(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, reportDiff(&b, "", "links,addrs"))
	require.Equal(t, "model and kernel agree (errno of every line; links,addrs)\n", b.String())
	b.Reset()
	require.NoError(t, reportDiff(&b, "", ""))
	require.Equal(t, "model and kernel agree (errno of every line)\n", b.String())
	b.Reset()
	require.Equal(t, exitError{1}, reportDiff(&b, "errnos differ:\n", ""))
}

// trie --stat --counters prints both, the stat first; measure refuses a
// script with no request lines (there would be nothing to time).
func TestTrieStatAndCountersAndEmptyMeasure(t *testing.T) {
	routes := "route add 10.0.0.0/24 dev d0\nroute add 10.0.1.0/24 dev d0\n"
	stat, _, err := runCLI(t, routes, "trie", "--stat", "-")
	require.NoError(t, err)
	counters, _, err := runCLI(t, routes, "trie", "--counters", "-")
	require.NoError(t, err)
	both, _, err := runCLI(t, routes, "trie", "--stat", "--counters", "-")
	require.NoError(t, err)
	require.Equal(t, stat+counters, both)
	empty := filepath.Join(t.TempDir(), "empty.ip")
	require.NoError(t, os.WriteFile(empty, []byte("# nothing\n"), 0o644))
	_, _, err = runCLI(t, "", "measure", empty)
	require.ErrorContains(t, err, "has no request lines")
}
