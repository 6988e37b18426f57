//go:build !linux

package uapi

import (
	"errors"
	"io/fs"
	"strconv"
)

// Errno is an error number as Linux returns it. Off Linux no kernel
// answers with these: they are the model's refusals, with Linux's numbers
// (the generic ones, as on x86 and arm), names and messages, so that a run
// prints the same here as on Linux.
type Errno uintptr

// The errno values the model returns.
const (
	EPERM         Errno = 1
	ENOENT        Errno = 2
	ESRCH         Errno = 3
	EINTR         Errno = 4
	ENXIO         Errno = 6
	EAGAIN        Errno = 11
	ENOMEM        Errno = 12
	EACCES        Errno = 13
	EBUSY         Errno = 16
	EEXIST        Errno = 17
	ENODEV        Errno = 19
	EINVAL        Errno = 22
	ERANGE        Errno = 34
	ENFILE        Errno = 23
	ELOOP         Errno = 40
	EOPNOTSUPP    Errno = 95
	EADDRINUSE    Errno = 98
	EADDRNOTAVAIL Errno = 99
	ENETDOWN      Errno = 100
	ENETUNREACH   Errno = 101
	ENOBUFS       Errno = 105
	EHOSTUNREACH  Errno = 113
)

// errnos holds each value's name and Linux's message for it (strerror, in
// lower case as Go's syscall.Errno gives it).
var errnos = map[Errno]struct{ name, text string }{
	EPERM:         {"EPERM", "operation not permitted"},
	ENOENT:        {"ENOENT", "no such file or directory"},
	ESRCH:         {"ESRCH", "no such process"},
	EINTR:         {"EINTR", "interrupted system call"},
	ENXIO:         {"ENXIO", "no such device or address"},
	EAGAIN:        {"EAGAIN", "resource temporarily unavailable"},
	ENOMEM:        {"ENOMEM", "cannot allocate memory"},
	EACCES:        {"EACCES", "permission denied"},
	EBUSY:         {"EBUSY", "device or resource busy"},
	EEXIST:        {"EEXIST", "file exists"},
	ENODEV:        {"ENODEV", "no such device"},
	EINVAL:        {"EINVAL", "invalid argument"},
	ERANGE:        {"ERANGE", "numerical result out of range"},
	ENFILE:        {"ENFILE", "too many open files in system"},
	ELOOP:         {"ELOOP", "too many levels of symbolic links"},
	EOPNOTSUPP:    {"EOPNOTSUPP", "operation not supported"},
	EADDRINUSE:    {"EADDRINUSE", "address already in use"},
	EADDRNOTAVAIL: {"EADDRNOTAVAIL", "cannot assign requested address"},
	ENETDOWN:      {"ENETDOWN", "network is down"},
	ENETUNREACH:   {"ENETUNREACH", "network is unreachable"},
	ENOBUFS:       {"ENOBUFS", "no buffer space available"},
	EHOSTUNREACH:  {"EHOSTUNREACH", "no route to host"},
}

// Error is Linux's message for e, as syscall.Errno's Error is on Linux.
func (e Errno) Error() string {
	if n, ok := errnos[e]; ok {
		return n.text
	}
	return "errno " + strconv.Itoa(int(e))
}

// Is matches the portable errors as syscall.Errno's Is does on Linux, so
// that errors.Is(err, fs.ErrExist) and the like answer the same on every
// OS. Two Errno values match when their numbers are equal, without Is.
func (e Errno) Is(target error) bool {
	switch target {
	case fs.ErrPermission:
		return e == EACCES || e == EPERM
	case fs.ErrExist:
		return e == EEXIST
	case fs.ErrNotExist:
		return e == ENOENT
	case errors.ErrUnsupported:
		return e == EOPNOTSUPP
	}
	return false
}

// ErrnoName is "EINVAL" and the like, or "" for a number not listed here.
func ErrnoName(e Errno) string { return errnos[e].name }
