package fibtrie

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestFlushReuseCountsTheSame runs random inserts, deletes, device
// sweeps and flushes on two FIBs, one whose flushes reuse the counts of
// clean subtrees and one that walks every flush in full: the counters,
// the tries and what the flushes free must agree after every step.
func TestFlushReuseCountsTheSame(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { flushReuseRun(t, seed) })
	}
}

func flushReuseRun(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	opts := Options{}
	if seed%5 == 4 {
		opts = Linux42()
	}
	fibs := [2]*FIB{New(opts), New(opts)}
	// Prefixes from a few clustered ranges, so the tries grow big tnodes
	// and deep paths.
	route := func() Route {
		var dst uint32
		switch rng.IntN(3) {
		case 0:
			dst = 10<<24 | rng.Uint32N(1<<12)<<8
		case 1:
			dst = 10<<24 | rng.Uint32N(1<<16)<<4
		default:
			dst = rng.Uint32()
		}
		ln := uint8(8 + rng.IntN(25))
		if rng.IntN(2) == 0 {
			ln = 24
		}
		if ln < 32 {
			dst = dst >> (32 - ln) << (32 - ln)
		}
		tables := []uint32{TableMain, TableLocal, 100}
		return Route{Dst: dst, Len: ln, Table: tables[rng.IntN(3)], Type: TypeUnicast,
			Scope: Scope(rng.IntN(2) * int(ScopeHost)), OIF: 1 + rng.IntN(12), Priority: uint32(rng.IntN(3)),
			PrefSrc: uint32(rng.IntN(4))}
	}
	var added []Route
	for i := range 1500 {
		k := rng.IntN(20)
		var r Route
		if k < 12 || len(added) == 0 {
			r = route()
			added = append(added, r)
		} else {
			r = added[rng.IntN(len(added))]
		}
		oif, force := 1+rng.IntN(12), rng.IntN(2) == 0
		src := uint32(rng.IntN(4))
		var got [2]string
		for j, f := range fibs {
			flushReuse = j == 0
			var out string
			switch {
			case k < 12:
				out = fmt.Sprint(f.Insert(r, FlagCreate|FlagAppend))
			case k < 15:
				out = fmt.Sprint(f.Delete(r))
			case k < 18:
				out = fmt.Sprint(f.SyncDownDev(oif, force), f.Flush(nil))
			case k == 18:
				out = fmt.Sprint(f.MarkDead(func(a *Alias) bool { return a.PrefSrc == src }))
				var freed []Route
				f.FlushEach(nil, func(a *Alias) { freed = append(freed, a.Route) })
				out += fmt.Sprint(freed)
			default:
				if i%7 == 0 {
					f.Unmerge()
				}
				out = fmt.Sprint(f.Flush(nil))
			}
			if err := f.Check(false); err != nil {
				t.Fatalf("step %d reuse %v: %v", i, flushReuse, err)
			}
			got[j] = out + fmt.Sprintf("%+v", f.Counters()) + f.Render()
		}
		flushReuse = true
		if got[0] != got[1] {
			t.Fatalf("step %d (op %d): reuse\n%s\nfull walk\n%s", i, k, got[0], got[1])
		}
	}
}
