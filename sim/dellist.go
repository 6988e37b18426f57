package sim

import (
	"errors"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// The list delete, `link del list NAME...`, in its two forms.
//
// Without +bulk-ifindex (this machine's kernel has no such request) it is
// what the kernel target sends: every name resolved first (one unknown name
// fails the whole line with ENODEV and nothing is sent), then one
// RTM_DELLINK per distinct device, each its own unregister batch, so each
// pays its own synchronize_net calls and rcu_barrier; a device an earlier
// request took (a veth peer, a macvlan with its lower) gets ENODEV, which
// the kernel target skips; any other refusal (the loopback: EOPNOTSUPP)
// ends the line there, after the devices before it were deleted.
//
// With +bulk-ifindex it is the seed 000 request, one RTM_DELLINK carrying
// one IFLA_IFINDEX per name (duplicates too), handled as
// rtnl_ifindex_dellink: every ifindex is looked up and checked first
// (unknown: ENODEV "Unknown ifindex"; no dellink, as the loopback: EOPNOTSUPP
// "Device cannot be deleted"; either way nothing is deleted), then each
// device's dellink queues it (a veth its peer too) into one list and one
// unregister_netdevice_many runs over it: one batch, one rcu_barrier. A
// device named twice, or queued already by its peer's dellink, is queued
// once: the seed's review asked for duplicates to be safe (calling a
// driver's dellink twice is not). IFLA_GROUP together with IFLA_IFINDEX is
// EOPNOTSUPP; the script language cannot say that (its parser refuses
// `group` with `list`), so DelLinkIfindex is the way to ask for it.

// CostSource is where one priced kernel request came from: the index of the
// request the target applied (in order, 0 first; rtnl.Run applies a
// script's requests in order, so it is the index in the script) and, for a
// request the target sends as several kernel requests (a list delete without
// +bulk-ifindex), which of them (0 first).
type CostSource struct {
	Request int32 `json:"request"`
	Part    int32 `json:"part"`
}

// CostSources returns, for each request Cost prices (in the same order),
// where it came from.
func (t *Target) CostSources() []CostSource {
	out := make([]CostSource, len(t.workIDs))
	var req, part int32
	for i, id := range t.workIDs {
		out[i] = CostSource{Request: req, Part: part}
		part++
		if id&lastPart != 0 {
			req, part = req+1, 0
		}
	}
	return out
}

// lastPart marks the entry of workIDs that ends a script request.
const lastPart = 1 << 31

// recordWork records the work of the request being applied, which ends it:
// the next recorded work belongs to the next request.
func (t *Target) recordWork(w cost.Work) {
	t.recordPart(w)
	t.workIDs[len(t.workIDs)-1] |= lastPart
	t.parts = 0
	t.applied++
}

// recordPart records the work of one kernel request that is not the last
// one the request being applied sends.
func (t *Target) recordPart(w cost.Work) {
	t.workIDs = append(t.workIDs, t.internWork(w))
	t.ev.trace.endPart(t.Netns())
	t.parts++
}

// resolveNames is the userspace half of a list delete: every name turned
// into its device, in order, duplicates kept; the first unknown name is
// ENODEV.
func (n *Netns) resolveNames(names []string) ([]*Device, error) {
	devs := make([]*Device, 0, len(names))
	for _, name := range names {
		d := n.ByName(name)
		if d == nil {
			return nil, enodev(name)
		}
		devs = append(devs, d)
	}
	return devs, nil
}

// linkDelList applies `link del list NAME...` in the form the profile
// says.
func (t *Target) linkDelList(n *Netns, op rtnl.LinkDelList) error {
	devs, err := n.resolveNames(op.Devs)
	if err != nil {
		return err
	}
	if t.opts.BulkIfindex {
		ifindexes := make([]int32, len(devs))
		for i, d := range devs {
			ifindexes[i] = int32(d.ifindex)
		}
		return n.ifindexDellink(ifindexes, nil)
	}
	// One RTM_DELLINK per distinct device, in first-named order.
	seen := make(map[*Device]bool, len(devs))
	sent := 0
	for _, d := range devs {
		if seen[d] {
			continue
		}
		seen[d] = true
		if sent > 0 {
			// The previous RTM_DELLINK is over: its batch is its own,
			// and linkwatch may run before the next one (the kernel
			// target's sync mode makes it).
			n.runDeferred()
			t.recordPart(t.requestWork(n))
		}
		sent++
		if !n.alive(d) {
			continue // ENODEV: taken by an earlier request of the list
		}
		if err := n.deleteLink(d); err != nil {
			return err
		}
	}
	return nil
}

// ifindexDellink is rtnl_dellink with IFLA_IFINDEX attributes (and
// IFLA_GROUP when group is not nil) on a +bulk-ifindex kernel: the
// seed 000 patch's rtnl_ifindex_dellink, with duplicates made safe.
func (n *Netns) ifindexDellink(ifindexes []int32, group *uint32) error {
	switch {
	case group != nil && len(ifindexes) > 0:
		return rtnl.Errf(uapi.EOPNOTSUPP, "Can't pass both IFLA_GROUP and IFLA_IFINDEX")
	case group != nil:
		return n.linkDelGroup(rtnl.LinkDelGroup{Group: *group})
	case len(ifindexes) == 0:
		// Neither ifi_index, a name, IFLA_GROUP nor IFLA_IFINDEX.
		return rtnl.Errf(uapi.EINVAL, "")
	}
	devs := make([]*Device, 0, len(ifindexes))
	for _, ix := range ifindexes {
		var d *Device
		if ix > 0 {
			d = n.ByIndex(uint32(ix))
		}
		if d == nil {
			return rtnl.Errf(uapi.ENODEV, "Unknown ifindex")
		}
		if d.kind == "" {
			return rtnl.Errf(uapi.EOPNOTSUPP, "Device cannot be deleted")
		}
		devs = append(devs, d)
	}
	// Each device's dellink queues it (and a veth's peer); a device already
	// queued is not dellinked again.
	n.unregisterMany(devs)
	return nil
}

// ErrNeedsBulkIfindex is what DelLinkIfindex says on a target without the
// +bulk-ifindex switch: the request does not exist on that kernel.
var ErrNeedsBulkIfindex = errors.New("sim target: RTM_DELLINK with IFLA_IFINDEX needs the +bulk-ifindex profile")

// DelLinkIfindex applies one RTM_DELLINK carrying ifindexes as IFLA_IFINDEX
// attributes, and IFLA_GROUP when group is not nil, in the initial
// namespace: the +bulk-ifindex request itself, by ifindex (the script's
// `link del list NAME...` resolves names to it). The request is priced
// like any other; a refusal returns an *rtnl.Error.
func (t *Target) DelLinkIfindex(ifindexes []int32, group *uint32) error {
	if t.closed {
		return ErrClosed
	}
	if !t.opts.BulkIfindex {
		return ErrNeedsBulkIfindex
	}
	n, err := t.begin()
	if err != nil {
		return err
	}
	err = n.ifindexDellink(ifindexes, group)
	t.finish(n, cost.Work{})
	return err
}
