package script

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// Lines iproute2 6.1 itself refuses before sending anything; the parser
// refuses them too, with their line number and iproute2's reason.
func TestIproute2Refuses(t *testing.T) {
	cases := []struct{ line, word, msg string }{
		// iproute_list_flush_or_save: a flush needs a selector.
		{"route flush", "route flush", `"ip route flush" requires arguments`},
		{"-4 route flush", "route flush", `"ip route flush" requires arguments`},
		{"ip -6 route flush", "route flush", `"ip route flush" requires arguments`},
		// get_integer: mtu, txqueuelen and group are ints.
		{"link set i0 mtu 2147483648", "2147483648", `invalid "mtu" value`},
		{"link add x0 mtu 4294967295 type ifb", "4294967295", `invalid "mtu" value`},
		{"link set i0 txqueuelen 2147483648", "2147483648", `invalid "txqueuelen" value`},
		{"link add x0 qlen 4294967295 type ifb", "4294967295", `invalid "txqueuelen" value`},
		{"link set i0 group 2147483648", "2147483648", `invalid "group" value`},
		{"link set group 2147483648 up", "2147483648", `invalid "group" value`},
		{"link del group 4294967295", "4294967295", `invalid "group" value`},
		{"link add x0 group 0x80000000 type ifb", "0x80000000", `invalid "group" value`},
		// iplink_parse: an address for a named device must have its length
		// (6 bytes for every kind the language knows).
		{"link set i0 address 02:00:00:00:00", "02:00:00:00:00", "Invalid address length 5 - must be 6 bytes"},
		{"link set address 02:00:00:00:00:00:01 dev i0", "02:00:00:00:00:00:01", "Invalid address length 7 - must be 6 bytes"},
		{"link set dev i0 addr 02", "02", "Invalid address length 1 - must be 6 bytes"},
	}
	for _, c := range cases {
		_, err := ParseString("link add i0 type ifb\n" + c.line + "\n")
		var errs *Errors
		if !assert.True(t, errors.As(err, &errs), "%q: want a parse error, got %v", c.line, err) {
			continue
		}
		require.Len(t, *errs, 1, c.line)
		e := (*errs)[0]
		assert.Equal(t, 2, e.Line, c.line)
		assert.Equal(t, c.word, e.Word, c.line)
		assert.Contains(t, e.Msg, c.msg, c.line)
	}
}

// Lines iproute2 6.1 sends as they are (the kernel judges them).
func TestIproute2Sends(t *testing.T) {
	cases := []struct {
		line string
		want rtnl.Op
	}{
		{"link set i0 mtu 2147483647", rtnl.LinkSet{Dev: "i0", LinkAttrs: rtnl.LinkAttrs{MTU: u32(2147483647)}}},
		{"link set i0 group 2147483647 txqlen 2147483647",
			rtnl.LinkSet{Dev: "i0", LinkAttrs: rtnl.LinkAttrs{Group: u32(2147483647), TxQueueLen: u32(2147483647)}}},
		// No device named: no length to check against.
		{"link set group 7 address 02:00:00:00:00",
			rtnl.LinkSet{GroupSel: u32(7), LinkAttrs: rtnl.LinkAttrs{Address: hw("02:00:00:00:00:00")[:5]}}},
		// link add checks nothing: rtnl_create_link refuses (EINVAL).
		{"link add x0 address 02:00:00:00:00 type ifb",
			rtnl.LinkAdd{Name: "x0", Kind: "ifb", LinkAttrs: rtnl.LinkAttrs{Address: hw("02:00:00:00:00:00")[:5]}}},
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
