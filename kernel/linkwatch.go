//go:build linux

package kernel

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"syscall"
	"time"

	"github.com/jsimonetti/rtnetlink/v2"
	"github.com/mdlayher/netlink"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"golang.org/x/sys/unix"
)

// syncLinkwatch runs, before a request returns, the linkwatch work it left
// pending and waits for the IPv6 duplicate address detection it started,
// so that every notification lands in the window of the request that
// caused it.
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
//
// DAD also runs from a workqueue, up to seconds later, and announces the
// address (RTM_NEWADDR, then its local route) under rtnl_lock when it
// ends. Each round looks for tentative addresses before its SETLINK: one
// seen cleared there has either been announced or is being announced
// under rtnl_lock, which the SETLINK waits for. Rounds that found DAD
// still running sleep and do not count against the linkwatch limit.
func (t *Target) syncLinkwatch() error {
	var poll dadPoll
	for round := 0; ; {
		if round == 16 {
			return errors.New("kernel target: linkwatch kept sending notifications after 16 rounds")
		}
		links, pending, maybe, err := t.linksAndDAD()
		if err != nil {
			return err
		}
		if err := t.flushLinkwatch(links); err != nil {
			return err
		}
		n := t.drainEvents()
		if pending == "" {
			pending = t.restartPending()
		}
		if pending == "" && maybe != "" {
			if poll.maybeLeft() {
				pending = maybe
			} else {
				t.dadGaveUp[maybe] = true // not waited for again
			}
		}
		if pending != "" {
			if err := poll.wait(context.Background(), pending); err != nil {
				return err
			}
			continue
		}
		if n == 0 && round > 0 {
			return nil
		}
		round++
	}
}

// flushLinkwatch runs the linkwatch work pending for links and waits for
// a run under way.
func (t *Target) flushLinkwatch(links []linkMsg) error {
	for _, l := range links {
		m := &rtnetlink.LinkMessage{Index: l.hdr.Index}
		b, err := m.MarshalBinary()
		if err != nil {
			return err
		}
		// A device gone meanwhile is no matter.
		_, _ = t.get(unix.RTM_GETLINK, b)
	}
	return t.sendLink(unix.RTM_SETLINK, 0, &rtnetlink.LinkMessage{Index: 1}, attrs{})
}

// dadWait bounds the wait for DAD, which takes 1-2 s with accept_dad 1;
// maybeWait the wait for DAD that may not run (see dadPending).
const (
	dadWait   = 10 * time.Second
	maybeWait = 3 * time.Second
)

// dadPoll paces the waits for DAD: 1 ms at first (DAD without probes,
// NOARP or accept_dad 0, ends at once), doubling up to 100 ms, for at
// most dadWait from the first wait.
type dadPoll struct {
	deadline time.Time
	pause    time.Duration
	maybeEnd time.Time
}

// maybeLeft says whether DAD that may not run is still worth waiting
// for: maybeWait from the first time it was asked.
func (p *dadPoll) maybeLeft() bool {
	if p.maybeEnd.IsZero() {
		p.maybeEnd = time.Now().Add(maybeWait)
	}
	return time.Now().Before(p.maybeEnd)
}

// wait sleeps once, or fails naming the address still under DAD when
// the time is up.
func (p *dadPoll) wait(ctx context.Context, pending string) error {
	if p.deadline.IsZero() {
		p.deadline, p.pause = time.Now().Add(dadWait), time.Millisecond
	} else if time.Now().After(p.deadline) {
		return fmt.Errorf("kernel target: IPv6 duplicate address detection still running after %v: %s", dadWait, pending)
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(p.pause):
	}
	p.pause = min(p.pause*2, 100*time.Millisecond)
	return nil
}

// linksAndDAD dumps the links and, with them, names the first address
// under DAD (dadPending).
func (t *Target) linksAndDAD() ([]linkMsg, string, string, error) {
	links, cache, err := t.links()
	if err != nil {
		return nil, "", "", err
	}
	pending, maybe, err := t.dadPending(links, cache)
	return links, pending, maybe, err
}

