package sim

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/script"
)

// A request's trie_tnode_new is the tnode_new calls the trie made for it.
// With IPv6 and lo down the trie is empty before the first route: the
// first /24 hangs from the trie's own slot, no tnode. The second meets
// that leaf: tnode_new of one bit where the keys differ (bit 8), and
// the root's inflate threshold (30%: 2 of 2 children used) doubles it at
// once into a 2-bit tnode, the second tnode_new; 2 of 4 is under the
// threshold and stops it. A route flush charges every tnode its deletes'
// halves and inflates build, as the trie counts them.
func TestTrieTnodeNewCounts(t *testing.T) {
	lines := []string{"sysctl net.ipv6.conf.all.disable_ipv6=1", "sysctl net.ipv6.conf.default.disable_ipv6=1",
		"link add i0 type ifb", "link set i0 up", "route add 10.0.0.0/24 dev i0", "route add 10.0.1.0/24 dev i0"}
	tg, _, err := walkRun("linux-6.18", false, lines)
	require.NoError(t, err)
	work := tg.Work()
	require.Equal(t, int64(0), work[len(work)-2].Count(cost.StepTrieTnodeNew), "first route")
	require.Equal(t, int64(2), work[len(work)-1].Count(cost.StepTrieTnodeNew), "second route")

	for i := 2; i < 3000; i++ {
		lines = append(lines, fmt.Sprintf("route add 10.%d.%d.0/24 dev i0", i>>8, i&255))
	}
	tg, _, err = walkRun("linux-6.18", false, lines)
	require.NoError(t, err)
	before := tg.Netns().fib.Counters().TnodeAllocs
	flush, err := script.ParseString("route flush table main\n")
	require.NoError(t, err)
	require.NoError(t, tg.Apply(context.Background(), flush[0]))
	made := tg.Netns().fib.Counters().TnodeAllocs - before
	work = tg.Work()
	require.Positive(t, made, "the flush's halves build tnodes")
	require.Equal(t, int64(made), work[len(work)-1].Count(cost.StepTrieTnodeNew))
}
