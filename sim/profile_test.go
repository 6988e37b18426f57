package sim

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/fibtrie"
	"github.com/rtnlsim/rtnlsim/netdevindex"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
)

func TestParseProfile(t *testing.T) {
	for _, c := range []struct {
		in, name, base, fib string
		index               netdevindex.Options
		bulk, ifa           bool
	}{
		{"", "linux-6.18", "linux-6.18", "linux-6.18", netdevindex.Since69(), false, false},
		{"linux-6.18", "linux-6.18", "linux-6.18", "linux-6.18", netdevindex.Since69(), false, false},
		{" linux-6.4 ", "linux-6.4", "linux-6.4", "linux-6.18", netdevindex.Before65(), false, false},
		{"+bulk-ifindex", "linux-6.18+bulk-ifindex", "linux-6.18", "linux-6.18", netdevindex.Since69(), true, false},
		{"linux-6.18+bulk-ifindex", "linux-6.18+bulk-ifindex", "linux-6.18", "linux-6.18", netdevindex.Since69(), true, false},
		{"linux-6.4+ifa-flush+bulk-ifindex", "linux-6.4+bulk-ifindex+ifa-flush", "linux-6.4", "linux-6.18", netdevindex.Before65(), true, true},
	} {
		p, err := ParseProfile(c.in)
		require.NoError(t, err, c.in)
		require.Equal(t, c.name, p.Name, c.in)
		require.Equal(t, c.name, p.String(), c.in)
		require.Equal(t, c.base, p.Base, c.in)
		require.Equal(t, c.index, p.Index, c.in)
		require.Equal(t, c.bulk, p.BulkIfindex, c.in)
		require.Equal(t, c.ifa, p.IfaFlush, c.in)
		o := p.Options(5)
		require.Equal(t, int64(5), o.Seed)
		require.Equal(t, c.index, o.Index)
		require.Equal(t, c.bulk, o.BulkIfindex)
		require.Equal(t, UnregisterStepsV618(), *o.Unregister)
		want := map[string]fibtrie.Options{"linux-6.18": fibtrie.Linux618(), "linux-4.2": fibtrie.Linux42(), "linux-4.2-rc3": fibtrie.Linux42rc3()}[c.fib]
		require.Equal(t, want, p.FIB, c.in)
		require.Equal(t, want, o.FIB, c.in)
		// The canonical name parses to the same profile.
		again, err := ParseProfile(p.Name)
		require.NoError(t, err)
		require.Equal(t, p, again)
	}
	for in, msg := range map[string]string{
		"linux-5.10":                           `unknown base "linux-5.10"`,
		"linux-6.18+bulk":                      "unknown switch +bulk",
		"linux-6.18++bulk-ifindex":             "empty switch",
		"linux-6.18+":                          "empty switch",
		"linux-6.18+bulk-ifindex+bulk-ifindex": "+bulk-ifindex given twice",
	} {
		_, err := ParseProfile(in)
		require.ErrorContains(t, err, msg, in)
		if !strings.Contains(msg, "twice") {
			// Every refusal names what is known.
			require.ErrorContains(t, err, "linux-6.18, linux-6.4, linux-4.2-rc3, linux-4.2", in)
			require.ErrorContains(t, err, "+bulk-ifindex, +ifa-flush", in)
		}
	}
	require.Panics(t, func() { MustParseProfile("nope") })
}

func TestProfileUnmodelledAndKernel(t *testing.T) {
	p := MustParseProfile("linux-4.2-rc3")
	require.Len(t, p.Unmodelled(), 1)
	require.Contains(t, p.Unmodelled()[0], "FIB only")
	require.True(t, p.Options(0).FIB.FlushPullsLeafSuffix)
	require.True(t, MustParseProfile("+ifa-flush").Options(0).IfaFlush)
	require.Empty(t, MustParseProfile("linux-6.18+bulk-ifindex+ifa-flush").Unmodelled())
	require.NoError(t, MustParseProfile("").KernelCompatible())
	for _, s := range []string{"linux-6.4", "linux-6.18+bulk-ifindex", "linux-6.18+ifa-flush"} {
		err := MustParseProfile(s).KernelCompatible()
		require.ErrorContains(t, err, "--target sim", s)
		require.ErrorContains(t, err, s, s)
	}
}

