package fibtrie

import (
	"os"
	"testing"
)

// TestGoldenOneChildTnode replays a sequence (found by the property test)
// after which Linux 6.18 keeps a tnode with a single child: inflating the
// root split a full child whose other half was empty. The expected text
// was captured from the kernel with the kernel target.
func TestGoldenOneChildTnode(t *testing.T) {
	f := modelAfter(t, oneChildTnodeOps())
	want := golden(t, "testdata/one_child_tnode.fib_trie")
	if got := f.Render(); got != want {
		t.Fatal(firstDiff(want, got))
	}
	if err := f.Check(true); err != nil {
		t.Fatal(err)
	}
}

// mainOp is a request for a unicast scope link route on d0 in table main,
// the kind the property tests generate (pOp.route).
func mainOp(k OpKind, dst uint32, l uint8, metric uint32, proto uint8) RouteOp {
	return RouteOp{Kind: k, Route: pOp{Dst: dst, Len: l, Metric: metric, Proto: proto}.route()}
}

func oneChildTnodeOps() []RouteOp {
	return []RouteOp{
		mainOp(OpReplace, ip4(172, 191, 0, 0), 16, 2, 4),
		mainOp(OpReplace, ip4(10, 0, 0, 0), 7, 2, 4),
		mainOp(OpAdd, ip4(193, 254, 254, 0), 23, 2, 3),
		mainOp(OpAppend, ip4(10, 80, 0, 0), 12, 2, 4),
		mainOp(OpAdd, ip4(128, 0, 0, 0), 2, 2, 4),
		mainOp(OpAdd, ip4(0, 0, 0, 0), 2, 2, 4),
		mainOp(OpAdd, ip4(228, 174, 0, 0), 18, 2, 4),
		mainOp(OpAdd, ip4(8, 0, 0, 0), 6, 0, 3),
		mainOp(OpAppend, ip4(10, 164, 0, 0), 14, 1, 4),
		mainOp(OpAdd, ip4(149, 160, 0, 0), 11, 0, 3),
		mainOp(OpDel, ip4(10, 164, 0, 0), 14, 1, 4),
		mainOp(OpAdd, ip4(127, 133, 137, 232), 31, 0, 3),
		mainOp(OpAdd, ip4(138, 19, 240, 0), 20, 2, 3),
		mainOp(OpAppend, ip4(119, 83, 0, 0), 18, 0, 4),
	}
}

// modelAfter is a fresh Linux 6.18 model after ops, each of which must
// succeed.
func modelAfter(t *testing.T, ops []RouteOp) *FIB {
	t.Helper()
	f := New(Linux618())
	for _, o := range ops {
		if err := o.Apply(f); err != nil {
			t.Fatalf("%s: %v", ipBatchLine(o), err)
		}
	}
	return f
}

// golden is the text of a file captured from the kernel.
func golden(t *testing.T, file string) string {
	t.Helper()
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(want)
}

// TestGoldenAddress compares with /proc text captured from Linux 6.18 after
// `ip addr add 10.255.255.1/24 dev d0` and a few routes (see the comment
// in the body); connectedRoutes stands for the address.
func TestGoldenAddress(t *testing.T) {
	f := modelAfter(t, addressOps())
	for file, got := range map[string]string{
		"testdata/addr_and_routes.fib_trie":     f.Render(),
		"testdata/addr_and_routes.fib_triestat": f.RenderStat(),
	} {
		if want := golden(t, file); got != want {
			t.Errorf("%s: %s", file, firstDiff(want, got))
		}
	}
}

