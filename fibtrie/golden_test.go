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
	ops := []pOp{}
	add := func(k int, a uint32, l uint8, m uint32, p uint8) { ops = append(ops, pOp{k, a, l, m, p}) }
	add(6, ip4(172, 191, 0, 0), 16, 2, 4)
	add(6, ip4(10, 0, 0, 0), 7, 2, 4)
	add(0, ip4(193, 254, 254, 0), 23, 2, 3)
	add(7, ip4(10, 80, 0, 0), 12, 2, 4)
	add(0, ip4(128, 0, 0, 0), 2, 2, 4)
	add(0, ip4(0, 0, 0, 0), 2, 2, 4)
	add(0, ip4(228, 174, 0, 0), 18, 2, 4)
	add(0, ip4(8, 0, 0, 0), 6, 0, 3)
	add(7, ip4(10, 164, 0, 0), 14, 1, 4)
	add(0, ip4(149, 160, 0, 0), 11, 0, 3)
	add(4, ip4(10, 164, 0, 0), 14, 1, 4)
	add(0, ip4(127, 133, 137, 232), 31, 0, 3)
	add(0, ip4(138, 19, 240, 0), 20, 2, 3)
	add(7, ip4(119, 83, 0, 0), 18, 0, 4)
	var rops []RouteOp
	for _, o := range ops {
		k := map[int]OpKind{0: OpAdd, 4: OpDel, 6: OpReplace, 7: OpAppend}[o.Kind]
		rops = append(rops, RouteOp{Kind: k, Route: o.route()})
	}
	f := New(Linux618())
	for _, o := range rops {
		if err := o.Apply(f); err != nil {
			t.Fatalf("%s: %v", ipBatchLine(o), err)
		}
	}
	want, err := os.ReadFile("testdata/one_child_tnode.fib_trie")
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Render(); got != string(want) {
		t.Fatal(firstDiff(string(want), got))
	}
	if err := f.Check(false, true); err != nil {
		t.Fatal(err)
	}
}

// TestGoldenAddress compares with /proc text captured from Linux 6.18 after
// `ip addr add 10.255.255.1/24 dev d0` and a few routes (see the comment
// in the body); connectedRoutes stands for the address.
func TestGoldenAddress(t *testing.T) {
	// ip addr add 10.255.255.1/24 dev d0
	// ip route add 10.1.2.0/24 dev d0
	// ip route add blackhole 10.1.3.0/24
	// ip route add unreachable 10.1.3.0/24 table 100
	// ip route add prohibit 10.1.3.0/25 tos 8 metric 5
	// ip route add 0.0.0.0/0 dev d0 table 510
	ops := connectedRoutes()
	ops = append(ops,
		RouteOp{Route: Route{Dst: ip4(10, 1, 2, 0), Len: 24, Type: TypeUnicast, Scope: ScopeLink, Protocol: 3, OIF: 2}},
		RouteOp{Route: Route{Dst: ip4(10, 1, 3, 0), Len: 24, Type: TypeBlackhole, Protocol: 3}},
		RouteOp{Route: Route{Dst: ip4(10, 1, 3, 0), Len: 24, Table: 100, Type: TypeUnreachable, Protocol: 3}},
		RouteOp{Route: Route{Dst: ip4(10, 1, 3, 0), Len: 25, Type: TypeProhibit, TOS: 8, Priority: 5, Protocol: 3}},
		RouteOp{Route: Route{Dst: 0, Len: 0, Table: 510, Type: TypeUnicast, Scope: ScopeLink, Protocol: 3, OIF: 2}},
	)
	f := New(Linux618())
	for _, o := range ops {
		if err := o.Apply(f); err != nil {
			t.Fatalf("%s: %v", ipBatchLine(o), err)
		}
	}
	for file, got := range map[string]string{
		"testdata/addr_and_routes.fib_trie":     f.Render(),
		"testdata/addr_and_routes.fib_triestat": f.RenderStat(),
	} {
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s: %s", file, firstDiff(string(want), got))
		}
	}
}

// uninflatedRootOps leave a root that the root thresholds would inflate:
// deleting 0.0.0.0/0 collapses the old root and promotes a node that was
// last resized as a non-root.
func uninflatedRootOps() []RouteOp {
	r := func(dst uint32, l uint8, metric uint32, proto uint8) Route {
		return Route{Dst: dst, Len: l, Table: TableMain, Type: TypeUnicast, Scope: ScopeLink,
			Priority: metric, Protocol: proto, OIF: 2}
	}
	return []RouteOp{
		{Kind: OpAdd, Route: r(0, 0, 0, 4)},
		{Kind: OpReplace, Route: r(ip4(10, 36, 0, 0), 18, 2, 4)},
		{Kind: OpReplace, Route: r(ip4(10, 100, 0, 0), 24, 2, 3)},
		{Kind: OpAppend, Route: r(ip4(10, 0, 0, 0), 10, 0, 3)},
		{Kind: OpDel, Route: r(0, 0, 0, 4)},
	}
}

// TestGoldenUninflatedRoot compares with Linux 6.18's text for those ops.
func TestGoldenUninflatedRoot(t *testing.T) {
	f := New(Linux618())
	for _, o := range uninflatedRootOps() {
		if err := o.Apply(f); err != nil {
			t.Fatalf("%s: %v", ipBatchLine(o), err)
		}
	}
	want, err := os.ReadFile("testdata/uninflated_root.fib_trie")
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Render(); got != string(want) {
		t.Fatal(firstDiff(string(want), got))
	}
	root := f.getTable(TableMain).t.root()
	if !shouldInflate(root.parent, root) {
		t.Fatal("the case no longer shows a root above the inflate threshold")
	}
}
