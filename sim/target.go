package sim

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/fibtrie"
	"github.com/rtnlsim/rtnlsim/netdevindex"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// Options configure a sim target.
type Options struct {
	// Seed drives every value the kernel would pick at random (MAC
	// addresses): the same seed and script give the same State.
	Seed int64
	// Index is the netdev index era; the zero value is netdevindex.Since69,
	// the kernel of this machine (6.18).
	Index netdevindex.Options
	// Cost prices the kernel's steps in virtual ns; nil takes
	// DefaultPrices (a profile file from `rtnlsim calibrate` brings this
	// machine's).
	Cost *cost.Params
	// Unregister is the batch structure of unregister_netdevice_many; the
	// zero value is UnregisterStepsV618.
	Unregister *UnregisterSteps
	// BulkIfindex is the +bulk-ifindex profile switch: `link del list` is
	// one RTM_DELLINK with many IFLA_IFINDEX (one unregister batch);
	// without it, the list is sent as one RTM_DELLINK per device, as the
	// kernel target does (sim/dellist.go).
	BulkIfindex bool
	// Events keeps every notification for Events; without it they are
	// only counted (a million-device run need not hold them).
	Events bool
	// FIB selects the fib_trie behaviour (fibtrie.Options; the zero value
	// is this machine's 6.18).
	FIB fibtrie.Options
	// IfaFlush is the +ifa-flush profile switch (seed 001): `addr flush`
	// deletes with IFA_F_FLUSH (no promotion), in one request.
	IfaFlush bool
	// FlushWholeDump makes `addr flush` a client that reads each round's
	// whole dump before it deletes (the project's own client did, before
	// the kernel target ran ip), not iproute2, whose deletes interleave
	// with its reads (sim/ipflush.go).
	FlushWholeDump bool
	// MACOrder, when set, places some of the addresses the model picks
	// at random in a given order: a differential run passes the order of
	// the kernel's random picks (never their values), so that what
	// depends on that order (which port gives a bridge its address, hence
	// its CHANGEADDR notifications and its link-local address) comes out
	// the same. A device MACOrder ranks gets RankedMAC(rank); any other
	// random address is drawn from the seed. An address the request
	// gives, or one a device inherits, is the model's own business.
	MACOrder MACOrder
	// Start is the net.ipv4.conf state the namespace starts from, as the
	// kernel target read it in its fresh namespace (kernel.Target.
	// StartConf): the values of all, default and lo, and default's state
	// bits. The zero value is the compiled-in state.
	Start rtnl.StartConf
	// Sysctls are written before the first request, in key order, as the
	// kernel target's Options.Sysctls are: keys in the script's dotted
	// form or as paths under /proc/sys ("net/ipv6/conf/all/disable_ipv6").
	Sysctls map[string]string
}

// MACOrder returns the rank (0 for the lowest) among the random addresses
// of a run of the address the req-th request (1-based) picks at random for
// device name (NetnsDevName: NS/NAME in a namespace the script made), or
// false to leave it to the seed.
type MACOrder func(req int, name string) (rank int, ok bool)

// RankedMAC is the address the model gives the random pick of rank
// (MACOrder): a prefix drawn from the seed (unicast, locally administered,
// first byte above 02, so above the 02:00:... addresses scripts write),
// then the rank, so that the order of the ranks is the order of the
// addresses. It does not depend on the script.
func (t *Target) RankedMAC(rank int) net.HardwareAddr {
	seed := uint64(t.opts.Seed)
	v := rand.New(rand.NewPCG(seed^0x6d61636f72646572, seed)).Uint64()
	return net.HardwareAddr{0x02 | byte(4*(1+v%63)), byte(v >> 8), byte(v >> 16), byte(rank >> 16), byte(rank >> 8), byte(rank)}
}

