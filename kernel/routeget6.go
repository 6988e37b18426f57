//go:build linux

package kernel

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

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
