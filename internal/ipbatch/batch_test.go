package ipbatch

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
	"github.com/rtnlsim/rtnlsim/sim"
)

func parse(t *testing.T, src string) []rtnl.Request {
	t.Helper()
	reqs, err := script.ParseString(src)
	require.NoError(t, err)
	return reqs
}

// Lines are the logical lines as ip reads them (comment cut, continuation
// joined), without the leading ip.
func TestLines(t *testing.T) {
	got, err := Lines(parse(t, "ip link add d0 type ifb # a comment\n\nlink set d0 \\\n up\nip   addr add 10.0.0.1/8 dev d0\n"))
	require.NoError(t, err)
	require.Equal(t, []string{"link add d0 type ifb", "link set d0  up", "addr add 10.0.0.1/8 dev d0"}, got)
}

// What ip -b cannot run is refused, every such line named by number.
func TestLinesRefused(t *testing.T) {
	_, err := Lines(parse(t, "link add d0 type ifb\nsysctl net.ipv4.conf.all.promote_secondaries=1\nlink add d1 type ifb\nlink del list d0 d1\nip -4 addr flush dev d0\n-6 route flush table main\n"))
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{"4 line(s)", "line 2 (sysctl", "line 4 (link del list", "line 5 (ip -4 addr flush dev d0): -4", "line 6 (-6 route"} {
		require.Contains(t, msg, want)
	}
	require.NotContains(t, msg, "line 1 ")
	require.NotContains(t, msg, "line 3 ")
}

func TestWriteBatches(t *testing.T) {
	dir := t.TempDir()
	paths, err := WriteBatches(dir, "s", [][]string{{"link add a type ifb", "link add b type ifb"}, nil})
	require.NoError(t, err)
	require.Len(t, paths, 2)
	b, err := os.ReadFile(paths[0])
	require.NoError(t, err)
	require.Equal(t, "link add a type ifb\nlink add b type ifb\n", string(b))
	b, err = os.ReadFile(paths[1])
	require.NoError(t, err)
	require.Empty(t, b)
	require.True(t, strings.HasSuffix(paths[1], "s1.batch"))
}

func TestStatsOf(t *testing.T) {
	s := StatsOf([]time.Duration{5, 1, 9})
	require.Equal(t, Stats{MedianNs: 5, MinNs: 1, MaxNs: 9, AllNs: []int64{5, 1, 9}}, s)
	require.EqualValues(t, 4, StatsOf([]time.Duration{6, 2}).MedianNs)
	require.Zero(t, StatsOf(nil).MedianNs)
}

const (
	modelSetup = "sysctl net.ipv6.conf.all.disable_ipv6=1\nlink add d0 type ifb\nlink add d1 type ifb\nlink add d2 type ifb\nlink set d0 up\nlink set d1 up\nlink add d0 type ifb\n"
	modelMain  = "link del d0\nlink del d1\nlink set d2 up\nlink del d9\n"
)

// The model's prediction is the main part's cost alone over the threads,
// as a target that forgot its setup prices it, with each ip process's
// name lookups (one per device name it has not resolved: IPLookups);
// refused lines are listed.
func TestModelRun(t *testing.T) {
	setup, main := parse(t, modelSetup), parse(t, modelMain)
	prices := sim.DefaultPrices()
	prices.RequestNs, prices.NlSocketNs, prices.ClientLineNs = 1000, 30_000, 7000
	for _, c := range []struct {
		threads int
		lookups [][]int // per thread, per line
	}{
		{1, [][]int{{1, 1, 1, 1}}},
		{2, [][]int{{1, 1}, {1, 1}}},
	} {
		got, err := ModelRun(context.Background(), setup, main, sim.Options{Cost: &prices}, c.threads)
		require.NoError(t, err)

		tg := sim.New(sim.Options{Cost: &prices})
		_, err = rtnl.Run(context.Background(), tg, setup, rtnl.Show{}, nil)
		require.NoError(t, err)
		n := len(tg.Work())
		_, err = rtnl.Run(context.Background(), tg, main, rtnl.Show{}, nil)
		require.NoError(t, err)
		work := tg.Work()[n:]
		var threads [][]cost.Work
		k := 0
		for _, th := range c.lookups {
			var list []cost.Work
			for _, l := range th {
				for range l {
					list = append(list, IPLookupWork())
				}
				list = append(list, LineWork(), work[k])
				k++
			}
			threads = append(threads, list)
		}
		want, err := cost.Simulate(prices, threads)
		require.NoError(t, err)
		require.Equal(t, want.VirtualNs, got.VirtualNs, "threads=%d", c.threads)
		without, err := cost.Simulate(prices, cost.SplitInOrder(work, c.threads))
		require.NoError(t, err)
		require.Greater(t, got.VirtualNs, without.VirtualNs, "the lookups are priced")
		require.Equal(t, []string{"line 7 (link add d0 type ifb): EEXIST"}, got.SetupRefused)
		require.Equal(t, []string{"line 4 (link del d9): ENODEV"}, got.MainRefused)
	}
	// What the model does not cover stops the run.
	_, err := ModelRun(context.Background(), nil, parse(t, "link add d0 type ifb\nroute add 2001:db8::/32 dev lo\n"), sim.Options{}, 1)
	require.ErrorContains(t, err, "line 2")
}

// Measure refuses a main script ip -b cannot run before it runs anything.
func TestMeasureRefusesUpFront(t *testing.T) {
	_, err := Measure(context.Background(), Scenario{Name: "x", Main: parse(t, "link add d0 type ifb\nsysctl net.ipv4.conf.all.promote_secondaries=1\n")},
		Options{Runs: 1, Profile: sim.MustParseProfile(sim.DefaultProfile)})
	require.ErrorContains(t, err, "line 2 (sysctl")
	_, err = Measure(context.Background(), Scenario{Name: "x"}, Options{Runs: 0})
	require.ErrorContains(t, err, "runs")
}

// Words after `netns` that the setup named become their mounted names;
// other words stay, and so do lines without such a name.
func TestRenameNetns(t *testing.T) {
	names := setupNetns(parse(t, "netns add a\nlink add x type ifb\nnetns add b\n"))
	require.Equal(t, map[string]bool{"a": true, "b": true}, names)
	require.Equal(t, "link set d0 netns "+mountedName("a"), renameNetns("link set d0 netns a", names))
	require.Equal(t, "link add v0 type veth peer name v1 netns "+mountedName("b"),
		renameNetns("link add v0 type veth peer name v1 netns b", names))
	require.Equal(t, "link set a netns c", renameNetns("link set a netns c", names))
	require.Equal(t, "link set  a up", renameNetns("link set  a up", names))
}

// Namespaces are made in the setup: the timed part may not make, delete
// or enter one.
func TestLinesRefuseNetnsVerbs(t *testing.T) {
	_, err := Lines(parse(t, "netns add a\nlink set d0 netns a\nnetns del a\n"))
	require.ErrorContains(t, err, "2 line(s)")
	require.ErrorContains(t, err, "line 1 (netns add a): namespaces are made")
	require.ErrorContains(t, err, "line 3 (netns del a)")
}
