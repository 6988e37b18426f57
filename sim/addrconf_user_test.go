package sim

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// TestUserIPv6DADWaitsForReady holds what the kernel did with the same
// lines (rtnlsim diff --ipv6, accept_dad left at 1): an address added to
// a veth that is down stays tentative, with no prefix route, until the
// device is up with carrier; then its prefix route comes at NETDEV_UP and
// DAD runs; a nodad address is announced once, not tentative.
func TestUserIPv6DADWaitsForReady(t *testing.T) {
	lines := []struct {
		line   string
		events []string // "TYPE family what"; nil: not checked
	}{
		{"link add v0 type veth peer name v1", nil},
		{"addr add 2001:db8::1/64 dev v0", []string{"RTM_NEWADDR inet6 2001:db8::1 tentative"}},
		{"addr add 2001:db8::2/64 dev v0 nodad", []string{"RTM_NEWADDR inet6 2001:db8::2"}},
		{"link set v0 up", []string{}}, // v1 is down: no carrier, not ready
		{"link set v1 up", nil},
	}
	tg := New(Options{Seed: 1, Events: true})
	ctx := context.Background()
	for _, l := range lines {
		got := []string{}
		for _, e := range lineEvents(t, tg, l.line, "") {
			if a, ok := e.Object.(rtnl.AddrEvent); ok {
				s := e.Type + " " + e.Family + " " + a.Local
				if a.Tentative {
					s += " tentative"
				}
				got = append(got, s)
			}
		}
		if l.events != nil {
			require.Equal(t, l.events, got, l.line)
		}
	}
	st, err := tg.State(ctx, rtnl.Show{Addrs: true, Routes: true})
	require.NoError(t, err)
	var v0 []string
	for _, la := range st.Addrs {
		if la.Ifname == "v0" {
			for _, a := range la.AddrInfo {
				v0 = append(v0, a.Local)
				require.False(t, a.Tentative, a.Local)
			}
		}
	}
	require.Contains(t, v0, "2001:db8::1")
	found := false
	for _, r := range st.Routes {
		found = found || (r.Dst == "2001:db8::/64" && r.Dev == "v0")
	}
	require.True(t, found, "the prefix route came with the device")
}
