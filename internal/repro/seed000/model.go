package seed000

// Seed 000 in virtual time: deleting N devices that are UP with an IPv6
// link-local address, one by one from T user threads, by one group request,
// and by one +bulk-ifindex list request.
//
// The seed (the v4 thread of "rtnetlink: Support fine-grained netdevice bulk
// deletion", December 2021) measured 10K such devices:
//
//	one by one, 1 thread   243 s
//	one by one, 10 threads  70 s
//	one by one, 50 threads  54 s
//	group deletion          30 s
//	list (the patch)        "the same as group deletion"
//
// The work of a request is built from the kernel's structure
// (net/core/rtnetlink.c rtnl_dellink, rtnl_group_dellink: one
// unregister_netdevice_many per request; net/core/dev.c
// unregister_netdevice_many_notify and netdev_run_todo); the parameters are
// fitted to the 1-thread and group rows only, with the rest fixed by the
// assumptions stated on FitOptions; the 10- and 50-thread rows are
// predictions.

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/sim"
)

// Devices are n devices UP with an IPv6 link-local address, ifindex
// 2..n+1 (1 is lo).
func Devices(n int) []sim.UnregDev {
	devs := make([]sim.UnregDev, n)
	for i := range devs {
		devs[i] = sim.UnregDev{Ifindex: int32(i + 2), Up: true, IPv6LLA: true}
	}
	return devs
}

// DevicesIPv6Walks are Devices whose batches also count
// their IPv6 walks and IPv6 notifications (IPv6Walks, lo down): the
// kernel walks the whole IPv6 FIB per device closed or unregistered
// (sim/ipv6cost.go), O(N^2) entries for a group of N. Devices
// leave them out (the seed 000 table and sweep columns predate them).
func DevicesIPv6Walks(n int) []sim.UnregDev {
	devs := Devices(n)
	for i := range devs {
		devs[i].IPv6Walks = true
	}
	return devs
}

// FitOptions are the assumptions that fix what the two fitted rows
// cannot.
type FitOptions struct {
	// Devices in the scenario (the seed: 10000).
	Devices int
	// OneThreadNs and GroupNs are the fitted figures (243 s, 30 s).
	OneThreadNs, GroupNs int64
	// ExpeditedOverBarrier is synchronize_rcu_expedited / rcu_barrier. The
	// two figures fix only the per-batch total (rcu_barrier plus the three
	// expedited grace periods) and the per-device total; this ratio splits
	// the per-batch total between the lock (expedited grace periods) and
	// outside it (rcu_barrier). Default 1/11: on a large system, CPU
	// hotplug that waits in synchronize_rcu() took about one hour and about
	// 5.5 minutes with rcu_expedited=1 (github.com/ibm-power-utilities/
	// powerpc-utils issue #119, 2026), a normal-over-expedited ratio of
	// about 11; an rcu_barrier waits for callbacks queued behind a normal
	// grace period, so it is taken as one normal grace period.
	ExpeditedOverBarrier float64
	// Steps is the kernel era (sim.UnregisterStepsV516).
	Steps sim.UnregisterSteps
}

// DefaultFit is the fit of the seed's figures with the assumptions
// above. The per-request overhead, notifier calls and notifications are 0:
// the figures cannot separate them from the rest of the per-device work,
// which cost.StepUnregisterDevice carries; synchronize_net outside RTNL does not
// occur in these requests.
var DefaultFit = FitOptions{
	Devices:              10000,
	OneThreadNs:          243e9,
	GroupNs:              30e9,
	ExpeditedOverBarrier: 1.0 / 11,
	Steps:                sim.UnregisterStepsV516(),
}

// Fit solves for rcu_barrier (with the expedited grace period at the
// stated ratio) and the per-device cost so that one thread deleting the
// devices one by one takes OneThreadNs and one group request GroupNs.
func Fit(o FitOptions) (cost.Params, error) {
	if o.Devices < 2 {
		return cost.Params{}, errors.New("fit seed 000: need at least 2 devices")
	}
	if o.ExpeditedOverBarrier < 0 {
		return cost.Params{}, errors.New("fit seed 000: negative ratio")
	}
	devs := Devices(o.Devices)
	one := sim.UnregisterRequestWork(o.Steps, devs[:1])
	all := sim.UnregisterRequestWork(o.Steps, devs)
	r := o.ExpeditedOverBarrier
	// time = a*B + d*D with E = r*B, the other steps at 0.
	coef := func(w cost.Work) (a, d float64) {
		a = float64(w.Count(cost.StepRCUBarrier)) + r*float64(w.Count(cost.StepSynchronizeNetExpedited))
		d = float64(w.Count(cost.StepUnregisterDevice))
		return
	}
	a1, d1 := coef(one)
	a1, d1 = a1*float64(o.Devices), d1*float64(o.Devices)
	ag, dg := coef(all)
	det := a1*dg - ag*d1
	if det == 0 {
		return cost.Params{}, errors.New("fit seed 000: the two rows do not separate the parameters")
	}
	t1, tg := float64(o.OneThreadNs), float64(o.GroupNs)
	b := (t1*dg - tg*d1) / det
	d := (a1*tg - ag*t1) / det
	if b < 0 || d < 0 {
		return cost.Params{}, fmt.Errorf("fit seed 000: negative solution (rcu_barrier %.0f ns, device %.0f ns)", b, d)
	}
	return cost.Params{
		RCUBarrierNs:              math.Round(b),
		SynchronizeNetExpeditedNs: math.Round(r * b),
		UnregisterDeviceNs:        math.Round(d),
	}, nil
}

