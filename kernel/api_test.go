package kernel

import (
	"context"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// The part of the API that each OS's files define (kernel.go has the
// rest), with the signatures it has on every OS: this file builds for an
// OS only when that OS's files match them (go vet with GOOS set builds
// it).
var (
	_ func(Options) (*Target, error)                                 = New
	_ func() uint64                                                  = StartNetnsInode
	_ func(*Target, context.Context, rtnl.Request) error             = (*Target).Apply
	_ func(*Target, context.Context, rtnl.Show) (rtnl.State, error)  = (*Target).State
	_ func(*Target, context.Context) ([]rtnl.Event, error)           = (*Target).Events
	_ func(*Target) error                                            = (*Target).Close
	_ func(*Target)                                                  = (*Target).CloseEvents
	_ func(*Target) string                                           = (*Target).NetnsPath
	_ func(*Target) uint64                                           = (*Target).NetnsInode
	_ func(*Target, int, func(chunk int) error) ([]DumpChunk, error) = (*Target).LinkDumpChunked
	_ func(*Target) (*Thread, error)                                 = (*Target).NewThread
	_ func(*Thread, context.Context, rtnl.Request) error             = (*Thread).Apply
	_ func(*Thread) error                                            = (*Thread).Close
)
