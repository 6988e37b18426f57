package differ

import (
	"net"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
	"github.com/rtnlsim/rtnlsim/sim"
)

// The kernel's random picks are the new addresses of devices as they are
// made; written ones, zero and inherited ones are not; the model, given
// only their order, keeps it, and honours written addresses itself.
func TestKernelRandomMACsAndTheirOrder(t *testing.T) {
	reqs, err := script.ParseString("link add i0 address 02:00:00:00:00:42 type ifb\nlink add i1 type ifb\nlink add v0 type veth peer name v1\nlink add mv0 link i1 type macvlan mode passthru\n")
	require.NoError(t, err)
	ev := func(req int, name, mac string) rtnl.Event {
		return rtnl.Event{Type: "RTM_NEWLINK", Family: "link", Request: req, Object: rtnl.Link{Ifname: name, Address: mac}}
	}
	kern := []rtnl.Event{
		ev(1, "i0", "02:00:00:00:00:42"),
		ev(2, "i1", "ee:00:00:00:00:01"),
		ev(3, "v1", "aa:00:00:00:00:03"), ev(3, "v0", "06:00:00:00:00:02"), ev(3, "v0", "06:00:00:00:00:09"),
		ev(4, "mv0", "ee:00:00:00:00:01"),
	}
	picks := KernelRandomMACs(reqs, kern)
	mac := func(s string) net.HardwareAddr { a, _ := net.ParseMAC(s); return a }
	require.Equal(t, map[DeviceAt]net.HardwareAddr{
		{2, "i1"}: mac("ee:00:00:00:00:01"), {3, "v1"}: mac("aa:00:00:00:00:03"), {3, "v0"}: mac("06:00:00:00:00:02"),
	}, picks)
	rank := ranks(picks)
	require.Equal(t, map[string]int{"06:00:00:00:00:02": 0, "aa:00:00:00:00:03": 1, "ee:00:00:00:00:01": 2}, rank)

	st := sim.New(sim.Options{Seed: 7, MACOrder: func(req int, name string) (int, bool) {
		a, ok := picks[DeviceAt{req, name}]
		return rank[a.String()], ok
	}})
	defer st.Close()
	for _, r := range reqs {
		require.NoError(t, st.Apply(t.Context(), r))
	}
	s, err := st.State(t.Context(), rtnl.Show{Links: true})
	require.NoError(t, err)
	got := map[string]string{}
	for _, l := range s.Links {
		got[l.Ifname] = l.Address
	}
	require.Equal(t, "02:00:00:00:00:42", got["i0"])
	require.Equal(t, st.RankedMAC(2).String(), got["i1"])
	require.Equal(t, st.RankedMAC(1).String(), got["v1"])
	require.Equal(t, st.RankedMAC(0).String(), got["v0"])
	require.Equal(t, got["i1"], got["mv0"], "a passthru macvlan takes its lower's address")
	require.Less(t, string(st.RankedMAC(0)), string(st.RankedMAC(1)))
	require.Less(t, "\x02\x00\x00\x00\x00\x43", string(st.RankedMAC(0)), "above the written addresses")
}
