package seed003

// Seed 003 end to end on the sim target: N dummy devices, each with one
// address 72.j.k.1/24 and up (the seed's tadd-dummy.sh), then one device
// deleted (dummy6666 of 10K in the seed), then every device deleted one by
// one (tdel-dummy.sh), under a FIB profile: linux-4.2-rc3 (fib_table_flush
// pulls every surviving leaf's suffix), linux-4.2 (the fix) or
// linux-6.18. Deleting a device unregisters it (rcu_barrier and the
// rest, as seed 000 prices them), destroys its in_device (RTM_DELADDR,
// fib_del_ifaddr) and flushes the FIB twice (the last address's
// fib_disable_ip and NETDEV_UNREGISTER's).

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/fibtrie"
	"github.com/rtnlsim/rtnlsim/internal/repro"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/sim"
)

// Addr is device l's address (1-based), as the seed's script
// numbers them: 72.j.k.1/24 with j = 1..40, k = 1..250.
func Addr(l int) string {
	j, k := (l-1)/250+1, (l-1)%250+1
	return fmt.Sprintf("72.%d.%d.1/24", j, k)
}

// Setup is the seed's tadd-dummy.sh for n devices.
func Setup(n int) []rtnl.Request {
	var b strings.Builder
	for l := 1; l <= n; l++ {
		fmt.Fprintf(&b, "link add dev dummy%d type dummy\naddr add %s dev dummy%d\nlink set dummy%d up\n", l, Addr(l), l, l)
	}
	return repro.MustParse(b.String())
}

// Work is the work of deleting devices in the scenario.
type Work struct {
	Profile            string `json:"profile"`
	Devices            int    `json:"devices"` // configured
	Deleted            int    `json:"deleted"` // deleted, one request each
	FibOps             int64  `json:"fib_ops"`
	FlushLeafVisits    int64  `json:"flush_leaf_visits"`
	UpdateSuffixVisits int64  `json:"update_suffix_visits"`
	Notifications      int64  `json:"notifications"`
	RCUBarriers        int64  `json:"rcu_barriers"`
	// Ns is the virtual time of the deletions under the params given.
	Ns int64 `json:"ns"`
	// Work is each deletion's cost work.
	Work []cost.Work `json:"-"`
}

// Run sets up n devices under the FIB options, then deletes the
// devices named by victims (1-based) one request each, and returns the
// work of those deletions priced with p.
func Run(n int, profile string, fib fibtrie.Options, victims []int, p cost.Params) (Work, error) {
	t := sim.New(sim.Options{FIB: fib})
	defer t.Close()
	ctx := context.Background()
	for _, r := range Setup(n) {
		if err := t.Apply(ctx, r); err != nil {
			return Work{}, fmt.Errorf("seed 003 setup: line %d %q: %w", r.Line, r.Text, err)
		}
	}
	first := len(t.Work())
	for _, v := range victims {
		name := fmt.Sprintf("dummy%d", v)
		if err := t.Apply(ctx, rtnl.Request{Text: "link del " + name, Op: rtnl.LinkDel{Dev: name}}); err != nil {
			return Work{}, fmt.Errorf("seed 003: link del %s: %w", name, err)
		}
	}
	out := Work{Profile: profile, Devices: n, Deleted: len(victims), Work: t.Work()[first:]}
	for _, w := range out.Work {
		out.FibOps += w.Count(cost.StepFibOp)
		out.FlushLeafVisits += w.Count(cost.StepFibFlushLeaf)
		out.UpdateSuffixVisits += w.Count(cost.StepTrieSuffixVisit)
		out.Notifications += w.Count(cost.StepNotification)
		out.RCUBarriers += w.Count(cost.StepRCUBarrier)
	}
	res, err := cost.Simulate(p, [][]cost.Work{out.Work})
	if err != nil {
		return out, err
	}
	out.Ns = res.VirtualNs
	return out, nil
}

// The seed's figures (David Ahern, July 2015; 10K dummies, each with a
// /24). "Before" is v3.19; the model's linux-4.2 (the fix) stands for it.
const (
	DeleteOneRc3Ns    = 441_000_000     // ip link del dev dummy6666, 4.2-rc3
	DeleteOneBeforeNs = 64_000_000      // the same on v3.19
	DeleteAllBeforeNs = 438_207_000_000 // tdel-dummy.sh on v3.19: 7m18.207s
	KilledAfterNs     = 840_000_000_000 // 4.2-rc3: killed after 14 min ...
	KilledDone        = 2200            // ... with about 2.2K devices deleted
	seed003Devices    = 10000
	seed003Victim     = 6666
)

