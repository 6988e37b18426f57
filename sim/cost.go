package sim

// The cost model of DESIGN.md ("Cost model") in virtual time.
//
// A request's kernel work is a CostWork: the steps it makes while holding
// rtnl_lock, then the steps it makes after rtnl_unlock (netdev_run_todo in
// net/core/dev.c runs after __rtnl_unlock: rcu_barrier when the todo list is
// not empty, then the per-device wait for references). SimulateCost runs
// several user threads, each issuing its requests in order, as a
// deterministic discrete-event simulation:
//
//   - rtnl_lock is a FIFO mutex in virtual time: one holder, waiters served
//     in arrival order (ties by the order the events were made);
//   - work outside the lock (grace-period waits, per-device frees) costs its
//     own thread time only, so it overlaps across threads;
//   - rcu_barrier follows kernel/rcu/tree.c: callers take barrier_mutex one
//     at a time and a caller snapshots barrier_sequence on arrival
//     (rcu_seq_snap): it needs one whole barrier that started after it
//     arrived. A caller arriving while no barrier runs or waits to run
//     starts one at once; a caller arriving while a barrier runs
//     needs the next one, which the first such caller starts when the running
//     one ends and every later arrival before that start shares (they find
//     rcu_seq_done true once they get the mutex: the "EarlyExit" path). Calls
//     and executed barriers are counted apart.
//   - except within RCUBarrierShareWindowNs of a barrier's start: its grace
//     period has not begun yet, so a caller's callbacks queued by then are
//     done when it ends, and that caller returns with it.
//
// Costs are virtual nanoseconds per step, from a CostParams (a profile's
// parameter set). Nothing here reads a clock.

import "fmt"

// CostStep names a kernel step the cost model counts and charges.
type CostStep uint8

