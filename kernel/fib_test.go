//go:build linux

package kernel

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
)

// Kernel behaviour fibtrie models (trie.flushEach, FIB.InsertChanged): a
// replace that finds its route already first sends no notification;
// deleting an address flushes the error routes whose prefsrc it was,
// announced highest key first, and keeps one without a prefsrc.
func TestKernelFlushesDeadErrorRoutes(t *testing.T) {
	// IPv6 off: an UP device's link-local address and its routes come
	// from deferred work that may land in any later request's window.
	tg := newTestTargetWith(t, Options{Sysctls: map[string]string{
		"net/ipv6/conf/all/disable_ipv6": "1", "net/ipv6/conf/default/disable_ipv6": "1"}})
	ctx := context.Background()
	apply := func(src string) []rtnl.Event {
		t.Helper()
		reqs, err := script.ParseString(src)
		require.NoError(t, err)
		before, err := tg.Events(ctx)
		require.NoError(t, err)
		for _, r := range reqs {
			require.NoError(t, tg.Apply(ctx, r), r.Text)
		}
		after, err := tg.Events(ctx)
		require.NoError(t, err)
		return after[len(before):]
	}
	apply(`link add i0 type ifb
link set i0 up
addr add 10.0.0.1/24 dev i0
route add 10.4.0.0/16 dev i0
route add blackhole 10.5.0.0/16 src 10.0.0.1
route add unreachable 10.6.0.0/16 src 10.0.0.1
route add blackhole 10.9.0.0/16`)
	require.Empty(t, apply("route replace 10.4.0.0/16 dev i0"), "a replace that changes nothing")

	var dels []string
	for _, ev := range apply("addr del 10.0.0.1/24 dev i0") {
		if r, ok := ev.Object.(rtnl.RouteEntry); ok && ev.Type == "RTM_DELROUTE" && r.Type != "" && r.Table == "" {
			dels = append(dels, r.Type+" "+r.Dst)
		}
	}
	require.Equal(t, []string{"unreachable 10.6.0.0/16", "blackhole 10.5.0.0/16"}, dels)
	st, err := tg.State(ctx, rtnl.Show{Routes: true})
	require.NoError(t, err)
	var left []string
	for _, r := range st.Routes {
		if r.Table == "" && r.Type != "" {
			left = append(left, r.Type+" "+r.Dst)
		}
	}
	require.Equal(t, []string{"blackhole 10.9.0.0/16"}, left)
}
