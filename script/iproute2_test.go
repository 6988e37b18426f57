package script

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// Lines iproute2 6.1 sends as they are (the kernel judges them).
func TestIproute2Sends(t *testing.T) {
	cases := []struct {
		line string
		want rtnl.Op
	}{
		// ipaddr_modify: an IPv4 delete without /LEN and without a peer
		// omits IFA_ADDRESS (a "wildcard deletion").
		{"addr del 10.0.0.1 dev i0", rtnl.AddrDel{Addr: rtnl.Addr{Prefix: pfx("10.0.0.1/32"), Dev: "i0", Wildcard: true}}},
		{"addr del 10.0.0.1/32 dev i0", rtnl.AddrDel{Addr: rtnl.Addr{Prefix: pfx("10.0.0.1/32"), Dev: "i0"}}},
		{"addr del 10.0.0.1 peer 10.0.0.2 dev i0",
			rtnl.AddrDel{Addr: rtnl.Addr{Prefix: pfx("10.0.0.1/32"), Peer: pfx("10.0.0.2/32"), Dev: "i0"}}},
		{"addr del 2001:db8::1 dev i0", rtnl.AddrDel{Addr: rtnl.Addr{Prefix: pfx("2001:db8::1/128"), Dev: "i0"}}},
		{"addr add 10.0.0.1 dev i0", rtnl.AddrAdd{Addr: rtnl.Addr{Prefix: pfx("10.0.0.1/32"), Dev: "i0"}}},
		// iproute_modify: a table given, even 0, is kept for local routes
		// (rtm_table 0, which the kernel reads as main).
		{"route add local 10.5.0.0/24 dev i0 table 0",
			rtnl.RouteAdd{Route: rtnl.Route{Type: "local", Dst: pfx("10.5.0.0/24"), Dev: "i0", TableUnspec: true}}},
		{"route add anycast 10.6.0.1 dev i0 table unspec",
			rtnl.RouteAdd{Route: rtnl.Route{Type: "anycast", Dst: pfx("10.6.0.1/32"), Dev: "i0", TableUnspec: true}}},
		{"route add 10.6.0.0/16 dev i0 table 100",
			rtnl.RouteAdd{Route: rtnl.Route{Dst: pfx("10.6.0.0/16"), Dev: "i0", Table: 100}}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, parseOne(t, c.line), c.line)
		// And the line written back means the same.
		back := Format(c.want)
		assert.Equal(t, c.want, parseOne(t, back), "%q written back as %q", c.line, back)
	}
}
