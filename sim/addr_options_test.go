package sim

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// TestAddrMetricReplaceAndFlushFilters holds what the kernel did with the
// same lines (rtnlsim diff agreed on both scripts): a metric is the prefix
// route's and a replace moves it; a change of a missing address adds it;
// a flush of primaries stops after one round, so the secondary they
// promoted stays (with no metric of its own); a flush by scope takes
// that scope only.
func TestAddrMetricReplaceAndFlushFilters(t *testing.T) {
	const start = `link add i0 type ifb
link set i0 up
sysctl net.ipv4.conf.i0.promote_secondaries=1
addr add 10.0.0.1/24 dev i0 metric 10
addr replace 10.0.0.1/24 dev i0 metric 30
addr add 10.0.0.1/24 dev i0 metric 1
addr change 10.0.5.1/24 dev i0
`
	prefixRoutes := func(tg *Target) []string {
		st, err := tg.State(context.Background(), rtnl.Show{Routes: true})
		require.NoError(t, err)
		var out []string
		for _, r := range st.Routes {
			if r.Table == "" && strings.HasPrefix(r.Dst, "10.") {
				m := "-"
				if r.Metric != nil {
					m = itoa(int(*r.Metric))
				}
				out = append(out, r.Dst+" metric "+m+" src "+r.Prefsrc)
			}
		}
		return out
	}
	tg, errs := applyScript(t, start)
	require.Equal(t, []string{"", "", "", "", "", "EEXIST", ""}, errs)
	require.Equal(t, []string{"10.0.0.0/24 metric 30 src 10.0.0.1", "10.0.5.0/24 metric - src 10.0.5.1"}, prefixRoutes(tg))

	tg, errs = applyScript(t, start+`addr add 10.0.0.2/24 dev i0
addr add 10.0.0.3/24 dev i0 scope link
addr add 10.1.0.1/16 dev i0 scope host
addr flush dev i0 scope host
addr flush dev i0 primary
`)
	require.Equal(t, []string{"", "", "", "", "", "EEXIST", "", "", "EINVAL", "", "", ""}, errs)
	st, err := tg.State(context.Background(), rtnl.Show{Addrs: true})
	require.NoError(t, err)
	var addrs []string
	for _, a := range st.Addrs[1].AddrInfo {
		addrs = append(addrs, a.Local)
	}
	require.Equal(t, []string{"10.0.0.2"}, addrs)
	require.Equal(t, []string{"10.0.0.0/24 metric - src 10.0.0.2"}, prefixRoutes(tg))
}
