package compare

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

func link(idx int, name, mac string) rtnl.Link {
	return rtnl.Link{Ifindex: idx, Ifname: name, LinkType: "ether", Address: mac, Broadcast: "ff:ff:ff:ff:ff:ff", Flags: []string{}}
}

func noBridge(string) bool { return false }

func TestLinksRenameRandomMACsConsistently(t *testing.T) {
	fixed := []string{"ff:ff:ff:ff:ff:ff", "02:00:00:00:00:42"}
	sim := []rtnl.Link{link(2, "a", "aa:00:00:00:00:01"), link(3, "b", "aa:00:00:00:00:02"), link(4, "c", "02:00:00:00:00:42")}
	kern := []rtnl.Link{link(2, "a", "bb:00:00:00:00:09"), link(3, "b", "bb:00:00:00:00:08"), link(4, "c", "02:00:00:00:00:42")}
	require.Empty(t, Links(sim, kern, fixed, noBridge))

	// Two sim addresses may not map to one kernel address.
	kern[1].Address = "bb:00:00:00:00:09"
	require.Contains(t, Links(sim, kern, fixed, noBridge), "maps to")

	// A written address compares as it is.
	kern[1].Address = "bb:00:00:00:00:08"
	kern[2].Address = "02:00:00:00:00:43"
	require.Contains(t, Links(sim, kern, fixed, noBridge), "address sim 02:00:00:00:00:42")

	// Any other field differs: reported with both sides.
	kern[2].Address = "02:00:00:00:00:42"
	kern[0].MTU = 1400
	require.Contains(t, Links(sim, kern, fixed, noBridge), "link 0 differs")
}

func TestErrnos(t *testing.T) {
	kern := []rtnl.LineError{{Line: 3, Request: "link add x0 type dummy", Errno: "EOPNOTSUPP"}}
	require.Contains(t, Errnos(nil, kern), `line 3 "link add x0 type dummy": sim "ok", kernel "EOPNOTSUPP"`)
	require.Empty(t, Errnos(kern, kern))
}