// restartedDAD notes the DAD a request restarted: a change of IFF_NOARP
// on a device that is up and running makes addrconf_dad_run start DAD
// again for every IPv6 address of the device. An address whose DAD had
// ended does not turn tentative; its DAD work runs up to
// rtr_solicit_delay (a second) later, finds DAD needless and announces the
// address again (RTM_NEWADDR). before is the links as they were before
// the request; syncLinkwatch waits for those notifications.
func (t *Target) restartedDAD(before []linkMsg) error {
	after, _, err := t.links()
	if err != nil {
		return err
	}
	was := map[uint32]uint32{}
	for _, l := range before {
		was[l.hdr.Index] = l.hdr.Flags
	}
	const running = unix.IFF_UP | unix.IFF_LOWER_UP | unix.IFF_RUNNING
	changed := map[uint32]bool{}
	for _, l := range after {
		f, ok := was[l.hdr.Index]
		if ok && (f^l.hdr.Flags)&unix.IFF_NOARP != 0 && l.hdr.Flags&running == running {
			changed[l.hdr.Index] = true
		}
	}
	if len(changed) == 0 {
		return nil
	}
	addrs, err := t.addrs6()
	if err != nil {
		return err
	}
	for _, a := range addrs {
		if changed[a.index] {
			if t.dadRestarts == nil {
				t.dadRestarts = map[uint32]int{}
			}
			t.dadRestarts[a.index]++
		}
	}
	return nil
}

// addrs6 dumps the namespace's IPv6 addresses.
func (t *Target) addrs6() ([]addrMsg, error) {
	req := make([]byte, unix.SizeofIfAddrmsg)
	req[0] = unix.AF_INET6
	msgs, err := t.dump(unix.RTM_GETADDR, req)
	if err != nil {
		return nil, err
	}
	var out []addrMsg
	for _, m := range msgs {
		if a, ok := parseAddr(m); ok && a.family == unix.AF_INET6 {
			out = append(out, a)
		}
	}
	return out, nil
}

