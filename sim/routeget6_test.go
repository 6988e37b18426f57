package sim

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// TestRouteGet6Answers holds a few -6 route get answers as this kernel
// (6.18) gave them (props/testdata/ipv6-route-get*.ip hold many more to
// the kernel itself): the newest of two equal sources, a local answer
// through lo, the reject errnos, oif without a source (no on-link
// answer), the ULA label and a rule's table.
func TestRouteGet6Answers(t *testing.T) {
	res := runRouteScript(t, `sysctl net.ipv6.conf.all.accept_dad=0
link add i0 type ifb
link set i0 up
addr add 2001:db8::1/64 dev i0
addr add 2001:db8:1::1/64 dev i0
addr add fd00::1/64 dev i0
route add 2001:db8:5::/64 via 2001:db8::2
route add default via 2001:db8::2
route add blackhole 2001:db8:6::/64
route add unreachable 2001:db8:7::/64
route add prohibit 2001:db8:8::/64
-6 route get 2001:db8:5::1
-6 route get 2001:db8::1
-6 route get fd01::1 from 2001:db8::9
-6 route get 2001:db8:6::1 # expect EINVAL
-6 route get 2001:db8:7::1 # expect EHOSTUNREACH
-6 route get 2001:db8:8::1 # expect EACCES
-6 route get 2001:db8:5::1 oif lo # expect ENETUNREACH
-6 rule add to 2001:db8:40::/48 table 100
route add 2001:db8:40::/48 dev i0 table 100
-6 route get 2001:db8:40::1
`)
	var got []string
	for _, sh := range res.Shown {
		require.NotNil(t, sh.Got, "line %d", sh.Line)
		got = append(got, strings.ReplaceAll(rtnl.RouteText(*sh.Got), "\n   ", ""))
	}
	require.Equal(t, []string{
		"2001:db8:5::1 from :: via 2001:db8::2 dev i0 src 2001:db8:1::1 metric 1024 pref medium",
		"local 2001:db8::1 from :: dev lo table local proto kernel src 2001:db8::1 metric 0 pref medium",
		"fd01::1 from 2001:db8::9 via 2001:db8::2 dev i0 src fd00::1 metric 1024 pref medium",
		"2001:db8:40::1 from :: dev i0 table 100 src 2001:db8:1::1 metric 1024 pref medium",
	}, got)
}

// TestSaddrRules6 holds the pieces of ipv6_dev_get_saddr's ranking.
func TestSaddrRules6(t *testing.T) {
	a := netip.MustParseAddr
	for s, want := range map[string]int{"ff02::1": 2, "ff05::1": 5, "ff0e::1": 14, "fe80::1": 2, "::1": 2,
		"fec0::1": 5, "fd00::1": 14, "::": -1, "::ffff:1.2.3.4": 14, "2001:db8::1": 14} {
		require.Equal(t, want, srcScope6(a(s)), s)
	}
	for s, want := range map[string]int{"::1": 0, "2001:db8::1": 1, "2002::1": 2, "::1.2.3.4": 3, "::ffff:1.2.3.4": 4,
		"fd00::1": 5, "2001::1": 6, "2001:10::1": 7, "fec0::1": 11, "3ffe::1": 12} {
		require.Equal(t, want, addrLabel6(a(s)), s)
	}
	require.Equal(t, 45, commonBits6(a("2001:db8:1::1"), a("2001:db8:5::1")))
	require.Equal(t, 128, commonBits6(a("2001:db8::1"), a("2001:db8::1")))
}
