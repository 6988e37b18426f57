package fibtrie

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// compareThen replays ops on the model, runs after on it, and compares with
// the kernel after the ops and the extra ip lines.
func compareThen(ops []RouteOp, then []string, after func(f *FIB)) error {
	f := New(Linux618())
	for i := range ops {
		ops[i].WantErr = ops[i].Apply(f)
	}
	after(f)
	if err := f.Check(false, false); err != nil {
		return fmt.Errorf("model invariant: %v", err)
	}
	kt, ks, err := ipKernelTrieThen(ops, then)
	if err != nil {
		return err
	}
	if mt := f.Render(); mt != kt {
		return fmt.Errorf("/proc/net/fib_trie differs at %s", firstDiff(kt, mt))
	}
	if ms := f.RenderStat(); ms != ks {
		return fmt.Errorf("/proc/net/fib_triestat differs at %s", firstDiff(ks, ms))
	}
	return nil
}

// TestKernelLinkDelFlush: deleting d0 marks its routes dead and fib_flush
// removes them from every table (error routes stay), resizing as it goes;
// once for NETDEV_DOWN and once more for NETDEV_UNREGISTER.
func TestKernelLinkDelFlush(t *testing.T) {
	requireKernel(t)
	seed := testSeed(t)
	t.Logf("seed %d", seed)
	for i := range 20 {
		rng := rand.New(rand.NewPCG(seed, uint64(1000+i)))
		n := 50 + rng.IntN(400)
		if i == 0 {
			n = 10000
		}
		ops := genOps(rng, n, rng.IntN(n/4))
		err := compareThen(ops, []string{"link del d0"}, func(f *FIB) {
			for _, force := range []bool{false, true} { // NETDEV_DOWN, NETDEV_UNREGISTER
				if f.SyncDownDev(kernelIfindex, force) > 0 {
					f.Flush(nil)
				}
			}
		})
		if err != nil {
			t.Fatalf("case %d (%d ops): %v", i, len(ops), err)
		}
	}
}

// TestKernelUnmerge: the first custom rule unmerges local from main
// (fib_unmerge): local gets its own trie, main drops local's aliases.
func TestKernelUnmerge(t *testing.T) {
	requireKernel(t)
	seed := testSeed(t)
	t.Logf("seed %d", seed)
	for i := range 20 {
		rng := rand.New(rand.NewPCG(seed, uint64(2000+i)))
		n := 20 + rng.IntN(300)
		ops := genOps(rng, n, rng.IntN(n/4))
		err := compareThen(ops, []string{"rule add from 192.0.2.1 table 100"}, func(f *FIB) { f.Unmerge() })
		if err != nil {
			t.Fatalf("case %d (%d ops): %v", i, len(ops), err)
		}
	}
}
