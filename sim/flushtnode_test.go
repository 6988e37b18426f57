package sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/fibtrie"
)

// A link down of one of 1,000 addressed devices flushes the merged
// main/local trie twice (fib_flush walks main, then local), and each walk
// finishes every tnode: one small tnode per device and the one above them.
// /proc/net/fib_triestat on this machine's 6.18 showed the same trie for
// 1,000 ifb devices holding 10.a.b.1/24: 3,000 leaves, 1,001 internal
// nodes (1,000 of one bit, one of twelve); fibtrie's kernel suite
// compares this layout with the kernel's at 10,000 devices
// (TestKernelSeed003Shape).
func TestFlushCountsTnodes(t *testing.T) {
	var b strings.Builder
	b.WriteString("sysctl net.ipv6.conf.all.disable_ipv6=1\nsysctl net.ipv6.conf.default.disable_ipv6=1\n")
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, "link add g%d type ifb\nlink set dev g%d up\naddr add 10.%d.%d.1/24 dev g%d\n", i, i, i>>8, i&255, i)
	}
	tg, errs := runProfile(t, "linux-6.18", b.String())
	for _, e := range errs {
		require.Empty(t, e)
	}
	st := tg.Netns().fib.Stats(fibtrie.TableMain)
	require.EqualValues(t, 3000, st.Leaves)
	require.EqualValues(t, 1001, st.Tnodes)
	require.EqualValues(t, 1000, st.NodeSizes[1])
	require.EqualValues(t, 1, st.NodeSizes[12])

	tg, _ = runProfile(t, "linux-6.18", b.String()+"link set dev g7 down\n")
	w := tg.workList()[len(tg.workList())-1]
	// g7's tnode may go in the first walk (its prefix route went), so the
	// second finishes one fewer.
	require.GreaterOrEqual(t, w.Count(cost.StepFibFlushTnode), int64(2*1001-1))
	require.LessOrEqual(t, w.Count(cost.StepFibFlushTnode), int64(2*1001))
	require.EqualValues(t, 2*3000-1, w.Count(cost.StepFibFlushLeaf))
}

// The first custom rule unmerges local from main (fib_unmerge), whose walk
// of main finishes its tnodes as a flush does.
func TestUnmergeCountsTnodes(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&b, "link add g%d type ifb\nlink set dev g%d up\naddr add 10.0.%d.1/24 dev g%d\n", i, i, i, i)
	}
	tg, errs := runProfile(t, "linux-6.18", b.String()+"rule add from 192.0.2.0/24 table 100\n")
	require.Empty(t, errs[len(errs)-1])
	w := tg.workList()[len(tg.workList())-1]
	require.Positive(t, w.Count(cost.StepFibFlushTnode))
	require.Positive(t, w.Count(cost.StepFibFlushLeaf))
}
