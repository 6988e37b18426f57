package sim

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
// assumptions stated on Seed000FitOptions; the 10- and 50-thread rows are
// predictions.

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"syscall"

	"github.com/rtnlsim/rtnlsim/cost"
)

// UnregDev is one device in an unregister batch, with what changes the work
// done for it.
type UnregDev struct {
	Ifindex int32
	// Up: dev_close_many closes it (NETDEV_GOING_DOWN, NETDEV_DOWN,
	// RTM_NEWLINK without IFF_UP).
	Up bool
	// IPv6LLA: it holds an IPv6 link-local address, removed with an
	// RTM_DELADDR when it goes down (addrconf_ifdown).
	IPv6LLA bool
	// Peer is the ifindex of a device its dellink queues with it (a veth's
	// other end), 0 for none.
	Peer int32
	// NoQueue: an UP device whose qdisc has no enqueue (noqueue: veth,
	// bridge, macvlan, vxlan), which dev_deactivate_many does not wait for
	// (see DeactivateSyncNeedsQueue). The zero value is a device with a
	// queue (ifb's pfifo_fast, the seed's devices).
	NoQueue bool
	// IPv6Walks asks UnregisterRequestWork to count the IPv6 walks and
	// notifications of the batch itself (BatchIPv6Work), from the devices'
	// IPv6LLA and IPv6Rest: for the seed 000 builders, which have no
	// namespace. The sim target leaves it false: its IPv6 estimate counts
	// them as the requests run (sim/ipv6cost.go).
	IPv6Walks bool
	// IPv6Rest is how many devices outside the batch hold a link-local
	// address when it runs (their IPv6 state is walked too).
	IPv6Rest int32
}

// UnregisterSteps is what one kernel era does per unregister batch beyond
// the steps every era shares. The shared steps, from
// unregister_netdevice_many_notify and netdev_run_todo in net/core/dev.c:
//
//	under RTNL, per batch: dev_close_many over the devices that are UP;
//	  synchronize_net twice (after unlisting, after the per-device loop),
//	  expedited because RTNL is held;
//	under RTNL, per device: NETDEV_GOING_DOWN and NETDEV_DOWN (if UP),
//	  RTM_NEWLINK (if UP), NETDEV_UNREGISTER, RTM_DELLINK, and the rest of
//	  the teardown (cost.StepUnregisterDevice);
//	after __rtnl_unlock: rcu_barrier once when the todo list is not empty,
//	  then netdev_wait_allrefs_any, which returns at once when the device's
//	  last reference is the todo list's (not charged).
type UnregisterSteps struct {
	// DeactivateSync: dev_close_many -> dev_deactivate_many calls
	// synchronize_net (expedited, under RTNL) once per batch. The
	// sch_generic.c versions seen while building this model differ: old
	// ones skip it when every device is being dismantled (sync_needed from
	// dev->dismantle), later ones call it unconditionally, and a recent
	// patch makes it depend on the queues again. The seed's kernel (late
	// 2021) is taken to be in the unconditional range; that was not checked
	// against the 5.16 source itself.
	DeactivateSync bool
	// DeactivateSyncOnlyIfUp restricts DeactivateSync to batches with a
	// device that was UP (the newer sync_needed rule depends on the
	// qdiscs; the model approximates it by "some device was UP").
	DeactivateSyncOnlyIfUp bool
	// DeactivateSyncNeedsQueue restricts DeactivateSync further to
	// batches that close a device whose qdisc has an enqueue: 6.17's
	// dev_deactivate_many sets sync_needed from qdisc->enqueue of each tx
	// queue's qdisc (net/sched/sch_generic.c), so closing only noqueue
	// devices (veth, bridge) does not wait.
	DeactivateSyncNeedsQueue bool
	// PreUninit: NETDEV_PRE_UNINIT is called per device (newer kernels).
	PreUninit bool
}

var (
	// UnregisterStepsSeed000 is the seed's era (net-next, December 2021).
	UnregisterStepsSeed000 = UnregisterSteps{DeactivateSync: true}
	// UnregisterStepsV618 is the kernel of this machine: 6.17's
	// unregister_netdevice_many_notify read (two netif_close_many passes,
	// the first over ops-locked devices, empty for the kinds modelled;
	// flush_all_backlogs; synchronize_net after unlisting and after the
	// per-device loop), dev_deactivate_many's wait only for devices with
	// a queue, NETDEV_PRE_UNINIT per device; netdev_run_todo's
	// rcu_barrier after __rtnl_unlock.
	UnregisterStepsV618 = UnregisterSteps{DeactivateSync: true, DeactivateSyncOnlyIfUp: true,
		DeactivateSyncNeedsQueue: true, PreUninit: true}
)

