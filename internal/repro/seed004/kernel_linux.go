//go:build linux

package seed004

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rtnlsim/rtnlsim/kernel"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// Measure sets c up in namespaces of its own and times every
// method. It needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN).
func Measure(ctx context.Context, c Config) (Measurement, error) {
	if err := c.validate(); err != nil {
		return Measurement{}, err
	}
	m := Measurement{Config: c}
	err := seed004OnThread(func(w *seed004World) error {
		t0 := time.Now()
		if err := seed004Setup(ctx, c, w); err != nil {
			return err
		}
		m.SetupTime = time.Since(t0)
		// No timing while an earlier namespace is dismantled: that
		// takes rtnl_lock.
		if _, err := kernel.WaitNetnsCleanup(ctx, kernel.NetnsCleanupLimit); err != nil {
			return err
		}
		var err error
		if m.Results, err = seed004Time(ctx, c, w); err != nil {
			return err
		}
		m.HostIDs, err = seed004CountNsids()
		return err
	})
	return m, err
}

// seed004World is the namespaces of one measurement.
type seed004World struct {
	orig, host int   // namespace fds
	ctr        []int // container namespace fds; netnsid i in the host
}

func (w *seed004World) close() {
	for _, fd := range w.ctr {
		unix.Close(fd)
	}
	if w.host >= 0 {
		unix.Close(w.host)
	}
}

// seed004OnThread runs f on a goroutine locked to its OS thread, with a
// world whose orig is the thread's namespace: f may move the thread into
// namespaces it makes (never into another). Afterwards the thread goes
// back to orig, and is unlocked only once it is checked to be there; a
// thread that cannot go back stays locked, so the runtime ends it with its
// goroutine instead of running other goroutines in a namespace of ours.
func seed004OnThread(f func(w *seed004World) error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		back, err := seed004InWorld(f)
		if back {
			runtime.UnlockOSThread()
		}
		errc <- err
	}()
	return <-errc
}

// seed004InWorld is seed004OnThread's body on the locked thread; back
// reports whether the thread is in its original namespace again.
func seed004InWorld(f func(w *seed004World) error) (back bool, err error) {
	w := &seed004World{orig: -1, host: -1}
	if w.orig, err = unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0); err != nil {
		return true, fmt.Errorf("kmeasure seed 004: own namespace: %w", err)
	}
	defer unix.Close(w.orig)
	defer w.close()
	defer func() {
		if e := unix.Setns(w.orig, unix.CLONE_NEWNET); e != nil {
			err = errors.Join(err, fmt.Errorf("kmeasure seed 004: back to the original namespace: %w", e))
			back = false
			return
		}
		if back = seed004SameNetns(w.orig); !back {
			err = errors.Join(err, errors.New("kmeasure seed 004: after setns back the thread is not in its original namespace"))
		}
	}()
	return false, f(w)
}

// seed004CountNsids dumps the current namespace's netns ids.
func seed004CountNsids() (int, error) {
	s, err := seed004Dial(false)
	if err != nil {
		return 0, err
	}
	defer unix.Close(s.fd)
	s.buf = make([]byte, 1<<16)
	n := 0
	_, _, err = s.dump(seed004Msg(uapi.RTM_GETNSID, uapi.NLM_F_REQUEST|uapi.NLM_F_DUMP, []byte{uapi.AF_UNSPEC, 0, 0, 0}),
		uapi.RTM_NEWNSID, &n, nil)
	if err != nil {
		return 0, fmt.Errorf("kmeasure seed 004: RTM_GETNSID dump: %w", err)
	}
	return n, nil
}

// seed004SameNetns reports whether the thread is in the namespace fd names.
func seed004SameNetns(fd int) bool {
	var a, b unix.Stat_t
	if unix.Fstat(fd, &a) != nil || unix.Stat("/proc/thread-self/ns/net", &b) != nil {
		return false
	}
	return a.Ino == b.Ino && a.Dev == b.Dev
}

func seed004Progress(c Config, format string, args ...any) {
	if c.Progress != nil {
		c.Progress(fmt.Sprintf(format, args...))
	}
}

