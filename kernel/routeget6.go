//go:build linux

package kernel

import (
	"fmt"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// routeGet6 sends RTM_GETROUTE as iproute_get does for an IPv6 address
// (no RTM_F_LOOKUP_TABLE, which ip sets for IPv4 alone) and keeps the
// answer, as `ip -j -6 route get` prints it.
func (t *Target) routeGet6(op rtnl.RouteGet) error {
	t.answer = nil
	var oif uint32
	if op.OIF != "" {
		idx, err := t.ifindex(op.OIF)
		if err != nil {
			return err
		}
		oif = idx
	}
	hdr := make([]byte, unix.SizeofRtMsg)
	hdr[0] = unix.AF_INET6
	hdr[1] = 128 // rtm_dst_len
	hdr[3] = op.TOS
	var flags uint32
	if op.FibMatch {
		flags |= rtmFFibMatch
	}
	nativeEndian.PutUint32(hdr[8:12], flags)
	ae := netlink.NewAttributeEncoder()
	if op.Src.IsValid() {
		hdr[2] = 128
		b := op.Src.As16()
		ae.Bytes(unix.RTA_SRC, b[:])
	}
	if op.UID != nil {
		ae.Uint32(unix.RTA_UID, *op.UID)
	}
	d := op.Dst.As16()
	ae.Bytes(unix.RTA_DST, d[:])
	if oif != 0 {
		ae.Uint32(unix.RTA_OIF, oif)
	}
	if op.Mark != 0 {
		ae.Uint32(unix.RTA_MARK, op.Mark)
	}
	return t.askRoute(hdr, ae, renderGot6)
}

// renderGot6 is print_route for an IPv6 answer: the route as a dump
// shows it, with the flow's source (RTA_SRC) as "from". An IPv6 answer
// carries no cache flags, mark or uid.
func renderGot6(r routeMsg, c linkCache) rtnl.RouteEntry {
	r.hdr.Flags &^= unix.RTM_F_CLONED // an exception route's copy
	out, _ := renderRoute(r, c)
	if s, ok := r.attrs.addr(unix.RTA_SRC); ok {
		out.From = s.String()
		if r.hdr.SrcLength != 128 {
			out.From = fmt.Sprintf("%s/%d", s, r.hdr.SrcLength)
		}
	}
	return out
}