// runProfile applies src on a target of the named profile and returns it
// with each line's errno name.
func runProfile(t *testing.T, profile, src string) (*Target, []string) {
	t.Helper()
	reqs, err := script.ParseString(src)
	require.NoError(t, err)
	tg := New(MustParseProfile(profile).Options(7))
	var errs []string
	for _, r := range reqs {
		errs = append(errs, rtnl.ErrnoName(rtnl.Errno(tg.Apply(context.Background(), r))))
	}
	return tg, errs
}

// Under linux-6.4 a link dump walks the 256 hash buckets, each chain newest
// first; under linux-6.18 it is in ifindex order.
func TestProfileDumpOrder(t *testing.T) {
	src := "link add xa index 2 type ifb\nlink add xb index 257 type ifb\nlink add xc type ifb\n"
	tg, errs := runProfile(t, "linux-6.18", src)
	require.Equal(t, []string{"", "", ""}, errs)
	require.Equal(t, "1:lo 2:xa 3:xc 257:xb", ifnames(tg))
	tg, errs = runProfile(t, "linux-6.4", src)
	require.Equal(t, []string{"", "", ""}, errs)
	// Bucket 1 holds lo (1) and xb (257), xb at the head. (An explicit
	// index does not move the allocation cursor: xc gets 3.)
	require.Equal(t, "257:xb 1:lo 2:xa 3:xc", ifnames(tg))
	st, err := tg.State(context.Background(), rtnl.Show{Links: true})
	require.NoError(t, err)
	var names []string
	for _, l := range st.Links {
		names = append(names, l.Ifname)
	}
	require.Equal(t, []string{"xb", "lo", "xa", "xc"}, names)

	// 600 devices: the dump is (bucket ascending, newest first in a
	// bucket), which is not ifindex order.
	var b strings.Builder
	for i := range 600 {
		fmt.Fprintf(&b, "link add d%d type ifb\n", i)
	}
	tg, _ = runProfile(t, "linux-6.4", b.String())
	devs := tg.Netns().Devices()
	require.Len(t, devs, 601)
	want := append([]*Device(nil), devs...)
	sort.SliceStable(want, func(i, j int) bool {
		bi, bj := netdevindex.Bucket(want[i].ifindex), netdevindex.Bucket(want[j].ifindex)
		if bi != bj {
			return bi < bj
		}
		return want[i].seq > want[j].seq
	})
	require.Equal(t, want, devs)
	require.False(t, sort.SliceIsSorted(devs, func(i, j int) bool { return devs[i].ifindex < devs[j].ifindex }))
	tg, _ = runProfile(t, "linux-6.18", b.String())
	devs = tg.Netns().Devices()
	require.True(t, sort.SliceIsSorted(devs, func(i, j int) bool { return devs[i].ifindex < devs[j].ifindex }))
}

// linux-6.4 allocates ifindexes with dev_new_index, 6.18 with
// xa_alloc_cyclic: neither reuses a freed ifindex before wrapping.
func TestProfileIfindexAllocation(t *testing.T) {
	src := "link add xa type ifb\nlink add xb type ifb\nlink del xb\nlink add xc type ifb\n"
	for _, p := range []string{"linux-6.18", "linux-6.4"} {
		tg, errs := runProfile(t, p, src)
		require.Equal(t, []string{"", "", "", ""}, errs, p)
		require.Contains(t, ifnames(tg), "4:xc", p)
	}
}