// seed004Setup makes the host and the containers; the thread ends in the
// host.
func seed004Setup(ctx context.Context, c Config, w *seed004World) error {
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("kmeasure seed 004: unshare the host namespace (needs root): %w", err)
	}
	var err error
	if w.host, err = unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0); err != nil {
		return err
	}
	if seed004SameNetns(w.orig) {
		return errors.New("kmeasure seed 004: the host namespace is the original one; refusing")
	}
	seed004Progress(c, "seed 004 setup: %d container namespaces, %d ifb x %d addresses each", c.Containers, c.Devices, c.Addrs)
	for k := 0; k < c.Containers; k++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := unix.Setns(w.host, unix.CLONE_NEWNET); err != nil {
			return err
		}
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			return fmt.Errorf("kmeasure seed 004: unshare container %d: %w", k, err)
		}
		fd, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		w.ctr = append(w.ctr, fd)
		if err := seed004FillContainer(c, w, k); err != nil {
			return fmt.Errorf("kmeasure seed 004: container %d: %w", k, err)
		}
		if c.Progress != nil && c.Containers >= 100 && (k+1)%(c.Containers/10) == 0 {
			seed004Progress(c, "seed 004 setup: %d/%d containers", k+1, c.Containers)
		}
	}
	if err := unix.Setns(w.host, unix.CLONE_NEWNET); err != nil {
		return err
	}
	s, err := seed004Dial(false)
	if err != nil {
		return err
	}
	defer unix.Close(s.fd)
	for k, fd := range w.ctr {
		// RTM_NEWNSID: rtgenmsg, NETNSA_NSID k, NETNSA_FD fd.
		b := seed004Msg(uapi.RTM_NEWNSID, uapi.NLM_F_REQUEST|uapi.NLM_F_ACK, []byte{uapi.AF_UNSPEC, 0, 0, 0},
			seed004Attr(uapi.NETNSA_NSID, seed004Le32(uint32(k))), seed004Attr(uapi.NETNSA_FD, seed004Le32(uint32(fd))))
		if err := s.do(b); err != nil {
			return fmt.Errorf("kmeasure seed 004: RTM_NEWNSID %d: %w", k, err)
		}
	}
	return nil
}

// seed004FillContainer adds the devices and addresses of container k; the
// thread is in it.
func seed004FillContainer(c Config, w *seed004World, k int) error {
	s, err := seed004Dial(false)
	if err != nil {
		return err
	}
	defer unix.Close(s.fd)
	for j := 0; j < c.Devices; j++ {
		ifindex := int32(2 + j)
		b := seed004Msg(uapi.RTM_NEWLINK, uapi.NLM_F_REQUEST|uapi.NLM_F_ACK|uapi.NLM_F_CREATE|uapi.NLM_F_EXCL,
			seed004Ifinfomsg(ifindex),
			seed004Attr(uapi.IFLA_IFNAME, seed004Cstr(fmt.Sprintf("d%d", j))),
			seed004Attr(uapi.IFLA_LINKINFO, seed004Attr(uapi.IFLA_INFO_KIND, seed004Cstr("ifb"))))
		if err := s.do(b); err != nil {
			return fmt.Errorf("ifb d%d: %w", j, err)
		}
		if err := s.addAddrs(c.Addrs, j, ifindex); err != nil {
			return fmt.Errorf("on d%d: %w", j, err)
		}
	}
	if c.Veth {
		peer := append(seed004Ifinfomsg(0), seed004Attr(uapi.IFLA_IFNAME, seed004Cstr(fmt.Sprintf("h%d", k)))...)
		peer = append(peer, seed004Attr(uapi.IFLA_NET_NS_FD, seed004Le32(uint32(w.host)))...)
		b := seed004Msg(uapi.RTM_NEWLINK, uapi.NLM_F_REQUEST|uapi.NLM_F_ACK|uapi.NLM_F_CREATE|uapi.NLM_F_EXCL,
			seed004Ifinfomsg(int32(2+c.Devices)),
			seed004Attr(uapi.IFLA_IFNAME, seed004Cstr("eth0")),
			seed004Attr(uapi.IFLA_LINKINFO, append(seed004Attr(uapi.IFLA_INFO_KIND, seed004Cstr("veth")),
				seed004Attr(uapi.IFLA_INFO_DATA, seed004Attr(1 /* VETH_INFO_PEER */, peer))...)))
		if err := s.do(b); err != nil {
			return fmt.Errorf("veth: %w", err)
		}
		if c.Devices == 0 {
			// No ifb: the addresses go on eth0, as in a container whose
			// only device is its veth.
			if err := s.addAddrs(c.Addrs, 0, 2); err != nil {
				return fmt.Errorf("on eth0: %w", err)
			}
		}
	}
	return nil
}