const (
	// StepRequest is one rtnetlink request handled under rtnl_lock (receive,
	// parse, lookup, reply), apart from the steps below.
	StepRequest CostStep = iota
	// StepRCUBarrier is a call of rcu_barrier(); whether it runs a barrier
	// or shares one is decided by the engine.
	StepRCUBarrier
	// StepSynchronizeNet is synchronize_net() with RTNL not held:
	// synchronize_rcu(), a normal grace period.
	StepSynchronizeNet
	// StepSynchronizeNetExpedited is synchronize_net() with RTNL held:
	// synchronize_rcu_expedited() (net/core/dev.c synchronize_net).
	StepSynchronizeNetExpedited
	// StepUnregisterDevice is the per-device work of
	// unregister_netdevice_many_notify not named by another step (close,
	// unlist, dev_shutdown, uc/mc flush, kobject removal, ...).
	StepUnregisterDevice
	// StepNotifierCall is one call_netdevice_notifiers (one event through
	// the netdev notifier chain: NETDEV_GOING_DOWN, NETDEV_DOWN,
	// NETDEV_UNREGISTER, NETDEV_PRE_UNINIT, ...).
	StepNotifierCall
	// StepNotification is one rtnetlink notification built and delivered
	// (RTM_NEWLINK, RTM_DELLINK, RTM_DELADDR, ...).
	StepNotification
	// StepIfaWalk is one IPv4 address looked at by a walk of a device's
	// address list (devinet.c's inserts, deletes, promotions and dumps,
	// fib_del_ifaddr's scan, inet_ifa_byprefix).
	StepIfaWalk
	// StepFibOp is one fib_table_insert or fib_table_delete (fib_magic's
	// and requested ones alike), its fib_info lookup or allocation and
	// its trie descent.
	StepFibOp
	// StepFibFlushLeaf is one leaf examined by fib_table_flush.
	StepFibFlushLeaf
	// StepTrieSuffixVisit is one child slot examined by update_suffix
	// (the seed 003 regression's hot spot).
	StepTrieSuffixVisit
	// StepIPv6Walk is one entry visited by a walk over the namespace's
	// whole IPv6 state, counted from the model's estimate of that state
	// (sim/ipv6cost.go): a fib6 node or route of fib6_clean_all
	// (rt6_sync_up, rt6_sync_down_dev, rt6_mtu_change), a node of
	// fib6_flush_trees, an address of addrconf_ifdown's hash walk.
	StepIPv6Walk
	// StepSetns is one setns(fd, CLONE_NEWNET) (kernel/nsproxy.c: a new
	// nsproxy with a reference on each namespace, netns_install, the old
	// nsproxy freed): seed 004.
	StepSetns
	// StepNlSocket is one rtnetlink socket's life as getifaddrs has it:
	// socket, bind (autobind), getsockname, close.
	StepNlSocket
	// StepDumpRequest is one dump request: sendmsg, rtnetlink_rcv_msg,
	// netlink_dump_start.
	StepDumpRequest
	// StepDumpChunk is one round of a dump: a recvmsg, one skb filled by
	// the dump callback (under rtnl_lock for link and AF_UNSPEC address
	// dumps) and copied out; the round that carries NLMSG_DONE included.
	StepDumpChunk
	// StepLinkFill is one rtnl_fill_ifinfo of a dump.
	StepLinkFill
	// StepAddrFill is one inet_fill_ifaddr (or inet6's) of a dump.
	StepAddrFill
	// StepPeerLookup is one rtnl_get_net_ns_capable (get_net_ns_by_id,
	// sk_ns_capable, put_net): every round of a dump with a target netnsid.
	StepPeerLookup
	// StepNsidWalk is one netns_ids entry visited by __peernet2id
	// (idr_for_each), e.g. for a veth's IFLA_LINK_NETNSID.
	StepNsidWalk
	// StepIPv6WalkFar is one entry of a whole-FIB IPv6 walk beyond the
	// first IPv6WalkCacheEntries of that walk: the part of a big walk
	// that no longer fits the cache, priced on top of StepIPv6Walk
	// (sim/ipv6cost.go).
	StepIPv6WalkFar
	// StepIPv6WalkCold is one entry of the first walk of a request over
	// the IPv6 FIB (or over the IPv6 address hash), priced on top of
	// StepIPv6Walk: between two requests the thread has run user code
	// and other tasks have run (and it may have moved to the other
	// core), so that walk finds the FIB outside the core's cache; the
	// walks that follow it in the same request find it warm
	// (sim/ipv6cost.go).
	StepIPv6WalkCold
	// StepIPv6DevConfig is one device becoming IPv6-ready at a NETDEV_UP
	// or NETDEV_CHANGE: addrconf_dev_config (its link-local address, the
	// fe80::/64 and ff00::/8 routes, MLD joins) and the DAD work that
	// completes the address under RTNL (the local route, router
	// solicitation), apart from the walk and notifications counted by
	// other steps. The calibration fits it from `link set up` alone, so
	// it also carries what else bringing a device up costs that no step
	// names (dev_open's qdisc attach, inetdev's multicast join).
	StepIPv6DevConfig
	// StepFibInsert is one fib_table_insert's fib_create_info, priced on
	// top of StepFibOp: the new fib_info and its nexthop (fib_nh_init:
	// per-CPU output route caches) are built before fib_find_info looks
	// for an equal one, and freed again when one exists
	// (net/ipv4/fib_semantics.c), work a delete does not do.
	StepFibInsert
	// StepIPv6RouteList is one route looked at by fib6_add_rt2node when a
	// device's fe80::/64 or ff00::/8 route is inserted: the node holds one
	// such route per IPv6-ready device, all of the same metric, and the
	// insert compares each for a duplicate nexthop before appending
	// (net/ipv6/ip6_fib.c). It has its own price because one price for
	// both this and the clean-all walks charged group moves for it (+28%
	// on an idle machine); fitted apart, one calibration run gave 65 ns
	// per entry here against 30 for ipv6_walk (not measured alone).
	StepIPv6RouteList

	numCostSteps
)

var costStepNames = [numCostSteps]string{
	StepRequest:                 "request",
	StepRCUBarrier:              "rcu_barrier",
	StepSynchronizeNet:          "synchronize_net",
	StepSynchronizeNetExpedited: "synchronize_net_expedited",
	StepUnregisterDevice:        "unregister_device",
	StepNotifierCall:            "notifier_call",
	StepNotification:            "notification",
	StepIfaWalk:                 "ifa_walk",
	StepFibOp:                   "fib_op",
	StepFibFlushLeaf:            "fib_flush_leaf",
	StepTrieSuffixVisit:         "trie_suffix_visit",
	StepIPv6Walk:                "ipv6_walk",
	StepSetns:                   "setns",
	StepNlSocket:                "nl_socket",
	StepDumpRequest:             "dump_request",
	StepDumpChunk:               "dump_chunk",
	StepLinkFill:                "link_fill",
	StepAddrFill:                "addr_fill",
	StepPeerLookup:              "peer_lookup",
	StepNsidWalk:                "nsid_walk",
	StepIPv6WalkFar:             "ipv6_walk_far",
	StepIPv6WalkCold:            "ipv6_walk_cold",
	StepIPv6DevConfig:           "ipv6_dev_config",
	StepFibInsert:               "fib_insert",
	StepIPv6RouteList:           "ipv6_route_list",
}

