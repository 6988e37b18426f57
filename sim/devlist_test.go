package sim

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// BenchmarkDeleteOneByOne registers 100,000 dummy devices (not timed),
// then deletes them one request each, oldest first (the seed 000
// scenario's order), newest first, or in a random order; ns/deletion is
// one `link del` through Apply, the device list's removal included.
//
//	go test ./sim -run '^$' -bench 'DeleteOneByOne|Register1M' -count 3
func BenchmarkDeleteOneByOne(b *testing.B) {
	const n = 100_000
	orders := []struct {
		name  string
		order func() []int
	}{
		{"oldest", func() []int {
			o := make([]int, n)
			for i := range o {
				o[i] = i
			}
			return o
		}},
		{"newest", func() []int {
			o := make([]int, n)
			for i := range o {
				o[i] = n - 1 - i
			}
			return o
		}},
		{"random", func() []int { return rand.New(rand.NewPCG(1, 2)).Perm(n) }},
	}
	ctx := context.Background()
	for _, o := range orders {
		b.Run(o.name, func(b *testing.B) {
			order := o.order()
			for b.Loop() {
				b.StopTimer()
				tg, _ := registerDevices(b, n)
				b.StartTimer()
				for _, i := range order {
					req := rtnl.Request{Op: rtnl.LinkDel{Dev: "d" + strconv.Itoa(i)}}
					if err := tg.Apply(ctx, req); err != nil {
						b.Fatalf("deleting d%d: %v", i, err)
					}
				}
				b.StopTimer()
				if got := tg.Netns().index.Len(); got != 1 {
					b.Fatalf("%d devices listed after the deletions, want 1", got)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/deletion")
		})
	}
}
