package seed003

// Seed 003: "increase in time to delete an interface with 4.x kernels"
// (2015). 10K dummies, each up with 72.j.k.1/24; deleting one of them and
// deleting all of them one by one, on v3.19 and on 4.2-rc3, whose
// fib_table_flush pulled every surviving leaf's suffix (the regression;
// Alexander Duyck's fix drops those calls).
//
// The model's rows are Table (go test ./sim -run
// TestSeed003Table -v; about 30 s: 10K devices on the sim target, then
// every one of them deleted under the fixed FIB): the price of an
// update_suffix slot visit is fitted to the two one-device figures
// together (their difference over the model's extra visits), every other
// price is the seed-000 fit; the delete-all rows are predictions, rc3's
// extrapolated from its first deletions. The adds (tadd-dummy.sh) are not
// modelled: the script forks ip and ifconfig 30,000 times, and the
// seed-era prices price a bare request at 0.
//
// Kernel sizes: seed003Sizes (the keys of Options.KernelSizes and --size). This kernel has the fix.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rtnlsim/rtnlsim/internal/kmeasure"
	"github.com/rtnlsim/rtnlsim/internal/repro"
	"github.com/rtnlsim/rtnlsim/rtnl"
)

func init() {
	repro.Register(repro.Seed{
		ID:      "003",
		Source:  repro.Source{List: "netdev", Date: "2015-07-27", Subject: "increase in time to delete an interface with 4.x kernels", Author: "David Ahern; replies by Alexander Duyck"},
		Title:   "increase in time to delete an interface with 4.x kernels (2015)",
		Summary: "10K dummies with a /24 each: delete one 0.064 s (3.19) vs 0.441 s (4.2-rc3); delete all 7m18s vs killed after 14 min (fib_trie update_suffix); ~30 s",
		Rows:    seed003Rows,
		Sizes:   seed003Sizes,
	})
}

var seed003Sizes = []repro.Size{
	{Key: "003/delete-one", Default: 2000, What: "ifb devices, each up with a /24; one deleted"},
	{Key: "003/delete-all", Default: 300, What: "ifb devices, each up with a /24; all deleted one by one"},
}

// seed003Sample is how many rc3 deletions of all 10K are simulated before
// extrapolating (each takes about 0.5 s to simulate).
const seed003Sample = 10

// seed003Setup is n ifb devices, each with the seed's address and up.
func seed003Setup(n int) (string, error) {
	if n > 10000 {
		return "", fmt.Errorf("seed 003: at most 10,000 devices (the seed's address plan), not %d", n)
	}
	var b strings.Builder
	for l := 1; l <= n; l++ {
		fmt.Fprintf(&b, "link add dev dummy%d type ifb\naddr add %s dev dummy%d\nlink set dev dummy%d up\n", l, Addr(l), l, l)
	}
	return b.String(), nil
}

// seed003DeleteOne deletes device 2n/3 of n (the seed: dummy6666 of 10K).
func seed003DeleteOne(n int) (kmeasure.Scenario, error) {
	v := max(1, n*2/3)
	return seed003Scenario(n, fmt.Sprintf("delete dummy%d of %d", v, n), fmt.Sprintf("link del dev dummy%d\n", v))
}

// seed003DeleteAll deletes all n one by one, in order (tdel-dummy.sh).
func seed003DeleteAll(n int) (kmeasure.Scenario, error) {
	return seed003Scenario(n, fmt.Sprintf("delete all %d one by one", n), repro.Lines(n, "link del dev dummy%[1]d"))
}

// seed003Scenario is seed003Setup(n) followed by the timed script dels.
func seed003Scenario(n int, name, dels string) (kmeasure.Scenario, error) {
	src, err := seed003Setup(n)
	if err != nil {
		return kmeasure.Scenario{}, err
	}
	setup, err := repro.Parse(src)
	if err != nil {
		return kmeasure.Scenario{}, err
	}
	timed, err := repro.Parse(dels)
	if err != nil {
		return kmeasure.Scenario{}, err
	}
	return kmeasure.Scenario{Name: name, Setup: setup, Timed: [][]rtnl.Request{timed}}, nil
}

func seed003Fig(quote string, v float64) repro.Figure {
	return repro.Figure{Quote: quote, Value: v}
}

