package testseed

import (
	"os"
	"strconv"
	"testing"

	"github.com/rtnlsim/rtnlsim/kernel"
)

// KernelMissing ends a kernel test that cannot run here (why: no root, no
// kernel target): it skips, or fails when RTNLSIM_REQUIRE_KERNEL=1 (CI)
// says the kernel must be there.
func KernelMissing(t testing.TB, why any) {
	t.Helper()
	if os.Getenv("RTNLSIM_REQUIRE_KERNEL") == "1" {
		t.Fatalf("kernel test required (RTNLSIM_REQUIRE_KERNEL=1) but cannot run: %v", why)
	}
	t.Skipf("kernel test skipped: %v", why)
}

// NeedRoot ends the test through KernelMissing unless the process is root,
// which kernel tests need to make network namespaces of their own.
func NeedRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		KernelMissing(t, "needs root to make network namespaces")
	}
}

// NeedKernel ends the test through KernelMissing unless a kernel target
// (a fresh namespace of this machine's kernel) can be made here.
func NeedKernel(t testing.TB) {
	t.Helper()
	NeedRoot(t)
	kt, err := kernel.New(kernel.Options{})
	if err != nil {
		KernelMissing(t, err)
	}
	kt.Close()
}

// NeedKMeasure skips a kernel timing test unless RTNLSIM_KMEASURE=1 (as
// make fidelity-tests sets): wall-clock figures move with the machine's load, so
// make test leaves them out. what names the measurement for the skip.
func NeedKMeasure(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("RTNLSIM_KMEASURE") != "1" {
		t.Skipf("kernel timing (%s) runs with RTNLSIM_KMEASURE=1 and root, as make fidelity-tests does", what)
	}
}

// EnvInt is the integer in the environment variable name, def when it is
// unset; the test fails when it is not a number >= least.
func EnvInt(t testing.TB, name string, def, least int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < least {
		t.Fatalf("%s: want a number >= %d, not %q", name, least, s)
	}
	return v
}
