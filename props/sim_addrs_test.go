package props

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/rtnlsim/rtnlsim/internal/differ"
	"github.com/rtnlsim/rtnlsim/internal/testseed"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
	"github.com/rtnlsim/rtnlsim/sim"
)

// TestSimAddrsRoutesMatchKernel is the differential property of the sim
// target's addresses, routes and FIB : scripts
// mixing link requests (up, down, mtu 60 and back, rename, delete, add,
// bridge ports), IPv4 addresses (add, replace, change and del in shared
// and distinct subnets, primaries and secondaries, labels, broadcast,
// scope, peers, noprefixroute, metric; on ifb devices, a veth, a bridge
// and the loopback),
// promote_secondaries 0 and 1 (per device, all, default), routes (add,
// del, replace, change, append, prepend; tables main, local and 100; unicast,
// blackhole, unreachable, prohibit and local; via, dev, src, metric,
// proto, scope) and addr and route flushes run on a fresh kernel target,
// then on a fresh sim target (internal/differ.Run). One script in two
// keeps IPv6 on (differ.What.IPv6, DAD probes off), with user IPv6
// addresses too (add, replace, change and del: global and link-local,
// /48, /64 and /128, nodad, noprefixroute, metric, lifetimes, on up and
// down devices) and user IPv6
// routes (add and del: through a device, via link-local and global
// gateways, blackhole and unreachable, metric, table, proto, src;
// multipath; `-6 route flush` by src, via, match, metric, tos and
// realms): then UP devices have
// their link-local addresses and IPv6 routes on both sides (lo's ::1;
// fe80::/64, ff00::/8 and the local route of the EUI-64 address), through
// up, down, carrier changes of the veth and the bridge, mtu 1000 and back,
// disable_ipv6 per device, all and default, forwarding, keep_addr_on_down
// (per device, all and default, with downs, ups and deletes of devices
// holding global addresses: TestAddrScriptGenTakesEveryBranch) and
// deletion; their addresses, routes and notifications are compared with
// the rest. The other scripts have IPv6 off on both sides.
//
// What is compared, request by request (the first difference reported is
// the earliest request's):
//
//   - every script: the errno of every line; the links (compare.Links),
//     the addresses (compare.Addrs: every addr_info exactly, in order), the
//     routes of all tables (compare.Routes, exactly, in order) and
//     /proc/net/fib_trie (compare.FibTrie, text for text) at the end and
//     at checkpoints;
//   - every script but one: the notifications of every family (link,
//     bridge, inet addresses and routes), each request's in the kernel's
//     order (compare.Events).
//
// The run, from the logged seed, has two parts:
//
//   - 32 gopter batches (RTNLSIM_SIM_ADDRS_BATCHES) of 16 generated
//     scripts (addrRouteScriptGen: a prologue and 10..30 lines), each batch
//     run in parallel goroutines as TestSimLinksMatchKernel does: 512
//     scripts, the state compared after every tenth request too;
//   - then six scripts with 250 to 2,500 addresses in one /8 (bigCases),
//     run by two goroutines, the state compared also after
//     the address block: a flush with promote 0 (2,000..2,500
//     addresses) and with promote 1 (600..700: its ~N^2 route
//     notifications compared one by one; past 524 addresses ip's dump
//     chunks are written after its deletes), deletes one by one with promote
//     1 in a random order and with promote 0 in the order added
//     (1,000..1,200), subnets of two devices taken down and away
//     (1,000..1,200), all compared in full; and a flush of 1,000
//     addresses with promote 1, whose ~10^6 route notifications overflow
//     the kernel target's event socket (near 650,000): there the
//     notifications are not compared, the rest is.
//     RTNLSIM_SIM_ADDRS_BIG=0 leaves these six out.
//
// A failing script is cut after the request of its first difference,
// shrunk (chunks of lines, then single lines, keeping each removal after
// which it fails the same way), and written to
// /tmp/rtnlsim-counterexample-*.ip, which `rtnlsim diff FILE` replays (the
// failure says when --show must leave the notifications out); the
// difference is in the test's log.
func TestSimAddrsRoutesMatchKernel(t *testing.T) {
	testseed.NeedKernel(t)
	batches := envInt(t, "RTNLSIM_SIM_ADDRS_BATCHES", 32, 0)
	params := gopterParams(t, batches)
	params.MaxShrinkCount = 0 // shrinkScript shrinks; gopter would rerun whole batches
	st := newArStats()
	var failMu sync.Mutex
	var failures []string
	// The big cases come from the seed before gopter draws from it, and
	// run after the batches: run beside them, both take several times as
	// long (every kernel request of either waits for rtnl_lock behind the
	// other's).
	runBig := os.Getenv("RTNLSIM_SIM_ADDRS_BIG") != "0"
	cases := bigCases(rand.New(rand.NewPCG(uint64(params.Rng.Int63()), 6)))
	props := gopter.NewProperties(params)
	props.Property("sim and kernel agree on errnos, links, addresses, routes, fib_trie and notifications",
		prop.ForAll(func(batch [][]string) string {
			fails := runBatch(batch, func(lines []string) *arFail { return arCase(lines, arSmallMode(lines), st) })
			for i, f := range fails {
				if f != nil {
					// gopter wraps its labels: the whole message goes
					// to the test's log, the label names the file.
					msg, file := shrinkScript(batch[i], f, arSmallMode(batch[i]), st)
					failMu.Lock()
					failures = append(failures, msg)
					failMu.Unlock()
					return "sim and kernel differ; shrunk script in " + file + " (the difference is in the test log)"
				}
			}
			return ""
		}, gen.SliceOfN(simLinksBatch, addrRouteScriptGen(10, 30))))
	report(t, props)
	var bigWG sync.WaitGroup
	if runBig {
		// Two workers, the flush of 1000 with promotion (the longest)
		// first on one of them.
		queue := make(chan bigCase, len(cases))
		for _, i := range []int{1, 0, 3, 4, 5, 2} {
			queue <- cases[i]
		}
		close(queue)
		for range 2 {
			bigWG.Add(1)
			go func() {
				defer bigWG.Done()
				for c := range queue {
					start := time.Now()
					m := arMode{events: c.Events, checkpoints: []int{c.Block}}
					f := arCase(c.Lines, m, st)
					st.logf("big case %q: %d lines, %v", c.Name, len(c.Lines), time.Since(start).Round(time.Millisecond))
					if f != nil {
						msg, _ := shrinkScript(c.Lines, f, m, st)
						failMu.Lock()
						failures = append(failures, fmt.Sprintf("big case %q: %s", c.Name, msg))
						failMu.Unlock()
					}
				}
			}()
		}
	}
	bigWG.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	for _, l := range st.log {
		t.Log(l)
	}
	t.Logf("%d scripts run on both targets (shrinking included), %d requests; seen: %v", st.scripts, st.reqs, st.seenString())
	checkTimerLike(t, st.timerLike, st.scripts)
}