// CostSteps lists every step in order.
func CostSteps() []CostStep {
	s := make([]CostStep, numCostSteps)
	for i := range s {
		s[i] = CostStep(i)
	}
	return s
}

func (s CostStep) String() string {
	if s < numCostSteps {
		return costStepNames[s]
	}
	return fmt.Sprintf("CostStep(%d)", uint8(s))
}

// CostParams is the cost of each step in virtual nanoseconds: the parameter
// set of a profile.
type CostParams struct {
	RequestNs                 int64 `json:"request_ns"`
	RCUBarrierNs              int64 `json:"rcu_barrier_ns"`
	SynchronizeNetNs          int64 `json:"synchronize_net_ns"`
	SynchronizeNetExpeditedNs int64 `json:"synchronize_net_expedited_ns"`
	UnregisterDeviceNs        int64 `json:"unregister_device_ns"`
	NotifierCallNs            int64 `json:"notifier_call_ns"`
	NotificationNs            int64 `json:"notification_ns"`
	IfaWalkNs                 int64 `json:"ifa_walk_ns"`
	FibOpNs                   int64 `json:"fib_op_ns"`
	FibFlushLeafNs            int64 `json:"fib_flush_leaf_ns"`
	TrieSuffixVisitNs         int64 `json:"trie_suffix_visit_ns"`
	IPv6WalkNs                int64 `json:"ipv6_walk_ns"`
	SetnsNs                   int64 `json:"setns_ns"`
	NlSocketNs                int64 `json:"nl_socket_ns"`
	DumpRequestNs             int64 `json:"dump_request_ns"`
	DumpChunkNs               int64 `json:"dump_chunk_ns"`
	LinkFillNs                int64 `json:"link_fill_ns"`
	AddrFillNs                int64 `json:"addr_fill_ns"`
	PeerLookupNs              int64 `json:"peer_lookup_ns"`
	NsidWalkNs                int64 `json:"nsid_walk_ns"`
	IPv6WalkFarNs             int64 `json:"ipv6_walk_far_ns"`
	IPv6WalkColdNs            int64 `json:"ipv6_walk_cold_ns"`
	IPv6DevConfigNs           int64 `json:"ipv6_dev_config_ns"`
	FibInsertNs               int64 `json:"fib_insert_ns"`
	IPv6RouteListNs           int64 `json:"ipv6_route_list_ns"`

	// RCUBarrierShareWindowNs is not a step price but a latency: how long
	// after a barrier starts its grace period can still take the callbacks
	// of later callers. New callbacks get their grace period started by
	// rcu_core on a later scheduling-clock tick, and rcu_barrier entrains
	// its callback behind the last queued one, so a caller that queued its
	// callbacks before that grace period began rides on it and returns
	// with the running barrier (its own barrier then finds nothing to wait
	// for). Calibration sets it to one jiffy of the machine's CONFIG_HZ;
	// 0 keeps the older rule (a caller arriving while a barrier runs
	// always needs the next one).
	RCUBarrierShareWindowNs int64 `json:"rcu_barrier_share_window_ns,omitempty"`
}

