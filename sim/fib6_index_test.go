package sim

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/script"
)

// checkIndex6 holds byNode to byDev (the same routes, each node's in
// metric then age order) and lens to byNode.
func (f *fib6) checkIndex6() error {
	want := map[node6][]*route6{}
	for _, rs := range f.byDev {
		for _, r := range rs {
			k := node6{r.table, r.dst}
			want[k] = append(want[k], r)
		}
	}
	for k, rs := range want {
		slices.SortFunc(rs, func(x, y *route6) int {
			if c := cmp.Compare(x.metric, y.metric); c != 0 {
				return c
			}
			return cmp.Compare(x.seq, y.seq)
		})
		if !slices.Equal(rs, f.byNode[k]) {
			return fmt.Errorf("node %v: index has %d routes, the devices %d, or another order", k, len(f.byNode[k]), len(rs))
		}
	}
	lens := map[uint32]*[129]int32{}
	for k := range f.byNode {
		if _, ok := want[k]; !ok {
			return fmt.Errorf("node %v: indexed, but no device has its routes", k)
		}
		if lens[k.table] == nil {
			lens[k.table] = new([129]int32)
		}
		lens[k.table][k.dst.Bits()]++
	}
	for table, l := range f.lens {
		if want := lens[table]; (want == nil && *l != [129]int32{}) || (want != nil && *want != *l) {
			return fmt.Errorf("table %d: prefix lengths counted %v, the nodes have %v", table, *l, want)
		}
	}
	for table := range lens {
		if f.lens[table] == nil {
			return fmt.Errorf("table %d: no prefix lengths counted", table)
		}
	}
	return nil
}

// The node index agrees with the routes after every request of every
// regression script and example, in every namespace.
func TestFib6IndexMatchesRoutes(t *testing.T) {
	files, err := filepath.Glob("../props/testdata/*.ip")
	require.NoError(t, err)
	ex, err := filepath.Glob("../examples/*.ip")
	require.NoError(t, err)
	files = append(files, ex...)
	require.NotEmpty(t, files)
	routed := 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		require.NoError(t, err)
		reqs, err := script.ParseString(string(src))
		if err != nil {
			continue // scripts of parse errors are the parser's tests
		}
		tg := New(Options{})
		for _, r := range reqs {
			_ = tg.Apply(context.Background(), r)
			for name, n := range tg.namespaces {
				require.NoError(t, n.fib6.checkIndex6(), "%s:%d (%s), namespace %q", file, r.Line, r.Text, name)
				routed += len(n.fib6.byNode)
			}
		}
	}
	t.Logf("%d files, %d node-namespace checks", len(files), routed)
	require.Positive(t, routed)
}
