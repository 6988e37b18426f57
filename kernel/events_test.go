//go:build linux

package kernel

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// After CloseEvents requests and State still work, and the requests'
// notifications are no longer recorded; Close afterwards is fine.
func TestCloseEvents(t *testing.T) {
	tg := newTestTarget(t)
	ctx := context.Background()
	require.NoError(t, tg.Apply(ctx, rtnl.Request{Op: rtnl.LinkAdd{Name: "rtnlsimtest0", Kind: "ifb"}}))
	before, err := tg.Events(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, before, "the subscription saw the link add")
	tg.CloseEvents()
	require.NoError(t, tg.Apply(ctx, rtnl.Request{Op: rtnl.LinkAdd{Name: "rtnlsimtest1", Kind: "ifb"}}))
	st, err := tg.State(ctx, rtnl.Show{Links: true})
	require.NoError(t, err)
	names := map[string]bool{}
	for _, l := range st.Links {
		names[l.Ifname] = true
	}
	require.True(t, names["rtnlsimtest1"])
	after, err := tg.Events(ctx)
	require.NoError(t, err)
	require.Equal(t, before, after)
	tg.CloseEvents()
	require.NoError(t, tg.Close())
}
