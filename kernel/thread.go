//go:build linux

package kernel

import (
	"context"
	"fmt"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// Thread is a second user of a target's namespace: a rtnetlink socket of
// its own, joined to no multicast group, sending requests the way the
// target sends them (Apply). Threads let several goroutines drive one
// namespace at once, as several `ip` processes would; a Thread is for one
// goroutine at a time, and its notifications are not recorded.
type Thread struct {
	t *Target // a sibling sharing the namespace, never handed out
}

// NewThread opens a rtnetlink socket in t's namespace. Close it before
// closing t.
func (t *Target) NewThread() (*Thread, error) {
	c, err := netlink.Dial(unix.NETLINK_ROUTE, &netlink.Config{NetNS: t.ns.fd})
	if err != nil {
		return nil, fmt.Errorf("kernel target: thread socket: %w", err)
	}
	// The sibling has no event socket: evClosed keeps apply's linkwatch
	// wait (drainEvents) from reading one.
	sib := &Target{opts: Options{Settle: t.opts.Settle}, ns: t.ns, req: c,
		names: map[int32]string{}, flags: map[int32]uint32{}, evClosed: true}
	if err := sib.checkSocket(c); err != nil {
		c.Close()
		return nil, err
	}
	_ = c.SetOption(netlink.ExtendedAcknowledge, true)
	return &Thread{t: sib}, nil
}

// Apply carries out one request as Target.Apply does, without linkwatch
// synchronisation or event bookkeeping.
func (th *Thread) Apply(ctx context.Context, req rtnl.Request) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return th.t.apply(ctx, req)
}

// Close closes the thread's socket (the namespace stays with its target).
func (th *Thread) Close() error { return th.t.req.Close() }
