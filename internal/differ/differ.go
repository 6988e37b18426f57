// Package differ runs one script on the sim target and on a kernel target
// and says where they differ: the errno of every line, the links, the
// addresses, the routes of all tables, /proc/net/fib_trie and the
// notifications request by request. props and `rtnlsim diff` share it,
// so that a counterexample a property prints replays the same way.
//
// A `link del list` line is not a kernel request: the kernel target
// emulates it (kernel/apply.go: every name resolved by RTM_GETLINK first,
// an unknown one ENODEV with nothing sent; then one RTM_DELLINK per
// distinct device, skipping the ENODEV of a device an earlier one took,
// stopping at any other refusal), and the sim without +bulk-ifindex does
// the same. Comparing such a line holds the model to what the kernel did
// with each RTM_DELLINK (devices, notifications, a refusal such as the
// loopback's EOPNOTSUPP), not to the line's own rules, which are the
// emulation's on both sides.
package differ

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/rtnlsim/rtnlsim/internal/compare"
	"github.com/rtnlsim/rtnlsim/kernel"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/sim"
)

// What selects what Run compares besides the errno of every line, which
// it always compares.
type What struct {
	Links   bool // every field; MAC addresses as Run and Kernels say
	Addrs   bool // compare.Addrs: every device's addr_info, exactly, in order
	Routes  bool // compare.Routes: `ip route show table all`, exactly, in order
	Rules   bool // compare.Rules: `ip rule show` and `ip -6 rule show`, exactly, in order
	FibTrie bool // compare.FibTrie: /proc/net/fib_trie, text for text
	// Events compares the notifications of every family the kernel
	// target records (link, bridge, inet addresses and routes), request
	// by request (compare.Events).
	Events bool
	// EventCounts compares, request by request, only how many
	// notifications of each type and family came (compare.EventCounts):
	// for runs that send too many to compare one by one. Events wins
	// when both are set.
	EventCounts bool
	// IPv6 keeps IPv6 on in both namespaces, as the kernel has it: UP
	// devices get link-local addresses and routes, and their
	// notifications are compared too. Without it both sides start with
	// net.ipv6.conf.{all,default}.disable_ipv6=1 (NoIPv6).
	IPv6 bool
	// Checkpoints are 1-based request numbers after which the state
	// (what Links, Addrs, Routes, Rules and FibTrie select) is compared as well
	// as at the end.
	Checkpoints []int

	// linkEventsOnly keeps to the link and bridge notifications (Links).
	linkEventsOnly bool
	// macsRenamed: the kernel's random MACs are renamed to the sim's
	// (Run), so links compare exactly; otherwise (Kernels) up to a
	// renaming (compare.Links).
	macsRenamed bool
}

// All is everything Run can compare: what `rtnlsim diff` compares.
var All = What{Links: true, Addrs: true, Routes: true, Rules: true, FibTrie: true, Events: true}

// Outcome is both sides' results and the first difference ("" when they
// agree).
type Outcome struct {
	Diff string
	// At is the 1-based request the first difference belongs to: its
	// errno, its notifications, or the state after it (the last request
	// for a difference of the final state). 0 when Diff is empty.
	At     int
	Kernel rtnl.Result
	Sim    rtnl.Result // for Kernels, the second kernel's result
	// KernelWall is how long the kernel run took.
	KernelWall time.Duration
	// Timer is the soonest a bridge timer of the script can fire
	// (BridgeTimer); zero for BridgeForwardDelay.
	Timer time.Duration
}

// BridgeForwardDelay is a bridge's default forward delay: that long after
// a port is enabled its forward_delay_timer sends one more notification
// of the port (seen on this kernel: a family-bridge RTM_NEWLINK of the
// port 15.2 s after it came up in an up bridge). The model has no wall clock, so a kernel run that lasted
// longer (a loaded machine) cannot be compared; TooSlow says so.
const BridgeForwardDelay = 15 * time.Second

// TooSlow reports whether the kernel run outlasted the soonest bridge
// timer of the script (Timer), so that timer notifications may be in it.
func (o Outcome) TooSlow() bool { return o.KernelWall >= o.TimerAfter() }

