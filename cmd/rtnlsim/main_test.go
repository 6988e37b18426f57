package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/internal/nscheck"
	"github.com/rtnlsim/rtnlsim/kernel"
)

func TestMain(m *testing.M) { nscheck.Main(m) }

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

func TestSimTargetNotBuiltYet(t *testing.T) {
	_, _, err := runCLI(t, "link add x0 type ifb\n", "run", "--target", "sim", "-")
	require.ErrorIs(t, err, errNoSim)
	_, _, err = runCLI(t, "link add x0 type ifb\n", "diff", "-")
	require.ErrorIs(t, err, errNoSim)
}

func TestBadScriptNamesLines(t *testing.T) {
	_, stderr, err := runCLI(t, "link add x0 type ifb\nlink set x0 mtux 5\n\nroute frob\n", "run", "--target", "kernel", "-")
	require.Equal(t, exitError{1}, err)
	require.Contains(t, stderr, "<stdin>: line 2")
	require.Contains(t, stderr, "mtux")
	require.Contains(t, stderr, "<stdin>: line 4")
}

func TestBadFlags(t *testing.T) {
	_, _, err := runCLI(t, "", "run", "--show", "links,bogus", "-")
	require.ErrorContains(t, err, `unknown observable "bogus"`)
	_, _, err = runCLI(t, "", "run", "--format", "yaml", "-")
	require.ErrorContains(t, err, "--format")
}

func TestRunKernelJSON(t *testing.T) {
	if _, err := kernel.New(kernel.Options{}); err != nil {
		if os.Getenv("RTNLSIM_REQUIRE_KERNEL") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
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
