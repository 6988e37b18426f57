package sim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

const promoteScript = `link add d1 type ifb
sysctl net.ipv4.conf.default.promote_secondaries=1
link add d2 type ifb
sysctl net.ipv4.conf.default.promote_secondaries=0
link add d3 type ifb
sysctl net.ipv4.conf.default.promote_secondaries=1
`

// promoteOf is each device's promote_secondaries after promoteScript.
func promoteOf(t *testing.T, start rtnl.StartConf) map[string]bool {
	t.Helper()
	n := runSimOpts(t, Options{Seed: 1, Start: start}, promoteScript).Netns()
	out := map[string]bool{}
	for _, name := range []string{"lo", "d1", "d2", "d3"} {
		out[name] = n.ByName(name).in.Promote
	}
	return out
}

// TestPromoteDefaultStateBit: a device copies default's value and its
// state bit when made, so default writes after that skip it; whether they
// reach the loopback and a device made before any write depends on the
// bit the namespace started with.
func TestPromoteDefaultStateBit(t *testing.T) {
	require.Equal(t, map[string]bool{"lo": true, "d1": true, "d2": true, "d3": false},
		promoteOf(t, rtnl.StartConf{}), "compiled-in start: bit clear")
	require.Equal(t, map[string]bool{"lo": false, "d1": false, "d2": true, "d3": false},
		promoteOf(t, rtnl.StartConf{DefaultSet: []string{"promote_secondaries"}}), "start with default's bit set")
	require.Equal(t, map[string]bool{"lo": true, "d1": true, "d2": true, "d3": false},
		promoteOf(t, rtnl.StartConf{DefaultSet: []string{"promote_secondaries"}, Values: map[string]string{
			"net.ipv4.conf.default.promote_secondaries": "1", "net.ipv4.conf.lo.promote_secondaries": "1"}}),
		"start with default 1, bit set")
}
