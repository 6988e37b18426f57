package props

import (
	"os"
	"testing"

	"github.com/leanovate/gopter"

	"github.com/rtnlsim/rtnlsim/internal/testseed"
	"github.com/rtnlsim/rtnlsim/kernel"
)

// requireKernel skips a kernel suite without root, unless
// RTNLSIM_REQUIRE_KERNEL=1 (CI), where it fails.
func requireKernel(t *testing.T) {
	t.Helper()
	tg, err := kernel.New(kernel.Options{})
	if err != nil {
		if os.Getenv("RTNLSIM_REQUIRE_KERNEL") == "1" {
			t.Fatalf("kernel suite required but unavailable: %v", err)
		}
		t.Skipf("kernel suite skipped: %v", err)
	}
	tg.Close()
}

// gopterParams takes the seed (internal/testseed: fixed by default,
// RTNLSIM_SEED replays or explores) and sets the number of cases.
func gopterParams(t *testing.T, n int) *gopter.TestParameters {
	t.Helper()
	p := gopter.DefaultTestParametersWithSeed(testseed.Get(t, 20261130))
	p.MinSuccessfulTests = n
	return p
}

// report runs the properties and fails the test on any failure.
func report(t *testing.T, props *gopter.Properties) {
	t.Helper()
	props.TestingRun(t, gopter.ConsoleReporter(false))
}
