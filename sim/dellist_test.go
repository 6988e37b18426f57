package sim

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
)

const bulk = "linux-6.18+bulk-ifindex"

func linksOf(t *testing.T, tg *Target) []rtnl.Link {
	t.Helper()
	st, err := tg.State(context.Background(), rtnl.Show{Links: true})
	require.NoError(t, err)
	return st.Links
}

// +bulk-ifindex: duplicates and both ends of a veth are safe, and the list
// is one request: one batch, one rcu_barrier.
func TestBulkListDelete(t *testing.T) {
	src := "link add v0 type veth peer name v1\nlink add i0 type ifb\nlink add i1 type ifb\nlink set i0 up\nlink del list v0 i0 v0 v1 i0\n"
	tg, errs := runProfile(t, bulk, src)
	require.Equal(t, []string{"", "", "", "", ""}, errs)
	require.Equal(t, "1:lo 5:i1", ifnames(tg))
	c, err := tg.Cost(1)
	require.NoError(t, err)
	require.EqualValues(t, 1, c.Counters.RCUBarrier)
	require.EqualValues(t, 3, c.Counters.UnregisterDevice)
	require.EqualValues(t, 5, c.Counters.Request)
	// The same list without the switch: two RTM_DELLINK that delete (v0
	// with v1, then i0), one that gets ENODEV (v1, gone with v0): three
	// requests, two batches.
	tg, errs = runProfile(t, "linux-6.18", src)
	require.Equal(t, []string{"", "", "", "", ""}, errs)
	require.Equal(t, "1:lo 5:i1", ifnames(tg))
	c, err = tg.Cost(1)
	require.NoError(t, err)
	require.EqualValues(t, 2, c.Counters.RCUBarrier)
	require.EqualValues(t, 3, c.Counters.UnregisterDevice)
	require.EqualValues(t, 7, c.Counters.Request)
	require.Equal(t, []CostSource{{4, 0}, {4, 1}, {4, 2}}, tg.CostSources()[4:])
}

// One unknown name, or the loopback, refuses the whole bulk request and
// deletes nothing; without the switch the loopback stops the list after
// the devices before it went.
func TestBulkListRefusals(t *testing.T) {
	pre := "link add i0 type ifb\nlink add i1 type ifb\n"
	for _, c := range []struct {
		profile, line, errno, left string
		barriers                   int64
	}{
		{bulk, "link del list i0 nope i1", "ENODEV", "1:lo 2:i0 3:i1", 0},
		{"linux-6.18", "link del list i0 nope i1", "ENODEV", "1:lo 2:i0 3:i1", 0},
		{bulk, "link del list i0 lo i1", "EOPNOTSUPP", "1:lo 2:i0 3:i1", 0},
		{"linux-6.18", "link del list i0 lo i1", "EOPNOTSUPP", "1:lo 3:i1", 1},
	} {
		tg, errs := runProfile(t, c.profile, pre)
		before := linksOf(t, tg)
		_, err := runScriptOn(t, tg, c.line)
		require.Equal(t, c.errno, rtnl.ErrnoName(rtnl.Errno(err)), c)
		require.Equal(t, []string{"", ""}, errs)
		require.Equal(t, c.left, ifnames(tg), c)
		if c.left == "1:lo 2:i0 3:i1" {
			require.Equal(t, before, linksOf(t, tg), c)
		}
		cost, err := tg.Cost(1)
		require.NoError(t, err)
		require.Equal(t, c.barriers, cost.Counters.RCUBarrier, c)
	}
}

// runScriptOn applies one script line to tg.
func runScriptOn(t *testing.T, tg *Target, line string) (rtnl.Request, error) {
	t.Helper()
	reqs, err := script.ParseString(line + "\n")
	require.NoError(t, err)
	require.Len(t, reqs, 1)
	return reqs[0], tg.Apply(context.Background(), reqs[0])
}

