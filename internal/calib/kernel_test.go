package calib

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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
