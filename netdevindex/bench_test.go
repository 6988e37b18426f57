package netdevindex

import (
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkIndexLookup looks up every present ifindex once per iteration, in
// ifindex order (as the seed 002 microbenchmark does) or in a fixed random
// order (random/...), through the hash (dev_get_by_index), the xarray
// (xa_load) and a Go map for reference. ifindexes are 1..N, allocated as the
// kernel allocates them. It measures the Go model, not the kernel.
//
// Reported: ns/lookup, and steps/lookup (hash chain entries or xarray node
// visits per lookup, deterministic).

var benchIndexDevs = []int{2, 16, 64, 128, 256, 1024, 8192}

// RTNLSIM_BENCH_DEVS=512,2048 replaces the device counts (to probe the
// crossover between the standard sizes).
func benchDevCounts(b *testing.B) []int {
	env := os.Getenv("RTNLSIM_BENCH_DEVS")
	if env == "" {
		return benchIndexDevs
	}
	var out []int
	for _, f := range strings.Split(env, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			b.Fatalf("RTNLSIM_BENCH_DEVS: bad count %q", f)
		}
		out = append(out, n)
	}
	return out
}

type benchNetdev struct {
	ifindex uint32
}

var benchSink *benchNetdev

func benchOrder(n int, random bool) []uint32 {
	order := make([]uint32, n)
	for i := range order {
		order[i] = uint32(i + 1)
	}
	if random {
		r := rand.New(rand.NewSource(int64(n)))
		r.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	return order
}

func BenchmarkIndexLookup(b *testing.B) {
	for _, random := range []bool{false, true} {
		prefix := ""
		if random {
			prefix = "random/"
		}
		for _, kind := range []string{"hash", "xarray", "map"} {
			for _, n := range benchDevCounts(b) {
				b.Run(fmt.Sprintf("%s%s/devs=%d", prefix, kind, n), func(b *testing.B) {
					benchLookup(b, kind, n, random)
				})
			}
		}
	}
}

func benchLookup(b *testing.B, kind string, n int, random bool) {
	// Setup runs only when the benchmark runs.
	order := benchOrder(n, random)
	var lookup func(uint32) (*benchNetdev, bool)
	var steps func() uint64
	switch kind {
	case "hash", "xarray":
		var idx Index[*benchNetdev] = NewHash[*benchNetdev]()
		if kind == "xarray" {
			idx = NewXarray[*benchNetdev]()
		}
		for i := 0; i < n; i++ {
			idx.Add(0, &benchNetdev{ifindex: uint32(i + 1)})
		}
		idx.ResetSteps()
		lookup, steps = idx.Lookup, idx.Steps
	case "map":
		m := make(map[uint32]*benchNetdev)
		for i := 0; i < n; i++ {
			m[uint32(i+1)] = &benchNetdev{ifindex: uint32(i + 1)}
		}
		lookup = func(i uint32) (*benchNetdev, bool) { d, ok := m[i]; return d, ok }
		steps = func() uint64 { return 0 }
	}
	b.ReportAllocs()
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		for _, i := range order {
			d, ok := lookup(i)
			if !ok || d.ifindex != i {
				b.Fatalf("lookup %d", i)
			}
			benchSink = d
		}
	}
	b.StopTimer()
	lookups := float64(b.N) * float64(n)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/lookups, "ns/lookup")
	if kind != "map" {
		b.ReportMetric(float64(steps())/lookups, "steps/lookup")
	}
}
