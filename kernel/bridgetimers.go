//go:build linux

package kernel

import (
	"fmt"
	"time"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// The bridge's timers run on the wall clock: a port's forward-delay timer
// notifies it (and, under STP, moves it on towards FORWARDING) the
// bridge's forward delay after the port was enabled, and under STP the
// hello timer sends BPDUs that other ports may act on, a second at the
// least after STP began. The model runs none of them, so a run is only
// comparable while none can have fired: noteBridgeTimers keeps the
// earliest moment one could, and timersErr refuses a state or events read
// later than that.

// bridgeTimerDeadline is the earliest a timer the request arms can fire:
// its forward delay (15 s by default) after the request, a second after
// STP was asked for.
func bridgeTimerDeadline(op rtnl.Op, now time.Time) time.Time {
	var o rtnl.BridgeOpts
	switch op := op.(type) {
	case rtnl.LinkAdd:
		if op.Kind != rtnl.KindBridge {
			return time.Time{}
		}
		o = op.Bridge
		if o.ForwardDelay == nil {
			fd := uint32(1500)
			o.ForwardDelay = &fd
		}
	case rtnl.LinkSet:
		if op.Kind != rtnl.KindBridge {
			return time.Time{}
		}
		o = op.Bridge
	case rtnl.InNetns:
		return bridgeTimerDeadline(op.Op, now)
	default:
		return time.Time{}
	}
	var d time.Time
	if o.ForwardDelay != nil && *o.ForwardDelay != 0 {
		d = now.Add(time.Duration(*o.ForwardDelay) * 10 * time.Millisecond)
	}
	if o.StpState != nil && *o.StpState != 0 {
		if h := now.Add(time.Second); d.IsZero() || h.Before(d) {
			d = h
		}
	}
	return d
}

// noteBridgeTimers records the request's deadline in the first target,
// whose reads cover the named namespaces too.
func (t *Target) noteBridgeTimers(op rtnl.Op) {
	top := t
	if t.root != nil {
		top = t.root
	}
	d := bridgeTimerDeadline(op, time.Now())
	if !d.IsZero() && (top.timerDeadline.IsZero() || d.Before(top.timerDeadline)) {
		top.timerDeadline = d
	}
}

// timersErr refuses a read after a bridge timer may have fired.
func (t *Target) timersErr() error {
	if t.root != nil || t.timerDeadline.IsZero() || time.Now().Before(t.timerDeadline) {
		return nil
	}
	return fmt.Errorf("kernel target: read %v after a bridge timer could fire (forward delay or STP hello): the model runs none, so the run cannot be compared",
		time.Since(t.timerDeadline).Round(time.Millisecond))
}