// Target is the model as an rtnl.Target. It has no global state; a Target
// is for one goroutine at a time.
type Target struct {
	opts Options
	rng  *rand.Rand
	// namespaces by name; requests go to the initial one ("") until the
	// language grows netns operations.
	namespaces map[string]*Netns
	// order names the script's namespaces in the order it made them;
	// dead are those it deleted (their notifications stay reported),
	// ranks every namespace it made by when.
	order []string
	dead  []*Netns
	ranks []string
	// macs picks a new device's address (Options.MACOrder), in every
	// namespace.
	macs    func(req int, name string) net.HardwareAddr
	closed  bool
	initErr error // a failed Options.Sysctls write, which Apply returns
	// answer is the last route get's (rtnl.Answerer).
	answer *rtnl.RouteEntry
	ev     *eventLog
	// workIDs is what each applied request cost, in order, for the cost
	// model (an unregister batch or a plain request): an index in works,
	// with lastPart set on the last kernel request of a script request (a
	// list delete without +bulk-ifindex makes several), which is all
	// CostSources needs.
	workIDs []uint32
	applied int32 // requests recorded so far
	parts   int32 // kernel requests recorded for the request being applied
	// works are the distinct works recorded, interned by their key
	// (sim/devlist.go): a million requests keep 4 bytes each.
	works    []cost.Work
	interned map[string]uint32
	plainID  uint32 // plainWork's index in works plus one, 0 before its first use
	// scratch and keyBuf are reused for each request's steps and their
	// intern key.
	scratch []cost.StepN
	keyBuf  []byte
}

// New makes a sim target with one namespace holding its loopback.
func New(opts Options) *Target {
	if opts.Index == (netdevindex.Options{}) {
		opts.Index = netdevindex.Since69()
	}
	// The target keeps its own copies: a caller's later edits of what the
	// options point to must not change a running model.
	if opts.Cost != nil {
		c := *opts.Cost
		opts.Cost = &c
	}
	if opts.Unregister != nil {
		u := *opts.Unregister
		opts.Unregister = &u
	}
	opts.Sysctls = maps.Clone(opts.Sysctls)
	seed := uint64(opts.Seed)
	t := &Target{opts: opts, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), namespaces: map[string]*Netns{}}
	t.ev = &eventLog{record: opts.Events}
	var macs func(req int, name string) net.HardwareAddr
	if opts.MACOrder != nil {
		macs = func(req int, name string) net.HardwareAddr {
			if r, ok := opts.MACOrder(req, name); ok {
				return t.RankedMAC(r)
			}
			return nil
		}
	}
	t.macs = macs
	ns := newNetns("", t.rng, opts.Index, opts.FIB, t.ev, macs)
	ns.ifaFlush = opts.IfaFlush
	ns.flushWholeDump = opts.FlushWholeDump
	t.namespaces[""] = ns
	ns.lookupNetns = t.Named
	if err := ns.startConf(opts.Start); err != nil {
		t.initErr = fmt.Errorf("sim target: Options.Start: %w", err)
	}
	for _, k := range slices.Sorted(maps.Keys(opts.Sysctls)) {
		op := rtnl.Sysctl{Key: strings.ReplaceAll(k, "/", "."), Value: opts.Sysctls[k]}
		if err := ns.sysctl(op); err != nil && t.initErr == nil {
			t.initErr = fmt.Errorf("sim target: Options.Sysctls: %w", err)
		}
	}
	ns.takeInetWork() // what they did comes before the first request
	return t
}

// Netns returns the initial namespace.
func (t *Target) Netns() *Netns { return t.namespaces[""] }

// ErrClosed is returned by a closed target.
var ErrClosed = errors.New("sim target: closed")

// ErrNotModelled is returned for requests the model does not cover (IPv6
// addresses and routes). It carries no errno on purpose: a run stops with
// it instead of reporting a refusal the kernel would not make.
var ErrNotModelled = errors.New("sim target: not modelled yet")

