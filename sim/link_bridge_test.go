package sim

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A forward delay under a second left on a bridge without STP is not
// modelled: its timer would notify a port within the run. Under STP (or
// clamped by its start) and at 0 or a second it is.
func TestBridgeShortForwardDelayNotModelled(t *testing.T) {
	tg := New(Options{Seed: 7})
	for _, c := range []struct {
		line        string
		notModelled bool
	}{
		{"link add br0 type bridge forward_delay 99", true},
		{"link add br1 type bridge forward_delay 99 stp_state 1", false},
		{"link set br1 type bridge stp_state 0", false},
		{"link add br2 type bridge forward_delay 0", false},
		{"link set br2 type bridge forward_delay 100", false},
		{"link set br2 type bridge forward_delay 1", true},
	} {
		_, err := runScriptOn(t, tg, c.line)
		if c.notModelled {
			require.ErrorIs(t, err, ErrNotModelled, c.line)
		} else {
			require.NoError(t, err, c.line)
		}
	}
}