// TimerAfter is Timer, or BridgeForwardDelay when it is zero.
func (o Outcome) TimerAfter() time.Duration {
	if o.Timer == 0 {
		return BridgeForwardDelay
	}
	return o.Timer
}

// BridgeTimer is the soonest a bridge timer that reqs arm can fire after
// the request that armed it, which the model (no wall clock) never
// fires: a port's forward-delay timer, after the forward delay a line
// gives (BridgeForwardDelay by default; the sim refuses one under a
// second without STP), and under STP the hello timer, whose BPDUs may
// reach another port, a second at the least (BR_MIN_HELLO_TIME).
func BridgeTimer(reqs []rtnl.Request) time.Duration {
	t := BridgeForwardDelay
	var walk func(op rtnl.Op)
	walk = func(op rtnl.Op) {
		var o rtnl.BridgeOpts
		switch op := op.(type) {
		case rtnl.InNetns:
			walk(op.Op)
			return
		case rtnl.LinkAdd:
			o = op.Bridge
		case rtnl.LinkSet:
			o = op.Bridge
		default:
			return
		}
		if v := o.ForwardDelay; v != nil && *v != 0 {
			t = min(t, time.Duration(*v)*10*time.Millisecond)
		}
		if v := o.StpState; v != nil && *v != 0 {
			t = min(t, time.Second)
		}
	}
	for _, r := range reqs {
		walk(r.Op)
	}
	return t
}

// TimerLike reports whether a run that outlasted the bridge forward delay
// first differs by a bridge port notification the kernel sent and the
// model did not: what that timer sends. Such a run compares nothing.
func (o Outcome) TimerLike() bool {
	return o.TooSlow() && strings.Contains(o.Diff, ", kernel RTM_NEWLINK bridge")
}

// Links runs reqs on a fresh kernel target first, then on a sim target made
// with opts, and compares errnos, links and the link and bridge
// notifications (address and route notifications, such as the
// loopback's 127.0.0.1 when it comes up, are left out on both sides).
func Links(ctx context.Context, reqs []rtnl.Request, opts sim.Options) (Outcome, error) {
	return Run(ctx, reqs, opts, What{Links: true, Events: true, linkEventsOnly: true})
}

// NoIPv6 is what both namespaces of a comparison start with unless
// What.IPv6 is set: IPv6 off everywhere.
// Paths are relative to /proc/sys, as kernel.Options.Sysctls takes them
// (sim.Options.Sysctls takes both forms).
var NoIPv6 = map[string]string{"net/ipv6/conf/all/disable_ipv6": "1", "net/ipv6/conf/default/disable_ipv6": "1"}

// sysctls is what both namespaces start with.
func (w What) sysctls() map[string]string {
	if w.IPv6 {
		return nil
	}
	return NoIPv6
}