// Apply carries out one request. What the model does not cover (IPv6
// route replace, for one) fails with ErrNotModelled.
func (t *Target) Apply(ctx context.Context, req rtnl.Request) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	n, err := t.begin()
	if err != nil {
		return err
	}
	op := req.Op
	if in, ok := op.(rtnl.InNetns); ok {
		if n = t.Named(in.Name); n == nil {
			t.finish(t.Netns(), cost.Work{})
			return errNoNetns(in.Name)
		}
		op = in.Op
	}
	switch op := op.(type) {
	case rtnl.NetnsAdd:
		err = t.netnsAdd(op.Name)
	case rtnl.NetnsDel:
		err = t.netnsDel(op.Name)
	case rtnl.ShowOp:
		// A dump changes nothing; the run reads the state (rtnl.Run).
		// iproute2 looks the device up first.
		if op.Dev != "" && n.ByName(op.Dev) == nil {
			err = enodev(op.Dev)
		}
	case rtnl.LinkAdd:
		err = n.linkAdd(op)
	case rtnl.LinkSet:
		err = n.linkSet(op)
	case rtnl.LinkDel:
		err = n.linkDel(op)
	case rtnl.LinkDelGroup:
		err = n.linkDelGroup(op)
	case rtnl.LinkDelList:
		err = t.linkDelList(n, op)
	case rtnl.LinkProp:
		err = n.linkProp(op)
	case rtnl.Sysctl:
		err = n.sysctl(op)
	case rtnl.AddrAdd:
		err = n.addrAdd(op)
	case rtnl.AddrDel:
		err = n.addrDel(op)
	case rtnl.AddrFlush:
		err = n.addrFlush(op)
	case rtnl.RouteAdd, rtnl.RouteDel, rtnl.RouteReplace, rtnl.RouteAppend, rtnl.RoutePrepend, rtnl.RouteChange, rtnl.RouteFlush:
		err = n.route(op)
	case rtnl.RouteGet:
		var got rtnl.RouteEntry
		if op.Dst.Is6() {
			got, err = n.routeGet6(op)
		} else {
			got, err = n.routeGet(op)
		}
		t.answer = &got
	case rtnl.RuleAdd:
		err = n.ruleAdd(op.Rule)
	case rtnl.RuleDel:
		err = n.ruleDel(op.Rule)
	case rtnl.NexthopAdd, rtnl.NexthopDel, rtnl.NexthopFlush:
		err = n.nexthopOp(op)
	case rtnl.RuleFlush:
		err = n.ruleFlush(op)
	default:
		err = fmt.Errorf("%w: %T", errUnsupported, op)
	}
	if errors.Is(err, ErrNotModelled) || errors.Is(err, errUnsupported) {
		// Refused before it changed anything: the request did not happen,
		// so it takes no number (its notifications' and its cost entry's
		// numbering stay in step).
		t.ev.req--
		t.syncReq()
		return err
	}
	t.finish(n, cost.Work{})
	return err
}

// Answer is the last route get's answer (rtnl.Answerer).
func (t *Target) Answer() (rtnl.RouteEntry, bool) {
	if t.answer == nil {
		return rtnl.RouteEntry{}, false
	}
	return *t.answer, true
}

// syncReq numbers the named namespaces' notifications as the target's
// own: each log takes the request being applied.
func (t *Target) syncReq() {
	for _, name := range t.order {
		t.namespaces[name].ev.req = t.ev.req
	}
}

// errUnsupported is an Op type the sim target does not take.
var errUnsupported = errors.New("sim target: request type not supported")

// errIPv6NotModelled refuses an IPv4 route request with an IPv6 gateway
// or source.
var errIPv6NotModelled = fmt.Errorf("%w: an IPv4 route with an IPv6 gateway or source", ErrNotModelled)

// begin starts a request: the namespace it goes to, numbered for its
// notifications.
func (t *Target) begin() (*Netns, error) {
	if t.closed {
		return nil, ErrClosed
	}
	if t.initErr != nil {
		return nil, t.initErr
	}
	n := t.Netns()
	if n.exited {
		return nil, ErrNetnsExited
	}
	t.ev.req++
	t.syncReq()
	return n, nil
}

// finish ends a request: the kernel's deferred linkwatch work, run to
// completion, then its cost work recorded, with extra unlocked steps.
func (t *Target) finish(n *Netns, extra cost.Work) {
	n.runDeferred()
	if len(t.order) > 0 {
		// linkwatch is one work for all namespaces: what a request
		// queued in another (a veth peer's carrier) runs too.
		if o := t.Netns(); o != n {
			o.runDeferred()
		}
		for _, name := range t.order {
			if o := t.namespaces[name]; o != n {
				o.runDeferred()
			}
		}
	}
	w := t.requestWork(n)
	for _, e := range extra.Unlocked {
		w.AddUnlocked(e.Step, e.N)
	}
	t.recordWork(w)
}

