package sim

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// TestRouteGetAnswers holds a few route get answers as this kernel (6.18)
// gave them (props/testdata/reg-route-get*.ip hold many more to the
// kernel itself): the source from the first primary address, a gateway
// of link scope shown and one through a local address not, local and
// broadcast answers through lo and the device, an on-link answer past a
// blackhole with oif, the table a rule's lookup used, and the errnos of
// error routes and foreign sources.
func TestRouteGetAnswers(t *testing.T) {
	res := runRouteScript(t, `link add i0 type ifb
link set i0 up
addr add 10.0.0.1/24 dev i0
addr add 10.0.0.2/24 dev i0
route add 10.1.0.0/16 via 10.0.0.9
route add 10.6.0.0/16 via 10.0.0.1
route add blackhole 10.2.0.0/16
route get 10.1.2.3
route get 10.6.1.1
route get 10.0.0.1
route get 10.0.0.255
route get 10.2.0.1 # expect EINVAL
route get 10.2.0.1 oif i0
route get 10.1.2.3 from 10.9.9.9 # expect ENETUNREACH
route get 10.1.2.3 from 10.0.0.2 mark 7
rule add from 10.0.0.2 table 100
route add 10.1.0.0/16 dev i0 table 100
route get 10.1.2.3 from 10.0.0.2
route get 10.0.0.1
`)
	var got []string
	for _, sh := range res.Shown {
		require.NotNil(t, sh.Got, "line %d", sh.Line)
		got = append(got, strings.ReplaceAll(rtnl.RouteText(*sh.Got), "\n   ", ""))
	}
	require.Equal(t, []string{
		"10.1.2.3 via 10.0.0.9 dev i0 src 10.0.0.1 uid 0 cache",
		"10.6.1.1 dev i0 src 10.0.0.1 uid 0 cache",
		"local 10.0.0.1 dev lo src 10.0.0.1 uid 0 cache <local>",
		"broadcast 10.0.0.255 dev i0 src 10.0.0.1 uid 0 cache <local,brd>",
		"10.2.0.1 dev i0 src 10.0.0.1 uid 0 cache",
		"10.1.2.3 from 10.0.0.2 via 10.0.0.9 dev i0 mark 7 uid 0 cache",
		"10.1.2.3 from 10.0.0.2 dev i0 table 100 uid 0 cache",
		"local 10.0.0.1 dev lo table local src 10.0.0.1 uid 0 cache <local>",
	}, got)
}
