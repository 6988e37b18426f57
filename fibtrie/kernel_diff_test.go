package fibtrie

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"
)

// defaultSeed keeps `go test` deterministic, so CI never goes red on a case
// nobody has seen; RTNLSIM_SEED=N replays seed N and RTNLSIM_SEED=random
// explores with a fresh one. Tests log the seed they use.
const defaultSeed = 20260003

func testSeed(t testing.TB) uint64 {
	s := os.Getenv("RTNLSIM_SEED")
	switch s {
	case "":
		return defaultSeed
	case "random":
		return uint64(time.Now().UnixNano())
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("RTNLSIM_SEED: %v", err)
	}
	return v
}

func ip4(a, b, c, d uint32) uint32 { return a<<24 | b<<16 | c<<8 | d }

func mask(dst uint32, l uint8) uint32 {
	if l == 0 {
		return 0
	}
	return dst &^ (1<<(32-l) - 1)
}

// connectedRoutes are the three routes fib_add_ifaddr installs for
// 10.255.255.1/24 on d0, in its order: local, prefix, broadcast.
func connectedRoutes() []RouteOp {
	src := ip4(10, 255, 255, 1)
	return []RouteOp{
		{Kind: OpAdd, Route: Route{Dst: src, Len: 32, Table: TableLocal, Type: TypeLocal, Scope: ScopeHost,
			Protocol: 2, PrefSrc: src, OIF: kernelIfindex}},
		{Kind: OpAdd, Route: Route{Dst: ip4(10, 255, 255, 0), Len: 24, Table: TableMain, Type: TypeUnicast,
			Scope: ScopeLink, Protocol: 2, PrefSrc: src, OIF: kernelIfindex}},
		{Kind: OpAdd, Route: Route{Dst: ip4(10, 255, 255, 255), Len: 32, Table: TableLocal, Type: TypeBroadcast,
			Scope: ScopeLink, Protocol: 2, PrefSrc: src, OIF: kernelIfindex}},
	}
}

// randPrefix draws from a few clusters so tries get both dense and sparse
// parts, with every length 0..32 possible.
func randPrefix(rng *rand.Rand) (uint32, uint8) {
	var a uint32
	switch rng.IntN(5) {
	case 0, 1:
		a = ip4(10, uint32(rng.IntN(4)), uint32(rng.IntN(256)), uint32(rng.IntN(256)))
	case 2:
		a = ip4(192, 168, uint32(rng.IntN(256)), uint32(rng.IntN(256)))
	case 3:
		a = ip4(172, 16+uint32(rng.IntN(16)), uint32(rng.IntN(256)), uint32(rng.IntN(256)))
	default:
		a = rng.Uint32()
	}
	var l uint8
	switch rng.IntN(10) {
	case 0, 1, 2:
		l = 24
	case 3:
		l = 32
	default:
		l = uint8(rng.IntN(33))
	}
	return mask(a, l), l
}

func pick[T any](rng *rand.Rand, xs ...T) T { return xs[rng.IntN(len(xs))] }

// randRoute draws a route the kernel accepts on a namespace with d0.
func randRoute(rng *rand.Rand) Route {
	dst, l := randPrefix(rng)
	r := Route{Dst: dst, Len: l,
		Table:    pick(rng, TableMain, TableMain, TableMain, TableLocal, 100, 510, 1000),
		TOS:      pick[uint8](rng, 0, 0, 0, 0, 0, 0, 4, 8, 0x10),
		Priority: pick[uint32](rng, 0, 0, 0, 1, 5, 100),
		Protocol: pick[uint8](rng, 3, 3, 4, 186),
	}
	switch k := rng.IntN(100); {
	case k < 70:
		r.Type, r.OIF = TypeUnicast, kernelIfindex
		r.Scope = pick(rng, ScopeLink, ScopeLink, ScopeUniverse)
	case k < 80:
		r.Type = TypeBlackhole
	case k < 89:
		r.Type = TypeUnreachable
	case k < 95:
		r.Type = TypeProhibit
	case k < 96:
		r.Type = TypeThrow
	case k < 97:
		r.Type, r.OIF = pick(rng, TypeAnycast, TypeMulticast), kernelIfindex
		if r.Type == TypeAnycast {
			r.Scope = ScopeLink
		}
	default:
		r.Type, r.Scope, r.OIF = TypeLocal, ScopeHost, kernelIfindex
	}
	return r
}