func TestLoadProfileFile(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/p.json"
	cost := cost.Params{RequestNs: 1000, RCUBarrierNs: 15_000_000, FibOpNs: 1300}
	require.NoError(t, WriteProfileFile(path, ProfileFile{Profile: "linux-6.18", Cost: cost,
		Provenance: ProfileProvenance{Kernel: "6.18.0", Repeat: 3,
			Scenarios: []ProvenanceScenario{{Name: "x", MeasuredNs: 10, FittedNs: 11, Residual: 0.1}}}}))
	p, err := LoadProfile(path)
	require.NoError(t, err)
	require.Equal(t, "linux-6.18", p.Name)
	require.NoError(t, p.KernelCompatible())
	require.NotNil(t, p.Cost)
	require.Equal(t, cost, *p.Cost)
	require.Equal(t, "6.18.0", p.Provenance.Kernel)
	o := p.Options(1)
	require.NotNil(t, o.Cost)
	require.Equal(t, cost, *o.Cost)
	o.Cost.RequestNs = 7 // a copy: the profile keeps its prices
	require.Equal(t, 1000.0, p.Cost.RequestNs)

	// The calibration's newer fields round-trip; a file without them (the
	// one above) still loads.
	prov := ProfileProvenance{Kernel: "6.18.0", Repeat: 3, Client: "ip -b", Load: "1.0 1.0 1.0",
		ProcessStart: []ProvenanceProcessStart{{Threads: 1, MedianNs: 2_600_000, MinNs: 2_500_000, MaxNs: 4_900_000, Runs: 9}}, ProcessStartSubtracted: true,
		Prices:      []ProvenancePrice{{Step: "request", Ns: 1000, LoNs: 900, HiNs: 2100, Status: "fitted", Distance: 0.25, FittedDistance: 0.26, Wide: true}},
		Design:      &ProvenanceDesign{Scenarios: 26, Columns: 17, Rank: 16, FittedColumns: 15, FittedRank: 15, FittedCondition: 33.8, MinDistance: 0.05},
		Predictions: []ProvenancePrediction{{Group: "g", Name: "n", PredictedNs: 5, PredictedLoNs: 4, PredictedHiNs: 6, MeasuredNs: 5, MeasuredLoNs: 5, MeasuredHiNs: 7}},
		Scenarios:   []ProvenanceScenario{{Name: "x", MeasuredNs: 10, FittedNs: 11, Residual: 0.1, Client: "ip -b", RunsNs: []int64{12, 13}, NetNs: []int64{10, 11}}}}
	newer := dir + "/newer.json"
	require.NoError(t, WriteProfileFile(newer, ProfileFile{Profile: "linux-6.18", Cost: cost, Provenance: prov}))
	p, err = LoadProfile(newer)
	require.NoError(t, err)
	require.Equal(t, prov, *p.Provenance)

	// A file with switches: its prices under its profile plus the switch.
	p, err = LoadProfile(path + "+ifa-flush")
	require.NoError(t, err)
	require.Equal(t, "linux-6.18+ifa-flush", p.Name)
	require.True(t, p.IfaFlush)
	require.Equal(t, cost, *p.Cost)
	_, err = LoadProfile(path + "+no-such-switch")
	require.ErrorContains(t, err, "no-such-switch")

	// Names still load as names, with no prices of their own.
	p, err = LoadProfile("linux-6.4+bulk-ifindex")
	require.NoError(t, err)
	require.Nil(t, p.Cost)
	require.Nil(t, p.Options(0).Cost)

	// A missing file that looks like one is named as such.
	_, err = LoadProfile(dir + "/missing.json")
	require.ErrorContains(t, err, "no such profile file")

	// Bad files are refused.
	for _, bad := range []string{`{"profile":"linux-9","cost":{"request_ns":1}}`, `{"profile":"linux-6.18","cost":{"request_ns":-1}}`,
		`{"profile":"linux-6.18","cost":{}}`, `{"profile":"linux-6.18","cost":{"request_ns":1},"extra":1}`, `not json`} {
		require.NoError(t, os.WriteFile(path, []byte(bad), 0o644))
		_, err := LoadProfile(path)
		require.Error(t, err, bad)
	}
}
