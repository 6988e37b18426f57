package sim

// Speed and memory of the model at seed 000 scale: 10,000 to 100,000
// devices, a million registered.
//
//	go test ./sim -run '^$' -bench 'Seed000Scenario|Register' -benchtime 5x -count 5
//
// No timed assertions: the numbers are reported, not checked.

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
)

// seed000Script is the seed's scenario for n devices as a script: n
// `link add dN type dummy`, n `link set dN up`, n `link del dN`.
func seed000Script(n int) string {
	var b strings.Builder
	for _, f := range []string{"link add d%d type dummy\n", "link set d%d up\n", "link del d%d\n"} {
		for i := range n {
			fmt.Fprintf(&b, f, i)
		}
	}
	return b.String()
}

// runSeed000Scenario parses src and runs it on a fresh sim target as
// `rtnlsim run --target sim --show cost` does: rtnl.Run, then the cost on
// one thread. It returns the requests and the virtual time.
func runSeed000Scenario(tb testing.TB, src string) (int, int64) {
	reqs, err := script.ParseString(src)
	if err != nil {
		tb.Fatal(err)
	}
	// The seed's kernel (5.16: three synchronize_net per deletion), at
	// the default prices, which are the seed 000 fit.
	steps := UnregisterStepsV516()
	tg := New(Options{Unregister: &steps})
	res, err := rtnl.Run(context.Background(), tg, reqs, rtnl.Show{Cost: true}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if len(res.Errors) != 0 {
		tb.Fatalf("refused lines: %v", res.Errors[:min(3, len(res.Errors))])
	}
	c, err := tg.Cost(1)
	if err != nil {
		tb.Fatal(err)
	}
	return len(reqs), c.VirtualNs
}

// BenchmarkSeed000Scenario10K is the seed 000 scenario end to end on
// 10,000 devices (30,000 requests): parse, run on the sim, price. ns/op is
// the whole scenario; ns/request is per script line.
func BenchmarkSeed000Scenario10K(b *testing.B) {
	src := seed000Script(10000)
	b.ReportAllocs()
	var reqs int
	for b.Loop() {
		var vns int64
		reqs, vns = runSeed000Scenario(b, src)
		if vns < 243e9-1e6 || vns > 243e9+1e6 {
			// The seed 000 fit prices the one-by-one scenario at 243 s
			// (to rounding).
			b.Fatalf("virtual time %d ns, want 243 s", vns)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(reqs), "ns/request")
}

// BenchmarkSeed000Scenario100K is the same at 100,000 devices (300,000
// requests), to show how the model scales.
func BenchmarkSeed000Scenario100K(b *testing.B) {
	src := seed000Script(100000)
	var reqs int
	for b.Loop() {
		reqs, _ = runSeed000Scenario(b, src)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(reqs), "ns/request")
}

// BenchmarkSeed000ScenarioParts splits the scenario: parsing the script,
// applying the requests, and pricing them.
func BenchmarkSeed000ScenarioParts(b *testing.B) {
	src := seed000Script(10000)
	reqs, err := script.ParseString(src)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := script.ParseString(src); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("apply", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			tg := New(Options{})
			for _, r := range reqs {
				if err := tg.Apply(context.Background(), r); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	tg := New(Options{})
	for _, r := range reqs {
		if err := tg.Apply(context.Background(), r); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("cost", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tg.Cost(1); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// heapAfterGC is HeapAlloc after a full collection.
func heapAfterGC() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// registerDevices registers n dummy devices on a fresh sim target through
// Apply (the requests made one at a time, so only what the target keeps is
// measured) and returns the target and the heap it holds per device: the
// device, its name, its index entries (hash chain and xarray), the name
// table and device list, and the per-request cost record.
func registerDevices(tb testing.TB, n int) (*Target, float64) {
	before := heapAfterGC()
	tg := New(Options{})
	ctx := context.Background()
	for i := range n {
		req := rtnl.Request{Op: rtnl.LinkAdd{Name: "d" + strconv.Itoa(i), Kind: rtnl.KindDummy}}
		if err := tg.Apply(ctx, req); err != nil {
			tb.Fatalf("device %d: %v", i, err)
		}
	}
	after := heapAfterGC()
	runtime.KeepAlive(tg)
	return tg, (float64(after) - float64(before)) / float64(n)
}

// BenchmarkRegister1M registers 1,000,000 dummy devices; ns/op is the
// whole registration, bytes/device the heap the target holds per device.
func BenchmarkRegister1M(b *testing.B) {
	const n = 1_000_000
	var perDev float64
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		b.StartTimer()
		var tg *Target
		tg, perDev = registerDevices(b, n)
		if got := tg.Netns().index.Len(); got != n+1 {
			b.Fatalf("%d devices listed, want %d", got, n+1)
		}
	}
	b.ReportMetric(perDev, "bytes/device")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/device")
}
