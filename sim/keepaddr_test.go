package sim

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// keepEvents is a line's inet6 address and route notifications, each
// "TYPE what" (an address with its tentative and nodad flags, a route by
// its destination and type), deferred ones marked "~".
func keepEvents(t *testing.T, tg *Target, line string) []string {
	t.Helper()
	var out []string
	for _, e := range lineEvents(t, tg, line, "") {
		if e.Family != "inet6" {
			continue
		}
		s := e.Type + " "
		if e.Deferred {
			s = "~" + s
		}
		switch o := e.Object.(type) {
		case rtnl.AddrEvent:
			s += o.Local
			if o.Tentative {
				s += " tentative"
			}
			if o.Nodad {
				s += " nodad"
			}
		case rtnl.RouteEntry:
			s += strings.TrimSpace(o.Type + " " + o.Dst)
		}
		out = append(out, s)
	}
	return out
}

// keepAddrs is dev's IPv6 addresses but link-local ones, each with its
// tentative flag.
func keepAddrs(t *testing.T, tg *Target, dev string) []string {
	t.Helper()
	st, err := tg.State(context.Background(), rtnl.Show{Addrs: true})
	require.NoError(t, err)
	var out []string
	for _, la := range st.Addrs {
		if la.Ifname != dev {
			continue
		}
		for _, a := range la.AddrInfo {
			if a.Family != "inet6" || strings.HasPrefix(a.Local, "fe80::") {
				continue
			}
			s := a.Local
			if a.Tentative {
				s += " tentative"
			}
			out = append(out, s)
		}
	}
	return out
}

// TestKeepAddrOnDown holds what 6.18 did with the same lines (rtnlsim
// diff --ipv6, and ip monitor in a namespace of its own): with
// keep_addr_on_down on, a down deletes every route of the device and the
// link-local addresses (the user's fe80::5 too) but keeps the others,
// silently, tentative unless nodad; up gives them their prefix routes
// back at once and runs DAD again, which announces each and puts its
// local route back; an unregister takes the kept ones with RTM_DELADDR.
func TestKeepAddrOnDown(t *testing.T) {
	tg := New(Options{Seed: 1, Events: true})
	for _, l := range []string{"sysctl net.ipv6.conf.all.accept_dad=0", "link add i0 type ifb",
		"sysctl net.ipv6.conf.i0.keep_addr_on_down=1", "link set i0 up", "addr add 2001:db8::1/64 dev i0",
		"addr add 2001:db8:1::1/64 dev i0 nodad", "addr add fe80::5/64 dev i0",
		"addr add 2001:db8:2::1/64 dev i0 noprefixroute"} {
		keepEvents(t, tg, l)
	}
	down := keepEvents(t, tg, "link set i0 down")
	for _, e := range down {
		require.NotContains(t, e, "2001:db8::1 ", "a kept address is not notified")
	}
	require.Contains(t, down, "RTM_DELADDR fe80::5")
	require.Contains(t, down, "RTM_DELROUTE local 2001:db8::1")
	require.Equal(t, []string{"2001:db8:2::1 tentative", "2001:db8:1::1", "2001:db8::1 tentative"}, keepAddrs(t, tg, "i0"))
	st, err := tg.State(context.Background(), rtnl.Show{Routes: true})
	require.NoError(t, err)
	for _, r := range st.Routes {
		require.NotEqual(t, "i0", r.Dev, "a route through i0 is left: %+v", r)
	}
	require.Equal(t, []string{
		"RTM_NEWROUTE 2001:db8:1::/64", "RTM_NEWROUTE 2001:db8::/64",
		"RTM_NEWROUTE multicast ff00::/8", "RTM_NEWROUTE fe80::/64",
		"~RTM_NEWADDR 2001:db8:2::1", "~RTM_NEWROUTE local 2001:db8:2::1",
		"~RTM_NEWADDR 2001:db8:1::1 nodad", "~RTM_NEWROUTE local 2001:db8:1::1",
		"~RTM_NEWADDR 2001:db8::1", "~RTM_NEWROUTE local 2001:db8::1",
	}, withoutLinkLocal(keepEvents(t, tg, "link set i0 up")))
	require.Equal(t, []string{"2001:db8:2::1", "2001:db8:1::1", "2001:db8::1"}, keepAddrs(t, tg, "i0"))
	keepEvents(t, tg, "link set i0 down")
	require.Equal(t, []string{"RTM_DELADDR 2001:db8:2::1 tentative", "RTM_DELADDR 2001:db8:1::1 nodad",
		"RTM_DELADDR 2001:db8::1 tentative"}, keepEvents(t, tg, "link del i0"))
}

