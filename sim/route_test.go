package sim

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
)

var routeExpectRE = regexp.MustCompile(`#\s*expect\s+(E[A-Z0-9]+)`)

// runRouteScript runs src on a sim target and checks that exactly the
// lines marked "# expect ERRNO" are refused, with that errno. It returns
// the result (routes and notifications).
func runRouteScript(t *testing.T, src string) rtnl.Result {
	t.Helper()
	reqs, err := script.ParseString(src)
	require.NoError(t, err)
	tg := New(Options{Seed: 1, Events: true})
	defer tg.Close()
	res, err := rtnl.Run(context.Background(), tg, reqs, rtnl.Show{Routes: true, Events: true}, nil)
	require.NoError(t, err)
	want, got := map[int]string{}, map[int]string{}
	for i, line := range strings.Split(src, "\n") {
		if m := routeExpectRE.FindStringSubmatch(line); m != nil {
			want[i+1] = m[1]
		}
	}
	for _, e := range res.Errors {
		got[e.Line] = e.Errno
	}
	require.Equal(t, want, got)
	return res
}

// The kernel's answers to route requests, as this machine's 6.18 gave
// them (each script was run on the kernel target; TestSimRoutesMatchKernel
// in props holds the model to the kernel at random).
func TestRouteErrnos(t *testing.T) {
	runRouteScript(t, `link add i0 type ifb
link add i1 type ifb
link add i2 type ifb
link set i0 up
link set i2 up
addr add 10.0.0.1/24 dev i0
addr add 10.1.0.1/24 dev i1
route add 10.5.0.0/16 via 10.0.0.2
route add 10.6.0.0/16 via 10.0.0.1
route add 10.7.0.0/16 via 10.1.0.1             # expect ENETDOWN: i1's local route, i1 down
route add 10.8.0.0/16 via 10.1.0.2             # expect ENETUNREACH: i1 down, no connected route
route add 10.9.0.0/16 dev i2
route add 10.10.0.0/16 via 10.9.0.1
route add 10.11.0.0/16 via 10.9.0.1 dev i0     # expect ENETUNREACH: not through i0
route add 10.14.0.0/16 via 10.0.0.2 src 10.0.0.2   # expect EINVAL: prefsrc not local
route add blackhole 10.20.0.0/16
route add 10.21.0.0/16 via 10.20.0.1           # expect ENETUNREACH: a universe-scope blackhole is passed over
route add 10.28.0.0/16 via 10.0.0.255          # expect EINVAL: a broadcast gateway
route add 10.30.0.0/16 via 10.0.0.2 scope link # expect ENETUNREACH: only host routes are narrower
route add 10.31.0.0/16 via 10.0.0.1 scope link
route add 10.32.0.0/16 dev i1 scope host
route add local 10.33.0.1 dev i1
route add broadcast 10.34.0.254 dev i1         # expect ENETDOWN
route add local 10.35.0.1 dev i0 scope link    # expect EINVAL: local needs host scope
route add 10.40.0.1/16 dev i0                  # expect EINVAL: host bits
route add 10.41.0.0/16 dev i0 tos 0x3          # expect EINVAL: ECN bits
route add blackhole 10.43.0.0/16 src 10.99.99.99
route add blackhole 10.44.0.0/16 dev i0        # expect EINVAL
route add 10.45.0.0/16 dev i0 scope nowhere    # expect EINVAL
route add 10.46.0.0/16 dev i0 src 10.33.0.1
route add 10.52.0.0/16                         # expect ENODEV: no device at all
route add 10.53.0.0/16 dev lo                  # expect ENETDOWN
route add 10.54.0.0/16 dev nope                # expect ENODEV
route del 10.5.0.0/16 table 99                 # expect ESRCH: no such table
route del 10.5.0.0/16 via 10.0.0.3             # expect ESRCH
route del 10.5.0.0/16 dev i0
route del 10.5.0.0/16                          # expect ESRCH
`)
}

// Error routes as gateways: narrower than the lookup's scope they stop
// it with their own error in main, and in a table of the route's own
// they send it on to main; a throw (EAGAIN) goes on to default.
func TestRouteGatewayLookup(t *testing.T) {
	runRouteScript(t, `link add i0 type ifb
link set i0 up
addr add 10.0.0.1/24 dev i0
route add blackhole 10.20.0.0/16 scope link
route add 10.21.0.0/16 via 10.20.0.1           # expect EINVAL
route add unreachable 10.22.0.0/16 scope link
route add 10.23.0.0/16 via 10.22.0.1           # expect EHOSTUNREACH
route add prohibit 10.24.0.0/16 scope link
route add 10.25.0.0/16 via 10.24.0.1           # expect EACCES
route add throw 10.26.0.0/16 scope link
route add 10.27.0.0/16 via 10.26.0.1           # expect ENETUNREACH
route add 10.20.0.0/24 dev i0 table default
route add 10.26.0.0/24 dev i0 table default
route add 10.61.0.0/16 via 10.20.0.1           # expect EINVAL: main's error ends the lookup
route add 10.62.0.0/16 via 10.26.0.1
route add 10.63.0.0/16 dev i0 table 100
route add 10.64.0.0/16 via 10.63.0.1 table 100
route add 10.65.0.0/16 via 10.63.0.1           # expect ENETUNREACH
route add unreachable 10.66.0.0/16 scope link table 100
route add 10.67.0.0/16 via 10.66.0.1 table 100 # expect ENETUNREACH
`)
}

