package sim

// The narrated trace of `rtnlsim run --trace` (teaching material): for each
// priced kernel request, what the model did and what the cost engine
// charged for it.
//
// Most of it is read from what the model records anyway: the request's
// cost.Work (Target.Work: the steps under rtnl_lock and after rtnl_unlock,
// with counts), the cost engine's per-request result (cost.Simulate's
// cost.Request: lock wait, hold, release, shared barriers), and the deltas of
// the namespace's address-list, FIB and fib_trie counters. What those cannot
// name (which netdev notifier events were raised, which notification types
// were sent) a traceRec collects through one-line hooks where the model
// raises them. A target without a recorder (the default) pays one nil check
// per hook.

import (
	"fmt"
	"slices"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/fibtrie"
	"github.com/rtnlsim/rtnlsim/rtnl"
)

// traceRec records, per priced kernel request, the named events the cost
// work does not name. Its methods are nil-safe: the hooks call them on a
// nil *traceRec when tracing is off.
type traceRec struct {
	// base is the number of priced requests made before tracing began.
	base int
	// preUninit: the unregister path calls NETDEV_PRE_UNINIT per device
	// (UnregisterSteps.PreUninit).
	preUninit bool
	// ev is the target's log, whose deferred flag says linkwatch's work
	// is running.
	ev   *eventLog
	cur  traceCollect
	done []traceCollect
	last traceSnapshot
}

// traceCollect is what one kernel request raised, in first-seen order.
type traceCollect struct {
	netdev []TraceEvent
	sent   []TraceCount
	fib    TraceFib
	trie   TraceTrie
}

type traceSnapshot struct {
	inet DevinetCounters
	fib  FibCounters
	trie fibtrie.Counters
}

func (n *Netns) traceSnapshot() traceSnapshot {
	return traceSnapshot{n.inetCount, n.fibCount, n.fib.Counters()}
}

// netdev records call_netdevice_notifiers(ev, d) for each name in evs.
func (r *traceRec) netdev(d *Device, evs ...string) {
	if r == nil {
		return
	}
	for _, ev := range evs {
		r.cur.netdev = addTraceEvent(r.cur.netdev, ev+r.linkwatch(), d.name)
	}
}

// preUninitEvent records NETDEV_PRE_UNINIT when the unregister path of the
// modelled kernel calls it.
func (r *traceRec) preUninitEvent(d *Device) {
	if r != nil && r.preUninit {
		r.netdev(d, "NETDEV_PRE_UNINIT")
	}
}

// sent records one notification of type typ (bridge port messages,
// br_ifinfo_notify, apart).
func (r *traceRec) sent(typ, family string) {
	if r == nil {
		return
	}
	if family == "bridge" {
		typ += " (bridge)"
	}
	typ += r.linkwatch()
	for i := range r.cur.sent {
		if r.cur.sent[i].Name == typ {
			r.cur.sent[i].Count++
			return
		}
	}
	r.cur.sent = append(r.cur.sent, TraceCount{Name: typ, Count: 1})
}

// linkwatch marks what linkwatch's deferred work raises: the kernel runs
// it later from a workqueue (under rtnl_lock of its own), the model at the
// end of the request that queued it, and prices it with that request.
func (r *traceRec) linkwatch() string {
	if r.ev != nil && r.ev.dad {
		return " (DAD work)"
	}
	if r.ev != nil && r.ev.deferred {
		return " (linkwatch)"
	}
	return ""
}

// endPart closes the record of the kernel request just priced.
func (r *traceRec) endPart(n *Netns) {
	if r == nil {
		return
	}
	now := n.traceSnapshot()
	r.cur.fib, r.cur.trie = traceDeltas(r.last, now)
	r.last = now
	r.done = append(r.done, r.cur)
	r.cur = traceCollect{}
}

// maxTraceDevices is how many device names an event keeps: enough to name
// the devices of a teaching script, while a batch of thousands stays one
// line ("x3000 (d0, d1, d2, d3, ...)").
const maxTraceDevices = 4

