//go:build linux

package uapi

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// Errno is syscall.Errno on Linux: the model's refusals and the running
// kernel's replies are then values of one type, and errors.Is between them
// compares their numbers.
type Errno = syscall.Errno

// The errno values the model returns. They are the running kernel's own
// (syscall's): Linux numbers errors differently on some architectures
// (mips, for one).
const (
	EPERM         = syscall.EPERM
	ENOENT        = syscall.ENOENT
	ESRCH         = syscall.ESRCH
	EINTR         = syscall.EINTR
	ERANGE        = syscall.ERANGE
	ENXIO         = syscall.ENXIO
	EAGAIN        = syscall.EAGAIN
	ENOMEM        = syscall.ENOMEM
	EACCES        = syscall.EACCES
	EBUSY         = syscall.EBUSY
	EEXIST        = syscall.EEXIST
	ENODEV        = syscall.ENODEV
	EINVAL        = syscall.EINVAL
	ENFILE        = syscall.ENFILE
	ELOOP         = syscall.ELOOP
	EOPNOTSUPP    = syscall.EOPNOTSUPP
	EADDRINUSE    = syscall.EADDRINUSE
	EADDRNOTAVAIL = syscall.EADDRNOTAVAIL
	ENETDOWN      = syscall.ENETDOWN
	ENETUNREACH   = syscall.ENETUNREACH
	ENOBUFS       = syscall.ENOBUFS
	EHOSTUNREACH  = syscall.EHOSTUNREACH
)

// ErrnoName is "EINVAL" and the like, or "" for a number Linux has no name
// for. EOPNOTSUPP is named as the kernel's sources name it: x/sys/unix
// calls the same number ENOTSUP.
func ErrnoName(e Errno) string {
	if e == EOPNOTSUPP {
		return "EOPNOTSUPP"
	}
	return unix.ErrnoName(e)
}
