package sim

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
	"github.com/rtnlsim/rtnlsim/uapi"
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
		for d := range n.listed() {
			if d.in6 != nil {
				for _, a := range d.in6.addrs {
					require.False(t, a.flags&uapi.IFA_F_TENTATIVE != 0, "%s: %s still tentative after its request", d.name, a.addr)
					if a.scope == uapi.RT_SCOPE_LINK {
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

// runIPv6Script runs a props/testdata script on the sim (IPv6 on, events
// recorded): every line must be accepted.
func runIPv6Script(t *testing.T, name string) (*Target, []rtnl.Event) {
	t.Helper()
	src, err := os.ReadFile("../props/testdata/" + name)
	require.NoError(t, err)
	reqs, err := script.ParseString(string(src))
	require.NoError(t, err)
	tg := New(Options{Seed: 1, Events: true})
	t.Cleanup(func() { tg.Close() })
	for _, r := range reqs {
		require.NoError(t, tg.Apply(context.Background(), r), r.Text)
		require.Empty(t, tg.Netns().checkIPv6Estimate(), "after %q", r.Text)
	}
	evs, err := tg.Events(context.Background())
	require.NoError(t, err)
	return tg, evs
}

// inet6AddrEvents is the IPv6 RTM_NEWADDR and RTM_DELADDR of evs, as
// "TYPE ifname", in order.
func inet6AddrEvents(evs []rtnl.Event) []string {
	var out []string
	for _, e := range evs {
		if a, ok := e.Object.(rtnl.AddrEvent); ok && e.Family == "inet6" {
			out = append(out, e.Type+" "+a.Ifname)
		}
	}
	return out
}

// A veth created "up" with its peer down, and a macvlan created "up" on
// it, get no link-local address until the carrier comes (the tx queues
// have no qdisc yet: addrconf_link_ready is false); the bridge and the
// vxlan, created "up" with carrier, get theirs at once. rtnlsim diff
// --ipv6 agrees on the script.
func TestIPv6NoCarrierAtOpen(t *testing.T) {
	_, evs := runIPv6Script(t, "ipv6-veth-add-up.ip")
	// v1 up: v1 at once, v0 and mv0 at linkwatch; mv0 down and up again.
	require.Equal(t, []string{"RTM_NEWADDR br0", "RTM_NEWADDR vx0", "RTM_NEWADDR v1", "RTM_NEWADDR v0",
		"RTM_NEWADDR mv0", "RTM_DELADDR mv0", "RTM_NEWADDR mv0"}, inet6AddrEvents(evs))
}

// A lower's mtu below 1280: its macvlans take the mtu, and lose their
// IPv6, before the lower loses its own (the notifier chain has
// macvlan_device_event ahead of addrconf_notify).
func TestIPv6MacvlanLowerMTUOrder(t *testing.T) {
	_, evs := runIPv6Script(t, "ipv6-macvlan-lower-mtu.ip")
	var dels []string
	for _, s := range inet6AddrEvents(evs) {
		if strings.HasPrefix(s, "RTM_DELADDR") {
			dels = append(dels, s)
		}
	}
	// mtu 1279: both macvlans, then i0; back to 1500, mv0 only is set
	// back (mv1 stays at 1279); mtu 67: i0 only (the macvlans' minimum is
	// 68: dev_set_mtu fails and mv0 keeps 1500); mv0 down at the end.
	require.Equal(t, []string{"RTM_DELADDR mv0", "RTM_DELADDR mv1", "RTM_DELADDR i0",
		"RTM_DELADDR i0", "RTM_DELADDR mv0"}, dels)
}

// A bridge losing its last port in the request that gives it back an mtu
// of 1280 or more: its tx queues still hold their qdisc (linkwatch has not
// run), so it gets its link-local address at once, its fe80::/64 and
// ff00::/8 routes linkdown from the start (no carrier), its local route
// not.
func TestIPv6CarrierWindow(t *testing.T) {
	tg, evs := runIPv6Script(t, "ipv6-bridge-carrier-window.ip")
	var br0 []string
	for _, e := range evs {
		if r, ok := e.Object.(rtnl.RouteEntry); ok && e.Type == "RTM_NEWROUTE" && r.Dev == "br0" && e.Request == 9 { // link set i0 nomaster
			br0 = append(br0, fmt.Sprintf("%s %v", r.Dst, r.Flags))
		}
	}
	require.Len(t, br0, 3, "%v", br0)
	require.Contains(t, br0[0], "ff00::/8")
	require.Contains(t, br0[0], "linkdown")
	require.Contains(t, br0[1], "fe80::/64")
	require.Contains(t, br0[1], "linkdown")
	require.NotContains(t, br0[2], "linkdown")
	// Down and up again without carrier: nothing.
	require.Empty(t, tg.Netns().ByName("br0").in6.addrs)
}

// checkIPv6Estimate reports where the cost model's IPv6 estimate and the
// modelled IPv6 state disagree on how many routes and addresses there
// are ("" when they agree). The estimate counts a link-local address's
// local route from the start, the state from DAD's end, so it is
// meaningful between requests only; and the estimate does not follow the
// IPv6 routes and addresses a flush takes (route flush table all, -6 route
// flush, addr flush): it counts them still.
func (n *Netns) checkIPv6Estimate() string {
	var addrs int64
	for d := range n.listed() {
		if d.in6 != nil {
			addrs += int64(len(d.in6.addrs))
		}
	}
	e := n.v6Estimate()
	var routes int64
	for _, rs := range n.fib6.byDev {
		routes += int64(len(rs))
	}
	if e.Routes != routes || e.Addrs != addrs {
		return fmt.Sprintf("IPv6 estimate: %d routes, %d addresses; state: %d routes, %d addresses",
			e.Routes, e.Addrs, routes, addrs)
	}
	return ""
}

// The loopback below an mtu of 1280, up: each NETDEV_CHANGE (a group set)
// adds ::1 and takes it away again; down, nothing.
func TestIPv6LoopbackLowMTUChange(t *testing.T) {
	tg, evs := runIPv6Script(t, "ipv6-lo-low-mtu-change.ip")
	var lo []string
	for _, s := range inet6AddrEvents(evs) {
		if strings.HasSuffix(s, " lo") {
			lo = append(lo, s)
		}
	}
	// up (::1 stays), mtu 1000 (goes); then group 0 twice, mtu 1000
	// again after 1280 (the mtu change only: no NETDEV_CHANGE), group 3,
	// group 3 with mtu 1100 (one NETDEV_CHANGE), and up again at 1000:
	// ::1 comes and goes at each. Back to 1500 it stays away (the
	// inet6_dev is there: rt6_mtu_change only).
	want := []string{"RTM_NEWADDR lo", "RTM_DELADDR lo"}
	for range 5 {
		want = append(want, "RTM_NEWADDR lo", "RTM_DELADDR lo")
	}
	require.Equal(t, want, lo)
	require.Empty(t, tg.Netns().ByName("lo").in6.addrs)
}