// seed003AddsText is the model cell of both tadd-dummy.sh rows.
const seed003AddsText = "the script forks ip and ifconfig 30,000 times (user space, process start-up); the model prices kernel work only, and the seed-era fits price a bare request at 0"

const (
	seed003GroupOne = "10K dummies with a /24 each: `ip link del dev dummy6666`"
	seed003GroupAll = "10K dummies: delete all one by one (tdel-dummy.sh)"
	seed003GroupAdd = "10K dummies: create, address, up (tadd-dummy.sh)"
)

type seed003Figure struct {
	group, scenario string
	fig             repro.Figure
}

// seed003Figures are the seed's figures in the table's row order.
func seed003Figures() []seed003Figure {
	return []seed003Figure{
		{seed003GroupOne, "v3.19", seed003Fig("real    0m0.064s", 0.064)},
		{seed003GroupOne, "4.2-rc3", seed003Fig("real\t0m0.441s", 0.441)},
		{seed003GroupAll, "v3.19: all 10K", seed003Fig("real    7m18.207s", 438.207)},
		{seed003GroupAll, "4.2-rc3: ~150 devices", seed003Fig("In 4.2.0-rc3 it seems to take about 60 seconds to delete 150 interfaces", 60)},
		{seed003GroupAll, "4.2-rc3: killed after 14m10s, 2178 deleted", seed003Fig("real\t14m10.000s", 850)},
		{seed003GroupAdd, "v3.19", seed003Fig("real    3m8.896s", 188.896)},
		{seed003GroupAdd, "4.2-rc3", seed003Fig("real\t2m51.044s", 171.044)},
	}
}

