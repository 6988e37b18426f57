package sim

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// A namespace exit takes every device, the loopback too, in one batch:
// each device is unregistered once (a veth's peer, a bridge's ports and a
// lower's macvlans included), with one rcu_barrier for the batch and one
// of cleanup_net; the target then refuses requests.
func TestExitNetns(t *testing.T) {
	tg := runSimOpts(t, Options{Seed: 1, Events: true}, `link add v0 type veth peer name v1
link add br0 type bridge
link add x0 type ifb
link set x0 master br0
link set v1 master br0
link add mv0 link v0 type macvlan
link add vx0 type vxlan id 7
link set group 0 up
`)
	before, err := tg.Cost(1)
	require.NoError(t, err)
	require.NoError(t, tg.ExitNetns())
	st, err := tg.State(context.Background(), rtnl.Show{Links: true})
	require.NoError(t, err)
	require.Empty(t, st.Links)

	after, err := tg.Cost(1)
	require.NoError(t, err)
	// lo, v0, v1, br0, x0, mv0, vx0
	require.EqualValues(t, 7, after.Counters.UnregisterDevice-before.Counters.UnregisterDevice)
	require.EqualValues(t, 2, after.Counters.RCUBarrier-before.Counters.RCUBarrier)

	dels := map[int]int{}
	evs, err := tg.Events(context.Background())
	require.NoError(t, err)
	for _, e := range evs {
		if e.Type == "RTM_DELLINK" && e.Family == "link" {
			dels[e.Object.(rtnl.Link).Ifindex]++
		}
	}
	require.Len(t, dels, 7)
	for idx, n := range dels {
		require.Equal(t, 1, n, "ifindex %d", idx)
	}

	err = tg.Apply(context.Background(), rtnl.Request{Line: 1, Op: rtnl.LinkDel{Dev: "x0"}})
	require.ErrorIs(t, err, ErrNetnsExited)
	require.ErrorIs(t, tg.ExitNetns(), ErrNetnsExited)
}