// TestSimAddrsRoutesReplay runs the script named by
// RTNLSIM_SIM_ADDRS_SCRIPT on both targets and compares them as
// TestSimAddrsRoutesMatchKernel does a small script (skipped without it;
// RTNLSIM_SIM_ADDRS_EVENTS=counts or none compares the notifications as a
// big case does).
func TestSimAddrsRoutesReplay(t *testing.T) {
	lines := replayLines(t, "RTNLSIM_SIM_ADDRS_SCRIPT")
	m := arSmallMode(lines)
	if e := os.Getenv("RTNLSIM_SIM_ADDRS_EVENTS"); e != "" {
		m.events = e
	}
	if f := arCase(lines, m, newArStats()); f != nil {
		t.Fatal(f)
	}
}

// TestKernelAddrsRoutesDeterministic runs generated scripts on two kernel
// targets (differ.Kernels) and requires them to agree as the property
// requires the sim to: if the kernel side were not deterministic, the
// property would flake. 16 small scripts with IPv6 off and a flush of 300 addresses
// with promotion (every notification compared): 5 to 10 s here;
// RTNLSIM_KERNEL_ADDRS_SCRIPTS runs more.
func TestKernelAddrsRoutesDeterministic(t *testing.T) {
	testseed.NeedKernel(t)
	n := envInt(t, "RTNLSIM_KERNEL_ADDRS_SCRIPTS", 16, 0)
	seed := testseed.Get(t, 20261130)
	g := addrRouteScriptGen(10, 30)
	params := gopter.DefaultGenParameters()
	params.Rng.Seed(seed)
	var scripts [][]string
	var modes []arMode
	for len(scripts) < n {
		res := g(params)
		v, ok := res.Retrieve()
		if !ok {
			t.Fatal("generator gave nothing")
		}
		lines := v.([]string)
		if arIPv6(lines) {
			// Two kernels pick different MACs, hence different
			// link-local addresses, whose order in the local table
			// follows them; and DAD's work and linkwatch's interleave
			// as they will. Against the model (which takes the kernel's
			// MACs and knows which work is deferred) neither matters.
			continue
		}
		scripts = append(scripts, lines)
		modes = append(modes, arSmallMode(lines))
	}
	big := bigCases(rand.New(rand.NewPCG(uint64(seed), 6)))[2]
	scripts = append(scripts, big.Lines)
	modes = append(modes, arMode{events: "all", checkpoints: []int{big.Block}})
	fails := make([]string, len(scripts))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range scripts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			reqs, err := script.ParseString(strings.Join(scripts[i], "\n") + "\n")
			if err != nil {
				fails[i] = err.Error()
				return
			}
			out, err := differ.Kernels(context.Background(), reqs, modes[i].what())
			switch {
			case err != nil:
				fails[i] = err.Error()
			case out.Diff != "" && !(out.TooSlow() && strings.Contains(strings.Join(scripts[i], "\n"), "type bridge")):
				fails[i] = out.Diff
			}
		}()
	}
	wg.Wait()
	for i, f := range fails {
		if f != "" {
			t.Errorf("two kernels differ:\n%s\nscript:\n%s", f, strings.Join(scripts[i], "\n"))
		}
	}
}