func seed003Rows(ctx context.Context, o repro.Options) (*repro.Table, error) {
	if o.FiguresOnly {
		t := &repro.Table{Profile: repro.SkippedText}
		for _, r := range seed003Figures() {
			t.Rows = append(t.Rows, repro.Row{Group: r.group, Scenario: r.scenario, Unit: "s", Seed: r.fig,
				Model: repro.Cell{Text: repro.SkippedText}, Role: repro.NotModelled})
		}
		return t, nil
	}
	o.Progressf("seed 003: 10K devices on the sim target, delete one under 4.2-rc3 and 4.2, delete all 10K, the first %d under rc3 (about 30 s) ...", seed003Sample)
	start := time.Now()
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(5 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				o.Progressf("  ... %.0f s", time.Since(start).Seconds())
			}
		}
	}()
	simRows, p, err := Table(seed003Sample)
	close(done)
	if err != nil {
		return nil, err
	}
	o.Progressf("seed 003: simulated in %.1f s", time.Since(start).Seconds())
	if len(simRows) != 4 {
		return nil, fmt.Errorf("Table has %d rows, want 4", len(simRows))
	}
	t := &repro.Table{Profile: fmt.Sprintf("update_suffix slot visit %.0f ns, fitted to the two one-device rows together (0.441 s - 0.064 s over the model's extra visits); "+
		"rcu_barrier %.2f ms, per-device unregister %.2f ms and the rest: the seed-000 fit. FIB of the row's profile, the rest of the model is 6.18's",
		p.TrieSuffixVisitNs, p.RCUBarrierNs/1e6, p.UnregisterDeviceNs/1e6)}
	figs := seed003Figures()
	sec := func(ns int64) *float64 { v := float64(ns) / 1e9; return &v }
	visits := func(r Row) string {
		return fmt.Sprintf("%s: %d deleted, %.3g update_suffix visits, %.3g flush leaf visits", r.Profile, r.Deleted,
			float64(r.UpdateSuffixVisits), float64(r.FlushLeafVisits))
	}
	rc3One, fixOne, fixAll, rc3Some := simRows[0], simRows[1], simRows[2], simRows[3]
	for i, want := range []string{"linux-4.2-rc3", "linux-4.2", "linux-4.2", "linux-4.2-rc3"} {
		if simRows[i].Profile != want {
			return nil, fmt.Errorf("Table row %d (%q) has profile %s, want %s", i, simRows[i].Scenario, simRows[i].Profile, want)
		}
	}
	perRc3 := float64(rc3Some.Ns) / float64(rc3Some.Deleted) / 1e9
	rc150 := perRc3 * 150
	rows := []repro.Row{
		{Group: figs[0].group, Scenario: figs[0].scenario, Unit: "s", Seed: figs[0].fig,
			Model: repro.Cell{Value: sec(fixOne.Ns)}, Role: repro.Fitted,
			Note: "model: the fixed FIB (linux-4.2) stands for v3.19; " + visits(fixOne) + ". The one-device rows fall short by the ~40 ms the seed's ip process and machine add to every delete"},
		{Group: figs[1].group, Scenario: figs[1].scenario, Unit: "s", Seed: figs[1].fig,
			Model: repro.Cell{Value: sec(rc3One.Ns)}, Role: repro.Fitted, Note: visits(rc3One)},
		{Group: figs[2].group, Scenario: figs[2].scenario, Unit: "s", Seed: figs[2].fig,
			Model: repro.Cell{Value: sec(fixAll.Ns)}, Role: repro.Predicted,
			Note: "model: linux-4.2 (the fix) for v3.19; " + visits(fixAll)},
		{Group: figs[3].group, Scenario: figs[3].scenario, Unit: "s",
			Seed:  figs[3].fig,
			Model: repro.Num(rc150), Role: repro.Extrapolated,
			Note: fmt.Sprintf("model: the mean of the first %d rc3 deletions of 10K (%.3f s each) x 150; the seed's figure is approximate", rc3Some.Deleted, perRc3)},
		{Group: figs[4].group, Scenario: figs[4].scenario, Unit: "s",
			Seed:  figs[4].fig,
			Model: repro.Num(perRc3 * 2178), Role: repro.Extrapolated,
			Note: fmt.Sprintf("2178 = 10000 - 7822 left; model: the mean of the first %d rc3 deletions x 2178 (Table extrapolates to 2.2K: %.1f s)",
				rc3Some.Deleted, float64(rc3Some.Ns)/1e9)},
		{Group: figs[5].group, Scenario: figs[5].scenario, Unit: "s", Seed: figs[5].fig,
			Model: repro.Cell{Text: seed003AddsText},
			Role:  repro.NotModelled},
		{Group: figs[6].group, Scenario: figs[6].scenario, Unit: "s", Seed: figs[6].fig,
			Model: repro.Cell{Text: seed003AddsText},
			Role:  repro.NotModelled},
	}
	for i := range rows {
		rows[i].SetError()
	}
	t.Rows = rows
	t.Notes = append(t.Notes,
		"rc3's FIB assumes 4.2-rc3 still had the 4.0-era update_suffix stopping rule (docs/model.md, \"The FIB trie\")",
		fmt.Sprintf("Table's own rc3 row compares its 2.2K extrapolation (%.1f s) with 840 s (14 min); here the row uses the measured 14m10s and the 2178 devices the seed counted", float64(rc3Some.Ns)/1e9))
	if o.Kernel {
		const eraName = "the seed-003 fit"
		fixedText := "this kernel has the fix; see the v3.19 row"
		one, err := repro.MeasureKernel(ctx, o, repro.KernelCase{Key: "003/delete-one", N: repro.SizeOf(seed003Sizes, "003/delete-one"),
			Size:     func(n int) string { return fmt.Sprintf("one of N=%d ifb, /24 each, up", n) },
			Scenario: seed003DeleteOne}, p, eraName)
		if err != nil {
			return nil, err
		}
		t.Rows[0].Kernel = one
		t.Rows[1].Kernel = &repro.Kernel{Size: "-", Text: fixedText}
		all, err := repro.MeasureKernel(ctx, o, repro.KernelCase{Key: "003/delete-all", N: repro.SizeOf(seed003Sizes, "003/delete-all"),
			Size:     func(n int) string { return fmt.Sprintf("all N=%d ifb one by one", n) },
			Scenario: seed003DeleteAll}, p, eraName)
		if err != nil {
			return nil, err
		}
		t.Rows[2].Kernel = all
		t.Rows[3].Kernel = &repro.Kernel{Size: "-", Text: fixedText}
		t.Rows[4].Kernel = &repro.Kernel{Size: "-", Text: fixedText}
	}
	return t, nil
}
