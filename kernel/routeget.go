//go:build linux

package kernel

import (
	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// Route get flags of the request iproute2 sends for IPv4.
const (
	rtmFLookupTable = 0x1000 // RTM_F_LOOKUP_TABLE
	rtmFFibMatch    = 0x2000 // RTM_F_FIB_MATCH
)

// rtcfNames are the rtable flags of an answer's rtm_flags (RTCF_*) as
// print_cache_flags names them, in its order.
var rtcfNames = []struct {
	bit  uint32
	name string
}{
	{0x80000000, "local"}, {0x40000000, "reject"}, {0x20000000, "mc"}, {0x10000000, "brd"},
	{0x08000000, "dst-nat"}, {0x00800000, "src-nat"}, {0x00400000, "masq"}, {0x00020000, "dst-direct"},
	{0x04000000, "src-direct"}, {0x00040000, "redirected"}, {0x01000000, "redirect"},
	{0x00200000, "fastroute"}, {0x00010000, "notify"}, {0x00080000, "proxy"},
}

// routeGet sends RTM_GETROUTE as iproute_get does, with the family of
// the destination (RTM_F_LOOKUP_TABLE, which ip sets for IPv4 alone),
// and keeps the answer, as `ip -j route get` prints it.
func (t *Target) routeGet(op rtnl.RouteGet) error {
	t.answer = nil
	var iif, oif uint32
	if op.IIF != "" {
		idx, err := t.ifindex(op.IIF)
		if err != nil {
			return err
		}
		iif = idx
	}
	if op.OIF != "" {
		idx, err := t.ifindex(op.OIF)
		if err != nil {
			return err
		}
		oif = idx
	}
	v4 := op.Dst.Is4()
	bits := byte(op.Dst.BitLen())
	hdr := make([]byte, unix.SizeofRtMsg)
	hdr[0] = unix.AF_INET6
	var flags uint32
	if v4 {
		hdr[0] = unix.AF_INET
		flags = rtmFLookupTable
	}
	hdr[1] = bits // rtm_dst_len
	hdr[3] = op.TOS
	if op.FibMatch {
		flags |= rtmFFibMatch
	}
	nativeEndian.PutUint32(hdr[8:12], flags)
	ae := netlink.NewAttributeEncoder()
	if op.Src.IsValid() {
		hdr[2] = bits
		ae.Bytes(unix.RTA_SRC, op.Src.AsSlice())
	}
	if op.UID != nil {
		ae.Uint32(unix.RTA_UID, *op.UID)
	}
	ae.Bytes(unix.RTA_DST, op.Dst.AsSlice())
	if iif != 0 {
		ae.Uint32(unix.RTA_IIF, iif)
	}
	if oif != 0 {
		ae.Uint32(unix.RTA_OIF, oif)
	}
	if op.Mark != 0 {
		ae.Uint32(unix.RTA_MARK, op.Mark)
	}
	if v4 {
		return t.askRoute(hdr, ae, renderGot)
	}
	return t.askRoute(hdr, ae, renderGot6)
}

// askRoute sends RTM_GETROUTE (the rtmsg header, then the attributes)
// and keeps the first route of the answer, rendered, as the answer.
func (t *Target) askRoute(hdr []byte, ae *netlink.AttributeEncoder, render func(routeMsg, linkCache) rtnl.RouteEntry) error {
	b, err := ae.Encode()
	if err != nil {
		return err
	}
	msgs, err := t.get(unix.RTM_GETROUTE, append(hdr, b...))
	if err != nil {
		return err
	}
	_, cache, err := t.links()
	if err != nil {
		return err
	}
	for _, m := range msgs {
		r, ok := parseRoute(m)
		if !ok {
			continue
		}
		got := render(r, cache)
		t.answer = &got
		return nil
	}
	return nil
}

// renderGot is print_route for a route get's answer: a cloned route (the
// table named when not main, the source as "from", the cache flags) or,
// with fibmatch, the FIB entry as a dump shows it.
func renderGot(r routeMsg, c linkCache) rtnl.RouteEntry {
	cloned := r.hdr.Flags&unix.RTM_F_CLONED != 0
	r.hdr.Flags &^= unix.RTM_F_CLONED // renderRoute leaves cloned routes out of dumps
	out, _ := renderRoute(r, c)
	if !cloned {
		return out
	}
	// print_route shows a cloned route's protocol and scope never.
	out.Protocol, out.Scope = "", ""
	if s, ok := r.attrs.addr(unix.RTA_SRC); ok {
		out.From = s.String()
	}
	if m, ok := r.attrs.u32(unix.RTA_MARK); ok && m != 0 {
		out.Mark = &m
	}
	if u, ok := r.attrs.u32(unix.RTA_UID); ok {
		out.UID = &u
	}
	if i, ok := r.attrs.u32(unix.RTA_IIF); ok {
		out.Iif = c.nameOf(i)
	}
	names := []string{}
	for _, f := range rtcfNames {
		if r.hdr.Flags&f.bit != 0 {
			names = append(names, f.name)
		}
	}
	out.Cache = &names
	return out
}
