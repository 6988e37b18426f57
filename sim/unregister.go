package sim

// The work of unregistering devices, as net/core/rtnetlink.c (rtnl_dellink,
// rtnl_group_dellink: one unregister_netdevice_many per request) and
// net/core/dev.c (unregister_netdevice_many_notify, netdev_run_todo) do it:
// per batch the expedited grace periods under rtnl_lock and one
// rcu_barrier after it, per device the close and teardown steps.

import (
	"fmt"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/uapi"
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
	// notifications of the batch itself (batchIPv6Work), from the devices'
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

// UnregisterStepsV516 is the era of net-next in December 2021 (the 5.16
// cycle), when the bulk-deletion thread measured its figures.
func UnregisterStepsV516() UnregisterSteps { return UnregisterSteps{DeactivateSync: true} }

// UnregisterStepsV618 is the kernel of this machine: 6.17's
// unregister_netdevice_many_notify read (two netif_close_many passes, the
// first over ops-locked devices, empty for the kinds modelled;
// flush_all_backlogs; synchronize_net after unlisting and after the
// per-device loop), dev_deactivate_many's wait only for devices with a
// queue, NETDEV_PRE_UNINIT per device; netdev_run_todo's rcu_barrier after
// __rtnl_unlock. The differential suites hold its notifications to this
// machine's 6.18; its grace periods are read from the source, not observed.
func UnregisterStepsV618() UnregisterSteps {
	return UnregisterSteps{DeactivateSync: true, DeactivateSyncOnlyIfUp: true,
		DeactivateSyncNeedsQueue: true, PreUninit: true}
}

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
		walk, far, cold, notes := batchIPv6Work(devs, int(rest))
		w.AddLocked(cost.StepIPv6Walk, walk)
		w.AddLocked(cost.StepIPv6WalkFar, far)
		w.AddLocked(cost.StepIPv6WalkCold, cold)
		w.AddLocked(cost.StepNotification, notes)
	}
	// netdev_run_todo after __rtnl_unlock; its barrier waits longer when
	// the batch closed an UP device (cost.StepRCUBarrierUp).
	w.AddUnlocked(cost.StepRCUBarrier, 1)
	if up > 0 {
		w.AddUnlocked(cost.StepRCUBarrierUp, 1)
	}
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
			return nil, fmt.Errorf("ifindex %d: %w", ix, uapi.ENODEV)
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

// UnregisterOneByOne deletes devs one request each, the requests split over
// threads in order: thread t issues a contiguous run of them (the first
// len(devs)%threads threads one more).
func UnregisterOneByOne(st UnregisterSteps, devs []UnregDev, threads int) [][]cost.Work {
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

// UnregisterBatch deletes devs in one request (group or list: both are one
// unregister_netdevice_many over the same devices).
func UnregisterBatch(st UnregisterSteps, devs []UnregDev) [][]cost.Work {
	return [][]cost.Work{{UnregisterRequestWork(st, devs)}}
}