// addAddrs adds n IPv4 addresses to device ifindex, numbered as the model
// numbers device j's (MaxAddrs): 10.j.(i/250).(i%250+1)/16.
func (s *seed004Sock) addAddrs(n, j int, ifindex int32) error {
	for i := 0; i < n; i++ {
		a := []byte{10, byte(j), byte(i / 250), byte(i%250 + 1)}
		b := seed004Msg(uapi.RTM_NEWADDR, uapi.NLM_F_REQUEST|uapi.NLM_F_ACK|uapi.NLM_F_CREATE|uapi.NLM_F_EXCL,
			seed004Ifaddrmsg(uapi.AF_INET, 16, uint32(ifindex)),
			seed004Attr(uapi.IFA_LOCAL, a), seed004Attr(uapi.IFA_ADDRESS, a))
		if err := s.do(b); err != nil {
			return fmt.Errorf("address %d: %w", i, err)
		}
	}
	return nil
}

// seed004Time times the methods, interleaved within each repeat; the
// thread is in the host.
func seed004Time(ctx context.Context, c Config, w *seed004World) ([]Result, error) {
	res := make([]Result, len(KernelMethods))
	for i, m := range KernelMethods {
		res[i].Method = m
	}
	wantL, wantA := seed004Want(c)
	buf := make([]byte, 4096) // glibc's PAGE_SIZE buffer
	shared, err := seed004Dial(true)
	if err != nil {
		return nil, err
	}
	defer unix.Close(shared.fd)
	shared.buf = buf
	for rep := 0; rep < c.Repeats; rep++ {
		seed004Progress(c, "seed 004 %s: repeat %d/%d (%d reads per method)", c, rep+1, c.Repeats, c.Reads)
		for i, m := range KernelMethods {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			runtime.GC() // not during the timed loop, if it can be helped
			var first KernelRead
			var clocked time.Duration // setns into the container and getifaddrs: the seed's clock
			start := time.Now()
			for r := 0; r < c.Reads; r++ {
				k := r % len(w.ctr)
				var rd KernelRead
				var err error
				switch m {
				case KernelSetns, KernelSetnsSeedClock:
					t1 := time.Now()
					if err = unix.Setns(w.ctr[k], unix.CLONE_NEWNET); err != nil {
						return nil, fmt.Errorf("setns into container %d: %w", k, err)
					}
					rd, err = seed004Getifaddrs(buf, -1)
					clocked += time.Since(t1)
					if e := unix.Setns(w.host, unix.CLONE_NEWNET); e != nil {
						return nil, fmt.Errorf("setns back to the host: %w", e)
					}
				case KernelNetnsidSocket:
					rd, err = seed004Getifaddrs(buf, int32(k))
				case KernelNetnsid:
					rd, err = shared.read(int32(k))
				}
				if err != nil {
					return nil, fmt.Errorf("%s read of container %d: %w", m, k, err)
				}
				if rd.Links != wantL || rd.Addrs != wantA {
					return nil, fmt.Errorf("%s read of container %d: %d links and %d addresses, want %d and %d",
						m, k, rd.Links, rd.Addrs, wantL, wantA)
				}
				if r == 0 {
					first = rd
				}
			}
			el := time.Since(start)
			if m == KernelSetnsSeedClock {
				el = clocked
			}
			res[i].PerRead = append(res[i].PerRead, el/time.Duration(c.Reads))
			res[i].Read = first
		}
	}
	for i := range res {
		s := slices.Clone(res[i].PerRead)
		slices.Sort(s)
		res[i].Min = s[0]
		res[i].Median = s[len(s)/2]
		if len(s)%2 == 0 {
			res[i].Median = (s[len(s)/2-1] + s[len(s)/2]) / 2
		}
	}
	return res, nil
}

// seed004Sock is a bound rtnetlink socket.
type seed004Sock struct {
	fd  int
	pid uint32
	seq uint32
	buf []byte
}

// seed004Dial is glibc's __netlink_open (socket, bind, getsockname), with
// NETLINK_GET_STRICT_CHK when strict.
func seed004Dial(strict bool) (*seed004Sock, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return nil, err
	}
	if strict {
		if err := unix.SetsockoptInt(fd, unix.SOL_NETLINK, unix.NETLINK_GET_STRICT_CHK, 1); err != nil {
			unix.Close(fd)
			return nil, fmt.Errorf("NETLINK_GET_STRICT_CHK: %w", err)
		}
	}
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		unix.Close(fd)
		return nil, err
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	nl, ok := sa.(*unix.SockaddrNetlink)
	if !ok {
		unix.Close(fd)
		return nil, errors.New("getsockname: not a netlink address")
	}
	return &seed004Sock{fd: fd, pid: nl.Pid, seq: uint32(time.Now().Unix())}, nil
}