// arMode is how a script compares: its notifications ("all", "counts",
// "none") and the request numbers after which the state is compared too.
type arMode struct {
	events      string
	checkpoints []int
	ipv6        bool // IPv6 on (arIPv6)
}

// arCheckEvery is how often a small script's state is compared.
const arCheckEvery = 10

// arSmallMode compares everything, the state after every tenth request.
func arSmallMode(lines []string) arMode {
	m := arMode{events: "all", ipv6: arIPv6(lines)}
	for c := arCheckEvery; c < len(lines); c += arCheckEvery {
		m.checkpoints = append(m.checkpoints, c)
	}
	return m
}

func (m arMode) what() differ.What {
	w := differ.All
	w.Events, w.EventCounts = m.events == "all", m.events == "counts"
	w.Checkpoints = m.checkpoints
	w.IPv6 = m.ipv6
	return w
}

// showFlag is the --show that makes `rtnlsim diff` compare as m does.
func (m arMode) showFlag() string {
	f := ""
	if m.ipv6 {
		f = "--ipv6 "
	}
	if m.events == "all" {
		return f
	}
	return f + "--show links,addrs,routes,fibtrie "
}

// arStats gathers what the property saw, for its log.
type arStats struct {
	mu      sync.Mutex
	scripts int
	reqs    int
	seen    map[string]int
	log     []string
	// timerLike counts scripts not compared (differ.TimerLike).
	timerLike int64
}

func newArStats() *arStats { return &arStats{seen: map[string]int{}} }

func (s *arStats) logf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, fmt.Sprintf(format, args...))
}

func (s *arStats) seenString() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprint(s.seen)
}

func (s *arStats) add(reqs []rtnl.Request, k rtnl.Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts++
	s.reqs += len(reqs)
	for _, r := range reqs {
		s.seen[r.Op.Verb()]++
	}
	for _, e := range k.Errors {
		s.seen[e.Errno]++
	}
	// A promotion shows as an RTM_NEWADDR without the secondary flag of
	// an address last notified with it.
	secondary := map[string]bool{}
	for _, e := range k.Events {
		s.seen[e.Type+" "+e.Family]++
		if a, ok := e.Object.(rtnl.AddrEvent); ok {
			key := fmt.Sprintf("%d %s/%d", a.Ifindex, a.Local, a.Prefixlen)
			if e.Type == "RTM_NEWADDR" && !a.Secondary && secondary[key] {
				s.seen["promotion"]++
			}
			secondary[key] = a.Secondary && e.Type == "RTM_NEWADDR"
		}
	}
	for _, la := range k.Addrs {
		for _, a := range la.AddrInfo {
			if a.Secondary {
				s.seen["secondary"]++
			}
		}
	}
	for _, r := range k.Routes {
		s.seen["route "+r.Type+" "+r.Table]++
	}
}

// arFail is a script on which the targets differ.
type arFail struct {
	Diff string // the first difference, or a target's error
	At   int    // its request number; 0 for an error
	Kind string // failureKind of Diff
	Src  string // the script
}

func (f *arFail) String() string {
	return fmt.Sprintf("%s\nscript:\n%s", f.Diff, f.Src)
}