func addTraceEvent(list []TraceEvent, name, dev string) []TraceEvent {
	for i := range list {
		if list[i].Name == name {
			e := &list[i]
			e.Count++
			if !slices.Contains(e.Devices, dev) {
				if len(e.Devices) < maxTraceDevices {
					e.Devices = append(e.Devices, dev)
				} else {
					e.MoreDevices = true
				}
			}
			return list
		}
	}
	return append(list, TraceEvent{Name: name, Count: 1, Devices: []string{dev}})
}

// TraceEvent is one kind of notifier chain event a request raised.
type TraceEvent struct {
	// Name is the event (NETDEV_UP, ...).
	Name  string `json:"name"`
	Count int64  `json:"count"`
	// Devices are the first devices it was raised for; MoreDevices says
	// there were more.
	Devices     []string `json:"devices,omitempty"`
	MoreDevices bool     `json:"more_devices,omitempty"`
}

// TraceCount is a named count.
type TraceCount struct {
	Name  string `json:"name"`
	Count int64  `json:"count"`
}

// TraceStep is one priced step of a request.
type TraceStep struct {
	// Step is the cost model's name (cost.Step.String) and Function the
	// kernel function it stands for.
	Step     string  `json:"step"`
	Function string  `json:"function"`
	Count    int64   `json:"count"`
	UnitNs   float64 `json:"unit_ns"`
	CostNs   int64   `json:"cost_ns"`
}

// TraceFib is the address-list and FIB work of a request (counter deltas).
type TraceFib struct {
	// InetaddrUp / InetaddrDown are inetaddr_chain NETDEV_UP / NETDEV_DOWN
	// calls (fib_inetaddr_event: fib_add_ifaddr / fib_del_ifaddr).
	InetaddrUp   int64 `json:"inetaddr_up"`
	InetaddrDown int64 `json:"inetaddr_down"`
	// Promotions are secondaries promoted to primary by __inet_del_ifa,
	// PromoteMoves those moved in the list.
	Promotions   int64 `json:"promotions"`
	PromoteMoves int64 `json:"promote_moves"`
	// WalkSteps are address-list elements looked at (devinet.c's walks,
	// fib_del_ifaddr's scan, inet_ifa_byprefix).
	WalkSteps int64 `json:"ifa_walk_steps"`
	// Inserts, Deletes and Flushes are fib_table_insert, fib_table_delete
	// and fib_flush calls.
	Inserts int64 `json:"fib_inserts"`
	Deletes int64 `json:"fib_deletes"`
	Flushes int64 `json:"fib_flushes"`
}

// TraceTrie is the fib_trie work of a request (fibtrie.Counters deltas).
type TraceTrie struct {
	ResizeCalls        int64 `json:"resize_calls"`
	Inflates           int64 `json:"inflates"`
	Halves             int64 `json:"halves"`
	Collapses          int64 `json:"collapses"`
	MaxWorkHits        int64 `json:"max_work_hits"`
	UpdateSuffixCalls  int64 `json:"update_suffix_calls"`
	UpdateSuffixVisits int64 `json:"update_suffix_visits"`
	FlushLeafVisits    int64 `json:"flush_leaf_visits"`
	TnodeAllocs        int64 `json:"tnode_allocs"`
	TnodeFrees         int64 `json:"tnode_frees"`
	LeafAllocs         int64 `json:"leaf_allocs"`
	LeafFrees          int64 `json:"leaf_frees"`
	// SynchronizeNet counts tnode_free's synchronize_net calls (freed
	// tnodes crossing sysctl_fib_sync_mem); the cost model does not price
	// them.
	SynchronizeNet int64 `json:"synchronize_net"`
}

