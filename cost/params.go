package cost

import (
	"fmt"
	"reflect"
	"strings"
)

// Params is the cost of each step in virtual nanoseconds: the parameter
// set of a profile.
type Params struct {
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
	IfaWalkFarNs              int64 `json:"ifa_walk_far_ns"`
	ClientLineNs              int64 `json:"client_line_ns"`

	// RCUBarrierShareWindowNs is not a step price but a latency: how long
	// after a barrier starts its grace period can still take the callbacks
	// of later callers. New callbacks get their grace period started by
	// rcu_core on a later scheduling-clock tick, and rcu_barrier entrains
	// its callback behind the last queued one, so a caller that queued its
	// callbacks before that grace period began rides on it and returns
	// with the running barrier (its own barrier then finds nothing to wait
	// for). 0 is the rule without a window: a caller arriving while a
	// barrier runs always needs the next one. Calibration sets 0, what
	// concurrent ip -b processes show on this machine's kernel.
	RCUBarrierShareWindowNs int64 `json:"rcu_barrier_share_window_ns,omitempty"`
}

// Cost returns the virtual nanoseconds of one s.
func (p Params) Cost(s Step) int64 {
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
	case StepIfaWalkFar:
		return p.IfaWalkFarNs
	case StepClientLine:
		return p.ClientLineNs
	}
	panic(fmt.Sprintf("cost: cost of unknown step %d", s))
}

// Validate refuses negative costs.
func (p Params) Validate() error {
	for _, s := range Steps() {
		if p.Cost(s) < 0 {
			return fmt.Errorf("cost params: %s is negative (%d ns)", s, p.Cost(s))
		}
	}
	if p.RCUBarrierShareWindowNs < 0 {
		return fmt.Errorf("cost params: rcu_barrier_share_window is negative (%d ns)", p.RCUBarrierShareWindowNs)
	}
	return nil
}

// Set sets step s's price in p. Params has one field per step,
// whose JSON name is the step's name with "_ns" (request_ns, ...), so a
// new step can be set without a list of fields to keep up to date beside
// Params.Cost; the result is checked against Cost. The calibration
// sets its fitted prices through it.
func (p *Params) Set(s Step, ns int64) error {
	v := reflect.ValueOf(p).Elem()
	want := s.String() + "_ns"
	for i := 0; i < v.NumField(); i++ {
		if tag, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ","); tag == want {
			v.Field(i).SetInt(ns)
			if p.Cost(s) != ns {
				return fmt.Errorf("cost: field %s does not price step %s", want, s)
			}
			return nil
		}
	}
	return fmt.Errorf("cost: Params has no field tagged %q for step %s", want, s)
}