// seed004Getifaddrs is one getifaddrs: a socket of its own in the current
// namespace, the two dumps (with the target netnsid when nsid >= 0), close.
func seed004Getifaddrs(buf []byte, nsid int32) (KernelRead, error) {
	return seed004ReadOnce(buf, nsid, nsid >= 0)
}

// seed004ReadOnce is seed004Getifaddrs with the socket's
// NETLINK_GET_STRICT_CHK chosen apart from the target.
func seed004ReadOnce(buf []byte, nsid int32, strict bool) (KernelRead, error) {
	s, err := seed004Dial(strict)
	if err != nil {
		return KernelRead{}, err
	}
	s.buf = buf
	rd, err := s.read(nsid)
	unix.Close(s.fd)
	return rd, err
}

// read sends the link dump then the address dump and reads both.
func (s *seed004Sock) read(nsid int32) (KernelRead, error) {
	var rd KernelRead
	var link, addr []byte
	if nsid < 0 {
		// glibc: struct { nlmsghdr; rtgenmsg; } of 20 bytes.
		link = seed004Msg(uapi.RTM_GETLINK, uapi.NLM_F_REQUEST|uapi.NLM_F_DUMP, []byte{uapi.AF_UNSPEC, 0, 0, 0})
		addr = seed004Msg(uapi.RTM_GETADDR, uapi.NLM_F_REQUEST|uapi.NLM_F_DUMP, []byte{uapi.AF_UNSPEC, 0, 0, 0})
	} else {
		link = seed004Msg(uapi.RTM_GETLINK, uapi.NLM_F_REQUEST|uapi.NLM_F_DUMP, seed004Ifinfomsg(0),
			seed004Attr(uapi.IFLA_TARGET_NETNSID, seed004Le32(uint32(nsid))))
		addr = seed004Msg(uapi.RTM_GETADDR, uapi.NLM_F_REQUEST|uapi.NLM_F_DUMP, seed004Ifaddrmsg(uapi.AF_UNSPEC, 0, 0),
			seed004Attr(uapi.IFA_TARGET_NETNSID, seed004Le32(uint32(nsid))))
	}
	var err error
	if rd.LinkRecvs, rd.LinkBytes, err = s.dump(link, uapi.RTM_NEWLINK, &rd.Links, rd.LinkSizes[:]); err != nil {
		return rd, fmt.Errorf("link dump: %w", err)
	}
	var as [1]int
	if rd.AddrRecvs, rd.AddrBytes, err = s.dump(addr, uapi.RTM_NEWADDR, &rd.Addrs, as[:]); err != nil {
		return rd, fmt.Errorf("address dump: %w", err)
	}
	rd.AddrSize = as[0]
	return rd, nil
}

// send numbers req with the socket's next sequence number and sends it to
// the kernel.
func (s *seed004Sock) send(req []byte) error {
	s.seq++
	binary.NativeEndian.PutUint32(req[8:], s.seq)
	return unix.Sendto(s.fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK})
}

// dump sends one dump request and reads it to NLMSG_DONE as glibc's
// __netlink_request does, counting messages of type want and noting the
// sizes of the first len(sizes) of them.
func (s *seed004Sock) dump(req []byte, want uint16, n *int, sizes []int) (recvs, bytes int, err error) {
	if err := s.send(req); err != nil {
		return 0, 0, err
	}
	for {
		m, _, flags, _, err := unix.Recvmsg(s.fd, s.buf, nil, 0)
		if err != nil {
			if err == uapi.EINTR {
				continue
			}
			return recvs, bytes, err
		}
		recvs++
		bytes += m
		if flags&unix.MSG_TRUNC != 0 {
			return recvs, bytes, errors.New("truncated message")
		}
		b := s.buf[:m]
		for len(b) >= uapi.NLMSG_HDRLEN {
			l := int(binary.NativeEndian.Uint32(b))
			typ := binary.NativeEndian.Uint16(b[4:])
			fl := binary.NativeEndian.Uint16(b[6:])
			seq := binary.NativeEndian.Uint32(b[8:])
			if l < uapi.NLMSG_HDRLEN || l > len(b) {
				return recvs, bytes, errors.New("bad netlink message length")
			}
			if seq == s.seq {
				if fl&uapi.NLM_F_DUMP_INTR != 0 {
					return recvs, bytes, errors.New("dump interrupted (NLM_F_DUMP_INTR)")
				}
				switch typ {
				case uapi.NLMSG_DONE:
					return recvs, bytes, nil
				case uapi.NLMSG_ERROR:
					if l >= uapi.NLMSG_HDRLEN+4 {
						if e := int32(binary.NativeEndian.Uint32(b[16:])); e != 0 {
							return recvs, bytes, uapi.Errno(-e)
						}
					}
					return recvs, bytes, errors.New("netlink error")
				case want:
					if *n < len(sizes) {
						sizes[*n] = l
					}
					*n++
				}
			}
			al := (l + uapi.NLMSG_ALIGNTO - 1) &^ (uapi.NLMSG_ALIGNTO - 1)
			if al > len(b) {
				break
			}
			b = b[al:]
		}
	}
}

