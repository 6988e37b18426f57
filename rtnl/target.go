package rtnl

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
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
	Links, Addrs, Routes, FibTrie, Events, Cost bool
}

// Error is a refused request: the errno the kernel (or the model) returned
// and, when the kernel said more, its extended-ack message.
type Error struct {
	Errno unix.Errno
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
func Errno(err error) unix.Errno {
	if err == nil {
		return 0
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Errno
	}
	var n unix.Errno
	if errors.As(err, &n) {
		return n
	}
	return 0
}

// ErrnoName is "EEXIST" and the like, or "" for 0.
func ErrnoName(e unix.Errno) string {
	switch e {
	case 0:
		return ""
	case unix.EOPNOTSUPP: // also ENOTSUP on Linux; the kernel says EOPNOTSUPP
		return "EOPNOTSUPP"
	case unix.EAGAIN:
		return "EAGAIN"
	}
	if n := unix.ErrnoName(e); n != "" {
		return n
	}
	return fmt.Sprintf("errno %d", int(e))
}

// Errf makes an *Error with a message.
func Errf(errno unix.Errno, format string, args ...any) *Error {
	return &Error{Errno: errno, Msg: fmt.Sprintf(format, args...)}
}
