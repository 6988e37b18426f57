package kernel

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// ErrNoPrivilege is returned when the process may not create a network
// namespace (needs root or CAP_SYS_ADMIN + CAP_NET_ADMIN).
var ErrNoPrivilege = errors.New("kernel target: creating a network namespace needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN)")

// ErrSameNamespace is returned when a socket of the target turns out to
// live in the namespace the process started in: the target refuses to touch
// it.
var ErrSameNamespace = errors.New("kernel target: refusing to act in the namespace the process started in")

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

// netns is a network namespace held by one OS thread that lives only for
// it: the thread unshares, stays locked, runs the closures sent to it (the
// /proc reads and writes that resolve by the caller's namespace), and exits
// when the namespace is closed, taking the namespace with it.
type netns struct {
	fd    int    // an O_RDONLY handle on the namespace, for sockets
	path  string // /proc/PID/task/TID/ns/net, for child processes
	inode uint64
	work  chan func()
	done  chan struct{}
}

// newNetns creates the namespace. With fresh false it stays in the caller's
// namespace: only the self-test of the safety check uses that.
func newNetns(fresh bool) (*netns, error) {
	ns := &netns{work: make(chan func()), done: make(chan struct{})}
	ready := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		// No UnlockOSThread: when this goroutine returns, its thread,
		// which may sit in the new namespace, is destroyed with it.
		defer close(ns.done)
		if fresh {
			if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
				if errors.Is(err, unix.EPERM) {
					ready <- fmt.Errorf("%w: unshare(CLONE_NEWNET): %v", ErrNoPrivilege, err)
				} else {
					ready <- fmt.Errorf("kernel target: unshare(CLONE_NEWNET): %w", err)
				}
				return
			}
		}
		tid := unix.Gettid()
		ns.path = fmt.Sprintf("/proc/%d/task/%d/ns/net", os.Getpid(), tid)
		fd, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			ready <- fmt.Errorf("kernel target: open namespace: %w", err)
			return
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			ready <- fmt.Errorf("kernel target: stat namespace: %w", err)
			return
		}
		ns.fd, ns.inode = fd, st.Ino
		ready <- nil
		for f := range ns.work {
			f()
		}
		unix.Close(fd)
	}()
	if err := <-ready; err != nil {
		return nil, err
	}
	return ns, nil
}

// do runs f on the namespace's own thread.
func (ns *netns) do(f func() error) error {
	errc := make(chan error, 1)
	ns.work <- func() { errc <- f() }
	return <-errc
}

// readProc reads a file under /proc/thread-self/ from inside the namespace,
// e.g. "net/fib_trie".
func (ns *netns) readProc(rel string) (string, error) {
	var out []byte
	err := ns.do(func() error {
		b, err := os.ReadFile("/proc/thread-self/" + rel)
		out = b
		return err
	})
	return string(out), err
}

// writeSysctl writes a /proc/sys value inside the namespace.
func (ns *netns) writeSysctl(path, value string) error {
	return ns.do(func() error {
		return os.WriteFile(path, []byte(value), 0)
	})
}

func (ns *netns) close() {
	close(ns.work)
	<-ns.done
}

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
