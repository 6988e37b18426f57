package cost

import "fmt"

// Step names a kernel step the cost model counts and charges.
type Step uint8

const (
	// StepRequest is one rtnetlink request handled under rtnl_lock (receive,
	// parse, lookup, reply), apart from the steps below.
	StepRequest Step = iota
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
	// StepIfaWalkFar is one entry of an IPv4 address-list scan
	// (fib_del_ifaddr's, inet_ifa_byprefix's) beyond the scan's first
	// sim.IfaWalkCacheEntries entries, priced on top of StepIfaWalk: a scan
	// of a longer list no longer finds its entries in the core's L2 cache,
	// and each step is a dependent load.
	StepIfaWalkFar
	// StepClientLine is one line a client such as ip -b sends on its own
	// and waits for: building the message, sendmsg, reading the ack. A
	// flush's deletes, sent many to a buffer with no ack, make none; the
	// sim target counts none either: the client model adds them
	// (internal/ipbatch). Not under rtnl_lock.
	StepClientLine
	// StepRCUBarrierUp is what netdev_run_todo's rcu_barrier waits beyond
	// its usual time when the batch closed a device that was UP, priced on
	// top of StepRCUBarrier: it follows that request's barrier call in its
	// work, and a barrier the request runs lasts that much longer (callers
	// who share it wait with it; one who shares another's does not add
	// it). Sampling
	// the kernel stack of `ip -b` deleting ifb devices one by one here
	// (6.18, 2 CPUs) found the same single rcu_barrier per request for UP
	// and DOWN devices, 95% of the time, yet UP ones took 21 to 26 ms a
	// deletion against 16 for DOWN ones, on an idle machine; with the
	// other CPU kept busy both took 16 ms. So it is the barrier's wait for
	// the RCU callbacks that closing a device queues, on a CPU that was
	// idle: a price of this machine's idle state, not of a code path.
	StepRCUBarrierUp
	// StepFibFlushTnode is one tnode a fib_table_flush walk finishes: its
	// update_suffix and resize calls and the descent into it, priced on
	// top of the leaves and suffix slots it holds. A trie of addressed
	// devices has a small tnode for each device's three routes (1,001
	// tnodes for 3,000 leaves with 1,000 devices, /proc/net/fib_triestat
	// on this machine's 6.18), where routes added in bulk sit side by side
	// in a few big tnodes. Taking such devices down one by one cost this
	// kernel about 50 ns a leaf per flush, routes in bulk about 20, and
	// one price per leaf could not fit both. The tnodes those resizes
	// build are priced apart, on top (StepTrieTnodeNew).
	StepFibFlushTnode
	// StepIfaScanCheck is one entry of fib_del_ifaddr's scan that the scan
	// compares with the deleted address (its subnet, its local and
	// broadcast addresses), priced on top of StepIfaWalk. The scans a
	// promotion makes skip the promoted subnet's entries after two
	// compares; the scans of secondaries deleted with their primary, no
	// promotion, compare every entry. On this machine's 6.18, at 4,000
	// addresses in one /8 through ip -b, deleting the primary with
	// promote_secondaries 1 cost about 5.5 ns an entry of its scans and
	// addr flush with promote_secondaries 0 about 8.5 ns.
	StepIfaScanCheck
	// StepTrieTnodeNew is one tnode_new of the IPv4 FIB trie: a new 1-bit
	// tnode where an insert meets a leaf, and every tnode an inflate or a
	// halve builds, with the children moved into it and the RCU free of
	// the one it replaces. Deleting routes in key order halves a big
	// tnode again and again, and each halve's new 1-bit tnodes inflate at
	// once: flushing N /24s through ip -b on this machine's 6.18 cost
	// about 1.3 us a route plus 0.46 us per tnode the model counts,
	// from 2,000 to 65,000 routes, whose tnodes ran from 3.6 to 11 a
	// route (route flush with lo up, where update_suffix finds no empty
	// slots to read).
	StepTrieTnodeNew

	numSteps
)

var stepNames = [numSteps]string{
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
	StepIfaWalkFar:              "ifa_walk_far",
	StepClientLine:              "client_line",
	StepRCUBarrierUp:            "rcu_barrier_up",
	StepFibFlushTnode:           "fib_flush_tnode",
	StepIfaScanCheck:            "ifa_scan_check",
	StepTrieTnodeNew:            "trie_tnode_new",
}

// Steps lists every step in order.
func Steps() []Step {
	s := make([]Step, numSteps)
	for i := range s {
		s[i] = Step(i)
	}
	return s
}

func (s Step) String() string {
	if s < numSteps {
		return stepNames[s]
	}
	return fmt.Sprintf("Step(%d)", uint8(s))
}
