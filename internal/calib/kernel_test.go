package calib

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rtnlsim/rtnlsim/internal/ipbatch"
	"github.com/rtnlsim/rtnlsim/internal/kmeasure"
	"github.com/rtnlsim/rtnlsim/internal/nscheck"
	"github.com/rtnlsim/rtnlsim/internal/testseed"
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
