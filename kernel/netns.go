//go:build linux

package kernel

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// startNetns is the inode of the network namespace this process started
// in, read once when the package is loaded, before any thread can move.
var startNetns = func() uint64 {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/ns/net", &st); err != nil {
		return 0
	}
	return st.Ino
}()

// StartNetnsInode reports the namespace the process started in.
func StartNetnsInode() uint64 { return startNetns }

// netns is a network namespace held by a file descriptor. It is made on a
// locked thread that unshares and then returns to the caller's namespace;
// work that must run inside (reading /proc/net, writing /proc/sys) enters
// it the same way. A thread that cannot get back is never handed back to
// the Go scheduler: its goroutine exits locked and the runtime ends it.
type netns struct {
	fd    int    // the namespace; sockets are created in it by fd
	path  string // /proc/PID/fd/FD, for child processes (nsenter --net=PATH)
	inode uint64
}

// inThread runs f on a fresh locked thread, after switching it into the
// namespace target (or unsharing a new one when target < 0), and switches
// back before unlocking.
func inThread(target int, f func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("kernel target: open own namespace: %w", err)
			return
		}
		defer unix.Close(orig)
		if target < 0 {
			err = unix.Unshare(unix.CLONE_NEWNET)
		} else {
			err = unix.Setns(target, unix.CLONE_NEWNET)
		}
		if err != nil {
			runtime.UnlockOSThread()
			if errors.Is(err, unix.EPERM) {
				errc <- fmt.Errorf("%w: %v", ErrNoPrivilege, err)
			} else {
				errc <- fmt.Errorf("kernel target: entering namespace: %w", err)
			}
			return
		}
		ferr := f()
		if err := unix.Setns(orig, unix.CLONE_NEWNET); err != nil {
			// Stay locked: the thread dies with this goroutine.
			errc <- fmt.Errorf("kernel target: leaving namespace: %w", err)
			return
		}
		runtime.UnlockOSThread()
		errc <- ferr
	}()
	return <-errc
}

// newNetns creates the namespace. With fresh false it takes the caller's
// namespace instead: only the self-test of the safety check uses that.
func newNetns(fresh bool) (*netns, error) {
	ns := &netns{fd: -1}
	target := -1
	if !fresh {
		fd, err := unix.Open("/proc/self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, err
		}
		defer unix.Close(fd)
		target = fd
	}
	err := inThread(target, func() error {
		fd, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		ns.fd = fd
		return err
	})
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(ns.fd, &st); err != nil {
		unix.Close(ns.fd)
		return nil, err
	}
	ns.inode = st.Ino
	ns.path = fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), ns.fd)
	return ns, nil
}

// readProc reads a file under /proc/thread-self/ from inside the namespace,
// e.g. "net/fib_trie".
func (ns *netns) readProc(rel string) (string, error) {
	var out []byte
	err := inThread(ns.fd, func() error {
		b, err := os.ReadFile("/proc/thread-self/" + rel)
		out = b
		return err
	})
	return string(out), err
}

// writeSysctl writes a /proc/sys value inside the namespace.
func (ns *netns) writeSysctl(path, value string) error {
	return inThread(ns.fd, func() error {
		return os.WriteFile(path, []byte(value), 0)
	})
}

func (ns *netns) close() { unix.Close(ns.fd) }

// socketNetns returns the inode of the namespace a socket lives in
// (SIOCGSKNS), the check the target makes before its first request.
func socketNetns(sockfd int) (uint64, error) {
	nsfd, err := unix.IoctlRetInt(sockfd, unix.SIOCGSKNS)
	if err != nil {
		return 0, fmt.Errorf("kernel target: SIOCGSKNS: %w", err)
	}
	defer unix.Close(nsfd)
	var st unix.Stat_t
	if err := unix.Fstat(nsfd, &st); err != nil {
		return 0, err
	}
	return st.Ino, nil
}
