package rtnl

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/uapi"
)

// iproute_modify puts local, broadcast, anycast and nat routes in the local
// table only when no table is given; `table 0` sends rtm_table 0.
func TestHeaderTableUnspec(t *testing.T) {
	dst := netip.MustParsePrefix("10.5.0.0/24")
	for _, typ := range []string{RouteLocal, RouteBroadcast, RouteAnycast} {
		h, err := Route{Type: typ, Dst: dst}.Header(false)
		require.NoError(t, err)
		assert.Equal(t, uint32(uapi.RT_TABLE_LOCAL), h.Table, typ)
		h, err = Route{Type: typ, Dst: dst, TableUnspec: true}.Header(false)
		require.NoError(t, err)
		assert.Equal(t, uint32(0), h.Table, typ+" table 0")
	}
}
