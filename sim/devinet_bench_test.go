package sim

import (
	"context"
	"fmt"
	"runtime/pprof"
	"strings"
	"testing"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
)

// slash8Lines adds n addresses of one /8 to i0 (10.0.0.1, 10.0.0.2, ...,
// skipping last octets of 0), with promote_secondaries as given.
func slash8Lines(n int, promote bool) []string {
	p := 0
	if promote {
		p = 1
	}
	l := []string{"sysctl net.ipv6.conf.all.disable_ipv6=1", "sysctl net.ipv6.conf.default.disable_ipv6=1",
		"link add i0 type ifb", fmt.Sprintf("sysctl net.ipv4.conf.i0.promote_secondaries=%d", p), "link set i0 up"}
	for i := range n {
		v := i/255*256 + i%255 + 1
		l = append(l, fmt.Sprintf("addr add 10.%d.%d.%d/8 dev i0", v>>16&255, v>>8&255, v&255))
	}
	return l
}

// benchMain runs setup untimed and main timed, b.N times, on fresh
// targets; literal selects the literal walks.
func benchMain(b *testing.B, setup, main []string, literal bool) {
	parse := func(l []string) []rtnl.Request {
		r, err := script.ParseString(strings.Join(l, "\n") + "\n")
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
	sr, mr := parse(setup), parse(main)
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		tg := New(Options{})
		if literal {
			tg.Netns().setLiteralWalks()
		}
		for _, r := range sr {
			if err := tg.Apply(ctx, r); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		// The label lets a CPU profile keep the main part only
		// (go tool pprof -tagfocus part=main).
		pprof.Do(ctx, pprof.Labels("part", "main"), func(ctx context.Context) {
			for _, r := range mr {
				if err := tg.Apply(ctx, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPromoteFlush is seed 001's promoting flush of N addresses in
// one /8, counted and literal walks.
func BenchmarkPromoteFlush(b *testing.B) {
	for _, n := range []int{500, 1000, 2000, 4000} {
		for _, literal := range []bool{false, true} {
			if literal && n > 2000 {
				continue
			}
			b.Run(fmt.Sprintf("N=%d/literal=%v", n, literal), func(b *testing.B) {
				benchMain(b, slash8Lines(n, true), []string{"addr flush dev i0"}, literal)
			})
		}
	}
}

// BenchmarkDelPrimary deletes the primary among N addresses of one /8,
// promote_secondaries=1.
func BenchmarkDelPrimary(b *testing.B) {
	for _, n := range []int{4000, 16000} {
		for _, literal := range []bool{false, true} {
			b.Run(fmt.Sprintf("N=%d/literal=%v", n, literal), func(b *testing.B) {
				benchMain(b, slash8Lines(n, true), []string{"addr del 10.0.0.1/8 dev i0"}, literal)
			})
		}
	}
}
