package props

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/leanovate/gopter"

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

// gopterParams prints the seed (RTNLSIM_SEED replays one) and sets the
// number of cases.
func gopterParams(t *testing.T, n int) *gopter.TestParameters {
	t.Helper()
	seed := time.Now().UnixNano()
	if s := os.Getenv("RTNLSIM_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("RTNLSIM_SEED: %v", err)
		}
		seed = v
	}
	p := gopter.DefaultTestParametersWithSeed(seed)
	p.MinSuccessfulTests = n
	t.Logf("gopter seed %d (RTNLSIM_SEED=%d replays it)", seed, seed)
	return p
}

// report runs the properties and fails the test on any failure.
func report(t *testing.T, props *gopter.Properties) {
	t.Helper()
	props.TestingRun(t, gopter.ConsoleReporter(false))
}
