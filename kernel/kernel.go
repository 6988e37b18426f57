// Package kernel is the real target: a fresh network namespace of this
// machine, driven over rtnetlink (jsimonetti/rtnetlink/v2 messages over
// mdlayher/netlink), with State read back the way `ip -j` reads it and
// Events taken from a multicast subscription opened before the first
// request.
//
// The target needs Linux (network namespaces, rtnetlink sockets, /proc):
// the files that make it are built on Linux only. The package's API is
// the same on every OS, so that its callers build anywhere; on another OS
// New returns an error saying that the target needs Linux.
package kernel

import (
	"errors"
	"time"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// Options tune a kernel target.
type Options struct {
	// Settle is how long the event stream must stay quiet before State and
	// Events read back, so that the kernel's deferred work (linkwatch
	// operstate changes, IPv6 address configuration) has landed. Zero
	// means 50ms.
	Settle time.Duration
	// Sysctls are written inside the new namespace before the first
	// request, e.g. {"net/ipv6/conf/default/accept_dad": "0"}. Paths are
	// relative to /proc/sys.
	Sysctls map[string]string
	// SyncLinkwatch makes every request end only when the work it left
	// to linkwatch has run and the IPv6 duplicate address detection it
	// started has ended (see syncLinkwatch), and numbers each
	// notification with the request whose window it came in. Without it
	// the kernel runs non-urgent linkwatch work up to a second later, in
	// the middle of later requests.
	SyncLinkwatch bool
}

// ErrNoPrivilege is returned when the process may not create a network
// namespace (needs root or CAP_SYS_ADMIN + CAP_NET_ADMIN).
var ErrNoPrivilege = errors.New("kernel target: creating a network namespace needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN)")

// ErrSameNamespace is returned when a socket of the target turns out to
// live in the namespace the process started in: the target refuses to touch
// it.
var ErrSameNamespace = errors.New("kernel target: refusing to act in the namespace the process started in")

// DumpedLink is one device a link dump returned.
type DumpedLink struct {
	Index int
	Name  string
}

// DumpChunk is one datagram of a dump, as the kernel filled it.
type DumpChunk struct {
	Links []DumpedLink
	// Interrupted is NLM_F_DUMP_INTR: the kernel saw the table change
	// during the dump.
	Interrupted bool
	// Done: the datagram ended the dump (NLMSG_DONE).
	Done bool
}

var _ rtnl.Target = (*Target)(nil)
