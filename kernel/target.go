//go:build linux

package kernel

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"sync"
	"time"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// Target is a kernel target. It is safe for use by one goroutine at a time.
type Target struct {
	opts  Options
	ns    *netns
	start rtnl.StartConf // the net.ipv4.conf state ns started from
	req   *netlink.Conn  // requests and dumps
	ev    *netlink.Conn  // multicast subscription

	mu        sync.Mutex
	events    []rtnl.Event
	evErr     error
	lastEvent time.Time
	reqNo     int // requests applied so far
	// dadRestarts counts, per ifindex, the RTM_NEWADDR (inet6) the
	// current request is still owed by DAD it restarted (restartedDAD)
	// or began for a nodad address.
	dadRestarts map[uint32]int
	// dadGaveUp holds the tentative addresses ("ADDR on DEV") whose
	// DAD syncLinkwatch waited for as long as it might and saw no end.
	dadGaveUp map[string]bool
	// announceOwed holds the IPv6 addresses the current request brought
	// up without their being tentative, each owed an RTM_NEWADDR by DAD
	// work that runs after the request; keptNodad the nodad addresses
	// kept over a down, which will be (keepaddr.go).
	announceOwed map[addrKey]bool
	keptNodad    map[addrKey]bool
	// adding6 is the IPv6 address the current request adds, if any: on
	// a device that is down, only such an address can be under DAD.
	adding6   netip.Addr
	names     map[int32]string // ifindex -> name, as the events told it
	flags     map[int32]uint32 // ifindex -> ifi_flags, likewise
	evDone    chan struct{}
	evClosed  bool // set by CloseEvents
	evOnce    sync.Once
	closeOnce sync.Once
	// subs are the namespaces the script named (named.go), order the
	// order it made them.
	subs  map[string]*Target
	order []string
	root  *Target // for a named namespace's target: the first one
	// ranks are all the named namespaces by when they were made, and
	// deadEvents the notifications of those deleted since.
	ranks      []string
	deadEvents []rtnl.Event
	// answer is the last route get's (rtnl.Answerer).
	answer *rtnl.RouteEntry
}

// Answer is the last route get's answer (rtnl.Answerer).
func (t *Target) Answer() (rtnl.RouteEntry, bool) {
	if t.answer == nil {
		return rtnl.RouteEntry{}, false
	}
	return *t.answer, true
}

// Multicast groups the event socket joins (legacy bitmask form).
const eventGroups = unix.RTMGRP_LINK | unix.RTMGRP_IPV4_IFADDR | unix.RTMGRP_IPV4_ROUTE |
	unix.RTMGRP_IPV6_IFADDR | unix.RTMGRP_IPV6_ROUTE | ruleGroups

// New makes a fresh network namespace and a target in it.
func New(opts Options) (*Target, error) { return newTarget(opts, true) }

func newTarget(opts Options, fresh bool) (*Target, error) {
	if opts.Settle == 0 {
		opts.Settle = 50 * time.Millisecond
	}
	ns, err := newNetns(fresh)
	if err != nil {
		return nil, err
	}
	t := &Target{opts: opts, ns: ns, names: map[int32]string{}, dadGaveUp: map[string]bool{}, flags: map[int32]uint32{}, evDone: make(chan struct{})}
	fail := func(err error) (*Target, error) {
		if t.ev != nil {
			t.ev.Close()
		}
		if t.req != nil {
			t.req.Close()
		}
		ns.close()
		return nil, err
	}
	// The subscription comes first so that it sees every notification of
	// the first request.
	t.ev, err = netlink.Dial(unix.NETLINK_ROUTE, &netlink.Config{NetNS: ns.fd, Groups: eventGroups})
	if err != nil {
		return fail(fmt.Errorf("kernel target: event socket: %w", err))
	}
	// The nexthop group is past the legacy bitmask's 32 bits.
	if err := t.ev.JoinGroup(unix.RTNLGRP_NEXTHOP); err != nil {
		return fail(fmt.Errorf("kernel target: event socket: nexthop group: %w", err))
	}
	t.req, err = netlink.Dial(unix.NETLINK_ROUTE, &netlink.Config{NetNS: ns.fd})
	if err != nil {
		return fail(fmt.Errorf("kernel target: request socket: %w", err))
	}
	for _, c := range []*netlink.Conn{t.req, t.ev} {
		if err := t.checkSocket(c); err != nil {
			return fail(err)
		}
	}
	_ = t.req.SetOption(netlink.ExtendedAcknowledge, true)
	// A large receive queue for notification storms; root may force it.
	if raw, err := t.ev.SyscallConn(); err == nil {
		_ = raw.Control(func(fd uintptr) {
			_ = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 256<<20)
		})
	}
	_ = t.ev.SetOption(netlink.NoENOBUFS, false)
	if t.start, err = readStartConf(ns); err != nil {
		return fail(fmt.Errorf("kernel target: starting net.ipv4.conf: %w", err))
	}
	for path, v := range opts.Sysctls {
		if err := ns.writeSysctl("/proc/sys/"+path, v); err != nil {
			return fail(fmt.Errorf("kernel target: sysctl %s: %w", path, err))
		}
	}
	// The names of the devices that exist already (lo), as a monitoring
	// client's link cache has them, so that their notifications name them.
	if _, cache, err := t.links(); err == nil {
		maps.Copy(t.names, cache.name)
		maps.Copy(t.flags, cache.flags)
	} else {
		return fail(fmt.Errorf("kernel target: link dump: %w", err))
	}
	t.lastEvent = time.Now()
	if opts.SyncLinkwatch {
		// Notifications are read in step with the requests instead.
		close(t.evDone)
	} else {
		go t.readEvents()
	}
	return t, nil
}