func addressOps() []RouteOp {
	// ip addr add 10.255.255.1/24 dev d0
	// ip route add 10.1.2.0/24 dev d0
	// ip route add blackhole 10.1.3.0/24
	// ip route add unreachable 10.1.3.0/24 table 100
	// ip route add prohibit 10.1.3.0/25 tos 8 metric 5
	// ip route add 0.0.0.0/0 dev d0 table 510
	return append(connectedRoutes(),
		RouteOp{Route: Route{Dst: ip4(10, 1, 2, 0), Len: 24, Type: TypeUnicast, Scope: ScopeLink, Protocol: 3, OIF: 2}},
		RouteOp{Route: Route{Dst: ip4(10, 1, 3, 0), Len: 24, Type: TypeBlackhole, Protocol: 3}},
		RouteOp{Route: Route{Dst: ip4(10, 1, 3, 0), Len: 24, Table: 100, Type: TypeUnreachable, Protocol: 3}},
		RouteOp{Route: Route{Dst: ip4(10, 1, 3, 0), Len: 25, Type: TypeProhibit, TOS: 8, Priority: 5, Protocol: 3}},
		RouteOp{Route: Route{Dst: 0, Len: 0, Table: 510, Type: TypeUnicast, Scope: ScopeLink, Protocol: 3, OIF: 2}},
	)
}

// uninflatedRootOps leave a root that the root thresholds would inflate:
// deleting 0.0.0.0/0 collapses the old root and promotes a node that was
// last resized as a non-root.
func uninflatedRootOps() []RouteOp {
	return []RouteOp{
		mainOp(OpAdd, 0, 0, 0, 4),
		mainOp(OpReplace, ip4(10, 36, 0, 0), 18, 2, 4),
		mainOp(OpReplace, ip4(10, 100, 0, 0), 24, 2, 3),
		mainOp(OpAppend, ip4(10, 0, 0, 0), 10, 0, 3),
		mainOp(OpDel, 0, 0, 0, 4),
	}
}

// TestGoldenUninflatedRoot compares with Linux 6.18's text for those ops.
func TestGoldenUninflatedRoot(t *testing.T) {
	f := modelAfter(t, uninflatedRootOps())
	want := golden(t, "testdata/uninflated_root.fib_trie")
	if got := f.Render(); got != want {
		t.Fatal(firstDiff(want, got))
	}
	root := f.getTable(TableMain).t.root()
	if !shouldInflate(root.parent, root) {
		t.Fatal("the case no longer shows a root above the inflate threshold")
	}
}

// TestKernelGoldens replays the golden cases on this machine's kernel, so
// the captured texts (and the behaviour they pin, which Check's one-child
// rule and the resize-threshold property rely on) stay checked against a
// live kernel, not only against a capture. The address case stands in its
// connected routes for the address, as the differential cases do.
func TestKernelGoldens(t *testing.T) {
	requireKernel(t)
	for name, ops := range map[string][]RouteOp{
		"one child tnode": oneChildTnodeOps(),
		"address":         addressOps(),
		"uninflated root": uninflatedRootOps(),
		"high table ids":  highTableOps(),
	} {
		if err := compareWithKernel(kernelTrie, ops, true, nil); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// highTableOps put a route in tables 2^31 and 2^32-1: fib_trie_seq_show and
// fib_triestat_seq_show print tb_id with %d, so those tables are headed
// "Id -2147483648:" and "Id -1:".
func highTableOps() []RouteOp {
	// ip route add 10.1.0.0/16 dev d0 table 4294967295
	// ip route add 10.2.0.0/16 dev d0 table 2147483648
	return []RouteOp{
		{Route: Route{Dst: ip4(10, 1, 0, 0), Len: 16, Table: 4294967295, Type: TypeUnicast, Scope: ScopeLink, Protocol: 3, OIF: 2}},
		{Route: Route{Dst: ip4(10, 2, 0, 0), Len: 16, Table: 2147483648, Type: TypeUnicast, Scope: ScopeLink, Protocol: 3, OIF: 2}},
	}
}

// TestGoldenHighTableIDs compares with Linux 6.18's text for tables whose
// ids have the top bit set.
func TestGoldenHighTableIDs(t *testing.T) {
	f := modelAfter(t, highTableOps())
	for file, got := range map[string]string{
		"testdata/high_table_ids.fib_trie":     f.Render(),
		"testdata/high_table_ids.fib_triestat": f.RenderStat(),
	} {
		if want := golden(t, file); got != want {
			t.Errorf("%s: %s", file, firstDiff(want, got))
		}
	}
}