// Cost returns the virtual nanoseconds of one s.
func (p CostParams) Cost(s CostStep) int64 {
	switch s {
	case StepRequest:
		return p.RequestNs
	case StepRCUBarrier:
		return p.RCUBarrierNs
	case StepSynchronizeNet:
		return p.SynchronizeNetNs
	case StepSynchronizeNetExpedited:
		return p.SynchronizeNetExpeditedNs
	case StepUnregisterDevice:
		return p.UnregisterDeviceNs
	case StepNotifierCall:
		return p.NotifierCallNs
	case StepNotification:
		return p.NotificationNs
	case StepIfaWalk:
		return p.IfaWalkNs
	case StepFibOp:
		return p.FibOpNs
	case StepFibFlushLeaf:
		return p.FibFlushLeafNs
	case StepTrieSuffixVisit:
		return p.TrieSuffixVisitNs
	case StepIPv6Walk:
		return p.IPv6WalkNs
	case StepSetns:
		return p.SetnsNs
	case StepNlSocket:
		return p.NlSocketNs
	case StepDumpRequest:
		return p.DumpRequestNs
	case StepDumpChunk:
		return p.DumpChunkNs
	case StepLinkFill:
		return p.LinkFillNs
	case StepAddrFill:
		return p.AddrFillNs
	case StepPeerLookup:
		return p.PeerLookupNs
	case StepNsidWalk:
		return p.NsidWalkNs
	case StepIPv6WalkFar:
		return p.IPv6WalkFarNs
	case StepIPv6WalkCold:
		return p.IPv6WalkColdNs
	case StepIPv6DevConfig:
		return p.IPv6DevConfigNs
	case StepFibInsert:
		return p.FibInsertNs
	case StepIPv6RouteList:
		return p.IPv6RouteListNs
	}
	panic(fmt.Sprintf("sim: cost of unknown step %d", s))
}

// Validate refuses negative costs.
func (p CostParams) Validate() error {
	for _, s := range CostSteps() {
		if p.Cost(s) < 0 {
			return fmt.Errorf("cost params: %s is negative (%d ns)", s, p.Cost(s))
		}
	}
	if p.RCUBarrierShareWindowNs < 0 {
		return fmt.Errorf("cost params: rcu_barrier_share_window is negative (%d ns)", p.RCUBarrierShareWindowNs)
	}
	return nil
}

// CostStepN is n consecutive calls of one step.
type CostStepN struct {
	Step CostStep `json:"step"`
	N    int64    `json:"n"`
}

// CostWork is the work of one request: the steps made under rtnl_lock, in
// order, then the steps made after rtnl_unlock, in order. Work outside the
// lock is where rcu_barrier belongs (netdev_run_todo); a barrier in Locked
// is charged as plain time (no other thread can be in the kernel's barrier
// path without RTNL in this model, so there is nothing to share).
type CostWork struct {
	Locked   []CostStepN `json:"locked"`
	Unlocked []CostStepN `json:"unlocked"`
}

func addStep(list []CostStepN, s CostStep, n int64) []CostStepN {
	if n <= 0 {
		return list
	}
	if k := len(list); k > 0 && list[k-1].Step == s {
		list[k-1].N += n
		return list
	}
	return append(list, CostStepN{Step: s, N: n})
}

// AddLocked appends n calls of s to the locked part (merged with the last
// entry when it is the same step).
func (w *CostWork) AddLocked(s CostStep, n int64) { w.Locked = addStep(w.Locked, s, n) }

// AddUnlocked appends n calls of s to the part after rtnl_unlock.
func (w *CostWork) AddUnlocked(s CostStep, n int64) { w.Unlocked = addStep(w.Unlocked, s, n) }

// Count returns how many times w calls s, locked and unlocked.
func (w CostWork) Count(s CostStep) int64 {
	var n int64
	for _, e := range w.Locked {
		if e.Step == s {
			n += e.N
		}
	}
	for _, e := range w.Unlocked {
		if e.Step == s {
			n += e.N
		}
	}
	return n
}

// LockedNs is the time w holds rtnl_lock.
func (w CostWork) LockedNs(p CostParams) int64 {
	var t int64
	for _, e := range w.Locked {
		t += e.N * p.Cost(e.Step)
	}
	return t
}

// PlainNs is the time of w alone: every step at its cost, no waiting and no
// sharing.
func (w CostWork) PlainNs(p CostParams) int64 {
	t := w.LockedNs(p)
	for _, e := range w.Unlocked {
		t += e.N * p.Cost(e.Step)
	}
	return t
}