// Replace, append, prepend and delete in one run, with their
// notifications; a replace of the first route of its run changes
// nothing and sends nothing.
func TestRouteModifyFlags(t *testing.T) {
	res := runRouteScript(t, `link add i0 type ifb
link set i0 up
addr add 10.0.0.1/24 dev i0
route add 10.74.0.0/16 via 10.0.0.2 metric 5
route add 10.74.0.0/16 via 10.0.0.3 metric 5   # expect EEXIST
route append 10.74.0.0/16 via 10.0.0.3 metric 5
route prepend 10.74.0.0/16 via 10.0.0.4 metric 5
route replace 10.74.0.0/16 via 10.0.0.5 metric 5
route replace 10.74.0.0/16 via 10.0.0.5 metric 5
route replace 10.74.0.0/16 via 10.0.0.3 metric 5   # expect EEXIST
route del 10.74.0.0/16 via 10.0.0.5
route del 10.74.0.0/16
route del 10.74.0.0/16
route del 10.74.0.0/16                         # expect ESRCH
`)
	var got []string
	for _, e := range res.Events {
		if r, ok := e.Object.(rtnl.RouteEntry); ok && e.Request >= 4 {
			got = append(got, e.Type[4:7]+" "+r.Gateway)
		}
	}
	require.Equal(t, []string{"NEW 10.0.0.2", "NEW 10.0.0.3", "NEW 10.0.0.4", "NEW 10.0.0.5",
		"DEL 10.0.0.5", "DEL 10.0.0.2", "DEL 10.0.0.3"}, got)
}

// A flush is a dump and one delete per match, each notified, tables in
// hash order.
func TestRouteFlush(t *testing.T) {
	res := runRouteScript(t, `link add i0 type ifb
link add i1 type ifb
link set i0 up
link set i1 up
addr add 10.0.0.1/24 dev i0
addr add 10.1.0.1/24 dev i1
route add 10.5.0.0/16 via 10.0.0.2
route add 10.5.0.0/16 via 10.1.0.2 metric 3
route add 10.5.1.0/24 via 10.1.0.2 proto static
route add 10.6.0.0/16 dev i1 table 100
route add blackhole 10.7.0.0/16 table 100
route flush dev i1
route flush root 10.0.0.0/8 table 100
route flush dev nope                           # expect ENODEV
route flush table all proto static
`)
	var got []string
	for _, e := range res.Events {
		if r, ok := e.Object.(rtnl.RouteEntry); ok && e.Type == "RTM_DELROUTE" {
			got = append(got, r.Dst+" "+r.Dev+" "+r.Table)
		}
	}
	require.Equal(t, []string{"10.1.0.0/24 i1 ", "10.5.0.0/16 i1 ", "10.5.1.0/24 i1 ",
		"10.6.0.0/16 i1 100", "10.7.0.0/16  100"}, got)
	var left []string
	for _, r := range res.Routes {
		left = append(left, r.Type+" "+r.Dst+" "+r.Table)
	}
	// `ip route flush` is IPv4's: the devices' IPv6 routes stay, main's
	// before local's.
	require.Equal(t, []string{" 10.0.0.0/24 ", " 10.5.0.0/16 ", "local 10.0.0.1 local",
		"broadcast 10.0.0.255 local", "local 10.1.0.1 local", "broadcast 10.1.0.255 local",
		" fe80::/64 ", " fe80::/64 ", "local fe80::3c78:29ff:fe63:1da0 local", "local fe80::64b5:77ff:fea4:d41b local",
		"multicast ff00::/8 local", "multicast ff00::/8 local"}, left)
}

// A route through a device without carrier is LINKDOWN; a host-scope one
// is not, and may use a device that is down.
func TestRouteLinkdown(t *testing.T) {
	res := runRouteScript(t, `link add v0 type veth peer name v1
link add i1 type ifb
link set v0 up
addr add 10.1.0.1/24 dev v0
route add 10.5.0.0/16 via 10.1.0.2
route add 10.6.0.0/16 dev v0
route add 10.7.0.0/16 dev v0 scope host
route add 10.8.0.0/16 dev i1 scope host
`)
	flags := map[string][]string{}
	for _, r := range res.Routes {
		flags[r.Dst] = r.Flags
	}
	require.Equal(t, []string{"linkdown"}, flags["10.5.0.0/16"])
	require.Equal(t, []string{"linkdown"}, flags["10.6.0.0/16"])
	require.Empty(t, flags["10.7.0.0/16"])
	require.Empty(t, flags["10.8.0.0/16"])
}

