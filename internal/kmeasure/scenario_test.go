package kmeasure

import (
	"context"
	"os"
	"testing"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
)

func mustScript(t *testing.T, src string) []rtnl.Request {
	t.Helper()
	r, err := script.ParseString(src)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRunScenario runs two threads deleting devices of their own in one
// namespace, and checks that a refused timed request fails the run.
func TestRunScenario(t *testing.T) {
	if os.Geteuid() != 0 && os.Getenv("RTNLSIM_REQUIRE_KERNEL") != "1" {
		t.Skip("needs root to make network namespaces")
	}
	ctx := context.Background()
	s := Scenario{
		Name:    "two threads",
		Sysctls: map[string]string{"net.ipv6.conf.all.disable_ipv6": "1", "net/ipv6/conf/default/disable_ipv6": "1"},
		Setup:   mustScript(t, "link add a0 type ifb\nlink add a1 type ifb\nlink add b0 type ifb\nlink add b1 type ifb\nlink set b1 up\n"),
		Timed:   [][]rtnl.Request{mustScript(t, "link del a0\nlink del a1\n"), mustScript(t, "link del b0\nlink del b1\n")},
	}
	d, all, err := RunScenarioMin(ctx, s, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d <= 0 || len(all) != 2 || d > all[0] || d > all[1] {
		t.Fatalf("min %v of %v", d, all)
	}
	if s.Requests() != 4 {
		t.Fatalf("requests %d", s.Requests())
	}
	// Deleting a device twice: the second delete is refused (ENODEV) and
	// the measurement fails.
	s.Timed = [][]rtnl.Request{mustScript(t, "link del a0\n"), mustScript(t, "link del b0\nlink del b0\n")}
	if _, err := RunScenario(ctx, s); err == nil || rtnl.Errno(err) == 0 {
		t.Fatalf("a refused request must fail the run with its errno, got %v", err)
	}
	// Setup failures name the request.
	s.Setup = mustScript(t, "link del nosuch\n")
	if _, err := RunScenario(ctx, s); err == nil {
		t.Fatal("a refused setup request must fail the run")
	}
}
