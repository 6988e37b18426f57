//go:build linux

package kernel

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// The target refuses a socket in the namespace the process started in.
func TestRefusesStartingNamespace(t *testing.T) {
	if os.Geteuid() != 0 && os.Getenv("RTNLSIM_REQUIRE_KERNEL") != "1" {
		t.Skip("needs root to open netlink sockets with SIOCGSKNS")
	}
	tg, err := newTarget(Options{}, false)
	if tg != nil {
		tg.Close()
	}
	require.ErrorIs(t, err, ErrSameNamespace)
}

// A target lives in a namespace that is not the caller's, and a device it
// makes is not visible outside it; the namespace goes with Close.
func TestOwnNamespace(t *testing.T) {
	tg := newTestTarget(t)
	require.NotEqual(t, StartNetnsInode(), tg.NetnsInode())
	require.NoError(t, tg.Apply(context.Background(), rtnl.Request{Op: rtnl.LinkAdd{Name: "rtnlsimtest0", Kind: "ifb"}}))
	out, err := exec.Command("ip", "-o", "link", "show").Output()
	require.NoError(t, err)
	require.NotContains(t, string(out), "rtnlsimtest0")
	inside, err := exec.Command("nsenter", "--net="+tg.NetnsPath(), "ip", "-o", "link", "show").Output()
	require.NoError(t, err)
	require.Contains(t, string(inside), "rtnlsimtest0")
	ino := tg.NetnsInode()
	require.NoError(t, tg.Close())
	// No thread of this process was left behind in the namespace.
	tasks, err := os.ReadDir("/proc/self/task")
	require.NoError(t, err)
	for _, task := range tasks {
		var st unix.Stat_t
		if unix.Stat("/proc/self/task/"+task.Name()+"/ns/net", &st) == nil {
			require.NotEqual(t, ino, st.Ino, "thread %s is still in the target's namespace", task.Name())
		}
	}
}