// CostCounters counts step calls; RCUBarrierExecuted counts barriers that
// ran, RCUBarrier counts calls (a call that shared another caller's barrier
// counts once in RCUBarrier and not in RCUBarrierExecuted).
type CostCounters struct {
	Request                 int64 `json:"request"`
	RCUBarrier              int64 `json:"rcu_barrier"`
	RCUBarrierExecuted      int64 `json:"rcu_barrier_executed"`
	SynchronizeNet          int64 `json:"synchronize_net"`
	SynchronizeNetExpedited int64 `json:"synchronize_net_expedited"`
	UnregisterDevice        int64 `json:"unregister_device"`
	NotifierCall            int64 `json:"notifier_call"`
	Notification            int64 `json:"notification"`
	IfaWalk                 int64 `json:"ifa_walk"`
	FibOp                   int64 `json:"fib_op"`
	FibFlushLeaf            int64 `json:"fib_flush_leaf"`
	TrieSuffixVisit         int64 `json:"trie_suffix_visit"`
	IPv6Walk                int64 `json:"ipv6_walk"`
	Setns                   int64 `json:"setns"`
	NlSocket                int64 `json:"nl_socket"`
	DumpRequest             int64 `json:"dump_request"`
	DumpChunk               int64 `json:"dump_chunk"`
	LinkFill                int64 `json:"link_fill"`
	AddrFill                int64 `json:"addr_fill"`
	PeerLookup              int64 `json:"peer_lookup"`
	NsidWalk                int64 `json:"nsid_walk"`
	IPv6WalkFar             int64 `json:"ipv6_walk_far"`
	IPv6WalkCold            int64 `json:"ipv6_walk_cold"`
	IPv6DevConfig           int64 `json:"ipv6_dev_config"`
	FibInsert               int64 `json:"fib_insert"`
	IPv6RouteList           int64 `json:"ipv6_route_list"`
}

func (c *CostCounters) field(s CostStep) *int64 {
	switch s {
	case StepRequest:
		return &c.Request
	case StepRCUBarrier:
		return &c.RCUBarrier
	case StepSynchronizeNet:
		return &c.SynchronizeNet
	case StepSynchronizeNetExpedited:
		return &c.SynchronizeNetExpedited
	case StepUnregisterDevice:
		return &c.UnregisterDevice
	case StepNotifierCall:
		return &c.NotifierCall
	case StepNotification:
		return &c.Notification
	case StepIfaWalk:
		return &c.IfaWalk
	case StepFibOp:
		return &c.FibOp
	case StepFibFlushLeaf:
		return &c.FibFlushLeaf
	case StepTrieSuffixVisit:
		return &c.TrieSuffixVisit
	case StepIPv6Walk:
		return &c.IPv6Walk
	case StepSetns:
		return &c.Setns
	case StepNlSocket:
		return &c.NlSocket
	case StepDumpRequest:
		return &c.DumpRequest
	case StepDumpChunk:
		return &c.DumpChunk
	case StepLinkFill:
		return &c.LinkFill
	case StepAddrFill:
		return &c.AddrFill
	case StepPeerLookup:
		return &c.PeerLookup
	case StepNsidWalk:
		return &c.NsidWalk
	case StepIPv6WalkFar:
		return &c.IPv6WalkFar
	case StepIPv6WalkCold:
		return &c.IPv6WalkCold
	case StepIPv6DevConfig:
		return &c.IPv6DevConfig
	case StepFibInsert:
		return &c.FibInsert
	case StepIPv6RouteList:
		return &c.IPv6RouteList
	}
	panic(fmt.Sprintf("sim: counter of unknown step %d", s))
}

// Add counts n calls of s.
func (c *CostCounters) Add(s CostStep, n int64) { *c.field(s) += n }

// Get returns the calls of s.
func (c CostCounters) Get(s CostStep) int64 { return *c.field(s) }

// CostRequest is what one request cost. Times are virtual nanoseconds from
// the start of the run.
type CostRequest struct {
	Thread int `json:"thread"`
	Index  int `json:"index"` // position in its thread
	// Arrive is when the thread asked for rtnl_lock.
	Arrive int64 `json:"arrive_ns"`
	// LockWait is the time from Arrive to holding rtnl_lock.
	LockWait int64 `json:"lock_wait_ns"`
	// Locked is the time rtnl_lock was held.
	Locked int64 `json:"locked_ns"`
	// Unlocked is the time from rtnl_unlock to the end, waits for shared
	// barriers included.
	Unlocked int64 `json:"unlocked_ns"`
	// End is when the request returned to its thread.
	End int64 `json:"end_ns"`
	// BarriersShared counts this request's rcu_barrier calls that ended
	// with a barrier another caller started.
	BarriersShared int64 `json:"barriers_shared"`
}