// checkSocket refuses a socket that lives in the namespace the process
// started in, or anywhere but the target's own namespace.
func (t *Target) checkSocket(c *netlink.Conn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var ino uint64
	var cerr error
	if err := raw.Control(func(fd uintptr) { ino, cerr = socketNetns(int(fd)) }); err != nil {
		return err
	}
	if cerr != nil {
		return cerr
	}
	if ino == startNetns || startNetns == 0 {
		return ErrSameNamespace
	}
	if ino != t.ns.inode {
		return fmt.Errorf("kernel target: socket is in namespace %d, expected %d", ino, t.ns.inode)
	}
	return nil
}

// NetnsPath names the namespace for child processes (nsenter --net=PATH).
func (t *Target) NetnsPath() string { return t.ns.path }

// NetnsInode identifies the namespace.
func (t *Target) NetnsInode() uint64 { return t.ns.inode }

// CloseEvents closes the notification subscription and waits for its
// reader: from then on no socket of the target is joined to a multicast
// group, as when a lone `ip` command runs. Requests, State and Events go
// on working; Events returns the notifications seen before the close.
func (t *Target) CloseEvents() {
	t.evOnce.Do(func() {
		t.ev.Close()
		<-t.evDone
		t.evClosed = true
	})
}

// Close releases the sockets and the namespace.
func (t *Target) Close() error {
	t.closeOnce.Do(func() {
		for _, s := range t.subs {
			s.Close()
		}
		t.req.Close()
		t.CloseEvents()
		t.ns.close()
	})
	return nil
}

// execute sends one request with an ACK and returns the kernel's answer.
func (t *Target) execute(typ uint16, flags netlink.HeaderFlags, data []byte) ([]netlink.Message, error) {
	msgs, err := t.req.Execute(netlink.Message{
		Header: netlink.Header{Type: netlink.HeaderType(typ), Flags: netlink.Request | netlink.Acknowledge | flags},
		Data:   data,
	})
	return msgs, kernelError(err)
}

// get sends a GET request without an ACK: the reply is the answer (an
// ACK would arrive as a second datagram and confuse the next request).
func (t *Target) get(typ uint16, data []byte) ([]netlink.Message, error) {
	msgs, err := t.req.Execute(netlink.Message{
		Header: netlink.Header{Type: netlink.HeaderType(typ), Flags: netlink.Request},
		Data:   data,
	})
	return msgs, kernelError(err)
}

// dump runs a dump request.
func (t *Target) dump(typ uint16, data []byte) ([]netlink.Message, error) {
	msgs, err := t.req.Execute(netlink.Message{
		Header: netlink.Header{Type: netlink.HeaderType(typ), Flags: netlink.Request | netlink.Dump},
		Data:   data,
	})
	return msgs, kernelError(err)
}

// kernelError turns a netlink error into an *rtnl.Error with the errno and
// the extended-ack message.
func kernelError(err error) error {
	if err == nil {
		return nil
	}
	var op *netlink.OpError
	if errors.As(err, &op) {
		var errno unix.Errno
		if errors.As(op.Err, &errno) {
			return &rtnl.Error{Errno: errno, Msg: op.Message}
		}
	}
	return err
}

// settle waits until no notification has arrived for the settle period,
// at most two seconds.
func (t *Target) settle(ctx context.Context) {
	if t.opts.SyncLinkwatch {
		t.drainEvents()
		return
	}
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		t.mu.Lock()
		quiet := time.Since(t.lastEvent)
		t.mu.Unlock()
		if quiet >= t.opts.Settle {
			return
		}
		time.Sleep(t.opts.Settle - quiet)
	}
}

// Events returns the notifications seen so far, after the stream settles.
func (t *Target) Events(ctx context.Context) ([]rtnl.Event, error) {
	t.settle(ctx)
	t.mu.Lock()
	out, err := append([]rtnl.Event(nil), t.events...), t.evErr
	t.mu.Unlock()
	if len(t.ranks) == 0 {
		return out, err
	}
	out = append(out, t.deadEvents...)
	// The named namespaces' notifications, marked, request by request
	// after the target's own (rtnl.SortEventsByRequest): each socket
	// keeps its namespace's order, nothing orders two sockets.
	for _, name := range t.order {
		evs, serr := t.subs[name].Events(ctx)
		if err == nil {
			err = serr
		}
		for _, e := range evs {
			e.Netns = name
			out = append(out, e)
		}
	}
	return rtnl.SortEventsByRequest(out, t.ranks), err
}

func (t *Target) readEvents() {
	defer close(t.evDone)
	for {
		msgs, err := t.ev.Receive()
		if err != nil {
			if errors.Is(err, unix.ENOBUFS) {
				t.setEvErr(errEventsLost)
				continue
			}
			return // closed
		}
		t.record(msgs, 0)
	}
}

// record decodes notifications into the event list; req numbers them
// with their request (0: unknown).
func (t *Target) record(msgs []netlink.Message, req int) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, m := range msgs {
		if ev, ok := t.decodeEvent(m); ok {
			ev.Request = req
			t.events = append(t.events, ev)
			n++
		}
	}
	t.lastEvent = time.Now()
	return n
}
