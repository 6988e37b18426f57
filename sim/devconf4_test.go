package sim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// TestRouteConfReach: how writes of all, default, a device and
// ip_forward reach each device's forwarding and rp_filter, as
// reg-route-get-iif-source.ip holds them against the kernel.
func TestRouteConfReach(t *testing.T) {
	n := runSim(t, `link add d1 type ifb
link add d2 type ifb
addr add 10.0.0.1/24 dev d2
sysctl net.ipv4.conf.d1.forwarding=1
sysctl net.ipv4.conf.all.forwarding=0
sysctl net.ipv4.conf.default.forwarding=1
sysctl net.ipv4.conf.default.rp_filter=2
link add d3 type ifb
sysctl net.ipv4.conf.default.rp_filter=0
`).Netns()
	fwd := func(name string) bool { return n.inDevForward(n.ByName(name).in) }
	rpf := func(name string) int { return n.inDevRPFilter(n.ByName(name).in) }
	// all written with its own value changes nothing; default reaches
	// only devices made later
	require.True(t, fwd("d1"))
	require.False(t, fwd("d2"))
	require.True(t, fwd("d3"))
	// default's rp_filter reaches d1 (never written, no address), not d2
	// (an address set its bits), and d3 copied the bit when it was made
	require.Equal(t, 0, rpf("d1"))
	require.Equal(t, 0, rpf("d2"))
	require.Equal(t, 2, rpf("d3"))
	require.NoError(t, n.sysctl(rtnl.Sysctl{Key: "net.ipv4.ip_forward", Value: "1"}))
	require.True(t, fwd("d1") && fwd("d2") && fwd("d3"))
	require.NoError(t, n.sysctl(rtnl.Sysctl{Key: "net.ipv4.conf.all.rp_filter", Value: "1"}))
	require.Equal(t, 1, rpf("d1"))
	require.Equal(t, 2, rpf("d3"))
}