// TraceRequest is one priced kernel request: when it asked for, took and
// released rtnl_lock, its steps with their prices, and what it raised.
// Times are virtual ns from the start of the run.
type TraceRequest struct {
	// Source is the script request it came from (and which of its kernel
	// requests).
	Source CostSource `json:"source"`
	Thread int        `json:"thread"`
	// ArriveNs: rtnl_lock asked; TakeNs: taken; ReleaseNs: rtnl_unlock;
	// EndNs: the request returned to its thread.
	ArriveNs   int64 `json:"arrive_ns"`
	TakeNs     int64 `json:"take_ns"`
	ReleaseNs  int64 `json:"release_ns"`
	EndNs      int64 `json:"end_ns"`
	LockWaitNs int64 `json:"lock_wait_ns"`
	LockedNs   int64 `json:"locked_ns"`
	UnlockedNs int64 `json:"unlocked_ns"`
	// TotalNs is EndNs-ArriveNs: lock wait, locked and unlocked time.
	TotalNs int64 `json:"total_ns"`
	// Locked and Unlocked are the priced steps (the request's cost.Work).
	// An unlocked step's CostNs is its plain price; the engine's
	// UnlockedNs also holds waits for, and savings from, other threads'
	// barriers.
	Locked   []TraceStep `json:"locked"`
	Unlocked []TraceStep `json:"unlocked"`
	// RCUBarriers is the request's rcu_barrier calls; BarriersShared those
	// that ended with a barrier another caller started.
	RCUBarriers    int64 `json:"rcu_barriers"`
	BarriersShared int64 `json:"barriers_shared"`
	// SynchronizeNet and SynchronizeNetExpedited are its grace periods.
	SynchronizeNet          int64 `json:"synchronize_net"`
	SynchronizeNetExpedited int64 `json:"synchronize_net_expedited"`
	// NetdevEvents are the netdev notifier chain events raised, in
	// first-seen order.
	NetdevEvents []TraceEvent `json:"netdev_events"`
	// Notifications are the rtnetlink notifications sent, by type.
	Notifications []TraceCount `json:"notifications"`
	Fib           TraceFib     `json:"fib"`
	Trie          TraceTrie    `json:"fib_trie"`
}

// Trace is the narrated run.
type Trace struct {
	Threads  int            `json:"threads"`
	Params   cost.Params    `json:"prices_ns"`
	Requests []TraceRequest `json:"requests"`
	// VirtualNs and LockHeldNs are the cost engine's totals.
	VirtualNs  int64 `json:"virtual_ns"`
	LockHeldNs int64 `json:"lock_held_ns"`
}

// ErrTraceNotStarted is what Trace says of a target that never called
// StartTrace, or called it after its first request.
var ErrTraceNotStarted = fmt.Errorf("sim target: StartTrace must be called before the first request")

// StartTrace makes the target record, from its next request on, what its
// trace needs. Call it before the first request.
func (t *Target) StartTrace() {
	if t.ev.trace != nil {
		return
	}
	steps := UnregisterStepsV618()
	if t.opts.Unregister != nil {
		steps = *t.opts.Unregister
	}
	n := t.Netns()
	t.ev.trace = &traceRec{base: len(t.workIDs), preUninit: steps.PreUninit, ev: t.ev}
	t.ev.trace.last = n.traceSnapshot()
}

// Prices is the price list Cost uses: Options.Cost, or DefaultPrices.
func (t *Target) Prices() (cost.Params, error) {
	if t.opts.Cost != nil {
		return *t.opts.Cost, nil
	}
	return DefaultPrices(), nil
}

