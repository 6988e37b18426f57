//go:build linux

package kernel

import (
	"errors"
	"os"
	"testing"
)

// newTestTarget makes a kernel target or skips; with RTNLSIM_REQUIRE_KERNEL=1
// (as in CI) it fails instead of skipping.
func newTestTarget(t testing.TB) *Target {
	t.Helper()
	return newTestTargetWith(t, Options{})
}

// newTestTargetWith is newTestTarget with options.
func newTestTargetWith(t testing.TB, opts Options) *Target {
	t.Helper()
	tg, err := New(opts)
	if err != nil {
		if errors.Is(err, ErrNoPrivilege) && os.Getenv("RTNLSIM_REQUIRE_KERNEL") != "1" {
			t.Skipf("kernel suite skipped: %v", err)
		}
		t.Fatalf("kernel target: %v", err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}