// UnregisterRequestWork is the work of one RTM_DELLINK request whose
// dellink calls queue devs into one unregister_netdevice_many batch. Each
// device must appear once (ListDeleteBatch makes such a list). An empty
// batch is a request that unregisters nothing: no synchronize_net, and no
// rcu_barrier since the todo list is empty.
func UnregisterRequestWork(st UnregisterSteps, devs []UnregDev) cost.Work {
	n := int64(len(devs))
	if n == 0 {
		return cost.Work{Locked: []cost.StepN{{Step: cost.StepRequest, N: 1}}}
	}
	w := cost.Work{Locked: make([]cost.StepN, 0, 10), Unlocked: make([]cost.StepN, 0, 1)}
	w.AddLocked(cost.StepRequest, 1)
	var up, lla, queued int64
	for _, d := range devs {
		if d.Up {
			up++
			if d.IPv6LLA {
				lla++
			}
			if !d.NoQueue {
				queued++
			}
		}
	}
	// dev_close_many: NETDEV_GOING_DOWN for each, dev_deactivate_many,
	// then per device RTM_NEWLINK and NETDEV_DOWN; IPv6's NETDEV_DOWN
	// handler removes the link-local address with an RTM_DELADDR.
	w.AddLocked(cost.StepNotifierCall, up)
	if st.DeactivateSync && (up > 0 || !st.DeactivateSyncOnlyIfUp) &&
		(queued > 0 || !st.DeactivateSyncNeedsQueue) {
		w.AddLocked(cost.StepSynchronizeNetExpedited, 1)
	}
	w.AddLocked(cost.StepNotification, up+lla)
	w.AddLocked(cost.StepNotifierCall, up)
	// unlist, flush_all_backlogs, synchronize_net.
	w.AddLocked(cost.StepSynchronizeNetExpedited, 1)
	// Per device: dev_shutdown ... NETDEV_UNREGISTER, RTM_DELLINK,
	// (NETDEV_PRE_UNINIT), kobject removal.
	w.AddLocked(cost.StepUnregisterDevice, n)
	w.AddLocked(cost.StepNotifierCall, n)
	if st.PreUninit {
		w.AddLocked(cost.StepNotifierCall, n)
	}
	w.AddLocked(cost.StepNotification, n)
	// synchronize_net before the devices go on the todo list.
	w.AddLocked(cost.StepSynchronizeNetExpedited, 1)
	if devs[0].IPv6Walks {
		var rest int32
		for _, d := range devs {
			rest = max(rest, d.IPv6Rest)
		}
		walk, far, cold, notes := BatchIPv6Work(devs, int(rest))
		w.AddLocked(cost.StepIPv6Walk, walk)
		w.AddLocked(cost.StepIPv6WalkFar, far)
		w.AddLocked(cost.StepIPv6WalkCold, cold)
		w.AddLocked(cost.StepNotification, notes)
	}
	// netdev_run_todo after __rtnl_unlock.
	w.AddUnlocked(cost.StepRCUBarrier, 1)
	return w
}

// ListDeleteBatch is the batch of one +bulk-ifindex request: the devices
// named by ifindexes, each once however often it is named, plus the peer of
// each (a veth's dellink queues both ends), each once. One unknown ifindex
// fails the whole request with ENODEV and unregisters nothing.
func ListDeleteBatch(devs map[int32]UnregDev, ifindexes []int32) ([]UnregDev, error) {
	var out []UnregDev
	seen := make(map[int32]bool, len(ifindexes))
	add := func(ix int32) {
		if !seen[ix] {
			seen[ix] = true
			out = append(out, devs[ix])
		}
	}
	for _, ix := range ifindexes {
		d, ok := devs[ix]
		if !ok {
			return nil, fmt.Errorf("ifindex %d: %w", ix, syscall.ENODEV)
		}
		if d.Peer != 0 {
			if _, ok := devs[d.Peer]; !ok {
				return nil, fmt.Errorf("ifindex %d: peer %d unknown", ix, d.Peer)
			}
		}
	}
	for _, ix := range ifindexes {
		add(ix)
		if p := devs[ix].Peer; p != 0 {
			add(p)
		}
	}
	return out, nil
}

// Seed000Devices are n devices UP with an IPv6 link-local address, ifindex
// 2..n+1 (1 is lo).
func Seed000Devices(n int) []UnregDev {
	devs := make([]UnregDev, n)
	for i := range devs {
		devs[i] = UnregDev{Ifindex: int32(i + 2), Up: true, IPv6LLA: true}
	}
	return devs
}

// Seed000DevicesIPv6Walks are Seed000Devices whose batches also count
// their IPv6 walks and IPv6 notifications (IPv6Walks, lo down): the
// kernel walks the whole IPv6 FIB per device closed or unregistered
// (sim/ipv6cost.go), O(N^2) entries for a group of N. Seed000Devices
// leave them out (the seed 000 table and sweep columns predate them).
func Seed000DevicesIPv6Walks(n int) []UnregDev {
	devs := Seed000Devices(n)
	for i := range devs {
		devs[i].IPv6Walks = true
	}
	return devs
}