func withoutLinkLocal(evs []string) []string {
	var out []string
	for _, e := range evs {
		if !strings.Contains(e, " fe80::") || strings.HasSuffix(e, "fe80::/64") {
			out = append(out, e)
		}
	}
	return out
}

// TestKeepAddrOnDownSettings holds the combination addrconf_ifdown
// makes, as 6.18 showed it: all's value unless 0, then the device's; above
// 0 keeps; default is what a device made later starts with; unregister,
// an mtu below 1280 and disable_ipv6 keep nothing.
func TestKeepAddrOnDownSettings(t *testing.T) {
	for _, c := range []struct {
		name  string
		lines []string
		kept  bool
	}{
		{"all -1 over device 1", []string{"sysctl net.ipv6.conf.all.keep_addr_on_down=-1", "sysctl net.ipv6.conf.k.keep_addr_on_down=1", "link set k down"}, false},
		{"all 0, device 1", []string{"sysctl net.ipv6.conf.k.keep_addr_on_down=1", "link set k down"}, true},
		{"all 1 over device -1", []string{"sysctl net.ipv6.conf.all.keep_addr_on_down=1", "sysctl net.ipv6.conf.k.keep_addr_on_down=-1", "link set k down"}, true},
		{"all 2", []string{"sysctl net.ipv6.conf.all.keep_addr_on_down=2", "link set k down"}, true},
		{"default 1 after the device", []string{"sysctl net.ipv6.conf.default.keep_addr_on_down=1", "link set k down"}, false},
		{"default 1 before the device", []string{"sysctl net.ipv6.conf.default.keep_addr_on_down=1", "link del k", "link add k type ifb",
			"link set k up", "addr add 2001:db8::1/64 dev k", "link set k down"}, true},
		{"mtu 1000", []string{"sysctl net.ipv6.conf.k.keep_addr_on_down=1", "link set k mtu 1000", "link set k mtu 1500"}, false},
		{"disable_ipv6", []string{"sysctl net.ipv6.conf.k.keep_addr_on_down=1", "sysctl net.ipv6.conf.k.disable_ipv6=1"}, false},
		{"disable_ipv6 while down", []string{"sysctl net.ipv6.conf.k.keep_addr_on_down=1", "link set k down", "sysctl net.ipv6.conf.k.disable_ipv6=1"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			tg := New(Options{Seed: 1, Events: true})
			for _, l := range append([]string{"link add k type ifb", "link set k up", "addr add 2001:db8::1/64 dev k"}, c.lines...) {
				keepEvents(t, tg, l)
			}
			got := keepAddrs(t, tg, "k")
			if c.kept {
				require.Equal(t, []string{"2001:db8::1 tentative"}, got)
			} else {
				require.Empty(t, got, fmt.Sprint(c.lines))
			}
		})
	}
}

// TestKeepAddrOnDownLoopbackMTU holds what 6.18 did (ip in a namespace of
// its own; the kernel target cannot compare it: it waits for the tentative
// addresses of an up device to end DAD, and these never start it): an
// mtu below 1280 on the loopback runs addrconf_ifdown without unregister,
// so keep_addr_on_down keeps its global addresses, tentative, while it
// stays up, through the mtu's return, until a down and an up run DAD.
func TestKeepAddrOnDownLoopbackMTU(t *testing.T) {
	tg := New(Options{Seed: 1, Events: true})
	for _, l := range []string{"sysctl net.ipv6.conf.all.accept_dad=0", "sysctl net.ipv6.conf.lo.keep_addr_on_down=1", "link set lo up",
		"addr add 2001:db8:9::1/64 dev lo", "addr add 2001:db8:9::2/64 dev lo nodad", "link set lo mtu 1000"} {
		keepEvents(t, tg, l)
	}
	want := []string{"2001:db8:9::2", "2001:db8:9::1 tentative"}
	require.Equal(t, want, keepAddrs(t, tg, "lo"))
	keepEvents(t, tg, "link set lo mtu 65536")
	require.Equal(t, want, keepAddrs(t, tg, "lo"))
	keepEvents(t, tg, "link set lo down")
	keepEvents(t, tg, "link set lo up")
	require.Equal(t, []string{"2001:db8:9::2", "2001:db8:9::1", "::1"}, keepAddrs(t, tg, "lo"))
}