// Run runs reqs on a fresh kernel target first, then on a sim target made
// with opts, and compares the errno of every line and what names, request
// by request: the first difference reported is the one of the earliest
// request (its errno, then its notifications, then the state after it
// when it is a checkpoint or the last request).
//
// The kernel target runs with SyncLinkwatch, so each request ends only
// when its linkwatch work has run and every notification carries its
// request number. Unless what.IPv6 is set, IPv6 is off on both sides.
// The model picks its own MAC addresses. What the kernel picked at random
// (KernelRandomMACs) is renamed to what the model picked for the same
// device (compare.MACRenaming, with the link-local addresses derived
// from them) before comparing, and everything else compares as it is: an
// address a request gives, or one a device takes from another (a bridge
// from its lowest port, a passthru macvlan from its lower), must be the
// same on both sides. The model is told the order of the kernel's random
// picks, never their values (sim.Options.MACOrder), so that what follows
// from that order (which port gives a bridge its address, hence its
// CHANGEADDR notifications and its link-local address) can be compared
// by the rule. The model also starts from the net.ipv4.conf state the
// kernel's namespace started from (opts.Start).
func Run(ctx context.Context, reqs []rtnl.Request, opts sim.Options, what What) (Outcome, error) {
	var picks map[DeviceAt]net.HardwareAddr
	var rank map[string]int
	var st *sim.Target
	what.macsRenamed = true
	return run(ctx, reqs, what, func(kern rtnl.Result, start rtnl.StartConf) rtnl.Target {
		opts.Events = what.Events || what.EventCounts
		opts.Start = start
		picks = KernelRandomMACs(reqs, kern.Events)
		rank = ranks(picks)
		opts.MACOrder = func(req int, name string) (int, bool) {
			a, ok := picks[DeviceAt{req, name}]
			if !ok {
				return 0, false
			}
			return rank[a.String()], true
		}
		opts.Sysctls = what.sysctls()
		st = sim.New(opts)
		return st
	}, func(k, _ *side) {
		m := compare.MACRenaming{}
		for _, a := range picks {
			m.Add(a, st.RankedMAC(rank[a.String()]))
		}
		k.res.Events = m.Events(k.res.Events)
		for r, state := range k.at {
			k.at[r] = m.State(state)
		}
		for i := range k.res.Shown {
			k.res.Shown[i].State = m.State(k.res.Shown[i].State)
			if g := k.res.Shown[i].Got; g != nil {
				// an IPv6 answer's prefsrc may be a link-local address
				r := m.Route(*g)
				k.res.Shown[i].Got = &r
			}
		}
		k.res.State = k.at[len(reqs)]
	})
}

// DeviceAt names a device by the request that made it (1-based) and the
// name it had then (sim.NetnsDevName: with its namespace when the script
// made that).
type DeviceAt struct {
	Req  int
	Name string
}

// KernelRandomMACs are the addresses a kernel run picked at random: for
// each device, the address of the first RTM_NEWLINK (family link) that
// named it in the window of the request that made it, unless that
// address is zero, one the script writes (`address X`), or one an earlier
// notification already showed (a passthru macvlan's, taken from its
// lower).
func KernelRandomMACs(reqs []rtnl.Request, evs []rtnl.Event) map[DeviceAt]net.HardwareAddr {
	written := map[string]bool{"00:00:00:00:00:00": true}
	for _, r := range reqs {
		op := r.Op
		if in, ok := op.(rtnl.InNetns); ok {
			op = in.Op
		}
		switch op := op.(type) {
		case rtnl.LinkAdd:
			written[op.Address.String()] = true
			written[op.PeerAttrs.Address.String()] = true
		case rtnl.LinkSet:
			written[op.Address.String()] = true
		}
	}
	seen := map[string]bool{}
	named := map[DeviceAt]bool{}
	out := map[DeviceAt]net.HardwareAddr{}
	for _, e := range evs {
		l, ok := e.Object.(rtnl.Link)
		if !ok || e.Family != "link" {
			continue
		}
		k := DeviceAt{e.Request, sim.NetnsDevName(e.Netns, l.Ifname)}
		a, err := net.ParseMAC(l.Address)
		if e.Type == "RTM_NEWLINK" && !named[k] {
			named[k] = true
			if err == nil && len(a) == 6 && !written[l.Address] && !seen[l.Address] {
				out[k] = a
			}
		}
		seen[l.Address] = true
	}
	return out
}

// ranks numbers the distinct addresses of picks in ascending order.
func ranks(picks map[DeviceAt]net.HardwareAddr) map[string]int {
	var all []string
	for _, a := range picks {
		all = append(all, string(a))
	}
	slices.Sort(all)
	all = slices.Compact(all)
	out := map[string]int{}
	for i, a := range all {
		out[net.HardwareAddr(a).String()] = i
	}
	return out
}

// Kernels runs reqs on two fresh kernel targets, one after the other, and
// compares them as Run compares the sim with the kernel (Outcome.Sim is
// the second kernel's result): a check of the kernel side, whose runs
// must be deterministic for Run to mean anything. The two kernels pick
// different random MAC addresses, so before comparing every address that
// is not in FixedMACs is renamed on each side in order of first
// appearance (notifications first, then links); a bridge whose address
// follows the lowest port address may still differ.
func Kernels(ctx context.Context, reqs []rtnl.Request, what What) (Outcome, error) {
	return run(ctx, reqs, what, func(rtnl.Result, rtnl.StartConf) rtnl.Target {
		kt, err := newKernel(what)
		if err != nil {
			return failedTarget{err}
		}
		return kt
	}, func(k, s *side) {
		canonMACs(k)
		canonMACs(s)
	})
}