// The request by ifindex: IFLA_GROUP with IFLA_IFINDEX is EOPNOTSUPP,
// an unknown ifindex ENODEV, both with nothing deleted; IFLA_GROUP alone is
// the group delete; nothing at all is EINVAL.
func TestDelLinkIfindex(t *testing.T) {
	tg, errs := runProfile(t, bulk, "link add i0 group 7 type ifb\nlink add i1 type ifb\nlink add v0 type veth peer name v1\n")
	require.Equal(t, []string{"", "", ""}, errs)
	before := linksOf(t, tg)
	g := uint32(7)
	err := tg.DelLinkIfindex([]int32{2, 3}, &g)
	require.Equal(t, "EOPNOTSUPP", rtnl.ErrnoName(rtnl.Errno(err)))
	require.ErrorContains(t, err, "Can't pass both IFLA_GROUP and IFLA_IFINDEX")
	for _, bad := range [][]int32{{2, 99}, {0}, {-3, 2}} {
		err = tg.DelLinkIfindex(bad, nil)
		require.Equal(t, "ENODEV", rtnl.ErrnoName(rtnl.Errno(err)), bad)
		require.ErrorContains(t, err, "Unknown ifindex")
	}
	require.Equal(t, "EINVAL", rtnl.ErrnoName(rtnl.Errno(tg.DelLinkIfindex(nil, nil))))
	require.Equal(t, before, linksOf(t, tg))
	c, err := tg.Cost(1)
	require.NoError(t, err)
	require.Zero(t, c.Counters.RCUBarrier)
	// v1 named with its peer, twice: one batch of three devices.
	require.NoError(t, tg.DelLinkIfindex([]int32{5, 3, 4, 5, 4}, nil))
	require.Equal(t, "1:lo 2:i0", ifnames(tg))
	require.NoError(t, tg.DelLinkIfindex(nil, &g))
	require.Equal(t, "1:lo", ifnames(tg))
	c, err = tg.Cost(1)
	require.NoError(t, err)
	require.EqualValues(t, 2, c.Counters.RCUBarrier)
	require.EqualValues(t, 4, c.Counters.UnregisterDevice)

	plain := New(Options{})
	require.ErrorIs(t, plain.DelLinkIfindex([]int32{1}, nil), ErrNeedsBulkIfindex)
	require.NoError(t, plain.Close())
	require.ErrorIs(t, plain.DelLinkIfindex([]int32{1}, nil), ErrClosed)
}

// Seed 000's list row on the target itself: 10,000 dummies UP, deleted by
// one `link del list` of all their names, priced with DefaultPrices (the seed 000 fit) in
// the seed's era. With +bulk-ifindex it is one request costing what the
// group row does (30 s, one rcu_barrier); without, the list is sent one
// device at a time and costs what one by one does (243 s, 10,000
// barriers).
func TestSeed000ListRowOnTarget(t *testing.T) {
	const n = 10000
	var b strings.Builder
	names := make([]string, n)
	for i := range n {
		names[i] = "d" + strconv.Itoa(i)
		fmt.Fprintf(&b, "link add %s up type dummy\n", names[i])
	}
	b.WriteString("link del list " + strings.Join(names, " ") + "\n")
	reqs, err := script.ParseString(b.String())
	require.NoError(t, err)
	fit := DefaultPrices()
	for _, c := range []struct {
		bulk             bool
		barriers, virtNs int64
	}{{true, 1, 30e9}, {false, n, 243e9}} {
		steps := UnregisterStepsV516()
		tg := New(Options{Cost: &fit, Unregister: &steps, BulkIfindex: c.bulk})
		res, err := rtnl.Run(context.Background(), tg, reqs, rtnl.Show{}, nil)
		require.NoError(t, err)
		require.Empty(t, res.Errors)
		require.Equal(t, "1:lo", ifnames(tg))
		cost, err := tg.Cost(1)
		require.NoError(t, err)
		require.Equal(t, c.barriers, cost.Counters.RCUBarrier, "bulk %v", c.bulk)
		require.EqualValues(t, n, cost.Counters.UnregisterDevice)
		require.InDelta(t, c.virtNs, cost.VirtualNs, 1e6, "bulk %v: %d ns", c.bulk, cost.VirtualNs)
	}
}

// The cost of a deletion depends on whether the device was UP when its
// batch began (seed 000: UP devices pay dev_close_many's notifiers and
// dev_deactivate_many's synchronize_net): on 6.18's steps an UP ifb's
// deletion makes three expedited synchronize_net, a DOWN one two, whether
// deleted alone, in a group or in a +bulk-ifindex list. An UP dummy's
// makes two: its noqueue qdisc has no enqueue, so dev_deactivate_many
// does not wait.
func TestDeleteCostSeesUp(t *testing.T) {
	for _, c := range []struct{ del, profile string }{
		{"link del d0", "linux-6.18"}, {"link del group 5", "linux-6.18"}, {"link del list d0", bulk},
	} {
		for _, kind := range []string{"ifb", "dummy"} {
			for _, up := range []bool{true, false} {
				src := "link add d0 group 5 type " + kind + "\n"
				if up {
					src = "link add d0 group 5 up type " + kind + "\n"
				}
				tg, errs := runProfile(t, c.profile, src+c.del+"\n")
				require.Equal(t, []string{"", ""}, errs)
				w := tg.workList()[len(tg.workList())-1]
				want := int64(2)
				if up && kind == "ifb" {
					want = 3
				}
				require.Equal(t, want, w.Count(cost.StepSynchronizeNetExpedited), "%s, %s up %v", c.del, kind, up)
				require.EqualValues(t, 1, w.Count(cost.StepRCUBarrier))
			}
		}
	}
}
