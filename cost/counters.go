package cost

import "fmt"

// Counters counts step calls; RCUBarrierExecuted counts barriers that
// ran, RCUBarrier counts calls (a call that shared another caller's barrier
// counts once in RCUBarrier and not in RCUBarrierExecuted).
type Counters struct {
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
	IfaWalkFar              int64 `json:"ifa_walk_far"`
	ClientLine              int64 `json:"client_line"`
	RCUBarrierUp            int64 `json:"rcu_barrier_up"`
	FibFlushTnode           int64 `json:"fib_flush_tnode"`
	IfaScanCheck            int64 `json:"ifa_scan_check"`
	TrieTnodeNew            int64 `json:"trie_tnode_new"`
}

func (c *Counters) field(s Step) *int64 {
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
	case StepIfaWalkFar:
		return &c.IfaWalkFar
	case StepClientLine:
		return &c.ClientLine
	case StepRCUBarrierUp:
		return &c.RCUBarrierUp
	case StepFibFlushTnode:
		return &c.FibFlushTnode
	case StepIfaScanCheck:
		return &c.IfaScanCheck
	case StepTrieTnodeNew:
		return &c.TrieTnodeNew
	}
	panic(fmt.Sprintf("cost: counter of unknown step %d", s))
}

// Add counts n calls of s.
func (c *Counters) Add(s Step, n int64) { *c.field(s) += n }

// Get returns the calls of s.
func (c Counters) Get(s Step) int64 { return *c.field(s) }

// Request is what one request cost. Times are virtual nanoseconds from
// the start of the run.
type Request struct {
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

// Result is the outcome of Simulate.
type Result struct {
	// Requests in thread order, each thread's requests in order.
	Requests []Request `json:"requests"`
	// ThreadEnd is when each thread finished its last request.
	ThreadEnd []int64 `json:"thread_end_ns"`
	// VirtualNs is when the last thread finished.
	VirtualNs int64 `json:"virtual_ns"`
	// LockHeldNs is the total time rtnl_lock was held.
	LockHeldNs int64    `json:"lock_held_ns"`
	Counters   Counters `json:"counters"`
}