// stepFunctions is the kernel function each step stands for, by step name,
// short enough to look up (net/core/dev.c, rtnetlink.c, net/ipv4/devinet.c,
// fib_frontend.c, fib_trie.c, net/ipv6/route.c, addrconf.c,
// net/netlink/af_netlink.c, net/core/net_namespace.c). Keyed by name, not
// by constant, so that steps added to package cost need no change here; a step
// without an entry shows its name.
var stepFunctions = map[string]string{
	"request":                   "rtnetlink_rcv_msg",
	"rcu_barrier":               "rcu_barrier",
	"synchronize_net":           "synchronize_net",
	"synchronize_net_expedited": "synchronize_rcu_expedited",
	"unregister_device":         "unregister_netdevice_many",
	"notifier_call":             "call_netdevice_notifiers",
	"notification":              "rtnl_notify",
	"ifa_walk":                  "for_each_ifa (devinet.c)",
	"fib_op":                    "fib_table_insert/delete",
	"fib_flush_leaf":            "fib_table_flush",
	"fib_flush_tnode":           "fib_table_flush: update_suffix, resize",
	"ifa_scan_check":            "fib_del_ifaddr's scan",
	"trie_tnode_new":            "tnode_new (insert, inflate, halve)",
	"trie_suffix_visit":         "update_suffix",
	"ipv6_walk":                 "fib6_clean_all, addrconf_ifdown",
	"setns":                     "setns",
	"nl_socket":                 "netlink_create, netlink_release",
	"dump_request":              "netlink_dump_start",
	"dump_chunk":                "netlink_dump",
	"link_fill":                 "rtnl_fill_ifinfo",
	"addr_fill":                 "inet_fill_ifaddr",
	"peer_lookup":               "rtnl_get_net_ns_capable",
	"nsid_walk":                 "__peernet2id",
	"rcu_barrier_up":            "rcu_barrier, after closing an UP device",
}

// stepFunction is the kernel function a step stands for (its name when
// the trace has none).
func stepFunction(s cost.Step) string {
	if f, ok := stepFunctions[s.String()]; ok {
		return f
	}
	return s.String()
}

func traceSteps(list []cost.StepN, p cost.Params) []TraceStep {
	out := make([]TraceStep, 0, len(list))
	for _, e := range list {
		u := p.Cost(e.Step)
		out = append(out, TraceStep{Step: e.Step.String(), Function: stepFunction(e.Step),
			Count: e.N, UnitNs: u, CostNs: p.Times(e.N, e.Step)})
	}
	return out
}

// Trace prices the requests applied so far over threads user threads (as
// Cost does) and narrates each: the cost engine's timing, the priced
// steps, and the events, notifications, FIB and trie work the recorder
// and the counters saw. StartTrace must have been called before the
// first request.
func (t *Target) Trace(threads int) (Trace, error) {
	r := t.ev.trace
	if r == nil || r.base != 0 {
		return Trace{}, ErrTraceNotStarted
	}
	p, err := t.Prices()
	if err != nil {
		return Trace{}, err
	}
	res, err := t.Cost(threads)
	if err != nil {
		return Trace{}, err
	}
	if len(r.done) != len(t.workIDs) || len(res.Requests) != len(t.workIDs) {
		return Trace{}, fmt.Errorf("sim trace: %d records for %d priced requests", len(r.done), len(t.workIDs))
	}
	tr := Trace{Threads: max(threads, 1), Params: p, VirtualNs: res.VirtualNs, LockHeldNs: res.LockHeldNs,
		Requests: make([]TraceRequest, len(t.workIDs))}
	src := t.CostSources()
	for i, w := range t.workList() {
		c := res.Requests[i]
		take := c.Arrive + c.LockWait
		q := TraceRequest{
			Source: src[i], Thread: c.Thread,
			ArriveNs: c.Arrive, TakeNs: take, ReleaseNs: take + c.Locked, EndNs: c.End,
			LockWaitNs: c.LockWait, LockedNs: c.Locked, UnlockedNs: c.Unlocked, TotalNs: c.End - c.Arrive,
			Locked: traceSteps(w.Locked, p), Unlocked: traceSteps(w.Unlocked, p),
			RCUBarriers: w.Count(cost.StepRCUBarrier), BarriersShared: c.BarriersShared,
			SynchronizeNet: w.Count(cost.StepSynchronizeNet), SynchronizeNetExpedited: w.Count(cost.StepSynchronizeNetExpedited),
			NetdevEvents: r.done[i].netdev, Notifications: r.done[i].sent,
			Fib: r.done[i].fib, Trie: r.done[i].trie,
		}
		if q.NetdevEvents == nil {
			q.NetdevEvents = []TraceEvent{}
		}
		if q.Notifications == nil {
			q.Notifications = []TraceCount{}
		}
		tr.Requests[i] = q
	}
	return tr, nil
}