// do sends a request with NLM_F_ACK and waits for its acknowledgement.
func (s *seed004Sock) do(req []byte) error {
	if err := s.send(req); err != nil {
		return err
	}
	buf := make([]byte, 8192)
	for {
		m, _, err := unix.Recvfrom(s.fd, buf, 0)
		if err != nil {
			if err == uapi.EINTR {
				continue
			}
			return err
		}
		b := buf[:m]
		for len(b) >= uapi.NLMSG_HDRLEN {
			l := int(binary.NativeEndian.Uint32(b))
			if l < uapi.NLMSG_HDRLEN || l > len(b) {
				return errors.New("bad netlink message length")
			}
			typ := binary.NativeEndian.Uint16(b[4:])
			seq := binary.NativeEndian.Uint32(b[8:])
			if seq == s.seq && typ == uapi.NLMSG_ERROR && l >= uapi.NLMSG_HDRLEN+4 {
				if e := int32(binary.NativeEndian.Uint32(b[16:])); e != 0 {
					return uapi.Errno(-e)
				}
				return nil
			}
			al := (l + uapi.NLMSG_ALIGNTO - 1) &^ (uapi.NLMSG_ALIGNTO - 1)
			if al > len(b) {
				break
			}
			b = b[al:]
		}
	}
}

func seed004Msg(typ, flags uint16, hdr []byte, attrs ...[]byte) []byte {
	b := make([]byte, uapi.NLMSG_HDRLEN, 64)
	b = append(b, hdr...)
	for _, a := range attrs {
		b = append(b, a...)
	}
	binary.NativeEndian.PutUint32(b[0:], uint32(len(b)))
	binary.NativeEndian.PutUint16(b[4:], typ)
	binary.NativeEndian.PutUint16(b[6:], flags)
	return b
}

func seed004Attr(typ uint16, data []byte) []byte {
	l := 4 + len(data)
	b := make([]byte, (l+3)&^3)
	binary.NativeEndian.PutUint16(b[0:], uint16(l))
	binary.NativeEndian.PutUint16(b[2:], typ)
	copy(b[4:], data)
	return b
}

func seed004Ifinfomsg(index int32) []byte {
	b := make([]byte, uapi.SizeofIfInfomsg)
	binary.NativeEndian.PutUint32(b[4:], uint32(index))
	return b
}

func seed004Ifaddrmsg(family, prefixlen uint8, index uint32) []byte {
	b := make([]byte, uapi.SizeofIfAddrmsg)
	b[0], b[1] = family, prefixlen
	binary.NativeEndian.PutUint32(b[4:], index)
	return b
}

func seed004Le32(v uint32) []byte {
	b := make([]byte, 4)
	binary.NativeEndian.PutUint32(b, v)
	return b
}

func seed004Cstr(s string) []byte { return append([]byte(s), 0) }

// NonStrictCheck sets up one container with one address and reads
// it by netnsid from a socket without NETLINK_GET_STRICT_CHK: it returns
// how many addresses that read and a strict read returned. On 6.18 the
// non-strict read returns the host's (none), the strict one the
// container's (one).
func NonStrictCheck(ctx context.Context) (nonStrict, strict int, err error) {
	c := Config{Containers: 1, Devices: 1, Addrs: 1, Reads: 1, Repeats: 1}
	err = seed004OnThread(func(w *seed004World) error {
		if err := seed004Setup(ctx, c, w); err != nil {
			return err
		}
		buf := make([]byte, 4096)
		for _, st := range []bool{false, true} {
			rd, err := seed004ReadOnce(buf, 0, st)
			if err != nil {
				return err
			}
			if st {
				strict = rd.Addrs
			} else {
				nonStrict = rd.Addrs
			}
		}
		return nil
	})
	return nonStrict, strict, err
}
