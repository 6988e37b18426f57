package sim

// Speed of the model on four workloads, each timed on its main part only
// (the script lines of that part parsed and applied; the setup is not
// timed):
//
//	d  100,000 `route add` on one UP ifb device, then `route flush table main`
//	e  2500 UP ifb devices with a /24 each, deleted one by one
//	f  2000 UP ifb devices moved to a group one by one
//	g  2000 UP ifb devices deleted one by one
//
//	go test ./sim -run '^$' -bench Speed -count 5
//	go test ./sim -run '^$' -bench SpeedGroupMove -cpuprofile cpu.out
//	go tool pprof -tagfocus part=main -top cpu.out
//
// No timed assertions: the numbers are reported, not checked.

import (
	"context"
	"fmt"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"

	"github.com/rtnlsim/rtnlsim/script"
)

// speedLines joins n lines made by f.
func speedLines(n int, f func(i int) string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(f(i))
		b.WriteByte('\n')
	}
	return b.String()
}

// upIfbs is the setup of n UP ifb devices dN, with a /24 each when addr.
func upIfbs(n int, addr bool) string {
	s := speedLines(n, func(i int) string { return fmt.Sprintf("link add d%d type ifb", i) }) +
		speedLines(n, func(i int) string { return fmt.Sprintf("link set d%d up", i) })
	if addr {
		s += speedLines(n, func(i int) string { return fmt.Sprintf("addr add 10.%d.%d.1/24 dev d%d", i>>8, i&255, i) })
	}
	return s
}

// applySpeedScript parses src and applies it on t; every line must succeed.
func applySpeedScript(tb testing.TB, t *Target, src string) int {
	reqs, err := script.ParseString(src)
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	for _, r := range reqs {
		if err := t.Apply(ctx, r); err != nil {
			tb.Fatalf("line %d %q: %v", r.Line, r.Text, err)
		}
	}
	return len(reqs)
}

// benchSpeed runs setup untimed on a fresh target, then main timed, and
// reports ns per main-part request.
func benchSpeed(b *testing.B, setup, main string) {
	b.ReportAllocs()
	var reqs int
	for b.Loop() {
		b.StopTimer()
		t := New(Options{})
		applySpeedScript(b, t, setup)
		runtime.GC() // the setup's garbage is the setup's
		b.StartTimer()
		// The label lets a CPU profile keep the main part only
		// (go tool pprof -tagfocus part=main).
		pprof.Do(context.Background(), pprof.Labels("part", "main"), func(context.Context) {
			reqs = applySpeedScript(b, t, main)
		})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(reqs), "ns/request")
}

// BenchmarkSpeedRouteAddFlush is workload d: 100,000 routes added on one
// UP device (a /24 each, 10.0.0.0 up), then the main table flushed.
func BenchmarkSpeedRouteAddFlush(b *testing.B) {
	const n = 100_000
	main := speedLines(n, func(k int) string {
		return fmt.Sprintf("route add %d.%d.%d.0/24 dev i0", 10+k>>16, k>>8&255, k&255)
	}) + "route flush table main\n"
	benchSpeed(b, "link add i0 type ifb\nlink set i0 up\n", main)
}

// BenchmarkSpeedAddrDevDel is workload e: 2500 UP devices with a /24
// each, deleted one by one.
func BenchmarkSpeedAddrDevDel(b *testing.B) {
	const n = 2500
	benchSpeed(b, upIfbs(n, true), speedLines(n, func(i int) string { return fmt.Sprintf("link del d%d", i) }))
}

// BenchmarkSpeedGroupMove is workload f: 2000 UP devices moved to group 5
// one by one.
func BenchmarkSpeedGroupMove(b *testing.B) {
	const n = 2000
	benchSpeed(b, upIfbs(n, false), speedLines(n, func(i int) string { return fmt.Sprintf("link set d%d group 5", i) }))
}

// BenchmarkSpeedDevDel is workload g: 2000 UP devices deleted one by one.
func BenchmarkSpeedDevDel(b *testing.B) {
	const n = 2000
	benchSpeed(b, upIfbs(n, false), speedLines(n, func(i int) string { return fmt.Sprintf("link del d%d", i) }))
}