// An IPv6 unicast route through the loopback is not modelled: the run stops.
func TestRouteIPv6NotModelled(t *testing.T) {
	reqs, err := script.ParseString("route replace 2001:db8::/32 dev lo\n")
	require.NoError(t, err)
	tg := New(Options{})
	require.ErrorIs(t, tg.Apply(context.Background(), reqs[0]), ErrNotModelled)
	reqs, err = script.ParseString("route flush -6\n")
	if err == nil {
		require.ErrorIs(t, tg.Apply(context.Background(), reqs[0]), ErrNotModelled)
	}
}

// One gateway resolved by different routes at different times: the
// nexthop's resolved device and scope are part of its fib_info
// (nh_comp), so append and replace of the "same" route see another
// fib_info. The script's errnos are the kernel's (rtnlsim diff agrees
// on it).
func TestRouteNhScope(t *testing.T) {
	src, err := os.ReadFile("../props/testdata/nhscope-gateway.ip")
	require.NoError(t, err)
	res := runRouteScript(t, string(src))
	runs := map[string][]string{}
	for _, r := range res.Routes {
		runs[r.Dst+" "+r.Table] = append(runs[r.Dst+" "+r.Table], r.Dev+" "+r.Scope)
	}
	require.Nil(t, runs["10.5.0.0/16 "])
	require.Equal(t, []string{"i0 ", "i0 "}, runs["10.6.0.0/16 "])
	require.Equal(t, []string{"i0 ", "i1 ", "i0 "}, runs["10.7.0.0/16 "])
	require.Equal(t, []string{"i0 ", "i0 "}, runs["10.12.0.0/16 100"])
	require.Equal(t, []string{"i0 site", "i0 site", "i0 "}, runs["10.14.0.0/16 "])
	// The replace that found its route first in the run sent nothing.
	var news int
	for _, e := range res.Events {
		if r, ok := e.Object.(rtnl.RouteEntry); ok && e.Type == "RTM_NEWROUTE" && r.Dst == "10.5.0.0/16" {
			news++
		}
	}
	require.Equal(t, 2, news)
}

// onlink, the MTU and the realms on plain routes, as this machine's 6.18
// answered the same lines: onlink skips the gateway's lookup but not the
// scope, device and address-type checks; each option makes another
// fib_info; a delete matches the MTU it gives exactly and the realms
// only with a device or a gateway; a flush sends the metrics back.
// (props/testdata/route-options-*.ip hold them to the kernel.)
func TestRouteOptions(t *testing.T) {
	res := runRouteScript(t, `link add i0 type ifb
link add i1 type ifb
link set i0 up
addr add 10.0.0.1/24 dev i0
route add 10.5.0.0/16 via 10.9.9.9 dev i0 onlink
route add 10.5.1.0/24 via 10.9.9.9 onlink                   # expect ENODEV
route add 10.5.2.0/24 via 10.9.9.9 dev i0 onlink scope link # expect EINVAL
route add 10.5.3.0/24 dev i0 onlink                         # expect EINVAL
route add 10.5.4.0/24 via 10.0.0.1 dev i0 onlink            # expect EINVAL
route add 10.5.5.0/24 via 10.9.9.9 dev i1 onlink            # expect ENETDOWN
route append 10.5.0.0/16 via 10.9.9.9 dev i0 onlink mtu 1400
route append 10.5.0.0/16 via 10.9.9.9 dev i0 onlink mtu lock 1400
route append 10.5.0.0/16 via 10.9.9.9 dev i0 onlink mtu 1400  # expect EEXIST
route append 10.5.0.0/16 via 10.9.9.9 dev i0 onlink realms 3/4
route append 10.5.0.0/16 via 10.9.9.9 dev i0 onlink realm 0 mtu 0 # expect EEXIST
route add 10.6.0.0/16 dev i0 mtu 70000 realm 5
route add 10.7.0.0/16 realm 5 nexthop via 10.0.0.2 nexthop via 10.0.0.3 # expect EINVAL
route del 10.6.0.0/16 mtu 70000                             # expect ESRCH
route del 10.5.0.0/16 mtu lock 1400
route del 10.5.0.0/16 realm 9 dev i0                        # expect ESRCH
route del 10.5.0.0/16 realms 3/4 dev i0
route del 10.5.0.0/16 mtu 1400 onlink
route add 10.8.0.0/16 dev i0 mtu lock 0
route flush 10.8.0.0/16
`)
	var got []string
	for _, r := range res.Routes {
		if r.Type == "" && r.Family == 4 {
			got = append(got, rtnl.RouteText(r))
		}
	}
	require.Equal(t, []string{
		"10.0.0.0/24 dev i0 proto kernel scope link src 10.0.0.1",
		"10.5.0.0/16 via 10.9.9.9 dev i0 onlink",
		"10.6.0.0/16 dev i0 scope link realm 5 mtu 65520",
	}, got)
}