// newKernel is the kernel target the comparisons use.
func newKernel(what What) (*kernel.Target, error) {
	kt, err := kernel.New(kernel.Options{SyncLinkwatch: true, Sysctls: what.sysctls()})
	if err != nil {
		return nil, fmt.Errorf("kernel: %w", err)
	}
	return kt, nil
}

// side is one target's run: its result and the state at each checkpoint.
type side struct {
	res rtnl.Result
	at  map[int]rtnl.State
}

func run(ctx context.Context, reqs []rtnl.Request, what What, second func(kern rtnl.Result, start rtnl.StartConf) rtnl.Target, canon func(k, s *side)) (Outcome, error) {
	var out Outcome
	show := rtnl.Show{Links: what.Links, Addrs: what.Addrs, Routes: what.Routes, Rules: what.Rules, FibTrie: what.FibTrie}
	events := what.Events || what.EventCounts
	kt, err := newKernel(what)
	if err != nil {
		return out, err
	}
	defer kt.Close()
	start := time.Now()
	k, err := apply(ctx, kt, reqs, show, what.Checkpoints)
	if err != nil {
		return out, fmt.Errorf("kernel: %w", err)
	}
	out.KernelWall = time.Since(start)
	out.Timer = BridgeTimer(reqs)
	// The kernel target records notifications in any case; Run finds
	// the kernel's random MAC picks in them even when they are not
	// compared (then a socket that overflowed is no matter: devices are
	// made before the floods that overflow it).
	if k.res.Events, err = kt.Events(ctx); err != nil && events {
		return out, fmt.Errorf("kernel: %w", err)
	}
	st := second(k.res, kt.StartConf())
	defer st.Close()
	if f, ok := st.(failedTarget); ok {
		return out, f.err
	}
	s, err := apply(ctx, st, reqs, show, what.Checkpoints)
	if err != nil {
		return out, fmt.Errorf("%s: %w", sideName(what), err)
	}
	if events {
		if s.res.Events, err = st.Events(ctx); err != nil {
			return out, fmt.Errorf("%s: %w", sideName(what), err)
		}
	}
	canon(&k, &s)
	if what.macsRenamed {
		alignLifetimes(&s, &k)
	}
	out.Kernel, out.Sim = k.res, s.res
	out.At, out.Diff = firstDiff(reqs, what, s, k)
	if out.Diff == "" && what.macsRenamed {
		out.At, out.Diff = shownDiff(s.res.Shown, k.res.Shown)
	}
	return out, nil
}

func sideName(what What) string {
	if !what.macsRenamed {
		return "second kernel"
	}
	return "sim"
}

// apply is rtnl.Run with the state read at the checkpoints too (and the
// notifications left to the caller).
func apply(ctx context.Context, t rtnl.Target, reqs []rtnl.Request, show rtnl.Show, checkpoints []int) (side, error) {
	s := side{at: map[int]rtnl.State{}}
	want := map[int]bool{}
	for _, c := range checkpoints {
		want[c] = true
	}
	readState := show.Links || show.Addrs || show.Routes || show.Rules || show.FibTrie
	// A checkpoint whose state cannot be read stops the run: rtnl.Run
	// checks the context before each request.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var stateErr error
	done := 0
	res, err := rtnl.Run(ctx, t, reqs, show, func(n, total int) {
		done = n
		if readState && want[n] && n < total && stateErr == nil {
			var st rtnl.State
			if st, stateErr = t.State(ctx, show); stateErr != nil {
				stop()
				return
			}
			s.at[n] = st
		}
	})
	s.res = res
	switch {
	case stateErr != nil:
		return s, stateErr
	case err != nil && ctx.Err() == nil && done < len(reqs):
		r := reqs[done] // not a refusal: the target itself failed
		return s, fmt.Errorf("line %d %q: %w", r.Line, r.Text, err)
	case err != nil:
		return s, err
	}
	s.at[len(reqs)] = res.State
	return s, nil
}

