//go:build !linux

package kernel

import (
	"context"
	"errors"
	"runtime"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// errNeedsLinux is what every entry point returns off Linux.
var errNeedsLinux = errors.New("the kernel target needs Linux: it runs requests in a network namespace of the running kernel (this is " + runtime.GOOS + ")")

// Target is a kernel target. Off Linux there is none: New fails, and the
// methods, for a Target that cannot exist, fail the same way.
type Target struct{}

// New fails off Linux.
func New(opts Options) (*Target, error) { return nil, errNeedsLinux }

// StartNetnsInode is 0 off Linux: there is no network namespace.
func StartNetnsInode() uint64 { return 0 }

func (t *Target) Apply(ctx context.Context, req rtnl.Request) error { return errNeedsLinux }

func (t *Target) State(ctx context.Context, show rtnl.Show) (rtnl.State, error) {
	return rtnl.State{}, errNeedsLinux
}

func (t *Target) Events(ctx context.Context) ([]rtnl.Event, error) { return nil, errNeedsLinux }

func (t *Target) Close() error { return nil }

func (t *Target) CloseEvents() {}

func (t *Target) NetnsPath() string { return "" }

func (t *Target) NetnsInode() uint64 { return 0 }

func (t *Target) NamedNetnsPaths() map[string]string { return nil }

// StartConf is the compiled-in state off Linux.
func (t *Target) StartConf() rtnl.StartConf { return rtnl.StartConf{} }

func (t *Target) LinkDumpChunked(recvBuf int, between func(chunk int) error) ([]DumpChunk, error) {
	return nil, errNeedsLinux
}

func (t *Target) NewThread() (*Thread, error) { return nil, errNeedsLinux }

// Thread is a second user of a target's namespace; off Linux there is none.
type Thread struct{}

func (th *Thread) Apply(ctx context.Context, req rtnl.Request) error { return errNeedsLinux }

func (th *Thread) Close() error { return nil }

// Answer has nothing off Linux.
func (t *Target) Answer() (rtnl.RouteEntry, bool) { return rtnl.RouteEntry{}, false }
