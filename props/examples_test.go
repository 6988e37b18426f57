package props

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/internal/differ"
	"github.com/rtnlsim/rtnlsim/internal/testseed"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
	"github.com/rtnlsim/rtnlsim/sim"
)

// TestContainerHostExampleRunsWhole: examples/container-host.ip (a
// bridge, veth ends moved into two namespaces, IPv4 and IPv6 addresses
// and default routes inside, a multipath route and a policy rule on the
// host, then show and route get lines) parses, and every line succeeds
// on the model.
func TestContainerHostExampleRunsWhole(t *testing.T) {
	reqs := containerHostRequests(t)
	tg := sim.New(sim.Options{Seed: 1})
	res, err := rtnl.Run(context.Background(), tg, reqs, rtnl.Show{Links: true, Addrs: true, Routes: true, Rules: true}, nil)
	require.NoError(t, err)
	require.Empty(t, res.Errors, "lines the model refused")
	require.Len(t, res.Netns, 2, "the two containers' namespaces")
	require.Len(t, res.Shown, 8, "the show and route get lines")
	gets := 0
	for _, sh := range res.Shown {
		if sh.Got != nil {
			gets++
		}
	}
	require.Equal(t, 4, gets, "the route get answers")
}

// TestContainerHostExampleMatchesKernel runs it with `rtnlsim diff
// --ipv6`'s comparison: every line succeeds on the kernel too, and the
// two agree on everything, in every namespace.
func TestContainerHostExampleMatchesKernel(t *testing.T) {
	testseed.NeedKernel(t)
	reqs := containerHostRequests(t)
	what := differ.All
	what.IPv6 = true
	out, err := differ.Run(context.Background(), reqs, sim.Options{Seed: 1}, what)
	require.NoError(t, err)
	require.Empty(t, out.Kernel.Errors, "lines the kernel refused")
	require.Empty(t, out.Diff)
}

func containerHostRequests(t *testing.T) []rtnl.Request {
	src, err := os.ReadFile("../examples/container-host.ip")
	require.NoError(t, err)
	reqs, err := script.ParseString(string(src))
	require.NoError(t, err)
	return reqs
}
