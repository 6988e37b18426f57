package rtnl

import (
	"context"
	"errors"
	"fmt"

	"github.com/rtnlsim/rtnlsim/uapi"
)

// Target applies requests and reads state back. The sim target (the model)
// and the kernel target (a fresh network namespace) both implement it, so
// the same script runs on either and the results compare field for field.
type Target interface {
	// Apply carries out one request. A refused request returns an *Error
	// carrying the errno; the target stays usable.
	Apply(ctx context.Context, req Request) error
	// State reads back the observables named in show.
	State(ctx context.Context, show Show) (State, error)
	// Events returns the notifications seen since the target was made, in
	// order.
	Events(ctx context.Context) ([]Event, error)
	Close() error
}

// Show selects the observables a run prints.
type Show struct {
	Links, Addrs, Routes, Rules, FibTrie, Events, Cost bool
}

// Error is a refused request: the errno the kernel (or the model) returned
// and, when the kernel said more, its extended-ack message.
type Error struct {
	Errno uapi.Errno
	Msg   string
}

func (e *Error) Error() string {
	name := ErrnoName(e.Errno)
	if e.Msg != "" {
		return fmt.Sprintf("%s (%s)", name, e.Msg)
	}
	return name
}

// Errno returns the errno carried by err, or 0 when err is nil or carries
// none.
func Errno(err error) uapi.Errno {
	if err == nil {
		return 0
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Errno
	}
	var n uapi.Errno
	if errors.As(err, &n) {
		return n
	}
	return 0
}

// ErrnoName is "EEXIST" and the like, or "" for 0.
func ErrnoName(e uapi.Errno) string {
	if e == 0 {
		return ""
	}
	if n := uapi.ErrnoName(e); n != "" {
		return n
	}
	return fmt.Sprintf("errno %d", int(e))
}

// Errf makes an *Error with a message.
func Errf(errno uapi.Errno, format string, args ...any) *Error {
	return &Error{Errno: errno, Msg: fmt.Sprintf(format, args...)}
}
