package sim

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/script"
)

// TestRouteGetInputRealmsLag: after a route request with realms (here
// one that fails), the kernel takes the full source check until an RCU
// grace period has passed, so a source check whose short and full forms
// differ (a source behind an anycast route) is refused, not answered.
func TestRouteGetInputRealmsLag(t *testing.T) {
	const setup = `link add i1 type ifb
link add v0 type veth peer name v1
link set i1 up
link set v0 up
route append anycast default dev i1 metric 10
`
	get := "route get 224.0.0.1 from 10.3.0.2 iif v0\n"
	for _, tc := range []struct {
		realms string
		want   error
	}{{"", nil}, {"route append 10.5.0.0/16 via 10.0.0.2 realm 5\n", ErrNotModelled}} {
		reqs, err := script.ParseString(setup + tc.realms + get)
		require.NoError(t, err)
		tg := New(Options{Seed: 1})
		for i, r := range reqs {
			err := tg.Apply(context.Background(), r)
			if i == len(reqs)-1 {
				if tc.want == nil {
					require.NoError(t, err)
				} else {
					require.True(t, errors.Is(err, tc.want), "%v", err)
				}
			}
		}
		tg.Close()
	}
}