// Fit prices update_suffix's slot visits from the seed's two
// one-device deletions: the time rc3 adds over the fixed kernel, divided
// by the visits it adds in the model. Everything else is base's.
func Fit(base cost.Params) (cost.Params, Work, Work, error) {
	rc3, err := Run(seed003Devices, "linux-4.2-rc3", fibtrie.Linux42rc3(), []int{seed003Victim}, base)
	if err != nil {
		return base, rc3, rc3, err
	}
	fixed, err := Run(seed003Devices, "linux-4.2", fibtrie.Linux42(), []int{seed003Victim}, base)
	if err != nil {
		return base, rc3, fixed, err
	}
	dv := rc3.UpdateSuffixVisits - fixed.UpdateSuffixVisits
	if dv <= 0 {
		return base, rc3, fixed, errors.New("fit seed 003: rc3 makes no more update_suffix visits than the fix")
	}
	p := base
	p.TrieSuffixVisitNs = math.Round(float64(DeleteOneRc3Ns-DeleteOneBeforeNs) / float64(dv))
	return p, rc3, fixed, nil
}

// Row is one line of the seed 003 table on the sim target.
type Row struct {
	Scenario string `json:"scenario"`
	Profile  string `json:"profile"`
	Work
	// SeedNs is the seed's figure for the row, 0 when it has none.
	SeedNs int64 `json:"seed_ns"`
	// How says how the model's figure was made when it is not a plain
	// run (an extrapolation).
	How string `json:"how,omitempty"`
}

// Table runs the seed's scenario: deleting dummy6666 of 10K under
// 4.2-rc3 and under the fix (the fit's two rows: their times are the
// seed's by construction), then deleting all 10K one by one under the fix
// (a prediction), and the first 2.2K of them under rc3 (a prediction,
// extrapolated from the first `sample` deletions because simulating
// every rc3 flush of 10K devices takes minutes).
func Table(sample int) ([]Row, cost.Params, error) {
	base, err := sim.DefaultPrices(), error(nil)
	if err != nil {
		return nil, base, err
	}
	p, rc3, fixed, err := Fit(base)
	if err != nil {
		return nil, p, err
	}
	rc3.Ns = mustSimulate(p, rc3.Work)
	fixed.Ns = mustSimulate(p, fixed.Work)
	rows := []Row{
		{Scenario: "delete dummy6666 of 10K (fitted)", Profile: "linux-4.2-rc3", Work: rc3, SeedNs: DeleteOneRc3Ns},
		{Scenario: "delete dummy6666 of 10K (fitted)", Profile: "linux-4.2", Work: fixed, SeedNs: DeleteOneBeforeNs, How: "seed: v3.19"},
	}
	all := make([]int, seed003Devices)
	for i := range all {
		all[i] = i + 1
	}
	fixedAll, err := Run(seed003Devices, "linux-4.2", fibtrie.Linux42(), all, p)
	if err != nil {
		return nil, p, err
	}
	rows = append(rows, Row{Scenario: "delete all 10K one by one", Profile: "linux-4.2", Work: fixedAll,
		SeedNs: DeleteAllBeforeNs, How: "seed: v3.19"})
	rc3Some, err := Run(seed003Devices, "linux-4.2-rc3", fibtrie.Linux42rc3(), all[:sample], p)
	if err != nil {
		return nil, p, err
	}
	scale := float64(KilledDone) / float64(sample)
	ext := rc3Some
	ext.Deleted = KilledDone
	ext.FibOps = int64(float64(ext.FibOps) * scale)
	ext.FlushLeafVisits = int64(float64(ext.FlushLeafVisits) * scale)
	ext.UpdateSuffixVisits = int64(float64(ext.UpdateSuffixVisits) * scale)
	ext.Notifications = int64(float64(ext.Notifications) * scale)
	ext.RCUBarriers = int64(float64(ext.RCUBarriers) * scale)
	ext.Ns = int64(float64(rc3Some.Ns) * scale)
	ext.Work = nil
	rows = append(rows, Row{Scenario: "delete the first 2.2K of 10K", Profile: "linux-4.2-rc3", Work: ext,
		SeedNs: KilledAfterNs, How: fmt.Sprintf("model: first %d deletions x %.0f; seed: killed after 14 min with ~2.2K done", sample, scale)})
	return rows, p, nil
}

func mustSimulate(p cost.Params, work []cost.Work) int64 {
	res, err := cost.Simulate(p, [][]cost.Work{work})
	if err != nil {
		panic(err)
	}
	return res.VirtualNs
}

// FormatTable prints the rows with the model's time beside the
// seed's.
func FormatTable(rows []Row, p cost.Params) string {
	var b strings.Builder
	fmt.Fprintf(&b, "update_suffix slot visit priced at %.0f ns (fitted); rcu_barrier %.0f ns, device %.0f ns (seed 000 fit)\n",
		p.TrieSuffixVisitNs, p.RCUBarrierNs, p.UnregisterDeviceNs)
	fmt.Fprintf(&b, "%-34s %-14s %8s %16s %14s %10s %11s %11s  %s\n", "scenario", "profile", "deleted",
		"us_visits", "leaf_visits", "fib_ops", "model", "seed", "note")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-34s %-14s %8d %16d %14d %10d %10.3fs %10.3fs  %s\n", r.Scenario, r.Profile, r.Deleted,
			r.UpdateSuffixVisits, r.FlushLeafVisits, r.FibOps, float64(r.Ns)/1e9, float64(r.SeedNs)/1e9, r.How)
	}
	return b.String()
}