// requestWork is the cost of the request just applied: the batch it
// unregistered (UnregisterRequestWork, whose notifications are counted by
// that formula), or a plain request with the notifications it sent, each
// priced as one netdev notifier chain call and one notification (an
// approximation: a chain call that sends nothing, such as NETDEV_PRE_UP,
// is not counted).
func (t *Target) requestWork(n *Netns) cost.Work {
	batch := n.unregistered
	n.unregistered = nil
	sent := int64(n.reqNotifications)
	n.reqNotifications = 0
	syncs := int64(n.reqDeactivateSyncs)
	n.reqDeactivateSyncs = 0
	iw := n.takeInetWork()
	if len(batch) == 0 {
		// A flush is several netlink requests (dumps and deletes).
		// The steps go in a scratch list: recordPart keeps a copy.
		w := cost.Work{Locked: append(t.scratch[:0], cost.StepN{Step: cost.StepRequest, N: max(1, int64(iw.requests))})}
		w.AddLocked(cost.StepNotifierCall, sent)
		w.AddLocked(cost.StepNotification, sent)
		// dev_close of a device with a queue: dev_deactivate_many's
		// synchronize_net, expedited under RTNL.
		w.AddLocked(cost.StepSynchronizeNetExpedited, syncs)
		iw.addTo(&w)
		t.scratch = w.Locked[:0]
		return w
	}
	steps := UnregisterStepsV618()
	if t.opts.Unregister != nil {
		steps = *t.opts.Unregister
	}
	w := UnregisterRequestWork(steps, batch)
	// The formula counts the RTM_NEWLINK of each closed device and the
	// RTM_DELLINK of each; what else the sim sent in the batch (IPv4
	// RTM_DELADDR and RTM_DELROUTE of the devices' addresses, bridge
	// port and macvlan lower notifications) is charged on top.
	formula := int64(len(batch))
	for _, d := range batch {
		if d.Up {
			formula++
		}
	}
	w.AddLocked(cost.StepNotification, sent-formula)
	iw.addTo(&w)
	return w
}

// inetWork is the address and FIB work of one request, with the IPv6
// walks and notifications of the IPv6 estimate (sim/ipv6cost.go).
type inetWork struct {
	requests                                int
	walk, fibOps, flushLeaves, suffixVisits int64
	flushTnodes                             int64
	walkFar, scanChecks, tnodes             int64
	v6Walk, v6Far, v6Notes                  int64
	v6Cold, v6Config, v6List                int64
	fibInserts                              int64
}

// addTo charges the work under rtnl_lock.
func (iw inetWork) addTo(w *cost.Work) {
	w.AddLocked(cost.StepIPv6Walk, iw.v6Walk)
	w.AddLocked(cost.StepIPv6WalkFar, iw.v6Far)
	w.AddLocked(cost.StepIPv6WalkCold, iw.v6Cold)
	w.AddLocked(cost.StepIPv6RouteList, iw.v6List)
	w.AddLocked(cost.StepIPv6DevConfig, iw.v6Config)
	w.AddLocked(cost.StepNotification, iw.v6Notes)
	w.AddLocked(cost.StepIfaWalk, iw.walk)
	w.AddLocked(cost.StepIfaWalkFar, iw.walkFar)
	w.AddLocked(cost.StepIfaScanCheck, iw.scanChecks)
	w.AddLocked(cost.StepFibOp, iw.fibOps)
	w.AddLocked(cost.StepFibInsert, iw.fibInserts)
	w.AddLocked(cost.StepFibFlushLeaf, iw.flushLeaves)
	w.AddLocked(cost.StepFibFlushTnode, iw.flushTnodes)
	w.AddLocked(cost.StepTrieSuffixVisit, iw.suffixVisits)
	w.AddLocked(cost.StepTrieTnodeNew, iw.tnodes)
}

