package kmeasure

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"

	"github.com/rtnlsim/rtnlsim/kernel"
	"github.com/rtnlsim/rtnlsim/rtnl"
)

// quietFlush closes the target, keeping its namespace alive through a
// request socket of its own (no multicast groups), and times the flush
// over that socket: iproute2's ipaddr_flush rounds as the kernel target
// sends them (dump, RTM_DELADDR of each match in dump order with an ACK,
// EADDRNOTAVAIL ignored, repeat until a dump matches nothing). Then the
// device must have no IPv4 address left.
func quietFlush(kt *kernel.Target, c Config) (time.Duration, error) {
	nsfd, err := unix.Open(kt.NetnsPath(), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, fmt.Errorf("kmeasure: open namespace: %w", err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(nsfd, &st); err != nil || st.Ino != kt.NetnsInode() {
		unix.Close(nsfd)
		return 0, fmt.Errorf("kmeasure: %s is not the target's namespace (%v)", kt.NetnsPath(), err)
	}
	conn, err := netlink.Dial(unix.NETLINK_ROUTE, &netlink.Config{NetNS: nsfd})
	unix.Close(nsfd)
	if err != nil {
		return 0, fmt.Errorf("kmeasure: request socket: %w", err)
	}
	defer conn.Close()
	if err := checkSocket(conn, kt.NetnsInode()); err != nil {
		return 0, err
	}
	idx, err := ifindexOf(conn, Dev)
	if err != nil {
		return 0, err
	}
	// The socket holds the namespace; the target and its subscription go.
	kt.Close()
	if n, err := countInet(conn, idx); err != nil || n != c.N {
		return 0, fmt.Errorf("kmeasure: %v: %d IPv4 addresses on the quiet socket, want %d (%v)", c, n, c.N, err)
	}

	start := time.Now()
	err = flushInet(conn, idx)
	d := time.Since(start)
	if err != nil {
		return d, fmt.Errorf("kmeasure: %v: quiet flush: %w", c, err)
	}
	if n, err := countInet(conn, idx); err != nil || n != 0 {
		return d, fmt.Errorf("kmeasure: %v: %d IPv4 addresses left after the quiet flush (%v)", c, n, err)
	}
	return d, nil
}

// checkSocket refuses a socket outside the namespace ino, or in the one
// the process started in.
func checkSocket(c *netlink.Conn, ino uint64) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var got uint64
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		nsfd, err := unix.IoctlRetInt(int(fd), unix.SIOCGSKNS)
		if err != nil {
			cerr = fmt.Errorf("kmeasure: SIOCGSKNS: %w", err)
			return
		}
		defer unix.Close(nsfd)
		var st unix.Stat_t
		cerr = unix.Fstat(nsfd, &st)
		got = st.Ino
	}); err != nil {
		return err
	}
	if cerr != nil {
		return cerr
	}
	if got == kernel.StartNetnsInode() || kernel.StartNetnsInode() == 0 {
		return kernel.ErrSameNamespace
	}
	if got != ino {
		return fmt.Errorf("kmeasure: socket in namespace %d, want %d", got, ino)
	}
	return nil
}

// ifindexOf finds a device by name with a link dump.
func ifindexOf(c *netlink.Conn, name string) (uint32, error) {
	msgs, err := c.Execute(netlink.Message{
		Header: netlink.Header{Type: unix.RTM_GETLINK, Flags: netlink.Request | netlink.Dump},
		Data:   make([]byte, unix.SizeofIfInfomsg),
	})
	if err != nil {
		return 0, err
	}
	for _, m := range msgs {
		if m.Header.Type != unix.RTM_NEWLINK || len(m.Data) < unix.SizeofIfInfomsg {
			continue
		}
		ad, err := netlink.NewAttributeDecoder(m.Data[unix.SizeofIfInfomsg:])
		if err != nil {
			continue
		}
		for ad.Next() {
			if ad.Type() == unix.IFLA_IFNAME && ad.String() == name {
				return binary.NativeEndian.Uint32(m.Data[4:8]), nil
			}
		}
	}
	return 0, fmt.Errorf("kmeasure: no device %q", name)
}

// inetOf dumps the IPv4 addresses and keeps those of ifindex idx.
func inetOf(c *netlink.Conn, idx uint32) ([]netlink.Message, error) {
	msgs, err := c.Execute(netlink.Message{
		Header: netlink.Header{Type: unix.RTM_GETADDR, Flags: netlink.Request | netlink.Dump},
		Data:   []byte{unix.AF_INET, 0, 0, 0, 0, 0, 0, 0},
	})
	if err != nil {
		return nil, err
	}
	var out []netlink.Message
	for _, m := range msgs {
		if m.Header.Type == unix.RTM_NEWADDR && len(m.Data) >= unix.SizeofIfAddrmsg &&
			m.Data[0] == unix.AF_INET && binary.NativeEndian.Uint32(m.Data[4:8]) == idx {
			out = append(out, m)
		}
	}
	return out, nil
}

func countInet(c *netlink.Conn, idx uint32) (int, error) {
	m, err := inetOf(c, idx)
	return len(m), err
}

// flushInet is the target's addrFlush for one device and AF_INET, up to
// iproute2's 10 rounds.
func flushInet(c *netlink.Conn, idx uint32) error {
	for round := 0; round < 10; round++ {
		dels, err := inetOf(c, idx)
		if err != nil {
			return err
		}
		if len(dels) == 0 {
			return nil
		}
		for _, m := range dels {
			_, err := c.Execute(netlink.Message{
				Header: netlink.Header{Type: unix.RTM_DELADDR, Flags: netlink.Request | netlink.Acknowledge},
				Data:   m.Data,
			})
			var op *netlink.OpError
			if err != nil && !(errors.As(err, &op) && errors.Is(op.Err, unix.EADDRNOTAVAIL)) {
				return err
			}
		}
	}
	return rtnl.Errf(unix.EBUSY, "flush remains incomplete after 10 rounds")
}
