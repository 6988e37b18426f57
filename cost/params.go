package cost

import (
	"fmt"
	"math"
	"reflect"
	"strings"
)

// Params is the cost of each step in virtual nanoseconds: the parameter
// set of a profile. Prices are fractional: a list step costs a few ns, and
// whole nanoseconds would round it by up to 10%.
type Params struct {
	RequestNs                 float64 `json:"request_ns"`
	RCUBarrierNs              float64 `json:"rcu_barrier_ns"`
	SynchronizeNetNs          float64 `json:"synchronize_net_ns"`
	SynchronizeNetExpeditedNs float64 `json:"synchronize_net_expedited_ns"`
	UnregisterDeviceNs        float64 `json:"unregister_device_ns"`
	NotifierCallNs            float64 `json:"notifier_call_ns"`
	NotificationNs            float64 `json:"notification_ns"`
	IfaWalkNs                 float64 `json:"ifa_walk_ns"`
	FibOpNs                   float64 `json:"fib_op_ns"`
	FibFlushLeafNs            float64 `json:"fib_flush_leaf_ns"`
	TrieSuffixVisitNs         float64 `json:"trie_suffix_visit_ns"`
	IPv6WalkNs                float64 `json:"ipv6_walk_ns"`
	SetnsNs                   float64 `json:"setns_ns"`
	NlSocketNs                float64 `json:"nl_socket_ns"`
	DumpRequestNs             float64 `json:"dump_request_ns"`
	DumpChunkNs               float64 `json:"dump_chunk_ns"`
	LinkFillNs                float64 `json:"link_fill_ns"`
	AddrFillNs                float64 `json:"addr_fill_ns"`
	PeerLookupNs              float64 `json:"peer_lookup_ns"`
	NsidWalkNs                float64 `json:"nsid_walk_ns"`
	IPv6WalkFarNs             float64 `json:"ipv6_walk_far_ns"`
	IPv6WalkColdNs            float64 `json:"ipv6_walk_cold_ns"`
	IPv6DevConfigNs           float64 `json:"ipv6_dev_config_ns"`
	FibInsertNs               float64 `json:"fib_insert_ns"`
	IPv6RouteListNs           float64 `json:"ipv6_route_list_ns"`
	IfaWalkFarNs              float64 `json:"ifa_walk_far_ns"`
	ClientLineNs              float64 `json:"client_line_ns"`
	RCUBarrierUpNs            float64 `json:"rcu_barrier_up_ns"`
	FibFlushTnodeNs           float64 `json:"fib_flush_tnode_ns"`
	IfaScanCheckNs            float64 `json:"ifa_scan_check_ns"`
	TrieTnodeNewNs            float64 `json:"trie_tnode_new_ns"`

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

// Times is the virtual time of n steps s, to the nearest nanosecond.
func (p Params) Times(n int64, s Step) int64 {
	return int64(math.Round(float64(n) * p.Cost(s)))
}

// Cost returns the virtual nanoseconds of one s.
func (p Params) Cost(s Step) float64 {
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
	case StepRCUBarrierUp:
		return p.RCUBarrierUpNs
	case StepFibFlushTnode:
		return p.FibFlushTnodeNs
	case StepIfaScanCheck:
		return p.IfaScanCheckNs
	case StepTrieTnodeNew:
		return p.TrieTnodeNewNs
	}
	panic(fmt.Sprintf("cost: cost of unknown step %d", s))
}

// Validate refuses negative costs.
func (p Params) Validate() error {
	for _, s := range Steps() {
		if p.Cost(s) < 0 {
			return fmt.Errorf("cost params: %s is negative (%.2f ns)", s, p.Cost(s))
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
func (p *Params) Set(s Step, ns float64) error {
	v := reflect.ValueOf(p).Elem()
	want := s.String() + "_ns"
	for i := 0; i < v.NumField(); i++ {
		if tag, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ","); tag == want {
			v.Field(i).SetFloat(ns)
			if p.Cost(s) != ns {
				return fmt.Errorf("cost: field %s does not price step %s", want, s)
			}
			return nil
		}
	}
	return fmt.Errorf("cost: Params has no field tagged %q for step %s", want, s)
}