// takeInetWork is the address and FIB work since the last call.
func (n *Netns) takeInetWork() inetWork {
	inet, fc, tc := n.inetCount, n.fibCount, n.fib.Counters()
	last := n.lastInet
	n.lastInet = inetSnapshot{inet, fc, tc, n.v6.walk, n.v6.far, n.v6.notes, n.v6.cold, n.v6.config, n.v6.list}
	n.v6.endRequest()
	return inetWork{
		v6Walk:       n.v6.walk - last.v6Walk,
		v6Far:        n.v6.far - last.v6Far,
		v6Cold:       n.v6.cold - last.v6Cold,
		v6List:       n.v6.list - last.v6List,
		v6Config:     n.v6.config - last.v6Config,
		v6Notes:      n.v6.notes - last.v6Notes,
		requests:     inet.Requests - last.inet.Requests,
		walk:         int64(inet.WalkSteps-last.inet.WalkSteps) + int64(fc.IfaScanSteps-last.fib.IfaScanSteps),
		walkFar:      int64(fc.IfaScanFarSteps - last.fib.IfaScanFarSteps),
		scanChecks:   int64(fc.IfaScanCheckSteps - last.fib.IfaScanCheckSteps),
		fibOps:       int64(fc.Inserts+fc.Deletes) - int64(last.fib.Inserts+last.fib.Deletes),
		fibInserts:   int64(fc.Inserts) - int64(last.fib.Inserts),
		flushLeaves:  int64(tc.FlushLeafVisits - last.trie.FlushLeafVisits),
		flushTnodes:  int64(fc.FlushTnodes - last.fib.FlushTnodes),
		suffixVisits: int64(tc.UpdateSuffixVisits - last.trie.UpdateSuffixVisits),
		tnodes:       int64(tc.TnodeAllocs - last.trie.TnodeAllocs),
	}
}

// inetSnapshot is the counters at the end of the last request.
type inetSnapshot struct {
	inet                   DevinetCounters
	fib                    FibCounters
	trie                   fibtrie.Counters
	v6Walk, v6Far, v6Notes int64
	v6Cold, v6Config       int64
	v6List                 int64
}

// Cost runs the requests applied so far through the cost engine, split in
// order over threads user threads (as `--threads N`).
func (t *Target) Cost(threads int) (cost.Result, error) {
	p, err := t.Prices()
	if err != nil {
		return cost.Result{}, err
	}
	return cost.Simulate(p, cost.SplitInOrder(t.workList(), threads))
}

// sysctl stores a net.ipv4.conf key: all, default, or a device that has
// IPv4 (an mtu below 68 takes it away); ENOENT otherwise, as the missing
// /proc/sys file is. promote_secondaries, ignore_routes_with_linkdown,
// and forwarding, rp_filter and accept_local (route get with iif) are
// followed; the other keys the language has are stored (nothing the model
// shows depends on them).
func (n *Netns) sysctl(op rtnl.Sysctl) error {
	if rest, ok := strings.CutPrefix(op.Key, "net.ipv6.conf."); ok {
		return n.sysctlIPv6(op, rest) // disable_ipv6 only (sim/ipv6cost.go)
	}
	if op.Key == "net.ipv4.ip_forward" {
		v, err := strconv.Atoi(strings.TrimSpace(op.Value))
		if err != nil {
			return &rtnl.Error{Errno: uapi.EINVAL, Msg: "sysctl " + op.Key + "=" + op.Value}
		}
		n.sysctls[op.Key] = op.Value
		n.routeConfWrite("all", "forwarding", v) // the same value as all's
		return nil
	}
	rest, ok := strings.CutPrefix(op.Key, "net.ipv4.conf.")
	i := strings.LastIndex(rest, ".")
	if !ok || i <= 0 {
		return &rtnl.Error{Errno: uapi.ENOENT, Msg: "sysctl " + op.Key}
	}
	dev, key := rest[:i], rest[i+1:]
	if !slices.Contains(storedConfKeys, key) {
		return &rtnl.Error{Errno: uapi.ENOENT, Msg: "sysctl " + op.Key}
	}
	if dev != "all" && dev != "default" {
		d := n.byDevName(dev)
		if d == nil || d.in == nil {
			return &rtnl.Error{Errno: uapi.ENOENT, Msg: "sysctl " + op.Key}
		}
	}
	v, err := strconv.Atoi(strings.TrimSpace(op.Value))
	if err != nil {
		return &rtnl.Error{Errno: uapi.EINVAL, Msg: "sysctl " + op.Key + "=" + op.Value}
	}
	n.sysctls[op.Key] = op.Value
	switch key {
	case "promote_secondaries":
		n.promoteSysctl(dev, v != 0)
	case "ignore_routes_with_linkdown":
		n.linkdownSysctl(dev, v != 0)
	case "forwarding", "rp_filter", "accept_local":
		n.routeConfWrite(dev, key, v)
	}
	return nil
}

