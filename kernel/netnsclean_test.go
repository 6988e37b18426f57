//go:build linux

package kernel

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Closing a namespace of 300 UP devices hands it to cleanup_net, which
// NetnsCleanupRunning sees, and WaitNetnsCleanup returns before its limit.
func TestWaitNetnsCleanup(t *testing.T) {
	tg := newTestTarget(t)
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "link add c%d type ifb\nlink set c%d up\n", i, i)
	}
	applyLines(t, tg, b.String())
	tg.Close()
	saw := false
	for end := time.Now().Add(10 * time.Second); !saw && time.Now().Before(end); time.Sleep(time.Millisecond) {
		saw = NetnsCleanupRunning()
	}
	if !saw {
		t.Fatal("no namespace cleanup seen within 10 s of closing a namespace of 300 UP devices")
	}
	// Other packages' tests may release namespaces meanwhile, so only the
	// limit is checked, not that none is being dismantled afterwards.
	waited, err := WaitNetnsCleanup(context.Background(), NetnsCleanupLimit)
	t.Logf("waited %v for the cleanup", waited)
	if err != nil {
		t.Error(err)
	}
}
