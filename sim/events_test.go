package sim

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Seed 000's notification storm: moving UP devices into a group sends one
// RTM_NEWLINK each (netdev_state_change), moving DOWN devices sends none;
// the cost counters see the same.
func TestGroupMoveNotifiesOnlyUpDevices(t *testing.T) {
	const n = 50
	var add, up, move strings.Builder
	for i := range n {
		fmt.Fprintf(&add, "link add d%d type dummy\n", i)
		fmt.Fprintf(&up, "link set d%d up\n", i)
		fmt.Fprintf(&move, "link set d%d group 9\n", i)
	}
	for _, tc := range []struct {
		name string
		src  string
		want int
	}{{"down", add.String() + move.String(), 0}, {"up", add.String() + up.String() + move.String(), n}} {
		t.Run(tc.name, func(t *testing.T) {
			before := runSimOpts(t, Options{Seed: 1, Events: true}, strings.TrimSuffix(tc.src, move.String()))
			tg := runSimOpts(t, Options{Seed: 1, Events: true}, tc.src)
			evs, err := tg.Events(context.Background())
			require.NoError(t, err)
			evs0, err := before.Events(context.Background())
			require.NoError(t, err)
			require.Len(t, evs, len(evs0)+tc.want)
			c, err := tg.Cost(1)
			require.NoError(t, err)
			c0, err := before.Cost(1)
			require.NoError(t, err)
			require.EqualValues(t, tc.want, c.Counters.Notification-c0.Counters.Notification)
		})
	}
}
