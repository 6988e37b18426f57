package fibtrie

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// TestPropReuseAsFresh: a FIB that reuses freed nodes ends every random
// sequence of adds, deletes, replaces, appends and flushes with the same
// trie (as /proc renders it), the same counters and the same lookups as
// one that allocates every node afresh; and some sequences had freed
// nodes to reuse.
func TestPropReuseAsFresh(t *testing.T) {
	props := gopter.NewProperties(gopterParams(t, 300))
	reused := 0
	props.Property("reused = fresh", prop.ForAll(func(ops []pOp) string {
		run := func(reuse bool) (*FIB, int) {
			reuseNodes = reuse
			defer func() { reuseNodes = true }()
			f := New(Linux618())
			ref := naive{}
			spare := 0
			for _, o := range ops {
				for _, s := range f.spare {
					spare += len(s)
				}
				step(f, ref, o)
			}
			return f, spare
		}
		fresh, _ := run(false)
		f, spare := run(true)
		if spare > 0 {
			reused++
		}
		if err := f.Check(false); err != nil {
			return err.Error()
		}
		if a, b := f.Render(), fresh.Render(); a != b {
			return fmt.Sprintf("trie differs:\n%s\nfresh:\n%s", a, b)
		}
		if a, b := f.Counters(), fresh.Counters(); a != b {
			return fmt.Sprintf("counters %+v, fresh %+v", a, b)
		}
		for _, o := range ops {
			a, b := f.Lookup(TableMain, o.Dst|1), fresh.Lookup(TableMain, o.Dst|1)
			if (a == nil) != (b == nil) || a != nil && a.Route != b.Route {
				return fmt.Sprintf("lookup %s differs", FormatIP(o.Dst|1))
			}
		}
		return ""
	}, gen.SliceOf(genPOp())))
	props.TestingRun(t)
	if reused == 0 {
		t.Fatal("no sequence left a spare node to reuse: the property compared nothing")
	}
	t.Logf("%d sequences had spare nodes to reuse", reused)
}

// TestReuseBigNodes: tnodes of more than 64 slots (occupancy in several
// words) come back from the spare lists as fresh ones would: each round
// adds random /32s of a /20 and some /28s, deletes half, re-adds some,
// flushes and deletes the rest, so the next round builds its tnodes from
// freed ones of other occupancy. The trie is checked after every request
// and matches a fresh FIB's after every round.
func TestReuseBigNodes(t *testing.T) {
	const n = 4096
	// phase runs a round's requests, calling check after every one.
	phase := func(f *FIB, round int, check func()) {
		do := func(err error) { check() }
		// a different, irregular subset each round
		rng := rand.New(rand.NewPCG(uint64(round), 7))
		for _, i := range rng.Perm(n)[:n*3/4] {
			do(f.Add(Route{Table: TableMain, Dst: 0x0a000000 | uint32(i), Len: 32, Type: TypeUnicast, OIF: 1}))
		}
		// shorter prefixes among them, so that deletes pull suffixes
		// (update_suffix scans the big tnodes' occupancy)
		for i := round * 16; i < n; i += 64 {
			do(f.Add(Route{Table: TableMain, Dst: 0x0a000000 | uint32(i), Len: 28, Type: TypeUnicast, OIF: 3}))
		}
		for _, i := range rng.Perm(n)[:n/2] {
			do(f.Delete(Route{Table: TableMain, Dst: 0x0a000000 | uint32(i), Len: 32}))
		}
		for i := round * 16; i < n; i += 128 {
			do(f.Delete(Route{Table: TableMain, Dst: 0x0a000000 | uint32(i), Len: 28}))
		}
		for i := 0; i < n; i += 3 {
			do(f.Add(Route{Table: TableMain, Dst: 0x0a000000 | uint32(i), Len: 32, Type: TypeUnicast, OIF: 2}))
		}
		f.MarkDead(func(a *Alias) bool { return a.OIF == 1 })
		f.Flush(nil)
		check()
		// the rest one by one: the next round builds its tnodes from
		// these ones
		for i := range n {
			do(f.Delete(Route{Table: TableMain, Dst: 0x0a000000 | uint32(i), Len: 32}))
		}
	}
	fresh, f := New(Linux618()), New(Linux618())
	big := 0 // spare tnodes of 7 bits or more at the start of a round
	for round := range 4 {
		f.quiesce()
		for bits := 7; bits <= keyLength; bits++ {
			big += len(f.spare[bits])
		}
		reuseNodes = false
		phase(fresh, round, func() {})
		reuseNodes = true
		phase(f, round, func() {
			if err := f.Check(true); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		})
		if a, b := f.Render(), fresh.Render(); a != b {
			t.Fatalf("round %d: the trie differs from a fresh one", round)
		}
		if a, b := f.Counters(), fresh.Counters(); a != b {
			t.Fatalf("round %d: counters %+v, fresh %+v", round, a, b)
		}
	}
	if big == 0 {
		t.Fatal("no tnode of 7 bits or more was there to reuse")
	}
}
