//go:build linux

package kernel

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

func TestBridgeTimerDeadline(t *testing.T) {
	now := time.Unix(1000, 0)
	u32 := func(v uint32) *uint32 { return &v }
	cases := []struct {
		op   rtnl.Op
		want time.Duration // 0: none
	}{
		{rtnl.LinkAdd{Name: "br0", Kind: rtnl.KindBridge}, 15 * time.Second},
		{rtnl.LinkAdd{Name: "br0", Kind: rtnl.KindBridge, Bridge: rtnl.BridgeOpts{ForwardDelay: u32(0)}}, 0},
		{rtnl.LinkAdd{Name: "br0", Kind: rtnl.KindBridge, Bridge: rtnl.BridgeOpts{ForwardDelay: u32(250)}}, 2500 * time.Millisecond},
		{rtnl.LinkAdd{Name: "br0", Kind: rtnl.KindBridge, Bridge: rtnl.BridgeOpts{StpState: u32(1)}}, time.Second},
		{rtnl.LinkAdd{Name: "i0", Kind: rtnl.KindIfb}, 0},
		{rtnl.LinkSet{Dev: "br0", Kind: rtnl.KindBridge}, 0},
		{rtnl.LinkSet{Dev: "br0", Kind: rtnl.KindBridge, Bridge: rtnl.BridgeOpts{StpState: u32(0)}}, 0},
		{rtnl.InNetns{Name: "a", Op: rtnl.LinkSet{Dev: "br0", Kind: rtnl.KindBridge, Bridge: rtnl.BridgeOpts{StpState: u32(2), ForwardDelay: u32(3000)}}}, time.Second},
	}
	for _, c := range cases {
		got := bridgeTimerDeadline(c.op, now)
		if c.want == 0 {
			if !got.IsZero() {
				t.Errorf("%+v: deadline %v, want none", c.op, got.Sub(now))
			}
			continue
		}
		if got.Sub(now) != c.want {
			t.Errorf("%+v: deadline %v, want %v", c.op, got.Sub(now), c.want)
		}
	}
}

// A read after the shortest deadline is refused: the kernel's timers may
// have moved on where the model's never do.
func TestBridgeTimersRefuseLateRead(t *testing.T) {
	tg := newTestTarget(t)
	ctx := context.Background()
	fd := uint32(10)
	op := rtnl.LinkAdd{Name: "br0", Kind: rtnl.KindBridge, Bridge: rtnl.BridgeOpts{ForwardDelay: &fd}}
	if err := tg.Apply(ctx, rtnl.Request{Op: op}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(150 * time.Millisecond)
	if _, err := tg.State(ctx, rtnl.Show{Links: true}); err == nil || !strings.Contains(err.Error(), "bridge timer") {
		t.Fatalf("State after the forward delay: %v, want the bridge timer refusal", err)
	}
	if _, err := tg.Events(ctx); err == nil || !strings.Contains(err.Error(), "bridge timer") {
		t.Fatalf("Events after the forward delay: %v, want the bridge timer refusal", err)
	}
}