// CostResult is the outcome of SimulateCost.
type CostResult struct {
	// Requests in thread order, each thread's requests in order.
	Requests []CostRequest `json:"requests"`
	// ThreadEnd is when each thread finished its last request.
	ThreadEnd []int64 `json:"thread_end_ns"`
	// VirtualNs is when the last thread finished.
	VirtualNs int64 `json:"virtual_ns"`
	// LockHeldNs is the total time rtnl_lock was held.
	LockHeldNs int64        `json:"lock_held_ns"`
	Counters   CostCounters `json:"counters"`
}

// Event kinds of the simulation.
const (
	evLock    uint8 = iota // a thread asks for rtnl_lock
	evUnlock               // the holder releases rtnl_lock
	evBarrier              // a thread calls rcu_barrier (outside the lock)
)

type costEvent struct {
	at     int64
	seq    uint64 // order of creation: ties are served first come first
	kind   uint8
	thread int32
	step   int32 // evBarrier: index in Unlocked of the barrier entry
	left   int64 // evBarrier: calls of that entry still to make, this one included
}

// costQueue is a binary min-heap of events by (at, seq), kept by hand so
// events are not boxed into interfaces.
type costQueue []costEvent

func (q costQueue) less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}

func (q *costQueue) push(e costEvent) {
	*q = append(*q, e)
	h := *q
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *costQueue) pop() costEvent {
	h := *q
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && h.less(l, m) {
			m = l
		}
		if r < len(h) && h.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
}

// costSim is the state of one SimulateCost run.
type costSim struct {
	p       CostParams
	threads [][]CostWork
	first   []int // index in res.Requests of each thread's first request
	next    []int // next request of each thread
	res     CostResult

	q   costQueue
	seq uint64

	// rtnl_lock
	held    bool
	waiters []int32 // FIFO of threads
	waitAt  int     // head of waiters

	// rcu_barrier: the latest barrier scheduled (running, or waiting for
	// barrier_mutex to start), if any.
	barrier          bool
	barStart, barEnd int64
}

func (s *costSim) push(e costEvent) {
	e.seq = s.seq
	s.seq++
	s.q.push(e)
}

func (s *costSim) cur(th int32) *CostRequest {
	return &s.res.Requests[s.first[th]+s.next[th]]
}

// SplitInOrder deals requests to threads in order: thread t issues a
// contiguous run of them, the first len(requests)%threads threads one more
// (the way a script's requests are split over --threads N).
func SplitInOrder(requests []CostWork, threads int) [][]CostWork {
	threads = max(threads, 1)
	out := make([][]CostWork, threads)
	per, extra := len(requests)/threads, len(requests)%threads
	i := 0
	for t := range out {
		k := per
		if t < extra {
			k++
		}
		out[t] = requests[i : i+k : i+k]
		i += k
	}
	return out
}

// SimulateCost runs threads[i] (each a list of requests, issued in order by
// user thread i, the first at time 0) and returns per-request costs, totals
// and counters. The same input gives the same result.
func SimulateCost(p CostParams, threads [][]CostWork) (CostResult, error) {
	if err := p.Validate(); err != nil {
		return CostResult{}, err
	}
	s := &costSim{p: p, threads: threads}
	s.first = make([]int, len(threads))
	s.next = make([]int, len(threads))
	total := 0
	for i, reqs := range threads {
		for _, w := range reqs {
			for _, e := range w.Locked {
				if e.N < 0 || e.Step >= numCostSteps {
					return CostResult{}, fmt.Errorf("thread %d: bad locked step %v x %d", i, e.Step, e.N)
				}
			}
			for _, e := range w.Unlocked {
				if e.N < 0 || e.Step >= numCostSteps {
					return CostResult{}, fmt.Errorf("thread %d: bad unlocked step %v x %d", i, e.Step, e.N)
				}
			}
		}
		s.first[i] = total
		total += len(reqs)
	}
	s.res.Requests = make([]CostRequest, total)
	s.res.ThreadEnd = make([]int64, len(threads))
	s.q = make(costQueue, 0, len(threads)+1)
	for i, reqs := range threads {
		for j := range reqs {
			s.res.Requests[s.first[i]+j] = CostRequest{Thread: i, Index: j}
		}
		if len(reqs) > 0 {
			s.push(costEvent{at: 0, kind: evLock, thread: int32(i)})
		}
	}
	for len(s.q) > 0 {
		e := s.q.pop()
		switch e.kind {
		case evLock:
			s.cur(e.thread).Arrive = e.at
			if s.held {
				s.waiters = append(s.waiters, e.thread)
			} else {
				s.acquire(e.thread, e.at)
			}
		case evUnlock:
			s.held = false
			if s.waitAt < len(s.waiters) {
				th := s.waiters[s.waitAt]
				s.waitAt++
				if s.waitAt == len(s.waiters) {
					s.waiters, s.waitAt = s.waiters[:0], 0
				}
				s.acquire(th, e.at)
			}
			s.unlocked(e.thread, e.at, 0)
		case evBarrier:
			end, shared := s.rcuBarrier(e.at)
			r := s.cur(e.thread)
			if shared {
				r.BarriersShared++
			}
			if e.left > 1 {
				s.push(costEvent{at: end, kind: evBarrier, thread: e.thread, step: e.step, left: e.left - 1})
			} else {
				s.unlocked(e.thread, end, int(e.step)+1)
			}
		}
	}
	for _, t := range s.res.ThreadEnd {
		s.res.VirtualNs = max(s.res.VirtualNs, t)
	}
	return s.res, nil
}

