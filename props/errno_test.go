package props

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/internal/testseed"
	"github.com/rtnlsim/rtnlsim/kernel"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
)

var expectRE = regexp.MustCompile(`#\s*expect\s+(E[A-Z0-9]+)`)

// TestKernelErrnos runs testdata/errno.ip on the kernel and checks that
// every line fails with exactly the errno its comment expects, and every
// other line succeeds.
func TestKernelErrnos(t *testing.T) {
	testseed.NeedKernel(t)
	src, err := os.ReadFile("testdata/errno.ip")
	require.NoError(t, err)
	want := map[int]string{}
	for i, line := range strings.Split(string(src), "\n") {
		if m := expectRE.FindStringSubmatch(line); m != nil && !strings.HasPrefix(strings.TrimSpace(line), "#") {
			want[i+1] = m[1]
		}
	}
	require.GreaterOrEqual(t, len(want), 25)
	reqs, err := script.ParseString(string(src))
	require.NoError(t, err)
	tg, err := kernel.New(kernel.Options{})
	require.NoError(t, err)
	defer tg.Close()
	res, err := rtnl.Run(context.Background(), tg, reqs, rtnl.Show{}, nil)
	require.NoError(t, err)
	got := map[int]string{}
	for _, e := range res.Errors {
		got[e.Line] = e.Errno
	}
	require.Equal(t, want, got)
	seen := map[string]bool{}
	for _, e := range want {
		seen[e] = true
	}
	t.Logf("errnos reached: %v", keys(seen))
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
