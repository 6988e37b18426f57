package sim

import (
	"net/netip"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// `ip addr flush` as one iproute2 process runs it against the kernel's
// chunked address dump (iproute2 6.1 ipaddr_flush, libnetlink; Linux 6.18
// net/netlink/af_netlink.c netlink_recvmsg and netlink_dump,
// net/core/rtnetlink.c rtnl_dump_all, net/ipv4/devinet.c in_dev_dump_addr).
//
// ip sends one RTM_GETADDR dump for the device and reads it a datagram at
// a time: a peek for the size, then the read. While it reads, it copies
// each matching address into a 3,584-byte buffer as an RTM_DELADDR; when
// the next one does not fit, it sends the buffer (no acks asked) and peeks
// once for an error. The kernel writes the dump a chunk at a time: one when
// the dump starts, then one after every read or peek of the socket while
// the dump runs and the socket holds at most half its receive buffer. A
// chunk resumes at a position in the device's list (ip_idx), counted from
// the head of the list as it is then, so the deletes sent in between shift
// addresses past the position unseen: they wait for the next round's dump.
// With promote_secondaries this decides how many deletes promote: strace
// of ip flushing 2,000 addresses in one /8 on this machine read chunks of
// 49, 49, 426, 426, 426, 426 and 104 addresses, then 94 in a second round,
// and so does this model.
//
// The process is a fresh one (as `ip addr flush` typed alone, or the only
// line of an `ip -b` file): its socket has not yet read anything, so the
// first two chunks are NLMSG_GOODSIZE, the rest 32 KiB. An ip -b file
// that reads replies before its flush line starts with 32 KiB chunks. A
// dump of one family (-4, -6, a `to` prefix) may carry its DONE in its
// last chunk rather than alone; the deletes are the same either way.

const (
	// nlGoodSize is NLMSG_GOODSIZE, SKB_WITH_OVERHEAD(4096): a dump chunk
	// while the reader has not read with a larger buffer.
	nlGoodSize = 3776
	// nlBigChunk is SKB_WITH_OVERHEAD(32768), the cap of max_recvmsg_len:
	// a chunk once ip has read with its 32 KiB buffer.
	nlBigChunk = 32448
	// Socket memory charged per queued datagram (skb truesize) and ip's
	// receive buffer (SO_RCVBUF 1 MiB, doubled; net.core.rmem_max allows
	// it on this machine).
	nlGoodTruesize = 4352
	nlBigTruesize  = 33024
	nlAckTruesize  = 768
	ipRcvbuf       = 2 << 20
	// ipFlushBuf is iproute2's flush buffer (4096 - 512 bytes).
	ipFlushBuf = 3584
	// ipRecvBuf is the buffer ip reads a datagram into; ipCheckBuf the
	// one it peeks into after sending a flush buffer.
	ipRecvBuf  = 32768
	ipCheckBuf = 1024
)

// nlaSize is an attribute of n payload bytes, aligned to 4.
func nlaSize(n int) int { return (4 + n + 3) &^ 3 }

// ifaMsgSize is inet_fill_ifaddr's RTM_NEWADDR for a: nlmsghdr and
// ifaddrmsg, IFA_ADDRESS, IFA_LOCAL and IFA_BROADCAST when non-zero,
// IFA_LABEL (the device name unless set), IFA_FLAGS, IFA_CACHEINFO.
func ifaMsgSize(dev string, a *Ifaddr) int {
	size := 16 + 8 + nlaSize(4) + nlaSize(16)
	for _, v := range []uint32{a.Address, a.Local, a.Broadcast} {
		if v != 0 {
			size += nlaSize(4)
		}
	}
	label := a.Label
	if label == "" {
		label = dev
	}
	return size + nlaSize(len(label)+1)
}

// ifa6MsgSize is inet6_fill_ifaddr's RTM_NEWADDR for a kernel-made
// address: IFA_ADDRESS, IFA_CACHEINFO, IFA_FLAGS and IFA_PROTO (6.18 marks
// the addresses it makes kernel_ll or kernel_lo): 80 bytes. `ip -6 addr
// show dev X` of one link-local address read 100 bytes here, the address
// and the DONE (20) in one chunk.
const ifa6MsgSize = 16 + 8 + 20 + 20 + 8 + 8

// delRequestOf is the RTM_DELADDR a flush makes of a dumped address: the
// dumped message itself (IFA_LOCAL, IFA_ADDRESS, the prefix length,
// IFA_LABEL).
func delRequestOf(a *Ifaddr) IfaRequest {
	return IfaRequest{Prefixlen: a.Prefixlen, Scope: a.Scope, Flags: a.Flags,
		Local: a.Local, HasLocal: a.Local != 0, Address: a.Address, HasAddress: a.Address != 0,
		Broadcast: a.Broadcast, Label: a.Label, HasLabel: a.Label != ""}
}

// dumpMsg is one address of a dump chunk as ip holds it.
type dumpMsg struct {
	req   IfaRequest // IPv4: the RTM_DELADDR ip makes of it
	addr6 netip.Addr // IPv6, else invalid
	plen6 int
	size  int
	match bool // ip's filter keeps it
}

// datagram is one skb on ip's socket: a dump chunk, the dump's DONE, or
// the error ack of a delete.
type datagram struct {
	msgs     []dumpMsg
	done     bool
	truesize int
}

// bytes is the datagram's length as recvmsg returns it: an error ack is
// nlmsgerr with the 60-byte request and the extended ack's message.
func (g datagram) bytes() int {
	switch {
	case g.done:
		return 20
	case g.msgs == nil:
		return 124
	}
	n := 0
	for _, m := range g.msgs {
		n += m.size
	}
	return n
}

// ipFlushSock is ip's rtnetlink socket and the dump running on it.
type ipFlushSock struct {
	in         *InDevice // the IPv4 side (nil: none)
	n          *Netns    // with d, the IPv6 side (nil: none)
	d          *Device
	v4, v6     bool
	f          FlushFilter
	maxRecv    int // nlk->max_recvmsg_len
	queue      []datagram
	rmem       int
	running    bool
	done4      bool // the IPv4 part is dumped (rtnl_dump_all moved on)
	cur4, cur6 int  // ip_idx of each family
	finished   bool // every family dumped: the next call sends DONE
	buf        []dumpMsg
	bufBytes   int
	// reads, when set, collects the bytes of each datagram ip reads
	// (DONE 20, an error ack 124), as strace shows them.
	reads *[]int
}

// ipAddrFlush is `ip addr flush` of d's v4 and v6 addresses that f keeps:
// rounds of a dump and the deletes sent while reading it, until a dump
// keeps nothing; EBUSY after iproute2's 10 rounds. Deletes that fail are
// acked with the error, which ip reads past: on this machine it exits 0
// even when its check after a send peeks at such an ack (a primary and
// one secondary flushed without promotion, seen with strace).
func (n *Netns) ipAddrFlush(d *Device, v4, v6 bool, f FlushFilter) error {
	return (&ipFlushSock{in: d.in, n: n, d: d, v4: v4, v6: v6, f: f}).flush(&n.inetCount)
}

// flush runs the rounds, counting the dump and delete requests in c.
func (s *ipFlushSock) flush(c *DevinetCounters) error {
	return flushRounds(c, s.f, func() (int, error) { return s.round(c), nil })
}

// round is one dump, read to its DONE, with its deletes sent: how many
// addresses ip kept.
func (s *ipFlushSock) round(c *DevinetCounters) int {
	s.running, s.done4, s.finished, s.cur4, s.cur6 = true, false, false, 0, 0
	s.dump() // netlink_dump_start
	kept := 0
	for {
		s.recv(true, 0)
		g, ok := s.recv(false, ipRecvBuf)
		if !ok {
			panic("sim: ip flush reads an empty socket while its dump runs")
		}
		if g.done {
			break
		}
		for _, m := range g.msgs {
			if !m.match {
				continue
			}
			if s.bufBytes+m.size > ipFlushBuf {
				s.send(c)
			}
			s.buf = append(s.buf, m)
			s.bufBytes += m.size
			kept++
		}
	}
	if kept > 0 {
		s.send(c)
	}
	return kept
}

// recv is one recvmsg of buffer length n (a peek leaves the datagram
// queued): false when the socket is empty. Afterwards a running dump adds
// its next chunk while the socket holds at most half its buffer.
func (s *ipFlushSock) recv(peek bool, n int) (datagram, bool) {
	if len(s.queue) == 0 {
		return datagram{}, false
	}
	s.maxRecv = min(max(s.maxRecv, n), nlBigChunk)
	g := s.queue[0]
	if !peek {
		s.queue = s.queue[1:]
		s.rmem -= g.truesize
		if s.reads != nil {
			*s.reads = append(*s.reads, g.bytes())
		}
	}
	if s.running && s.rmem <= ipRcvbuf/2 {
		s.dump()
	}
	return g, true
}

// send sends the flush buffer: the kernel deletes each address in order
// and queues an error ack for each that fails; then ip peeks for errors
// without waiting.
func (s *ipFlushSock) send(c *DevinetCounters) {
	for _, m := range s.buf {
		c.Requests++
		if s.deleteOne(m) != nil {
			s.queue = append(s.queue, datagram{truesize: nlAckTruesize})
			s.rmem += nlAckTruesize
		}
	}
	s.buf, s.bufBytes = s.buf[:0], 0
	s.recv(true, ipCheckBuf)
}

func (s *ipFlushSock) deleteOne(m dumpMsg) error {
	if !m.addr6.IsValid() {
		return s.in.DelAddr(m.req)
	}
	if s.d != nil && s.d.in6 != nil {
		for _, a := range s.d.in6.addrs {
			if a.addr == m.addr6 && a.plen == m.plen6 {
				s.n.delAddr6(s.d, a)
				return nil
			}
		}
	}
	return rtnl.Errf(uapi.EADDRNOTAVAIL, "address not found")
}

// dump is netlink_dump: one chunk of the size the reader's largest read
// allows, filled from each family's position (rtnl_dump_all: IPv4, then
// IPv6), or DONE once everything was sent.
func (s *ipFlushSock) dump() {
	size, truesize := nlGoodSize, nlGoodTruesize
	if s.maxRecv > nlGoodSize {
		size, truesize = nlBigChunk, nlBigTruesize
	}
	g := datagram{truesize: truesize}
	if !s.finished {
		used := 0
		full := false
		if s.v4 && !s.done4 {
			full = s.fill4(&g, &used, size)
			s.done4 = !full
		}
		if !full && s.v6 {
			full = s.fill6(&g, &used, size)
		}
		s.finished = !full
	}
	if len(g.msgs) == 0 && s.finished {
		g.done = true
		s.running = false
	}
	s.queue = append(s.queue, g)
	s.rmem += g.truesize
}

// fill4 is in_dev_dump_addr: the list from its head, past cur4 entries,
// into the chunk while they fit; true when the chunk filled first.
func (s *ipFlushSock) fill4(g *datagram, used *int, size int) bool {
	in := s.in
	if in == nil {
		return false
	}
	pos := 0
	for a := in.head; a != nil; a = a.next {
		in.Count.WalkSteps++
		if pos < s.cur4 {
			pos++
			continue
		}
		sz := ifaMsgSize(in.Name, a)
		if *used+sz > size {
			s.cur4 = pos
			return true
		}
		*used += sz
		g.msgs = append(g.msgs, dumpMsg{size: sz, match: s.f.match(in.Name, a), req: delRequestOf(a)})
		pos++
	}
	s.cur4 = 0
	return false
}

// fill6 is in6_dump_addrs over the device's IPv6 addresses.
func (s *ipFlushSock) fill6(g *datagram, used *int, size int) bool {
	if s.d == nil || s.d.in6 == nil {
		return false
	}
	for i := s.cur6; i < len(s.d.in6.addrs); i++ {
		a := s.d.in6.addrs[i]
		if *used+ifa6MsgSize > size {
			s.cur6 = i
			return true
		}
		*used += ifa6MsgSize
		g.msgs = append(g.msgs, dumpMsg{size: ifa6MsgSize, addr6: a.addr, plen6: a.plen, match: s.f.match6(s.d.name, a)})
	}
	s.cur6 = 0
	return false
}
