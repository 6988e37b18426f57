package kernel

import (
	"errors"
	"syscall"

	"github.com/jsimonetti/rtnetlink/v2"
	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

// syncLinkwatch runs, before a request returns, the linkwatch work it left
// pending, so that every notification lands in the window of the request
// that caused it.
//
// The kernel queues carrier and operstate changes to linkwatch, whose
// work runs from a workqueue: at once for urgent events, otherwise at most
// once a second. RTM_GETLINK of one device runs that device's pending
// event first (rtnl_getlink calls linkwatch_sync_dev), so a GETLINK of
// every device flushes the queue; a no-op RTM_SETLINK on lo then takes
// rtnl_lock, which waits for any linkwatch run already under way. The
// notifications all of this sent are queued on the event socket by the
// time the SETLINK is acknowledged. Linkwatch work can queue more (a
// lower's change reaches its macvlans), so rounds repeat until one
// brings no notification.
func (t *Target) syncLinkwatch() error {
	for round := 0; ; round++ {
		if round == 16 {
			return errors.New("kernel target: linkwatch kept sending notifications after 16 rounds")
		}
		links, _, err := t.links()
		if err != nil {
			return err
		}
		for _, l := range links {
			m := &rtnetlink.LinkMessage{Index: l.hdr.Index}
			b, err := m.MarshalBinary()
			if err != nil {
				return err
			}
			// A device gone meanwhile is no matter.
			_, _ = t.get(unix.RTM_GETLINK, b)
		}
		if err := t.sendLink(unix.RTM_SETLINK, 0, &rtnetlink.LinkMessage{Index: 1}, attrs{}); err != nil {
			return err
		}
		if t.drainEvents() == 0 && round > 0 {
			return nil
		}
	}
}

// drainEvents reads every notification queued on the event socket (in
// sync mode nothing else reads it) and numbers it with the current
// request. It reads with MSG_DONTWAIT until the queue is empty: a read
// deadline would also end a read whose goroutine merely ran late.
func (t *Target) drainEvents() int {
	if t.evClosed {
		return 0
	}
	raw, err := t.ev.SyscallConn()
	if err != nil {
		t.setEvErr(err)
		return 0
	}
	buf := make([]byte, 1<<18)
	total := 0
	for {
		var n int
		var rerr error
		if err := raw.Control(func(fd uintptr) {
			n, _, rerr = unix.Recvfrom(int(fd), buf, unix.MSG_DONTWAIT)
		}); err != nil {
			t.setEvErr(err)
			return total
		}
		switch {
		case errors.Is(rerr, unix.EAGAIN):
			return total
		case errors.Is(rerr, unix.EINTR):
			continue
		case errors.Is(rerr, unix.ENOBUFS):
			t.setEvErr(errEventsLost)
			continue
		case rerr != nil:
			t.setEvErr(rerr)
			return total
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			t.setEvErr(err)
			return total
		}
		out := make([]netlink.Message, 0, len(msgs))
		for _, m := range msgs {
			out = append(out, netlink.Message{
				Header: netlink.Header{Length: m.Header.Len, Type: netlink.HeaderType(m.Header.Type),
					Flags: netlink.HeaderFlags(m.Header.Flags), Sequence: m.Header.Seq, PID: m.Header.Pid},
				Data: m.Data,
			})
		}
		total += t.record(out, t.reqNo)
	}
}

var errEventsLost = errors.New("kernel target: notifications lost (ENOBUFS): the event socket overflowed")

// setEvErr keeps the first error of the event stream, which Events returns.
func (t *Target) setEvErr(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.evErr == nil {
		t.evErr = err
	}
}
