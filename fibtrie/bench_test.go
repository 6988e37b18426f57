package fibtrie

import (
	"fmt"
	"sync"
	"testing"
)

// Benchmark data is built on first use, so `go test` without -bench never
// pays for it.
var benchCache struct {
	sync.Mutex
	routes map[int][]Route
	fibs   map[int]*FIB
}

var benchSizes = []int{10_000, 100_000, 1_000_000}

func benchRoutes(n int) []Route {
	benchCache.Lock()
	defer benchCache.Unlock()
	if benchCache.routes == nil {
		benchCache.routes = map[int][]Route{}
	}
	if r, ok := benchCache.routes[n]; ok {
		return r
	}
	r := BenchPrefixes(n)
	benchCache.routes[n] = r
	return r
}

func buildFIB(routes []Route) *FIB { return mustBuild(Linux618(), routes) }

// benchEach times op on route i%N of the N routes, on a FIB that fresh
// builds untimed at the start and again after every N ops.
func benchEach(b *testing.B, routes []Route, fresh func() *FIB, op func(f *FIB, r Route) error) {
	b.ReportAllocs()
	f := fresh()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%len(routes) == 0 && i > 0 {
			b.StopTimer()
			f = fresh()
			b.StartTimer()
		}
		if err := op(f, routes[i%len(routes)]); err != nil {
			b.Fatal(err)
		}
	}
}

// benchFIB is a shared, read-only FIB with n routes (lookups only).
func benchFIB(n int) *FIB {
	routes := benchRoutes(n)
	benchCache.Lock()
	defer benchCache.Unlock()
	if benchCache.fibs == nil {
		benchCache.fibs = map[int]*FIB{}
	}
	if f, ok := benchCache.fibs[n]; ok {
		return f
	}
	f := buildFIB(routes)
	benchCache.fibs[n] = f
	return f
}

// BenchmarkInsert: ns per `ip route add` into a trie growing to N routes.
func BenchmarkInsert(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			benchEach(b, benchRoutes(n), func() *FIB { return New(Linux618()) }, (*FIB).Add)
		})
	}
}

// BenchmarkLookup: ns per fib_table_lookup of a random destination.
func BenchmarkLookup(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			f := benchFIB(n)
			addrs := BenchAddrs(benchRoutes(n), 1<<16)
			b.ReportAllocs()
			b.ResetTimer()
			hits := 0
			for i := 0; i < b.N; i++ {
				if f.Lookup(TableMain, addrs[i&(1<<16-1)]) != nil {
					hits++
				}
			}
			_ = hits
		})
	}
}

// BenchmarkDelete: ns per `ip route del` from a trie of N routes.
func BenchmarkDelete(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			routes := benchRoutes(n)
			benchEach(b, routes, func() *FIB { return buildFIB(routes) }, (*FIB).Delete)
		})
	}
}

// BenchmarkFlush: one device (1/16 of the routes) goes away: its routes
// are marked dead and fib_flush walks the tables; ns per flush of a trie of
// N routes. The device's routes are put back untimed between flushes.
func BenchmarkFlush(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			routes := benchRoutes(n)
			var dev []Route
			for _, r := range routes {
				if r.OIF == 2 {
					dev = append(dev, r)
				}
			}
			b.StopTimer()
			f := buildFIB(routes)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if i > 0 {
					b.StopTimer()
					for _, r := range dev {
						if err := f.Add(r); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.StartTimer()
				f.MarkDead(func(a *Alias) bool { return a.OIF == 2 })
				if got := f.Flush(nil); got != len(dev) {
					b.Fatalf("flushed %d want %d", got, len(dev))
				}
			}
		})
	}
}

// mustBuild is a FIB under opts with routes added in order; they must not
// collide.
func mustBuild(opts Options, routes []Route) *FIB {
	f := New(opts)
	for _, r := range routes {
		if err := f.Add(r); err != nil {
			panic(err)
		}
	}
	return f
}