// traceDeltas is the work between two snapshots.
func traceDeltas(a, b traceSnapshot) (TraceFib, TraceTrie) {
	d := func(x, y int) int64 { return int64(y - x) }
	u := func(x, y uint64) int64 { return int64(y - x) }
	f := TraceFib{
		InetaddrUp:   d(a.inet.NotifierUp, b.inet.NotifierUp),
		InetaddrDown: d(a.inet.NotifierDown, b.inet.NotifierDown),
		Promotions:   d(a.inet.Promotions, b.inet.Promotions),
		PromoteMoves: d(a.inet.PromoteMoves, b.inet.PromoteMoves),
		WalkSteps:    d(a.inet.WalkSteps, b.inet.WalkSteps) + d(a.fib.IfaScanSteps, b.fib.IfaScanSteps),
		Inserts:      d(a.fib.Inserts, b.fib.Inserts),
		Deletes:      d(a.fib.Deletes, b.fib.Deletes),
		Flushes:      d(a.fib.Flushes, b.fib.Flushes),
	}
	t := TraceTrie{
		ResizeCalls:        u(a.trie.ResizeCalls, b.trie.ResizeCalls),
		Inflates:           u(a.trie.Inflates, b.trie.Inflates),
		Halves:             u(a.trie.Halves, b.trie.Halves),
		Collapses:          u(a.trie.Collapses, b.trie.Collapses),
		MaxWorkHits:        u(a.trie.MaxWorkHits, b.trie.MaxWorkHits),
		UpdateSuffixCalls:  u(a.trie.UpdateSuffixCalls, b.trie.UpdateSuffixCalls),
		UpdateSuffixVisits: u(a.trie.UpdateSuffixVisits, b.trie.UpdateSuffixVisits),
		FlushLeafVisits:    u(a.trie.FlushLeafVisits, b.trie.FlushLeafVisits),
		TnodeAllocs:        u(a.trie.TnodeAllocs, b.trie.TnodeAllocs),
		TnodeFrees:         u(a.trie.TnodeFrees, b.trie.TnodeFrees),
		LeafAllocs:         u(a.trie.LeafAllocs, b.trie.LeafAllocs),
		LeafFrees:          u(a.trie.LeafFrees, b.trie.LeafFrees),
		SynchronizeNet:     u(a.trie.SynchronizeNet, b.trie.SynchronizeNet),
	}
	return f, t
}

// Handler is the kernel function a request goes to (rtnetlink.c,
// devinet.c, fib_frontend.c), or what stands in for it.
func Handler(op rtnl.Op) string {
	switch op.(type) {
	case rtnl.LinkAdd:
		return "rtnl_newlink"
	case rtnl.LinkSet:
		return "rtnl_setlink"
	case rtnl.LinkDel, rtnl.LinkDelList:
		return "rtnl_dellink"
	case rtnl.LinkDelGroup:
		return "rtnl_dellink: rtnl_group_dellink"
	case rtnl.LinkProp:
		return "rtnl_linkprop"
	case rtnl.AddrAdd:
		return "inet_rtm_newaddr"
	case rtnl.AddrDel:
		return "inet_rtm_deladdr"
	case rtnl.AddrFlush:
		return "inet_dump_ifaddr, then inet_rtm_deladdr per address"
	case rtnl.RouteAdd, rtnl.RouteReplace, rtnl.RouteAppend, rtnl.RoutePrepend, rtnl.RouteChange:
		return "inet_rtm_newroute"
	case rtnl.RouteDel:
		return "inet_rtm_delroute"
	case rtnl.RouteFlush:
		return "inet_dump_fib, then inet_rtm_delroute per route"
	case rtnl.Sysctl:
		return "a /proc/sys write (devinet_conf_proc), not rtnetlink; priced as one request"
	}
	return ""
}