// Seed000OneByOne deletes devs one request each, the requests split over
// threads in order: thread t issues a contiguous run of them (the first
// len(devs)%threads threads one more).
func Seed000OneByOne(st UnregisterSteps, devs []UnregDev, threads int) [][]cost.Work {
	reqs := make([]cost.Work, len(devs))
	// The devices after the i-th are still there when it goes (in any
	// thread split the requests run in about this order).
	var after int32
	for i := len(devs) - 1; i >= 0; i-- {
		d := devs[i]
		if d.IPv6Walks {
			d.IPv6Rest = after
		}
		reqs[i] = UnregisterRequestWork(st, []UnregDev{d})
		if d.Up && d.IPv6LLA {
			after++
		}
	}
	return cost.SplitInOrder(reqs, threads)
}

// Seed000Batch deletes devs in one request (group or list: both are one
// unregister_netdevice_many over the same devices).
func Seed000Batch(st UnregisterSteps, devs []UnregDev) [][]cost.Work {
	return [][]cost.Work{{UnregisterRequestWork(st, devs)}}
}

// Seed000FitOptions are the assumptions that fix what the two fitted rows
// cannot.
type Seed000FitOptions struct {
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
	// Steps is the kernel era (UnregisterStepsSeed000).
	Steps UnregisterSteps
}

// Seed000DefaultFit is the fit of the seed's figures with the assumptions
// above. The per-request overhead, notifier calls and notifications are 0:
// the figures cannot separate them from the rest of the per-device work,
// which cost.StepUnregisterDevice carries; synchronize_net outside RTNL does not
// occur in these requests.
var Seed000DefaultFit = Seed000FitOptions{
	Devices:              10000,
	OneThreadNs:          243e9,
	GroupNs:              30e9,
	ExpeditedOverBarrier: 1.0 / 11,
	Steps:                UnregisterStepsSeed000,
}

// FitSeed000 solves for rcu_barrier (with the expedited grace period at the
// stated ratio) and the per-device cost so that one thread deleting the
// devices one by one takes OneThreadNs and one group request GroupNs.
func FitSeed000(o Seed000FitOptions) (cost.Params, error) {
	if o.Devices < 2 {
		return cost.Params{}, errors.New("fit seed 000: need at least 2 devices")
	}
	if o.ExpeditedOverBarrier < 0 {
		return cost.Params{}, errors.New("fit seed 000: negative ratio")
	}
	devs := Seed000Devices(o.Devices)
	one := UnregisterRequestWork(o.Steps, devs[:1])
	all := UnregisterRequestWork(o.Steps, devs)
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
		RCUBarrierNs:              int64(math.Round(b)),
		SynchronizeNetExpeditedNs: int64(math.Round(r * b)),
		UnregisterDeviceNs:        int64(math.Round(d)),
	}, nil
}

// Seed000Row is one row of the seed 000 table.
type Seed000Row struct {
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

// Seed000Rows runs the seed's scenarios on p: one by one from 1, 10 and 50
// threads, the group request, and the list request (+bulk-ifindex, which
// the patch says times the same as group).
func Seed000Rows(p cost.Params, o Seed000FitOptions) ([]Seed000Row, error) {
	devs := Seed000Devices(o.Devices)
	ix := make([]int32, len(devs))
	table := make(map[int32]UnregDev, len(devs))
	for i, d := range devs {
		ix[i] = d.Ifindex
		table[d.Ifindex] = d
	}
	listBatch, err := ListDeleteBatch(table, ix)
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
			Seed000OneByOne(o.Steps, devs, c.threads)})
	}
	scs = append(scs,
		sc{"group", 1, o.GroupNs, true, Seed000Batch(o.Steps, devs)},
		sc{"list (+bulk-ifindex; seed: same as group)", 1, o.GroupNs, false, [][]cost.Work{{UnregisterRequestWork(o.Steps, listBatch)}}},
	)
	rows := make([]Seed000Row, 0, len(scs))
	for _, s := range scs {
		res, err := cost.Simulate(p, s.in)
		if err != nil {
			return nil, err
		}
		n := 0
		for _, t := range s.in {
			n += len(t)
		}
		rows = append(rows, Seed000Row{
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

// Seed000Table fits the default assumptions and returns the rows and the
// fitted parameters.
func Seed000Table() ([]Seed000Row, cost.Params, error) {
	p, err := FitSeed000(Seed000DefaultFit)
	if err != nil {
		return nil, cost.Params{}, err
	}
	rows, err := Seed000Rows(p, Seed000DefaultFit)
	return rows, p, err
}

// FormatSeed000Table prints rows as a text table (seconds).
func FormatSeed000Table(rows []Seed000Row) string {
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
