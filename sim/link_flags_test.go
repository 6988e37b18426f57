package sim

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
)

// TestLinkFlagsAliasBroadcast holds what this kernel showed for the
// interface flags, alias, broadcast and carrier of an ifb (ip monitor in
// a namespace of its own): which lines notify, the flags dumps show, and
// the errnos. The differential property checks the rest against the
// kernel itself.
func TestLinkFlagsAliasBroadcast(t *testing.T) {
	lines := []struct {
		line, errno string
		newlinks    int
	}{
		{"link add i0 type ifb", "", 1},
		{"link set i0 promisc on", "", 1},
		{"link set i0 arp off", "", 0},       // ifb has NOARP already
		{"link set i0 multicast off", "", 0}, // and no MULTICAST
		{"link set i0 allmulticast on", "", 1},
		{"link set i0 alias 'hello world'", "", 0}, // netdev_state_change: down
		{"link set i0 broadcast 11:22:33:44:55:66", "", 1},
		{"link set i0 carrier on", "EOPNOTSUPP", 0},
		{"link set i0 up", "", 1},
		{"link set i0 promisc on", "", 0},
		{"link set i0 promisc off", "", 1},
		{"link set i0 alias x", "", 1}, // up: notified
		{"link set i0 broadcast 00:11", "EINVAL", 0},
	}
	tg := New(Options{Seed: 1, Events: true, Sysctls: map[string]string{"net.ipv6.conf.default.disable_ipv6": "1"}})
	ctx := context.Background()
	for _, l := range lines {
		n := 0
		for _, e := range lineEvents(t, tg, l.line, l.errno) {
			if e.Type == "RTM_NEWLINK" && e.Family == "link" {
				n++
			}
		}
		require.Equal(t, l.newlinks, n, l.line)
	}
	st, err := tg.State(ctx, rtnl.Show{Links: true})
	require.NoError(t, err)
	i0 := st.Links[1]
	require.Equal(t, []string{"BROADCAST", "NOARP", "ALLMULTI", "UP", "LOWER_UP"}, i0.Flags)
	require.Equal(t, "x", i0.Ifalias)
	require.Equal(t, "11:22:33:44:55:66", i0.Broadcast)
	addrs, err := tg.State(ctx, rtnl.Show{Addrs: true})
	require.NoError(t, err)
	require.Empty(t, addrs.Addrs[1].Ifalias, "addr show prints no alias")
}

// TestLinkFlagsReachOthers holds two changes that notify beyond the
// device, as the kernel did for the same lines (rtnlsim diff --ipv6): an
// arp change on a running device re-announces its IPv6 address (DAD run
// again), and an up macvlan's promisc passes to its lower first.
func TestLinkFlagsReachOthers(t *testing.T) {
	// Lines with no events listed are set-up, not checked.
	lines := []struct {
		line   string
		events []string // "TYPE family ifname"
	}{
		{"link add i0 type ifb", nil},
		{"link add v0 type veth peer name v1", nil},
		{"link add mv0 link v0 type macvlan", nil},
		{"sysctl net.ipv6.conf.all.disable_ipv6=1", nil},
		{"sysctl net.ipv6.conf.i0.disable_ipv6=0", nil},
		{"link set i0 up", nil},
		{"link set i0 arp on", []string{"RTM_NEWLINK link i0", "RTM_NEWADDR inet6 i0"}},
		{"link set i0 arp on", []string{}},
		{"link set v0 up", nil},
		{"link set mv0 up", nil},
		{"link set mv0 promisc on", []string{"RTM_NEWLINK link v0", "RTM_NEWLINK link mv0"}},
		{"link set mv0 allmulticast on", []string{"RTM_NEWLINK link mv0"}},
		{"link set mv0 promisc off", []string{"RTM_NEWLINK link v0", "RTM_NEWLINK link mv0"}},
	}
	tg := New(Options{Seed: 1, Events: true})
	for _, l := range lines {
		got := []string{}
		for _, e := range lineEvents(t, tg, l.line, "") {
			name := ""
			switch o := e.Object.(type) {
			case rtnl.Link:
				name = o.Ifname
			case rtnl.AddrEvent:
				name = o.Ifname
			case rtnl.RouteEntry:
				name = o.Dev
			}
			got = append(got, e.Type+" "+e.Family+" "+name)
		}
		if l.events != nil {
			require.Equal(t, l.events, got, l.line)
		}
	}
}

// lineEvents applies one script line on tg, requiring the errno named
// ("" for success), and returns the notifications it sent.
func lineEvents(t *testing.T, tg *Target, line, errno string) []rtnl.Event {
	t.Helper()
	ctx := context.Background()
	before, err := tg.Events(ctx)
	require.NoError(t, err)
	reqs, err := script.ParseString(line + "\n")
	require.NoError(t, err)
	require.Equal(t, errno, rtnl.ErrnoName(rtnl.Errno(tg.Apply(ctx, reqs[0]))), line)
	evs, err := tg.Events(ctx)
	require.NoError(t, err)
	return evs[len(before):]
}