// storedConfKeys are the net.ipv4.conf keys the model takes.
var storedConfKeys = []string{"promote_secondaries", "forwarding", "rp_filter", "arp_ignore", "arp_announce",
	"arp_filter", "proxy_arp", "accept_local", "log_martians", "ignore_routes_with_linkdown"}

// Sysctl returns a value written with the sysctl request, if any.
func (n *Netns) Sysctl(key string) (string, bool) {
	v, ok := n.sysctls[key]
	return v, ok
}

// State returns the links, addresses and routes (IPv4, and the IPv6 the
// kernel configures by itself) in `ip -j` shape and dump order, and the
// FIB's /proc texts.
func (t *Target) State(ctx context.Context, show rtnl.Show) (rtnl.State, error) {
	if err := ctx.Err(); err != nil {
		return rtnl.State{}, err
	}
	if t.closed {
		return rtnl.State{}, ErrClosed
	}
	st := t.Netns().state(show)
	for _, name := range t.order {
		st.Netns = append(st.Netns, rtnl.NetnsState{Name: name, State: t.namespaces[name].state(show)})
	}
	return st, nil
}

// state is what show asks for of one namespace.
func (n *Netns) state(show rtnl.Show) rtnl.State {
	var st rtnl.State
	if show.Links {
		st.Links = n.Links()
	}
	if show.Addrs {
		st.Addrs = n.Addrs()
	}
	if show.Routes {
		st.Routes = n.Routes()
	}
	if show.Rules {
		st.Rules = n.Rules()
	}
	if show.Routes {
		st.Nexthops = n.Nexthops()
	}
	if show.FibTrie {
		st.FibTrie = n.fib.Render()
		st.FibTrieStat = n.fib.RenderStat()
	}
	return st
}

// ErrNoEvents is what Events says of a target made without
// Options.Events.
var ErrNoEvents = errors.New("sim target: notifications were not recorded (make the target with Options.Events)")

// Events returns the notifications sent so far, numbered by request, with
// linkwatch's marked Deferred.
func (t *Target) Events(ctx context.Context) ([]rtnl.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !t.ev.record {
		return nil, ErrNoEvents
	}
	return t.mergedEvents(), nil
}

// mergedEvents are the target's own notifications, then each named
// namespace's (marked with its name), request by request: a listener
// per namespace sees its own in order, but nothing orders two
// namespaces' notifications of one request.
func (t *Target) mergedEvents() []rtnl.Event {
	out := append([]rtnl.Event(nil), t.ev.list...)
	if len(t.ranks) == 0 {
		return out
	}
	all := append([]*Netns(nil), t.dead...)
	for _, name := range t.order {
		all = append(all, t.namespaces[name])
	}
	for _, ns := range all {
		for _, e := range ns.ev.list {
			e.Netns = ns.name
			out = append(out, e)
		}
	}
	return rtnl.SortEventsByRequest(out, t.ranks)
}

// Close releases the target.
func (t *Target) Close() error {
	t.closed = true
	return nil
}

var _ rtnl.Target = (*Target)(nil)

// Work is each request's cost work so far, in request order (a copy):
// what calibration and traces price.
func (t *Target) Work() []cost.Work {
	out := make([]cost.Work, len(t.workIDs))
	for i, w := range t.workList() {
		// Requests share step arrays (plainWork): a caller's edit must
		// not reach the target's record.
		out[i] = cost.Work{Locked: slices.Clone(w.Locked), Unlocked: slices.Clone(w.Unlocked)}
	}
	return out
}

// Forget drops what the target recorded so far (the cost work and its
// sources, the notifications, the trace) and numbers the next request as
// the first, so that Cost, Work, CostSources, Events and Trace cover only
// what comes after, on a fresh virtual clock. The state stays: a setup
// applied before Forget shapes what follows without being priced.
// Options.MACOrder's request numbers restart too.
func (t *Target) Forget() {
	t.workIDs = nil
	t.applied, t.parts = 0, 0
	t.ev.list, t.ev.req = nil, 0
	for _, name := range t.order {
		t.namespaces[name].ev.list = nil
	}
	for _, ns := range t.dead {
		ns.ev.list = nil
	}
	t.syncReq()
	if r := t.ev.trace; r != nil {
		// A trace started before keeps going, from the next request.
		r.base, r.done, r.cur = 0, nil, traceCollect{}
		r.last = t.Netns().traceSnapshot()
	}
}