// mutateInfo keeps a route's key (dst, len, table, tos, metric) and changes
// what the kernel keeps in fib_info, to build alias runs.
func mutateInfo(rng *rand.Rand, r Route) Route {
	switch rng.IntN(3) {
	case 0:
		r.Protocol = pick[uint8](rng, 3, 4, 186, 17)
	case 1:
		if r.Type == TypeUnicast {
			r.Scope ^= ScopeLink // link <-> universe
		} else if r.Type.IsError() {
			r.Type = pick(rng, TypeBlackhole, TypeUnreachable, TypeProhibit)
		}
	default:
		if r.Type.IsError() {
			r.Type, r.OIF, r.Scope = TypeUnicast, kernelIfindex, ScopeLink
		} else {
			r.Type, r.OIF, r.Scope = TypeBlackhole, 0, ScopeUniverse
		}
	}
	return r
}

// genOps builds the connected routes, nAdds random adds (with replace,
// append, prepend, duplicates mixed in) and nDels deletes, mostly of routes
// added earlier, some with wildcards, some of absent routes.
func genOps(rng *rand.Rand, nAdds, nDels int) []RouteOp {
	ops := connectedRoutes()
	var added []Route
	for range nAdds {
		var r Route
		if len(added) > 0 && rng.IntN(100) < 15 {
			r = added[rng.IntN(len(added))]
			if rng.IntN(3) > 0 {
				r = mutateInfo(rng, r)
			}
		} else {
			r = randRoute(rng)
		}
		kind := OpAdd
		switch k := rng.IntN(100); {
		case k < 6:
			kind = OpReplace
		case k < 12:
			kind = OpAppend
		case k < 16:
			kind = OpPrepend
		}
		ops = append(ops, RouteOp{Kind: kind, Route: r})
		added = append(added, r)
	}
	for range nDels {
		var r Route
		if len(added) > 0 && rng.IntN(100) < 85 {
			i := rng.IntN(len(added))
			r = added[i]
			added[i] = added[len(added)-1]
			added = added[:len(added)-1]
			if rng.IntN(4) == 0 { // wildcard delete: first of the run
				r.Type, r.Scope, r.Protocol, r.OIF = TypeUnspec, ScopeAny, 0, 0
			}
		} else {
			r = randRoute(rng)
		}
		ops = append(ops, RouteOp{Kind: OpDel, Route: r})
	}
	return ops
}

// TestKernelDifferential compares /proc text of model and kernel over 200
// random op sequences, ten of them with 10,000 added routes.
func TestKernelDifferential(t *testing.T) {
	requireKernel(t)
	seed := testSeed(t)
	t.Logf("seed %d (RTNLSIM_SEED=%d replays, RTNLSIM_SEED=random explores)", seed, seed)
	runKernelCases(t, kernelTrie, seed, 200, 10)
}

func runKernelCases(t *testing.T, kernel kernelTrieFunc, seed uint64, n, big int) {
	type job struct {
		i   int
		ops []RouteOp
	}
	jobs := make(chan job)
	var mu sync.Mutex
	var failures []string
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for j := range jobs {
				if err := compareWithKernel(kernel, j.ops, len(j.ops) < 400, nil); err != nil {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("case %d (%d ops): %v", j.i, len(j.ops), err))
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		var ops []RouteOp
		if i%(n/big) == 0 {
			ops = genOps(rng, 10000, 2000)
		} else {
			adds := 1 + rng.IntN(300)
			ops = genOps(rng, adds, rng.IntN(adds/2+1))
		}
		jobs <- job{i, ops}
	}
	close(jobs)
	wg.Wait()
	for i, f := range failures {
		if i == 5 {
			t.Errorf("... %d failures in all", len(failures))
			break
		}
		t.Error(f)
	}
	if len(failures) == 0 {
		t.Logf("%d cases (%d with 10,000 routes) identical to the kernel", n, big)
	}
}
