package sim

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
)

// checkDevList checks the device list against the index: the same
// devices, in registration order (ascending seq) forward and backward.
func checkDevList(t *testing.T, n *Netns, what string) {
	t.Helper()
	want := n.Devices()
	slices.SortFunc(want, func(a, b *Device) int { return cmp.Compare(a.seq, b.seq) })
	require.Equal(t, want, n.devSnapshot(), "after %s", what)
	var fwd, rev []*Device
	for d := range n.listed() {
		fwd = append(fwd, d)
	}
	for d := range n.listedReverse() {
		rev = append(rev, d)
	}
	slices.Reverse(rev)
	require.Equal(t, want, fwd, "after %s", what)
	require.Equal(t, want, rev, "after %s", what)
	require.Equal(t, n.index.Len(), n.devs.Len(), "after %s", what)
}

// TestDevListFollowsRegistration runs random link requests (adds of
// dummies, veth pairs and bridges in a few groups, ports, deletes by name
// and by group, group changelinks) and checks after each that the device
// list holds the registered devices in registration order; then the
// namespace exits and the list is empty.
func TestDevListFollowsRegistration(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	tg := New(Options{Seed: 3})
	defer tg.Close()
	n := tg.Netns()
	ctx := context.Background()
	for range 3000 {
		g := rng.IntN(4)
		var line string
		switch r := rng.IntN(10); {
		case r < 3:
			line = fmt.Sprintf("link add d%d group %d type dummy", rng.IntN(200), g)
		case r < 4:
			k := rng.IntN(100)
			line = fmt.Sprintf("link add v%d group %d type veth peer name p%d", k, g, k)
		case r < 5:
			line = fmt.Sprintf("link add br%d group %d type bridge", rng.IntN(5), g)
		case r < 6:
			line = fmt.Sprintf("link set d%d master br%d", rng.IntN(200), rng.IntN(5))
		case r < 8:
			names := []string{"d", "v", "p", "br"}
			line = fmt.Sprintf("link del %s%d", names[rng.IntN(4)], rng.IntN(200))
		case r < 9:
			line = fmt.Sprintf("link del group %d", 1+rng.IntN(3))
		default:
			line = fmt.Sprintf("link set group %d up", g)
		}
		reqs, err := script.ParseString(line + "\n")
		require.NoError(t, err, line)
		_ = tg.Apply(ctx, reqs[0]) // refusals (no such device, EEXIST) are fine
		checkDevList(t, n, line)
	}
	require.NoError(t, tg.ExitNetns())
	require.Zero(t, n.devs.Len())
}

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
