package sim

import (
	"context"
	"net"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
)

// The link-local address of an ifb this kernel gave MAC 46:af:4d:3e:95:a8.
func TestEUI64LinkLocal(t *testing.T) {
	mac, err := net.ParseMAC("46:af:4d:3e:95:a8")
	require.NoError(t, err)
	a, ok := eui64LinkLocal(mac)
	require.True(t, ok)
	require.Equal(t, "fe80::44af:4dff:fe3e:95a8", a.String())
	_, ok = eui64LinkLocal(make(net.HardwareAddr, 4))
	require.False(t, ok)
}

// fib6_walk visits left before right and a node's own routes after its
// children.
func TestPrefixWalkOrder(t *testing.T) {
	order := []string{"::1/128", "fe80::1/128", "fe80::2/128", "ff02::/16", "ff00::/8"}
	for i := range order {
		for j := range order {
			p, q := netip.MustParsePrefix(order[i]), netip.MustParsePrefix(order[j])
			got := prefixWalkOrder(p, q)
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			require.Equal(t, want, got, "%s vs %s", p, q)
		}
	}
}

// The cost model's IPv6 estimate (ipv6cost.go) and the modelled state
// (addrconf.go) follow the same events: after every request they count the
// same routes and addresses, through ups and downs, carrier changes, an
// mtu below 1280 and back, disable_ipv6 and deletions.
func TestIPv6EstimateMatchesState(t *testing.T) {
	src := `link set lo up
link add i0 type ifb
link add i1 type ifb
link set i0 up
link set i1 up
link add va type veth peer name vb
link set va up
link set vb up
link set vb down
link set vb up
link set i0 mtu 1000
link set i0 mtu 1500
link set i0 down
link set i0 up
sysctl net.ipv6.conf.i1.disable_ipv6=1
sysctl net.ipv6.conf.i1.disable_ipv6=0
sysctl net.ipv6.conf.default.disable_ipv6=1
link add i2 up type ifb
sysctl net.ipv6.conf.all.disable_ipv6=0
link add br0 type bridge
link set br0 up
link set va master br0
link set lo down
link set lo up
link del vb
link set group 0 down
`
	reqs, err := script.ParseString(src)
	require.NoError(t, err)
	tg := New(Options{Seed: 1, Events: true})
	defer tg.Close()
	n := tg.Netns()
	lla := 0
	for _, r := range reqs {
		require.NoError(t, tg.Apply(context.Background(), r), r.Text)
		require.Empty(t, n.checkIPv6Estimate(), "after %q", r.Text)
		for _, d := range n.devs {
			if d.in6 != nil {
				for _, a := range d.in6.addrs {
					require.False(t, a.flags&0x40 != 0, "%s: %s still tentative after its request", d.Name, a.addr)
					if a.scope == 253 {
						lla++
					}
				}
			}
		}
	}
	require.Positive(t, lla)
	st, err := tg.State(context.Background(), rtnl.Show{Routes: true})
	require.NoError(t, err)
	require.NotEmpty(t, st.Routes)
}
