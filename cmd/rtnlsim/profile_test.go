package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// --profile on the sim: linux-6.4 dumps in hash-bucket order, and
// +bulk-ifindex makes a list delete one request with one rcu_barrier.
func TestSimProfile(t *testing.T) {
	src := "link add xa index 2 type ifb\nlink add xb index 257 type ifb\n"
	out, _, err := runCLI(t, src, "run", "--target", "sim", "--profile", "linux-6.4", "--format", "json", "--show", "links", "-")
	require.NoError(t, err)
	var got struct {
		Links []struct {
			Ifname string `json:"ifname"`
		} `json:"links"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	var names []string
	for _, l := range got.Links {
		names = append(names, l.Ifname)
	}
	require.Equal(t, []string{"xb", "lo", "xa"}, names)
	out, _, err = runCLI(t, src, "run", "--target", "sim", "--format", "json", "--show", "links", "-")
	require.NoError(t, err)
	require.Less(t, strings.Index(out, `"lo"`), strings.Index(out, `"xb"`))

	del := "link add x1 type ifb\nlink add x2 type ifb\nlink add x3 type ifb\nlink del list x1 x2 x3\n"
	type costOut struct {
		Cost struct {
			Lines    []int `json:"lines"`
			Counters struct {
				RCUBarrier int `json:"rcu_barrier"`
				Request    int `json:"request"`
			} `json:"counters"`
		} `json:"cost"`
	}
	var c costOut
	out, _, err = runCLI(t, del, "run", "--target", "sim", "--profile", "linux-6.18+bulk-ifindex", "--show", "cost", "--format", "json", "-")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal([]byte(out), &c))
	require.Equal(t, 1, c.Cost.Counters.RCUBarrier)
	require.Equal(t, []int{1, 2, 3, 4}, c.Cost.Lines)
	c = costOut{}
	out, _, err = runCLI(t, del, "run", "--target", "sim", "--show", "cost", "--format", "json", "-")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal([]byte(out), &c))
	require.Equal(t, 3, c.Cost.Counters.RCUBarrier)
	require.Equal(t, 6, c.Cost.Counters.Request)
	require.Equal(t, []int{1, 2, 3, 4, 4, 4}, c.Cost.Lines)
	text, _, err := runCLI(t, del, "run", "--target", "sim", "--show", "cost", "-")
	require.NoError(t, err)
	require.Contains(t, text, "(kernel request 3 of) link del list x1 x2 x3")
}

func TestProfileFlagRefusals(t *testing.T) {
	_, _, err := runCLI(t, "", "run", "--target", "sim", "--profile", "linux-5.4", "-")
	require.ErrorContains(t, err, `unknown base "linux-5.4"`)
	require.ErrorContains(t, err, "linux-6.18, linux-6.4")
	// Seed 003's kernels are modelled in their FIB only, and say so.
	_, stderr, err := runCLI(t, "", "run", "--target", "sim", "--profile", "linux-4.2-rc3", "-")
	require.NoError(t, err)
	require.Contains(t, stderr, "FIB only")
	// The kernel target is this machine's kernel: refused before any
	// namespace is made, so no root is needed to see it.
	for _, p := range []string{"linux-6.4", "linux-6.18+bulk-ifindex", "+ifa-flush"} {
		_, _, err = runCLI(t, "", "run", "--target", "kernel", "--profile", p, "-")
		require.ErrorContains(t, err, "--target sim", p)
		_, _, err = runCLI(t, "", "diff", "--profile", p, "-")
		require.ErrorContains(t, err, "linux-6.18 without switches", p)
	}
	// +ifa-flush: a flush with promotion on promotes nothing.
	src := "link add x0 type ifb\nsysctl net.ipv4.conf.x0.promote_secondaries=1\naddr add 10.0.0.1/8 dev x0\naddr add 10.0.0.2/8 dev x0\naddr add 10.0.0.3/8 dev x0\naddr flush dev x0\n"
	out, _, err := runCLI(t, src, "run", "--target", "sim", "--profile", "linux-6.18+ifa-flush", "--show", "events", "-")
	require.NoError(t, err)
	require.NotContains(t, out, "[6] RTM_NEWADDR")
	out, _, err = runCLI(t, src, "run", "--target", "sim", "--show", "events", "-")
	require.NoError(t, err)
	require.Contains(t, out, "[6] RTM_NEWADDR")
}