// firstDiff finds the difference of the earliest request: its errno, its
// notifications, the state after it.
func firstDiff(reqs []rtnl.Request, what What, s, k side) (int, string) {
	type cand struct {
		req, rank int
		msg       string
	}
	var found []cand
	if ln := compare.FirstErrnoLine(s.res.Errors, k.res.Errors); ln != 0 {
		req := 0
		for i, r := range reqs {
			if r.Line == ln {
				req = i + 1
				break
			}
		}
		found = append(found, cand{req, 0, compare.Errnos(s.res.Errors, k.res.Errors)})
	}
	switch {
	case what.Events:
		se, ke := s.res.Events, k.res.Events
		if what.linkEventsOnly {
			se, ke = LinkFamilies(se), LinkFamilies(ke)
		}
		if r, d := compare.FirstEventDiff(se, ke); d != "" {
			found = append(found, cand{r, 1, d})
		}
	case what.EventCounts:
		if r, d := compare.FirstEventCountDiff(s.res.Events, k.res.Events); d != "" {
			found = append(found, cand{r, 1, fmt.Sprintf("notification counts of request %d differ: %s", r, d)})
		}
	}
	for _, r := range slices.Sorted(maps.Keys(k.at)) {
		if d := stateDiff(what, s.at[r], k.at[r]); d != "" {
			where := "at the end"
			if r < len(reqs) {
				where = fmt.Sprintf("after request %d (line %d: %s)", r, reqs[r-1].Line, reqs[r-1].Text)
			}
			found = append(found, cand{r, 2, where + ": " + d})
			break
		}
	}
	if len(found) == 0 {
		return 0, ""
	}
	best := found[0]
	for _, c := range found[1:] {
		if c.req < best.req || c.req == best.req && c.rank < best.rank {
			best = c
		}
	}
	return best.req, best.msg
}

// ShownDiff is shownDiff's message alone ("" when the sides agree).
func ShownDiff(s, k []rtnl.Shown) string {
	_, d := shownDiff(s, k)
	return d
}

// shownDiff compares what the show lines saw on both sides (the errno
// comparison has made sure the same lines succeeded).
func shownDiff(s, k []rtnl.Shown) (int, string) {
	all := What{Links: true, Addrs: true, Routes: true, Rules: true, macsRenamed: true}
	for i := range min(len(s), len(k)) {
		if d := gotDiff(s[i].Got, k[i].Got); d != "" {
			return s[i].Line, fmt.Sprintf("line %d (%s) answers differently: %s", s[i].Line, s[i].Request, d)
		}
		if d := nsStateDiff(all, s[i].State, k[i].State); d != "" {
			return s[i].Line, fmt.Sprintf("line %d (%s) shows differently: %s", s[i].Line, s[i].Request, d)
		}
	}
	if len(s) != len(k) {
		return 0, fmt.Sprintf("show lines: sim ran %d, kernel %d", len(s), len(k))
	}
	return 0, ""
}

// gotDiff compares two route get answers (nil: the line is a show).
func gotDiff(s, k *rtnl.RouteEntry) string {
	if s == nil && k == nil {
		return ""
	}
	if s == nil || k == nil || !reflect.DeepEqual(*s, *k) {
		text := func(r *rtnl.RouteEntry) string {
			if r == nil {
				return "(none)"
			}
			b, _ := json.Marshal(r)
			return string(b)
		}
		return fmt.Sprintf("sim %s, kernel %s", text(s), text(k))
	}
	return ""
}

// stateDiff compares what selects of two states, then of each namespace
// the script made, by name.
func stateDiff(what What, s, k rtnl.State) string {
	if d := nsStateDiff(what, s, k); d != "" {
		return d
	}
	if len(s.Netns) != len(k.Netns) {
		return fmt.Sprintf("namespaces differ in number: sim %d, kernel %d", len(s.Netns), len(k.Netns))
	}
	for i := range s.Netns {
		if s.Netns[i].Name != k.Netns[i].Name {
			return fmt.Sprintf("namespace %d differs: sim %q, kernel %q", i+1, s.Netns[i].Name, k.Netns[i].Name)
		}
		if d := nsStateDiff(what, s.Netns[i].State, k.Netns[i].State); d != "" {
			return fmt.Sprintf("in namespace %s: %s", s.Netns[i].Name, d)
		}
	}
	return ""
}

