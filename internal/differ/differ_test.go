package differ

import (
	"testing"
	"time"
)

// TimerLike: only a run slower than the bridge forward delay whose first
// difference is a kernel-only bridge port notification.
func TestTimerLike(t *testing.T) {
	timer := "notifications of request 24 differ: sim sent 0, kernel 5; notification 1: sim (no more), kernel RTM_NEWLINK bridge\n{...}"
	link := "notifications of request 3 differ: sim sent 1, kernel 2; notification 2: sim (no more), kernel RTM_NEWLINK link\n{...}"
	slow, quick := BridgeForwardDelay+time.Second, BridgeForwardDelay-time.Second
	for _, c := range []struct {
		o    Outcome
		want bool
	}{
		{Outcome{Diff: timer, KernelWall: slow}, true},
		{Outcome{Diff: timer, KernelWall: quick}, false},
		{Outcome{Diff: link, KernelWall: slow}, false},
		{Outcome{KernelWall: slow}, false},
	} {
		if got := c.o.TimerLike(); got != c.want {
			t.Errorf("%q after %v: TimerLike %v, want %v", c.o.Diff, c.o.KernelWall, got, c.want)
		}
	}
}