// acquire gives rtnl_lock to th at time at and runs its locked steps.
func (s *costSim) acquire(th int32, at int64) {
	s.held = true
	r := s.cur(th)
	r.LockWait = at - r.Arrive
	w := s.threads[th][s.next[th]]
	var d int64
	for _, e := range w.Locked {
		d += e.N * s.p.Cost(e.Step)
		s.res.Counters.Add(e.Step, e.N)
		if e.Step == StepRCUBarrier {
			s.res.Counters.RCUBarrierExecuted += e.N
		}
	}
	r.Locked = d
	s.res.LockHeldNs += d
	s.push(costEvent{at: at + d, kind: evUnlock, thread: th})
}

// unlocked runs th's steps after rtnl_unlock from entry from at time at,
// stopping at an rcu_barrier (an event, so barrier callers are served in
// time order), then finishes the request and issues the next.
func (s *costSim) unlocked(th int32, at int64, from int) {
	w := s.threads[th][s.next[th]]
	for i := from; i < len(w.Unlocked); i++ {
		e := w.Unlocked[i]
		if e.N == 0 {
			continue
		}
		if e.Step == StepRCUBarrier {
			s.push(costEvent{at: at, kind: evBarrier, thread: th, step: int32(i), left: e.N})
			return
		}
		s.res.Counters.Add(e.Step, e.N)
		at += e.N * s.p.Cost(e.Step)
	}
	r := s.cur(th)
	r.End = at
	r.Unlocked = at - (r.Arrive + r.LockWait + r.Locked)
	s.res.ThreadEnd[th] = at
	s.next[th]++
	if s.next[th] < len(s.threads[th]) {
		s.push(costEvent{at: at, kind: evLock, thread: th})
	}
}

// rcuBarrier is one rcu_barrier() call arriving at time at: it returns when
// the call returns and whether it shared a barrier another caller started.
func (s *costSim) rcuBarrier(at int64) (end int64, shared bool) {
	s.res.Counters.RCUBarrier++
	b := s.p.RCUBarrierNs
	switch {
	case s.barrier && at < s.barStart:
		// The next barrier is already queued behind barrier_mutex by a
		// caller that arrived while the running one ran: its snapshot is
		// ours, so its barrier is ours (EarlyExit once we get the mutex).
		return s.barEnd, true
	case s.barrier && at < s.barEnd && at < s.barStart+s.p.RCUBarrierShareWindowNs:
		// A barrier runs but its grace period had not started when our
		// callbacks were queued: they ride on it, and we return with it.
		return s.barEnd, true
	case s.barrier && at < s.barEnd:
		// A barrier runs: we need the next one; we are its first caller,
		// so we run it when the running one ends.
		s.barStart, s.barEnd = s.barEnd, s.barEnd+b
	default:
		// No barrier runs: ours starts now.
		s.barrier = true
		s.barStart, s.barEnd = at, at+b
	}
	s.res.Counters.RCUBarrierExecuted++
	return s.barEnd, false
}