// restartPending names a device still owed RTM_NEWADDRs by DAD the
// current request restarted, or an address owed one (announceOwed), or
// is "".
func (t *Target) restartPending() string {
	if len(t.dadRestarts) == 0 && len(t.announceOwed) == 0 {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	seen := map[uint32]int{}
	seenAddr := map[addrKey]bool{}
	for i := len(t.events) - 1; i >= 0 && t.events[i].Request == t.reqNo; i-- {
		ev := t.events[i]
		if a, ok := ev.Object.(rtnl.AddrEvent); ok && ev.Type == "RTM_NEWADDR" && ev.Family == "inet6" {
			seen[uint32(a.Ifindex)]++
			if ip, err := netip.ParseAddr(a.Local); err == nil {
				seenAddr[addrKey{uint32(a.Ifindex), ip}] = true
			}
		}
	}
	for idx, want := range t.dadRestarts {
		if seen[idx] < want {
			return fmt.Sprintf("%d address(es) of ifindex %d to be announced again after a change of arp", want-seen[idx], idx)
		}
	}
	for k := range t.announceOwed {
		if !seenAddr[k] {
			return fmt.Sprintf("%s on ifindex %d, kept over a down, to be announced", k.addr, k.index)
		}
	}
	t.dadRestarts, t.announceOwed = nil, nil
	return ""
}

// dadPending names the first IPv6 address whose DAD is still running
// ("fe80::1 on va"), or is "". An address counts when it is TENTATIVE
// without DADFAILED (a failed DAD leaves it tentative for good) on a
// device that is up with carrier.
//
// maybe names an address that may be under DAD: tentative on a device
// that is up without carrier, or one the request adds on a device that
// is down where DAD needs no probes (addrconf_dad_begin: a NOARP or
// loopback device, or accept_dad below 1 for both all and the device),
// which then ends as soon as its work runs: elsewhere DAD waits for the
// device (it needs IF_READY) and the address stays tentative, as one a
// down kept does (keep_addr_on_down). Carrier, unlike IFF_RUNNING, does
// not wait for linkwatch. On a device up without carrier IF_READY, which
// does not show, decides: a device that was ready once keeps it when its
// carrier goes and runs DAD (a second or two); one never ready leaves
// the address tentative. And an address whose DAD stopped for want of a
// ready device stays tentative even where DAD would now need no probes.
// syncLinkwatch waits for such an address a while only, and not again
// (dadGaveUp).
func (t *Target) dadPending(links []linkMsg, cache linkCache) (pending, maybe string, err error) {
	addrs, err := t.addrs6()
	if err != nil {
		return "", "", err
	}
	ready, up, noProbes := map[uint32]bool{}, map[uint32]bool{}, map[uint32]bool{}
	for _, l := range links {
		ready[l.hdr.Index] = l.hdr.Flags&(unix.IFF_UP|unix.IFF_LOWER_UP) == unix.IFF_UP|unix.IFF_LOWER_UP
		up[l.hdr.Index] = l.hdr.Flags&unix.IFF_UP != 0
		noProbes[l.hdr.Index] = l.hdr.Flags&(unix.IFF_NOARP|unix.IFF_LOOPBACK) != 0
	}
	// probes says whether DAD on device idx sends probes (a value that
	// cannot be read counts as 1, the kernel's default).
	probes := func(idx uint32) bool {
		if noProbes[idx] {
			return false
		}
		read := func(dev string) int {
			s, err := t.ns.readSysctl("/proc/sys/net/ipv6/conf/" + dev + "/accept_dad")
			v, perr := strconv.Atoi(s)
			if err != nil || perr != nil {
				return 1
			}
			return v
		}
		return read("all") >= 1 || read(cache.nameOf(idx)) >= 1
	}
	for _, a := range addrs {
		flags := uint32(a.flags)
		if f, ok := a.attrs.u32(unix.IFA_FLAGS); ok {
			flags = f
		}
		if flags&unix.IFA_F_TENTATIVE == 0 || flags&unix.IFA_F_DADFAILED != 0 {
			continue
		}
		name := fmt.Sprintf("%s on %s", a.local, cache.nameOf(a.index))
		switch {
		case ready[a.index]:
			return name, "", nil
		case t.dadGaveUp[name] || maybe != "":
		case up[a.index]:
			maybe = name
		case a.local == t.adding6 && !probes(a.index):
			// On a device that is down only an address being added
			// can be under DAD; others tentative there are kept over
			// a down (keep_addr_on_down) and wait for the device.
			maybe = name
		}
	}
	return "", maybe, nil
}

// waitDAD returns once no address is under DAD (see dadPending), at most
// after dadWait, so that State shows none as tentative.
func (t *Target) waitDAD(ctx context.Context) error {
	if t.opts.SyncLinkwatch {
		// Requests already waited; what is left is waited for, and its
		// notifications read, as a request's would be.
		if _, pending, _, err := t.linksAndDAD(); err != nil || pending == "" {
			return err
		}
		return t.syncLinkwatch()
	}
	var poll dadPoll
	for {
		// Linkwatch adds the link-local addresses (on NETDEV_CHANGE) and
		// may pass a carrier on (lower to macvlan): run it first.
		links, _, err := t.links()
		if err != nil {
			return err
		}
		if err := t.flushLinkwatch(links); err != nil {
			return err
		}
		_, pending, _, err := t.linksAndDAD()
		if err != nil {
			return err
		}
		if pending == "" {
			break
		}
		if err := poll.wait(ctx, pending); err != nil {
			return err
		}
	}
	if poll.deadline.IsZero() {
		return nil // never waited
	}
	// A DAD that ended may still be announcing its address and adding its
	// local route under rtnl_lock: a no-op SETLINK on lo waits for it, and
	// counting it as activity makes settle wait for the reader.
	if err := t.flushLinkwatch(nil); err != nil {
		return err
	}
	t.mu.Lock()
	t.lastEvent = time.Now()
	t.mu.Unlock()
	return nil
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
