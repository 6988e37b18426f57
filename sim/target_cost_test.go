package sim

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
)

func runSim(t *testing.T, src string) *Target {
	t.Helper()
	return runSimOpts(t, Options{Seed: 1}, src)
}

func runSimOpts(t *testing.T, opts Options, src string) *Target {
	t.Helper()
	reqs, err := script.ParseString(src)
	require.NoError(t, err)
	tg := New(opts)
	_, err = rtnl.Run(context.Background(), tg, reqs, rtnl.Show{}, nil)
	require.NoError(t, err)
	return tg
}

const threeUp = "link add x1 type ifb\nlink add x2 type ifb\nlink add x3 type ifb\nlink set x1 up\nlink set x2 up\nlink set x3 up\nlink set x1 group 5\nlink set x2 group 5\nlink set x3 group 5\n"

// The sim's own requests drive the cost engine: one rcu_barrier per
// deleting request, whatever the request deletes; none for the others.
func TestTargetCostFollowsRequests(t *testing.T) {
	oneByOne, err := runSim(t, threeUp+"link del x1\nlink del x2\nlink del x3\n").Cost(1)
	require.NoError(t, err)
	require.EqualValues(t, 3, oneByOne.Counters.RCUBarrier)
	require.EqualValues(t, 3, oneByOne.Counters.UnregisterDevice)
	require.EqualValues(t, 12, oneByOne.Counters.Request)

	group, err := runSim(t, threeUp+"link del group 5\n").Cost(1)
	require.NoError(t, err)
	require.EqualValues(t, 1, group.Counters.RCUBarrier)
	require.EqualValues(t, 3, group.Counters.UnregisterDevice)

	// Without +bulk-ifindex the list is what the kernel target sends: one
	// RTM_DELLINK per distinct device, each its own batch and barrier.
	tg := runSim(t, threeUp+"link del list x1 x2 x3 x1\n")
	list, err := tg.Cost(1)
	require.NoError(t, err)
	require.EqualValues(t, 3, list.Counters.RCUBarrier)
	require.EqualValues(t, 3, list.Counters.UnregisterDevice)
	require.EqualValues(t, 12, list.Counters.Request)
	src := tg.CostSources()
	require.Len(t, src, 12)
	require.Equal(t, []CostSource{{9, 0}, {9, 1}, {9, 2}}, src[9:])
	// With it, one request, one batch, one barrier.
	bulk, err := runSimOpts(t, Options{Seed: 1, BulkIfindex: true}, threeUp+"link del list x1 x2 x3 x1\n").Cost(1)
	require.NoError(t, err)
	require.EqualValues(t, 1, bulk.Counters.RCUBarrier)
	require.EqualValues(t, 3, bulk.Counters.UnregisterDevice)
	require.EqualValues(t, 10, bulk.Counters.Request)
	require.Less(t, bulk.VirtualNs, list.VirtualNs)

	// A veth pair goes in one batch: two devices, one barrier.
	veth, err := runSim(t, "link add v0 type veth peer name v1\nlink del v0\n").Cost(1)
	require.NoError(t, err)
	require.EqualValues(t, 1, veth.Counters.RCUBarrier)
	require.EqualValues(t, 2, veth.Counters.UnregisterDevice)

	// The group batch costs less than one by one: one barrier, one set of
	// synchronize_net.
	require.Less(t, group.VirtualNs, oneByOne.VirtualNs)
}