// Row is one row of the seed 000 table.
type Row struct {
	Scenario string `json:"scenario"`
	Threads  int    `json:"threads"`
	Requests int    `json:"requests"`
	// SeedNs is the seed's figure.
	SeedNs int64 `json:"seed_ns"`
	// PredictedNs is the model's virtual time.
	PredictedNs int64 `json:"predicted_ns"`
	// ErrorPct is (predicted - seed) / seed in percent.
	ErrorPct float64 `json:"error_pct"`
	// Fitted: the row was used to fit the parameters (so its error only
	// shows the fit reproduces it).
	Fitted   bool          `json:"fitted"`
	Counters cost.Counters `json:"counters"`
	LockHeld int64         `json:"lock_held_ns"`
}

// ListAll is the seed's list request over devs: one +bulk-ifindex
// RTM_DELLINK naming every device, one unregister batch.
func ListAll(st sim.UnregisterSteps, devs []sim.UnregDev) ([][]cost.Work, error) {
	table := make(map[int32]sim.UnregDev, len(devs))
	ix := make([]int32, len(devs))
	for i, d := range devs {
		table[d.Ifindex] = d
		ix[i] = d.Ifindex
	}
	batch, err := sim.ListDeleteBatch(table, ix)
	if err != nil {
		return nil, err
	}
	return [][]cost.Work{{sim.UnregisterRequestWork(st, batch)}}, nil
}

// Rows runs the seed's scenarios on p: one by one from 1, 10 and 50
// threads, the group request, and the list request (+bulk-ifindex, which
// the patch says times the same as group).
func Rows(p cost.Params, o FitOptions) ([]Row, error) {
	devs := Devices(o.Devices)
	list, err := ListAll(o.Steps, devs)
	if err != nil {
		return nil, err
	}
	type sc struct {
		name    string
		threads int
		seed    int64
		fitted  bool
		in      [][]cost.Work
	}
	var scs []sc
	for _, c := range []struct {
		threads int
		seed    int64
		fitted  bool
	}{{1, o.OneThreadNs, true}, {10, 70e9, false}, {50, 54e9, false}} {
		scs = append(scs, sc{fmt.Sprintf("one by one, %d thread(s)", c.threads), c.threads, c.seed, c.fitted,
			sim.UnregisterOneByOne(o.Steps, devs, c.threads)})
	}
	scs = append(scs,
		sc{"group", 1, o.GroupNs, true, sim.UnregisterBatch(o.Steps, devs)},
		sc{"list (+bulk-ifindex; seed: same as group)", 1, o.GroupNs, false, list},
	)
	rows := make([]Row, 0, len(scs))
	for _, s := range scs {
		res, err := cost.Simulate(p, s.in)
		if err != nil {
			return nil, err
		}
		n := 0
		for _, t := range s.in {
			n += len(t)
		}
		rows = append(rows, Row{
			Scenario:    s.name,
			Threads:     s.threads,
			Requests:    n,
			SeedNs:      s.seed,
			PredictedNs: res.VirtualNs,
			ErrorPct:    100 * float64(res.VirtualNs-s.seed) / float64(s.seed),
			Fitted:      s.fitted,
			Counters:    res.Counters,
			LockHeld:    res.LockHeldNs,
		})
	}
	return rows, nil
}

// Table fits the default assumptions and returns the rows and the
// fitted parameters.
func Table() ([]Row, cost.Params, error) {
	p, err := Fit(DefaultFit)
	if err != nil {
		return nil, cost.Params{}, err
	}
	rows, err := Rows(p, DefaultFit)
	return rows, p, err
}

// FormatTable prints rows as a text table (seconds).
func FormatTable(rows []Row) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-44s %7s %9s %12s %8s %-9s %12s %12s\n",
		"scenario", "threads", "seed (s)", "model (s)", "error", "row", "rcu_barrier", "executed")
	for _, r := range rows {
		kind := "predicted"
		if r.Fitted {
			kind = "fitted"
		}
		fmt.Fprintf(&b, "%-44s %7d %9.1f %12.3f %+7.1f%% %-9s %12d %12d\n",
			r.Scenario, r.Threads, float64(r.SeedNs)/1e9, float64(r.PredictedNs)/1e9, r.ErrorPct, kind,
			r.Counters.RCUBarrier, r.Counters.RCUBarrierExecuted)
	}
	return b.String()
}
