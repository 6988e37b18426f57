//go:build linux

package kernel

import (
	"fmt"
	"syscall"
	"time"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

// LinkDumpChunked runs one RTM_GETLINK dump on a socket of its own and
// reads it datagram by datagram, calling between after each one (the
// caller changes the kernel's state there, through the target, while the
// dump is suspended). Note the kernel's pacing: reading chunk k lets it
// build chunk k+1 at once, so a change made after chunk k is seen from
// chunk k+2 on. recvBuf is the reader's buffer: the kernel sizes its
// chunks to the largest buffer the socket has read with (4096 makes small
// chunks; 0 means 64 KiB).
func (t *Target) LinkDumpChunked(recvBuf int, between func(chunk int) error) ([]DumpChunk, error) {
	c, err := netlink.Dial(unix.NETLINK_ROUTE, &netlink.Config{NetNS: t.ns.fd})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := t.checkSocket(c); err != nil {
		return nil, err
	}
	ae := netlink.NewAttributeEncoder()
	ae.Uint32(unix.IFLA_EXT_MASK, rtextFilterSkipStats)
	x, _ := ae.Encode()
	req, err := c.Send(netlink.Message{
		Header: netlink.Header{Type: unix.RTM_GETLINK, Flags: netlink.Request | netlink.Dump},
		Data:   append(make([]byte, unix.SizeofIfInfomsg), x...),
	})
	if err != nil {
		return nil, kernelError(err)
	}
	// netlink.Conn.Receive would gather the whole multi-part dump; read
	// one datagram (one chunk) at a time from the raw socket instead.
	raw, err := c.SyscallConn()
	if err != nil {
		return nil, err
	}
	if recvBuf <= 0 {
		recvBuf = 1 << 16
	}
	buf := make([]byte, recvBuf)
	var chunks []DumpChunk
	for {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		var n int
		var rerr error
		if err := raw.Read(func(fd uintptr) bool {
			n, _, rerr = unix.Recvfrom(int(fd), buf, unix.MSG_DONTWAIT)
			return rerr != unix.EAGAIN
		}); err != nil {
			return chunks, err
		}
		if rerr != nil {
			return chunks, rerr
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return chunks, err
		}
		var ch DumpChunk
		for _, sm := range msgs {
			m := netlink.Message{Header: netlink.Header{
				Length: sm.Header.Len, Type: netlink.HeaderType(sm.Header.Type),
				Flags: netlink.HeaderFlags(sm.Header.Flags), Sequence: sm.Header.Seq, PID: sm.Header.Pid,
			}, Data: sm.Data}
			if m.Header.Sequence != req.Header.Sequence {
				continue
			}
			if m.Header.Flags&netlink.DumpInterrupted != 0 {
				ch.Interrupted = true
			}
			switch m.Header.Type {
			case netlink.Done:
				ch.Done = true
				continue
			case netlink.Error:
				if len(m.Data) >= 4 {
					if e := int32(nativeEndian.Uint32(m.Data[:4])); e != 0 {
						return chunks, unix.Errno(-e)
					}
				}
				continue
			}
			if l, ok := parseLink(m); ok {
				name, _ := l.attrs.str(unix.IFLA_IFNAME)
				ch.Links = append(ch.Links, DumpedLink{Index: int(l.hdr.Index), Name: name})
			}
		}
		chunks = append(chunks, ch)
		if ch.Done {
			return chunks, nil
		}
		if between != nil {
			if err := between(len(chunks)); err != nil {
				return chunks, fmt.Errorf("between chunks: %w", err)
			}
		}
	}
}
