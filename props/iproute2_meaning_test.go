package props

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/internal/testseed"
	"github.com/rtnlsim/rtnlsim/kernel"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
	"github.com/rtnlsim/rtnlsim/sim"
)

// Lines whose meaning is what iproute2 6.1 sends for them: ip's wildcard
// addr del (prefixlen 32, IFA_LOCAL only), brd + derived from a peer's
// prefix, and table 0 sent as 0 (main). iproute2Want is the state `ip -b`
// of the script gave.
const iproute2Script = `link add i0 type ifb
link set i0 up
addr add 10.0.0.1/24 dev i0
addr add 10.0.0.1/32 dev i0
addr del 10.0.0.1 dev i0
addr add 10.0.1.1/24 peer 10.0.1.2/30 brd + dev i0
addr add 10.0.2.1 peer 10.0.2.2/30 broadcast + dev i0
addr add 10.0.3.1/24 peer 10.0.3.2 brd + dev i0
route add local 10.5.0.0/24 dev i0 table 0
route add broadcast 10.6.0.1 dev i0 table unspec
route add anycast 10.7.0.1 dev i0
`

// iproute2Want: i0's IPv4 addresses (local/prefixlen peer brd) and the
// routes to 10.5-10.7 (type dst table).
var iproute2Want = []string{
	"10.0.0.1/32 - -",
	"10.0.1.1/30 10.0.1.2 10.0.1.3",
	"10.0.2.1/30 10.0.2.2 10.0.2.3",
	"10.0.3.1/32 10.0.3.2 -",
	"local 10.5.0.0/24 main",
	"broadcast 10.6.0.1 main",
	"anycast 10.7.0.1 local",
}

func iproute2Summary(st rtnl.State) []string {
	or := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	var out []string
	for _, l := range st.Addrs {
		if l.Ifname != "i0" {
			continue
		}
		for _, a := range l.AddrInfo {
			if a.Family == "inet" {
				out = append(out, fmt.Sprintf("%s/%d %s %s", a.Local, a.Prefixlen, or(a.Address), or(a.Broadcast)))
			}
		}
	}
	for _, r := range st.Routes {
		if strings.HasPrefix(r.Dst, "10.5.") || strings.HasPrefix(r.Dst, "10.6.") || strings.HasPrefix(r.Dst, "10.7.") {
			tbl := r.Table
			if tbl == "" {
				tbl = "main"
			}
			out = append(out, fmt.Sprintf("%s %s %s", r.Type, r.Dst, tbl))
		}
	}
	return out
}

func TestIproute2Meaning(t *testing.T) {
	reqs, err := script.ParseString(iproute2Script)
	require.NoError(t, err)
	check := func(tg rtnl.Target) {
		t.Helper()
		defer tg.Close()
		res, err := rtnl.Run(context.Background(), tg, reqs, rtnl.Show{Addrs: true, Routes: true}, nil)
		require.NoError(t, err)
		assert.Empty(t, res.Errors)
		assert.Equal(t, iproute2Want, iproute2Summary(res.State))
	}
	// The model first: it needs no root.
	check(sim.New(sim.Options{Seed: 1}))
	testseed.NeedKernel(t)
	kt, err := kernel.New(kernel.Options{})
	require.NoError(t, err)
	check(kt)
}