// arCase runs one script on both targets; nil when they agree.
func arCase(lines []string, m arMode, st *arStats) *arFail {
	src := strings.Join(lines, "\n") + "\n"
	reqs, err := script.ParseString(src)
	if err != nil {
		return &arFail{Diff: "generated script does not parse: " + err.Error(), Kind: "parse", Src: src}
	}
	what := m.what()
	out, err := differ.Run(context.Background(), reqs, sim.Options{Seed: 1}, what)
	// A kernel run slower than the bridge forward delay may hold that
	// timer's notifications, which the model cannot have: run it again.
	bridged := strings.Contains(src, "type bridge")
	for try := 0; bridged && err == nil && out.Diff != "" && out.TooSlow() && try < 2; try++ {
		out, err = differ.Run(context.Background(), reqs, sim.Options{Seed: 1}, what)
	}
	if line, ok := notModelledGet(err, reqs); ok {
		// An IPv6 route get the model does not answer (an ECMP route
		// whose sibling the kernel's seeded hash picks): the rest is
		// compared without the line, the checkpoints after it one
		// request earlier (a route get changes nothing).
		st.mu.Lock()
		st.seen["route get not modelled"]++
		st.mu.Unlock()
		m.checkpoints = slices.Clone(m.checkpoints)
		for i, c := range m.checkpoints {
			if c >= line {
				m.checkpoints[i] = c - 1
			}
		}
		m.checkpoints = slices.DeleteFunc(m.checkpoints, func(c int) bool { return c < 1 })
		return arCase(slices.Delete(slices.Clone(lines), line-1, line), m, st)
	}
	if err != nil {
		return &arFail{Diff: err.Error(), Kind: failureKind(err.Error()), Src: src}
	}
	st.add(reqs, out.Kernel)
	if out.Diff == "" {
		return nil
	}
	if bridged && out.TimerLike() {
		// A loaded machine: the case compares nothing (counted).
		st.mu.Lock()
		st.timerLike++
		st.mu.Unlock()
		return nil
	}
	f := &arFail{Diff: out.Diff, At: out.At, Kind: failureKind(out.Diff), Src: src}
	if bridged && out.TooSlow() {
		f.Diff += fmt.Sprintf("\n(the kernel run took %v, longer than the bridge forward delay, three times)", out.KernelWall)
	}
	return f
}

// failureKind names the kind of a difference, so that shrinking keeps to
// the same one: an error of a target (such as "not modelled yet"), or the
// first observable that differs.
func failureKind(d string) string {
	d, _, _ = strings.Cut(d, "\n")
	for _, k := range []string{"not modelled yet", "errnos differ", "notification counts", "notifications of request",
		"addresses differ", "routes differ", "/proc/net/fib_trie differ", "link"} {
		if strings.Contains(d, k) {
			return k
		}
	}
	return "error: " + d
}

// shrinkScript cuts a failing script after the request of its first
// difference, then removes chunks of lines (halves, quarters, ..., single
// lines, last first), keeping each removal after which the script still
// fails the same way, within a time budget (RTNLSIM_SHRINK_SECONDS, 180
// by default). While shrinking, the state is compared at the end only,
// as `rtnlsim diff` compares it, so that the result replays there; it is
// written to a file, and the last failure is returned with the way to
// replay it, and the file's name.
func shrinkScript(lines []string, fail *arFail, m arMode, st *arStats) (msg, file string) {
	m.checkpoints = nil
	fails := func(try []string) bool {
		f := arCase(try, m, st)
		if f != nil && f.Kind == fail.Kind {
			lines, fail = try, f
			return true
		}
		return false
	}
	// Requests are lines, one each, as the generators write them.
	if fail.At > 0 && fail.At < len(lines) {
		fails(lines[:fail.At])
	}
	budget := time.Duration(arEnvIntDefault("RTNLSIM_SHRINK_SECONDS", 180)) * time.Second
	deadline := time.Now().Add(budget)
	for chunk := len(lines) / 2; chunk >= 1 && time.Now().Before(deadline); chunk /= 2 {
		for i := len(lines) - chunk; i >= 0 && time.Now().Before(deadline); i -= chunk {
			fails(append(append([]string(nil), lines[:i]...), lines[i+chunk:]...))
		}
	}
	msg = fail.String()
	if time.Now().After(deadline) {
		msg += fmt.Sprintf("\n(shrinking stopped after %v)", budget)
	}
	if file = writeScript("rtnlsim-counterexample-*.ip", lines); file != "" {
		msg += fmt.Sprintf("\nthe script is in %s: rtnlsim diff %s%s", file, m.showFlag(), file)
	}
	return "shrunk: " + msg, file
}

func arEnvIntDefault(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
