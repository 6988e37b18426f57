package calib

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/internal/differ"
	"github.com/rtnlsim/rtnlsim/internal/ipbatch"
	"github.com/rtnlsim/rtnlsim/internal/kmeasure"
	"github.com/rtnlsim/rtnlsim/internal/nscheck"
	"github.com/rtnlsim/rtnlsim/internal/testseed"
	"github.com/rtnlsim/rtnlsim/sim"
)

func TestMain(m *testing.M) { nscheck.Main(m) }

// Scenarios run on the kernel through ip -b as Run runs them: the
// sysctls and setup in the run's namespace, one ip process per thread;
// a line the kernel refuses fails the run. No time is judged.
func TestKernelTimeThroughIP(t *testing.T) {
	testseed.NeedKernel(t)
	ctx := context.Background()
	dir := t.TempDir()
	for k, s := range []kmeasure.Scenario{DelOneByOne(3, 1, true), DelOneByOne(4, 2, false), AddrFlush(20, true),
		MTUDown(5), RouteFlush(30), MTUChange(4), DelGroup(5, false)} {
		lines, err := IPLines(s)
		if err != nil {
			t.Fatal(err)
		}
		files, err := ipbatch.WriteBatches(dir, fmt.Sprintf("s%d-", k), lines)
		if err != nil {
			t.Fatal(err)
		}
		d, err := KernelTime(ctx, s, files)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if d <= 0 {
			t.Errorf("%s: %v", s.Name, d)
		}
	}
	// Without its setup the batch fails, with ip's message.
	s := DelOneByOne(2, 1, false)
	s.Setup = nil
	files, err := ipbatch.WriteBatches(dir, "bad", [][]string{{"link del g0"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := KernelTime(ctx, s, files); err == nil || !strings.Contains(err.Error(), "g0") {
		t.Errorf("a batch deleting a missing device: %v", err)
	}
	// The flush batch is ip's line; the setup starts with the sysctls.
	b, err := os.ReadFile(filepath.Join(dir, "s2-0.batch"))
	if err != nil || string(b) != "addr flush dev kmeas0\n" {
		t.Errorf("flush batch %q, %v", b, err)
	}
	setup := ipSetup(AddrFlush(20, true))
	if setup[0].Text != "sysctl net.ipv6.conf.all.disable_ipv6=1" || setup[0].Line != 1 {
		t.Errorf("setup starts with %+v", setup[0])
	}
}

// The trie the route flush scenarios' routes build (routeLines: /24s
// through one device), and the ones their deletes leave on the way (in
// key order, as ip's flush sends them), are the kernel's:
// /proc/net/fib_trie text for text after the adds and after a quarter,
// half, three quarters and fifteen sixteenths of the deletes, with lo
// down (the /24s' tnode is the root) and up (127/8 beside it), at the
// calibration's sizes and the fidelity flush's. The model's trie counts
// are taken on these shapes; /proc shows no suffix lengths and none of
// the tnodes built between checkpoints, so the counts themselves are not
// compared.
func TestKernelFlushTrieShapes(t *testing.T) {
	testseed.NeedKernel(t)
	for _, n := range []int{2000, 8000, 20000} {
		for _, loUp := range []bool{false, true} {
			// The flush scenario's setup, then RouteDel's deletes of
			// the same routes, numbered on as one script.
			flush := RouteFlush(n)
			if loUp {
				flush = RouteFlushLoUp(n)
			}
			reqs := append(slices.Clone(flush.Setup), RouteDel(n).Timed[0]...)
			for i := range reqs {
				reqs[i].Line = i + 1
			}
			lastAdd := len(flush.Setup) // 1-based: the request after which the deletes start
			var at []int
			for _, k := range []int{0, n / 4, n / 2, 3 * n / 4, n - n/16} {
				at = append(at, lastAdd+k)
			}
			out, err := differ.Run(context.Background(), reqs, sim.Options{Seed: 1},
				differ.What{FibTrie: true, Checkpoints: at})
			if err != nil {
				t.Fatalf("n=%d lo up %v: %v", n, loUp, err)
			}
			// Both sides refusing the same lines would agree on an
			// empty trie.
			if len(out.Kernel.Errors) > 0 {
				t.Fatalf("n=%d lo up %v: the kernel refused %d lines, the first %+v", n, loUp, len(out.Kernel.Errors), out.Kernel.Errors[0])
			}
			if out.Diff != "" {
				t.Errorf("n=%d lo up %v: request %d: %s", n, loUp, out.At, out.Diff)
			}
		}
	}
}

// The model's count of update_suffix's slot reads (trie_suffix_visit) is
// held to the kernel's time in update_suffix, as perf samples it in the
// ip process that flushes the routes. The count depends on the trie's
// shape, not only on N: flushing the route flush scenario's /24s reads
// 15.5, 62.0, 0.59 and 54.7 million slots at 8,000, 16,000, 18,000 and
// 20,000 routes (the model's trie at 18,000 has its root tnode's index
// start at the /24s' suffix length, so its deletes do not scan; the
// kernel's /proc/net/fib_trie is compared at 8,000 and 20,000 only, by
// TestKernelFlushTrieShapes). Every pair of sizes whose counts
// differ more than tenfold must differ the same way, more than threefold,
// in the kernel's update_suffix samples. Samples are the process's CPU
// time, not the wall clock, and the margins are wide, so load does not
// decide it.
func TestKernelSuffixScansFollowTheModel(t *testing.T) {
	perf := needPerf(t)
	prof := sim.MustParseProfile(sim.DefaultProfile)
	sizes := []int{8000, 16000, 18000, 20000}
	model, kern := map[int]int64{}, map[int]int{}
	for _, n := range sizes {
		s := RouteFlush(n)
		run, err := SimWorkFor(prof, s, IPClient)
		if err != nil {
			t.Fatal(err)
		}
		model[n] = run.Counts()[cost.StepTrieSuffixVisit]
		kern[n] = kernelSamples(t, perf, s, "update_suffix")["update_suffix"]
		t.Logf("n=%d: model %d slot reads, kernel %d update_suffix samples (100 us each)", n, model[n], kern[n])
	}
	pairs := 0
	for _, a := range sizes {
		for _, b := range sizes {
			if model[a] > 10*model[b] {
				pairs++
				if kern[a] <= 3*kern[b] {
					t.Errorf("the model reads %d slots at %d routes and %d at %d; the kernel's update_suffix took %d and %d samples",
						model[a], a, model[b], b, kern[a], kern[b])
				}
			}
		}
	}
	if pairs < 3 {
		t.Errorf("only %d pairs of sizes whose slot-read counts differ tenfold (want the three against 18,000): %v", pairs, model)
	}
}

// Counts that grow faster than N, held to the kernel's time in the
// functions that make them: from the small size to the large, the model's
// count of steps grows by some factor, and perf's samples of syms (their
// own time, in the ip process) must grow within a factor of band of it.
// The sizes are four apart, so a count one power of N off grows four
// times too much or too little, outside the band.
var growthChecks = []struct {
	scenario func(n int) kmeasure.Scenario
	sizes    [2]int
	counts   []growthCount
}{
	// Every NETDEV_DOWN of an addressed device walks the whole FIB
	// (fib_disable_ip -> fib_flush): N^2 tnode and leaf visits.
	{DownAddressed, [2]int{500, 2000}, []growthCount{{"the flush walk of addressed devices going down",
		[]cost.Step{cost.StepFibFlushTnode, cost.StepFibFlushLeaf}, []string{"fib_table_flush"}, 2.5}}},
	// ip's flush of one /8 with promote_secondaries: every promotion
	// re-adds the remaining secondaries' routes, and each
	// fib_del_ifaddr and __inet_del_ifa scans the address list: the
	// model's list steps grow about as N^2.9 here.
	{func(n int) kmeasure.Scenario { return AddrFlush(n, true) }, [2]int{250, 1000}, []growthCount{{"the address-list walks of a promoting flush",
		[]cost.Step{cost.StepIfaWalk, cost.StepIfaWalkFar}, []string{"fib_del_ifaddr", "__inet_del_ifa"}, 2}}},
	// Every link up of a DOWN device (IPv6 on) walks the namespace's
	// IPv6 routes (rt6_sync_up: fib6_clean_all, fib6_ifup per entry) and
	// adds its own to the same-prefix lists of the others'
	// (fib6_add_rt2node): both N^2.
	{LinkUp, [2]int{500, 2000}, []growthCount{
		{"the IPv6 walks of links going up",
			[]cost.Step{cost.StepIPv6Walk, cost.StepIPv6WalkFar}, []string{"fib6_walk_continue", "fib6_clean_node", "fib6_ifup"}, 2.5},
		{"the IPv6 route-list walks of links going up",
			[]cost.Step{cost.StepIPv6RouteList}, []string{"fib6_add_rt2node"}, 2.5}}},
}

// growthCount is one count of a growth check: the model's steps, the
// kernel functions that make them, the band.
type growthCount struct {
	what  string
	steps []cost.Step
	syms  []string
	band  float64
}

func TestKernelCountsGrowAsTheModel(t *testing.T) {
	perf := needPerf(t)
	prof := sim.MustParseProfile(sim.DefaultProfile)
	for _, c := range growthChecks {
		var syms []string
		for _, g := range c.counts {
			syms = append(syms, g.syms...)
		}
		var counts [2]map[cost.Step]int64
		var samples [2]map[string]int
		for i, n := range c.sizes {
			s := c.scenario(n)
			run, err := SimWorkFor(prof, s, IPClient)
			if err != nil {
				t.Fatal(err)
			}
			counts[i], samples[i] = run.Counts(), kernelSamples(t, perf, s, syms...)
		}
		for _, g := range c.counts {
			var model, kern [2]float64
			for i := range c.sizes {
				for _, st := range g.steps {
					model[i] += float64(counts[i][st])
				}
				for _, sym := range g.syms {
					kern[i] += float64(samples[i][sym])
				}
			}
			t.Logf("%s: model %.0f and %.0f steps (%v), kernel %.0f and %.0f samples of 100 us (%v) at %d and %d",
				g.what, model[0], model[1], g.steps, kern[0], kern[1], g.syms, c.sizes[0], c.sizes[1])
			if kern[0] == 0 || model[0] == 0 {
				t.Errorf("%s: nothing at %d to compare", g.what, c.sizes[0])
				continue
			}
			m, k := model[1]/model[0], kern[1]/kern[0]
			if k < m/g.band || k > m*g.band {
				t.Errorf("%s: from %d to %d the model's count grows %.1fx, the kernel's samples %.1fx (within %.1fx wanted)",
					g.what, c.sizes[0], c.sizes[1], m, k, g.band)
			} else {
				t.Logf("%s: from %d to %d the model's count grows %.1fx, the kernel's samples %.1fx", g.what, c.sizes[0], c.sizes[1], m, k)
			}
		}
	}
}

// needPerf ends the test unless a kernel target can be made here
// (testseed.NeedKernel), and fails it when perf is missing; it returns
// perf's path.
func needPerf(t *testing.T) string {
	t.Helper()
	testseed.NeedKernel(t)
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Fatalf("perf is needed to sample the kernel (Debian: linux-perf): %v", err)
	}
	return perf
}

// kernelSamples runs s on the kernel as calibrate does, its batch under
// perf record (cpu-clock, one sample every 100 us of CPU time), and
// returns the samples in each kernel function of syms (its own time, not
// its callees'; 0 for one perf did not sample).
func kernelSamples(t *testing.T, perf string, s kmeasure.Scenario, syms ...string) map[string]int {
	t.Helper()
	dir := t.TempDir()
	lines, err := IPLines(s)
	if err != nil {
		t.Fatal(err)
	}
	files, err := ipbatch.WriteBatches(dir, "batch", lines)
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "perf.data")
	wrap := []string{perf, "record", "-q", "-e", "cpu-clock", "-c", "100000", "-o", data, "--"}
	if _, err := kernelTimeUnder(context.Background(), wrap, s, files); err != nil {
		t.Fatalf("%s: %v", s.Name, err)
	}
	out, err := exec.Command(perf, "report", "-i", data, "--no-children", "--sort", "sym", "--stdio", "-n").CombinedOutput()
	if err != nil {
		t.Fatalf("perf report: %v: %s", err, out)
	}
	samples, seen := map[string]int{}, false
	for _, sym := range syms {
		samples[sym] = 0
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "# Samples:") {
			seen = true
		}
		// "    32.21%           202  [k] update_suffix"
		f := strings.Fields(l)
		if len(f) != 4 || f[2] != "[k]" {
			continue
		}
		if _, want := samples[f[3]]; want {
			if samples[f[3]], err = strconv.Atoi(f[1]); err != nil {
				t.Fatalf("perf report line %q: %v", l, err)
			}
		}
	}
	if !seen {
		t.Fatalf("perf report has no samples header:\n%s", out)
	}
	return samples
}