// nsStateDiff compares what selects of one namespace's state.
func nsStateDiff(what What, s, k rtnl.State) string {
	if what.Links {
		d := compare.LinksExact(s.Links, k.Links)
		if !what.macsRenamed {
			d = compare.Links(s.Links, k.Links, FixedMACs, func(string) bool { return false })
		}
		if d != "" {
			return d
		}
	}
	if what.Addrs {
		if d := compare.Addrs(s.Addrs, k.Addrs); d != "" {
			return d
		}
	}
	if what.Routes {
		if d := compare.Routes(s.Routes, k.Routes); d != "" {
			return d
		}
		if d := compare.Nexthops(s.Nexthops, k.Nexthops); d != "" {
			return d
		}
	}
	if what.Rules {
		if d := compare.Rules(s.Rules, k.Rules); d != "" {
			return d
		}
	}
	if what.FibTrie {
		if d := compare.FibTrie(s.FibTrie, k.FibTrie); d != "" {
			return d
		}
	}
	return ""
}

// FixedMACs are addresses that Kernels compares as they are: the
// broadcast address and those the generated scripts write.
var FixedMACs = []string{"ff:ff:ff:ff:ff:ff", "02:00:00:00:00:42", "02:00:00:00:00:43", "00:00:00:00:00:00", "01:00:5e:00:00:01"}

// LinkFamilies keeps the notifications of families link and bridge.
func LinkFamilies(evs []rtnl.Event) []rtnl.Event {
	var out []rtnl.Event
	for _, e := range evs {
		if e.Family == "link" || e.Family == "bridge" {
			out = append(out, e)
		}
	}
	return out
}

// canonMACs renames, in place, every MAC address of a run that is not in
// FixedMACs to 02:ff:00:00:HH:LL, numbered in order of first appearance:
// notifications first, then the links of each checkpoint in order.
func canonMACs(s *side) {
	fixed := map[string]bool{}
	for _, f := range FixedMACs {
		fixed[f] = true
	}
	names := map[string]string{}
	rename := func(a string) string {
		if a == "" || fixed[a] {
			return a
		}
		if _, err := net.ParseMAC(a); err != nil || len(a) != len("00:00:00:00:00:00") {
			return a // not an Ethernet address (a loopback's zeros are fixed)
		}
		n, ok := names[a]
		if !ok {
			v := len(names) + 1
			n = fmt.Sprintf("02:ff:00:00:%02x:%02x", v>>8&0xff, v&0xff)
			names[a] = n
		}
		return n
	}
	link := func(l *rtnl.Link) {
		l.Address = rename(l.Address)
		l.Broadcast = rename(l.Broadcast)
	}
	for i, e := range s.res.Events {
		if l, ok := e.Object.(rtnl.Link); ok {
			link(&l)
			s.res.Events[i].Object = l
		}
	}
	at := slices.Sorted(maps.Keys(s.at))
	for _, r := range at {
		st := s.at[r]
		st.Links = append([]rtnl.Link(nil), st.Links...)
		for i := range st.Links {
			link(&st.Links[i])
		}
		addrs := append([]rtnl.LinkAddrs(nil), st.Addrs...)
		for i := range addrs {
			link(&addrs[i].Link)
		}
		st.Addrs = addrs
		s.at[r] = st
	}
	s.res.State = s.at[at[len(at)-1]] // the final state (apply)
}

// failedTarget stands for a second target that could not be made.
type failedTarget struct{ err error }

func (f failedTarget) Apply(context.Context, rtnl.Request) error { return f.err }
func (f failedTarget) State(context.Context, rtnl.Show) (rtnl.State, error) {
	return rtnl.State{}, f.err
}
func (f failedTarget) Events(context.Context) ([]rtnl.Event, error) { return nil, f.err }
func (f failedTarget) Close() error                                 { return nil }
