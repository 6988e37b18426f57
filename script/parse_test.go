package script

import (
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

func u32(v uint32) *uint32 { return &v }
func u16(v uint16) *uint16 { return &v }
func u8(v uint8) *uint8    { return &v }
func bp(v bool) *bool      { return &v }
func sp(v string) *string  { return &v }

func pfx(s string) netip.Prefix { return netip.MustParsePrefix(s) }
func ip(s string) netip.Addr    { return netip.MustParseAddr(s) }

func hw(s string) net.HardwareAddr {
	a, err := net.ParseMAC(s)
	if err != nil {
		panic(err)
	}
	return a
}

func parseOne(t *testing.T, line string) rtnl.Op {
	t.Helper()
	reqs, err := ParseString(line)
	require.NoError(t, err, "line %q", line)
	require.Len(t, reqs, 1, "line %q", line)
	return reqs[0].Op
}

func TestParseForms(t *testing.T) {
	cases := []struct {
		line string
		want rtnl.Op
	}{
		// link add
		{"link add dummy0 type dummy", rtnl.LinkAdd{Name: "dummy0", Kind: "dummy"}},
		{"ip link add dev dummy0 type dummy", rtnl.LinkAdd{Name: "dummy0", Kind: "dummy"}},
		{"ip link add name d0 type dummy", rtnl.LinkAdd{Name: "d0", Kind: "dummy"}},
		{"l a d0 ty dummy", rtnl.LinkAdd{Name: "d0", Kind: "dummy"}},
		{"li add d0 type ifb", rtnl.LinkAdd{Name: "d0", Kind: "ifb"}},
		{"link add br0 type bridge", rtnl.LinkAdd{Name: "br0", Kind: "bridge"}},
		// bridge_parse_opt: abbreviations in its order, base 0, the last of a repeated option
		{"link add br0 type bridge stp 1 forward 0x10 hello 200 max_a 2000 ageing_time 0 prio 7 vlan_f 0 vlan_d 4095 mcast_sn 0 forward_delay 300",
			rtnl.LinkAdd{Name: "br0", Kind: "bridge", Bridge: rtnl.BridgeOpts{StpState: u32(1), ForwardDelay: u32(300),
				HelloTime: u32(200), MaxAge: u32(2000), AgeingTime: u32(0), Priority: u16(7), VlanFiltering: u8(0),
				VlanDefaultPvid: u16(4095), McastSnooping: u8(0)}}},
		{"link set br0 up type bridge stp_state 0",
			rtnl.LinkSet{Dev: "br0", Kind: "bridge", LinkAttrs: rtnl.LinkAttrs{Up: bp(true)}, Bridge: rtnl.BridgeOpts{StpState: u32(0)}}},
		{"link set dev br0 type bridge", rtnl.LinkSet{Dev: "br0", Kind: "bridge"}},
		{"link add d0 index 7 group 3 mtu 1400 address 02:00:00:00:00:01 master br0 txqueuelen 10 up type dummy",
			rtnl.LinkAdd{Name: "d0", Kind: "dummy", Index: 7, LinkAttrs: rtnl.LinkAttrs{
				Group: u32(3), MTU: u32(1400), Address: hw("02:00:00:00:00:01"), Master: sp("br0"),
				TxQueueLen: u32(10), Up: bp(true)}}},
		{"link add d0 group default qlen 0x10 down type dummy",
			rtnl.LinkAdd{Name: "d0", Kind: "dummy", LinkAttrs: rtnl.LinkAttrs{Group: u32(0), TxQueueLen: u32(16), Up: bp(false)}}},
		{"link add name d0 mtu 2147483647 type dummy",
			rtnl.LinkAdd{Name: "d0", Kind: "dummy", LinkAttrs: rtnl.LinkAttrs{MTU: u32(2147483647)}}},
		{"link add v0 type veth", rtnl.LinkAdd{Name: "v0", Kind: "veth"}},
		{"link add v0 type veth peer", rtnl.LinkAdd{Name: "v0", Kind: "veth"}},
		{"link add v0 type veth peer v1", rtnl.LinkAdd{Name: "v0", Kind: "veth", Peer: "v1"}},
		{"link add v0 type veth peer name v1", rtnl.LinkAdd{Name: "v0", Kind: "veth", Peer: "v1"}},
		{"link add mv0 link eth0 type macvlan", rtnl.LinkAdd{Name: "mv0", Kind: "macvlan", Lower: "eth0"}},
		{"link add mv0 link eth0 type macvlan mode passthru",
			rtnl.LinkAdd{Name: "mv0", Kind: "macvlan", Lower: "eth0", MacvlanMode: "passthru"}},
		{"link add vx0 type vxlan id 16777215 dstport 4789",
			rtnl.LinkAdd{Name: "vx0", Kind: "vxlan", VNI: u32(16777215), DstPort: u16(4789)}},
		{"link add vx0 type vxlan vni 0", rtnl.LinkAdd{Name: "vx0", Kind: "vxlan", VNI: u32(0)}},

		// link set
		{"link set dev eth0 up", rtnl.LinkSet{Dev: "eth0", LinkAttrs: rtnl.LinkAttrs{Up: bp(true)}}},
		{"link set eth0 down mtu 9000 group 5 address aa:bb:cc:dd:ee:ff master br0 txqueuelen 1000",
			rtnl.LinkSet{Dev: "eth0", LinkAttrs: rtnl.LinkAttrs{Up: bp(false), MTU: u32(9000), Group: u32(5),
				Address: hw("aa:bb:cc:dd:ee:ff"), Master: sp("br0"), TxQueueLen: u32(1000)}}},
		{"link set eth0 nomaster", rtnl.LinkSet{Dev: "eth0", LinkAttrs: rtnl.LinkAttrs{Master: sp("")}}},
		{"link set eth0 name wan0", rtnl.LinkSet{Dev: "eth0", NewName: "wan0"}},
		{"link set dev eth0", rtnl.LinkSet{Dev: "eth0"}},
		{"link change eth0 up", rtnl.LinkSet{Dev: "eth0", LinkAttrs: rtnl.LinkAttrs{Up: bp(true)}}},
		{"link set group 7 up", rtnl.LinkSet{GroupSel: u32(7), LinkAttrs: rtnl.LinkAttrs{Up: bp(true)}}},
		{"link set group default mtu 1300", rtnl.LinkSet{GroupSel: u32(0), LinkAttrs: rtnl.LinkAttrs{MTU: u32(1300)}}},

		// link del
		{"link del dummy0", rtnl.LinkDel{Dev: "dummy0"}},
		{"link delete dev dummy0", rtnl.LinkDel{Dev: "dummy0"}},
		{"ip link d dev dummy0", rtnl.LinkDel{Dev: "dummy0"}},
		{"link del group 2147483647", rtnl.LinkDelGroup{Group: 2147483647}},
		{"link del list a b a", rtnl.LinkDelList{Devs: []string{"a", "b", "a"}}},

		// addr
		{"addr add 10.0.0.1/24 dev eth0", rtnl.AddrAdd{Addr: rtnl.Addr{Prefix: pfx("10.0.0.1/24"), Dev: "eth0"}}},
		{"a add 10.0.0.1 dev eth0", rtnl.AddrAdd{Addr: rtnl.Addr{Prefix: pfx("10.0.0.1/32"), Dev: "eth0"}}},
		{"address add local 10.0.0.1/255.255.0.0 dev eth0",
			rtnl.AddrAdd{Addr: rtnl.Addr{Prefix: pfx("10.0.0.1/16"), Dev: "eth0"}}},
		{"addr add 2001:db8::1 dev eth0", rtnl.AddrAdd{Addr: rtnl.Addr{Prefix: pfx("2001:db8::1/128"), Dev: "eth0"}}},
		{"addr add 10.0.0.1/24 dev eth0 label eth0:1 broadcast + scope link noprefixroute",
			rtnl.AddrAdd{Addr: rtnl.Addr{Prefix: pfx("10.0.0.1/24"), Dev: "eth0", Label: "eth0:1",
				BroadcastAuto: true, Scope: u8(253), NoPrefixRoute: true}}},
		{"addr add 10.0.0.1/24 brd 10.0.0.255 scope 7 dev eth0",
			rtnl.AddrAdd{Addr: rtnl.Addr{Prefix: pfx("10.0.0.1/24"), Dev: "eth0", Broadcast: ip("10.0.0.255"), Scope: u8(7)}}},
		{"addr add 10.0.0.1 peer 10.0.0.2/24 dev eth0",
			rtnl.AddrAdd{Addr: rtnl.Addr{Prefix: pfx("10.0.0.1/32"), Peer: pfx("10.0.0.2/24"), Dev: "eth0"}}},
		{"addr del 10.0.0.1/24 dev eth0", rtnl.AddrDel{Addr: rtnl.Addr{Prefix: pfx("10.0.0.1/24"), Dev: "eth0"}}},
		{"addr d 10.0.0.1/24 dev eth0", rtnl.AddrDel{Addr: rtnl.Addr{Prefix: pfx("10.0.0.1/24"), Dev: "eth0"}}},
		{"addr flush dev eth0", rtnl.AddrFlush{Dev: "eth0"}},
		{"addr flush eth0 to 10/8 label eth0:*", rtnl.AddrFlush{Dev: "eth0", To: pfx("10.0.0.0/8"), Label: "eth0:*"}},
		{"ip -6 addr flush dev eth0", rtnl.AddrFlush{Dev: "eth0", Family: 6}},
		{"-4 a f dev eth0", rtnl.AddrFlush{Dev: "eth0", Family: 4}},

		// route
		{"route add 10.1.0.0/16 via 10.0.0.2 dev eth0",
			rtnl.RouteAdd{Route: rtnl.Route{Dst: pfx("10.1.0.0/16"), Via: ip("10.0.0.2"), Dev: "eth0"}}},
		{"r add default via 10.0.0.1", rtnl.RouteAdd{Route: rtnl.Route{Dst: pfx("0.0.0.0/0"), Via: ip("10.0.0.1")}}},
		{"ro add default via fe80::1 dev eth0",
			rtnl.RouteAdd{Route: rtnl.Route{Dst: pfx("::/0"), Via: ip("fe80::1"), Dev: "eth0"}}},
		{"route add to unicast 10/8 dev eth0 table 100 proto static scope link metric 7 src 10.0.0.1",
			rtnl.RouteAdd{Route: rtnl.Route{Type: "unicast", Dst: pfx("10.0.0.0/8"), Dev: "eth0", Table: 100,
				Proto: u8(4), Scope: u8(253), Metric: u32(7), Src: ip("10.0.0.1")}}},
		{"route add local 10.0.0.1 dev eth0 table local proto kernel scope host",
			rtnl.RouteAdd{Route: rtnl.Route{Type: "local", Dst: pfx("10.0.0.1/32"), Dev: "eth0", Table: 255,
				Proto: u8(2), Scope: u8(254)}}},
		{"route add blackhole 10.2.0.0/24 priority 9", rtnl.RouteAdd{Route: rtnl.Route{Type: "blackhole", Dst: pfx("10.2.0.0/24"), Metric: u32(9)}}},
		{"route add unreachable 10.3.0.0/24 preference 1", rtnl.RouteAdd{Route: rtnl.Route{Type: "unreachable", Dst: pfx("10.3.0.0/24"), Metric: u32(1)}}},
		{"route add prohibit 10.4.0.0/24 table main", rtnl.RouteAdd{Route: rtnl.Route{Type: "prohibit", Dst: pfx("10.4.0.0/24"), Table: 254}}},
		{"route add broadcast 10.0.0.255 dev eth0 table local", rtnl.RouteAdd{Route: rtnl.Route{Type: "broadcast", Dst: pfx("10.0.0.255/32"), Dev: "eth0", Table: 255}}},
		// Host bits are passed on: the kernel refuses them with EINVAL
		// ("Invalid prefix for given prefix length"), iproute2 does not.
		{"route add 10.0.0.5/24 dev eth0", rtnl.RouteAdd{Route: rtnl.Route{Dst: pfx("10.0.0.5/24"), Dev: "eth0"}}},
		{"route add 2001:db8::/32 dev eth0", rtnl.RouteAdd{Route: rtnl.Route{Dst: pfx("2001:db8::/32"), Dev: "eth0"}}},
		{"route del 10.1.0.0/16", rtnl.RouteDel{Route: rtnl.Route{Dst: pfx("10.1.0.0/16")}}},
		{"route delete default table 0", rtnl.RouteDel{Route: rtnl.Route{Dst: pfx("0.0.0.0/0"), TableUnspec: true}}},
		{"route replace 10.1.0.0/16 dev eth0", rtnl.RouteReplace{Route: rtnl.Route{Dst: pfx("10.1.0.0/16"), Dev: "eth0"}}},
		{"route append 10.1.0.0/16 dev eth1", rtnl.RouteAppend{Route: rtnl.Route{Dst: pfx("10.1.0.0/16"), Dev: "eth1"}}},
		{"r ap 10.1.0.0/16 dev eth1", rtnl.RouteAppend{Route: rtnl.Route{Dst: pfx("10.1.0.0/16"), Dev: "eth1"}}},
		{"route prepend 10.1.0.0/16 dev eth1 tos 0x10", rtnl.RoutePrepend{Route: rtnl.Route{Dst: pfx("10.1.0.0/16"), Dev: "eth1", TOS: 0x10}}},
		{"route add throw 10.2.0.0/16 dsfield 1c", rtnl.RouteAdd{Route: rtnl.Route{Type: "throw", Dst: pfx("10.2.0.0/16"), TOS: 0x1c}}},
		// rt_dsfield names come first: EF is 0xb8, not hex ef
		{"route add 10.2.0.0/16 dev eth0 tos CS1", rtnl.RouteAdd{Route: rtnl.Route{Dst: pfx("10.2.0.0/16"), Dev: "eth0", TOS: 0x20}}},
		{"route get 10.0.0.1 tos EF", rtnl.RouteGet{Dst: ip("10.0.0.1"), TOS: 0xb8}},
		{"route get 10.0.0.1 from 10.0.0.2 ii eth0", rtnl.RouteGet{Dst: ip("10.0.0.1"), Src: ip("10.0.0.2"), IIF: "eth0"}},
		{"route get 10.0.0.0/24 tos default", rtnl.RouteGet{Dst: ip("10.0.0.0")}},
		{"-6 route get 2001:db8::1 from 2001:db8::2 oif eth0 mark 7 uid 5 fibmatch", rtnl.RouteGet{Dst: ip("2001:db8::1"),
			Src: ip("2001:db8::2"), OIF: "eth0", Mark: 7, UID: u32(5), FibMatch: true}},
		{"-6 route get to fe80::1/64 dev eth0", rtnl.RouteGet{Dst: ip("fe80::1"), OIF: "eth0"}},
		{"route get 2001:db8::1 from ::1 tos 0x10", rtnl.RouteGet{Dst: ip("2001:db8::1"), Src: ip("::1"), TOS: 0x10}},
		{"route add 10.9.0.0/16 proto static nexthop via 10.0.0.2 dev eth0 weight 3 nexthop dev eth1 onlink nexthop via 10.1.0.2",
			rtnl.RouteAdd{Route: rtnl.Route{Dst: pfx("10.9.0.0/16"), Proto: u8(4), Nexthops: []rtnl.Nexthop{
				{Via: ip("10.0.0.2"), Dev: "eth0", Weight: 3}, {Dev: "eth1", Onlink: true}, {Via: ip("10.1.0.2")}}}}},
		{"route add 10.1.0.0/16 via 10.9.9.9 dev i0 onlink mtu lock 1400 realms 2/5",
			rtnl.RouteAdd{Route: rtnl.Route{Dst: pfx("10.1.0.0/16"), Via: ip("10.9.9.9"), Dev: "i0", Onlink: true,
				MTU: u32(1400), MTULock: true, Realms: 2<<16 | 5}}},
		{"route add 10.1.0.0/16 dev i0 mtu 0 realm 5", rtnl.RouteAdd{Route: rtnl.Route{Dst: pfx("10.1.0.0/16"), Dev: "i0", MTU: u32(0), Realms: 5}}},
		{"route add 10.1.0.0/16 dev i0 mtu 4294967295 rea cosmos/0x10",
			rtnl.RouteAdd{Route: rtnl.Route{Dst: pfx("10.1.0.0/16"), Dev: "i0", MTU: u32(4294967295), Realms: 16}}},
		// get_rt_realms_or_raw: FROM/ is TO 0; a part above 255 makes the
		// word a plain number.
		{"route add 10.1.0.0/16 dev i0 realms 5/", rtnl.RouteAdd{Route: rtnl.Route{Dst: pfx("10.1.0.0/16"), Dev: "i0", Realms: 5 << 16}}},
		{"route add 10.1.0.0/16 dev i0 realm 70000", rtnl.RouteAdd{Route: rtnl.Route{Dst: pfx("10.1.0.0/16"), Dev: "i0", Realms: 70000}}},
		{"route del 10.1.0.0/16 onlink onlink mtu lock 0", rtnl.RouteDel{Route: rtnl.Route{Dst: pfx("10.1.0.0/16"), Onlink: true, MTU: u32(0), MTULock: true}}},
		{"route add 10.1.0.0/16 mtu 1400 nexthop via 10.0.0.2 onlink",
			rtnl.RouteAdd{Route: rtnl.Route{Dst: pfx("10.1.0.0/16"), MTU: u32(1400), Nexthops: []rtnl.Nexthop{{Via: ip("10.0.0.2"), Onlink: true}}}}},
		{"route add 10.1.0.0/16 via inet6 fe80::1 dev i0", rtnl.RouteAdd{Route: rtnl.Route{Dst: pfx("10.1.0.0/16"), Via: ip("fe80::1"), Dev: "i0"}}},
		{"-4 route add default via inet6 2001:db8::1", rtnl.RouteAdd{Route: rtnl.Route{Dst: pfx("0.0.0.0/0"), Via: ip("2001:db8::1")}}},
		// without -4 the gateway gives "default" its family
		{"route add default via inet6 2001:db8::1", rtnl.RouteAdd{Route: rtnl.Route{Dst: pfx("::/0"), Via: ip("2001:db8::1")}}},
		{"route add 10.1.0.0/16 nexthop via inet6 fe80::1 dev i0 nexthop via 10.0.0.2",
			rtnl.RouteAdd{Route: rtnl.Route{Dst: pfx("10.1.0.0/16"), Nexthops: []rtnl.Nexthop{{Via: ip("fe80::1"), Dev: "i0"}, {Via: ip("10.0.0.2")}}}}},
		{"route del default nexthop via 10.0.0.2", rtnl.RouteDel{Route: rtnl.Route{Dst: pfx("0.0.0.0/0"), Nexthops: []rtnl.Nexthop{{Via: ip("10.0.0.2")}}}}},
		{"route flush dev eth0", rtnl.RouteFlush{Dev: "eth0"}},
		{"route flush table all", rtnl.RouteFlush{Table: rtnl.TableAll}},
		{"route flush table 0", rtnl.RouteFlush{Table: rtnl.TableAll}},
		{"route flush table main dev eth0 proto boot", rtnl.RouteFlush{Table: 254, Dev: "eth0", Proto: u8(3)}},
		{"route flush 10.0.0.0/8", rtnl.RouteFlush{Dst: pfx("10.0.0.0/8")}},
		{"route flush exact 10.0.0.0/8", rtnl.RouteFlush{Dst: pfx("10.0.0.0/8")}},
		{"route flush root 10/8", rtnl.RouteFlush{Dst: pfx("10.0.0.0/8"), Root: true}},
		{"route flush to root 10/8", rtnl.RouteFlush{Dst: pfx("10.0.0.0/8"), Root: true}},
		{"ip -6 route flush table all", rtnl.RouteFlush{Table: rtnl.TableAll, Family: 6}},
		{"route add 2001:db8:1::/64 nhid 5 table 100", rtnl.RouteAdd{Route: rtnl.Route{Dst: pfx("2001:db8:1::/64"), NhID: 5, Table: 100}}},

		// nexthop: nhm_family as ipnh_modify sets it
		{"nexthop add id 1 via 2001:db8::2 dev eth0", rtnl.NexthopAdd{NexthopObj: rtnl.NexthopObj{ID: 1, V6: true, Via: ip("2001:db8::2"), Dev: "eth0"}}},
		{"-6 nexthop replace id 2 dev eth0", rtnl.NexthopAdd{NexthopObj: rtnl.NexthopObj{ID: 2, V6: true, Dev: "eth0"}, Replace: true}},
		{"-6 nexthop add id 3 blackhole", rtnl.NexthopAdd{NexthopObj: rtnl.NexthopObj{ID: 3, V6: true, Blackhole: true}}},
		{"-6 nexthop add id 4 group 1/2", rtnl.NexthopAdd{NexthopObj: rtnl.NexthopObj{ID: 4, V6: true, Group: []rtnl.NexthopGrpMember{{ID: 1}, {ID: 2}}}}},
		{"-6 nexthop add id 5", rtnl.NexthopAdd{NexthopObj: rtnl.NexthopObj{ID: 5, V6: true}}},
		{"nexthop add id 6 via 2001:db8::2 blackhole", rtnl.NexthopAdd{NexthopObj: rtnl.NexthopObj{ID: 6, V6: true, Via: ip("2001:db8::2"), Blackhole: true}}},
		{"nexthop add id 7 blackhole", rtnl.NexthopAdd{NexthopObj: rtnl.NexthopObj{ID: 7, Blackhole: true}}},
		{"route flush match 10/8", rtnl.RouteFlush{Dst: pfx("10.0.0.0/8"), Match: true}},
		{"route flush tos 0x10 me 7", rtnl.RouteFlush{TOS: u8(0x10), Metric: u32(7)}},
		{"route flush via 10.0.0.0/24 src 10.0.0.1", rtnl.RouteFlush{Via: pfx("10.0.0.0/24"), Src: pfx("10.0.0.1/32")}},
		{"route flush realm 5", rtnl.RouteFlush{Realms: u32(5), RealmsMask: 0xffff}},
		{"route flush realms 3/", rtnl.RouteFlush{Realms: u32(3 << 16), RealmsMask: 0xffff0000}},
		{"route flush realms 0/5", rtnl.RouteFlush{Realms: u32(5), RealmsMask: 0xffffffff}},

		// sysctl
		{"sysctl net.ipv4.conf.all.promote_secondaries=1", rtnl.Sysctl{Key: "net.ipv4.conf.all.promote_secondaries", Value: "1"}},
		{"sysctl net.ipv4.conf.eth0.promote_secondaries = 0", rtnl.Sysctl{Key: "net.ipv4.conf.eth0.promote_secondaries", Value: "0"}},
		{"sysctl -w net.ipv4.conf.default.promote_secondaries= 1", rtnl.Sysctl{Key: "net.ipv4.conf.default.promote_secondaries", Value: "1"}},
		{"sysctl net.ipv4.conf.eth0.100.promote_secondaries =1", rtnl.Sysctl{Key: "net.ipv4.conf.eth0.100.promote_secondaries", Value: "1"}},

		// lexical: comments, quotes
		{"link add d0 type dummy # trailing comment", rtnl.LinkAdd{Name: "d0", Kind: "dummy"}},
		{"link add d0 type dummy#glued", rtnl.LinkAdd{Name: "d0", Kind: "dummy"}},
		{`link add "d0" type 'dummy'`, rtnl.LinkAdd{Name: "d0", Kind: "dummy"}},
		{"\tlink  add\td0   type dummy  \r", rtnl.LinkAdd{Name: "d0", Kind: "dummy"}},
	}
	for _, c := range cases {
		t.Run(c.line, func(t *testing.T) {
			got := parseOne(t, c.line)
			assert.Equal(t, c.want, got)
			// And the canonical form reads back the same.
			again := parseOne(t, Format(got))
			assert.Equal(t, got, again, "Format gave %q", Format(got))
		})
	}
}

func TestParseScript(t *testing.T) {
	src := "# a script\n" +
		"\n" +
		"ip link add d0 type dummy\n" +
		"   # indented comment\n" +
		"link set d0 \\\n" +
		"  up mtu 1400\n" +
		"addr add 10.0.0.1/24 dev d0\n"
	reqs, err := ParseString(src)
	require.NoError(t, err)
	require.Len(t, reqs, 3)
	assert.Equal(t, 3, reqs[0].Line)
	assert.Equal(t, "ip link add d0 type dummy", reqs[0].Text)
	assert.Equal(t, 5, reqs[1].Line)
	assert.Equal(t, rtnl.LinkSet{Dev: "d0", LinkAttrs: rtnl.LinkAttrs{Up: bp(true), MTU: u32(1400)}}, reqs[1].Op)
	assert.Equal(t, 7, reqs[2].Line)

	empty, err := ParseString("")
	require.NoError(t, err)
	assert.Empty(t, empty)
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		line, word, msg string
	}{
		// unknown words
		{"link set eth0 mtux 1500", "mtux", `unknown keyword in "link set"`},
		{"linx add d0 type dummy", "linx", "unknown object"},
		{"neigh add 10.0.0.1 dev d0", "neigh", "not supported"},
		{"rule add from all uidrange 1-2", "uidrange", "not supported"},
		{"rule add", "rule add", "requires arguments"},
		{"rule add type local table 5", "local", "rule type is not supported"},
		{"rule add pref 1 pref 2", "2", "duplicate"},
		{"link frob d0", "frob", `unknown command for "link"`},
		{"link show up", "up", "not supported"},
		{"route get 10.0.0.1 sport 5", "sport", "not supported"},
		{"route get 10.0.0.1 connected", "connected", "not supported"},
		{"-4 route get 2001:db8::1", "2001:db8::1", "inet address is expected"},
		{"-6 route get 2001:db8::1 iif eth0", "iif", "not supported"},
		{"-6 route get 10.0.0.1", "10.0.0.1", "inet6 address is expected"},
		{"-6 route get 2001:db8::1 from 2001:db8::/64", "2001:db8::/64", "only an address"},
		{"route get 10.0.0.1 from 10.0.0.0/24", "10.0.0.0/24", "only an address"},
		{"route get from 10.0.0.1", "route get", "need at least a destination"},
		{"addr add 10.0.0.1/24 dev eth0 bogus", "bogus", `unknown keyword in "addr add"`},
		{"route add 10.0.0.0/8 dev eth0 bogus", "bogus", `unknown keyword in "route add"`},
		{"route add bogus dev eth0", "bogus", `unknown keyword in "route add"`},
		{"route flush bogus", "bogus", `unknown keyword in "route flush"`},
		{"link del d0 d1", "d1", `unknown keyword in "link del"`},
		{"link add d0 type dummy numtxqueues 2", "numtxqueues", `unknown keyword in "link add type dummy"`},
		{"link add v0 type veth pear v1", "pear", "unknown keyword"},
		{"link add v0 type veth peer v1 numtxqueues 2", "numtxqueues", "unknown keyword after \"peer\""},
		{"link add vx0 type vxlan id 1 tos 4", "tos", "unknown"},
		{"link add vx0 type vxlan id 1 group 10.0.0.1", "10.0.0.1", "invalid group address"},
		{"link add vx0 type vxlan id 1 group 239.1.1.1", "group", "requires"},
		{"link add vx0 type vxlan id 1 remote 10.0.0.9 group 239.1.1.1 dev i0", "239.1.1.1", "both group and remote"},
		{"link add mv0 link eth0 type macvlan bogus", "bogus", "unknown keyword"},
		// known to iproute2, refused here
		{"link set eth0 promisc yes", "yes", `must be "on" or "off"`},
		{"link set eth0 arp", "arp", "missing"},
		{"link set eth0 broadcast zz", "zz", "invalid link layer address"},
		{"link set eth0 trailers on", "trailers", "not supported"},
		{"link add d0 type dummy0", "dummy0", "unknown link type"},
		{"link set eth0 type dummy", "type", "not supported"},
		{"link set group 7 type bridge stp_state 1", "type", "not supported"},
		{"link add br0 type bridge mcast_router 1", "mcast_router", "not supported"},
		{"link add br0 type bridge mcast_ 1", "mcast_router", "not supported"},
		{"link add br0 type bridge mcast_vlan 1", "mcast_vlan", "unknown keyword"},
		{"link add br0 type bridge priority 65536", "65536", "invalid priority"},
		{"link add br0 type bridge vlan_filtering 256", "256", "invalid vlan_filtering"},
		{"link add br0 type bridge stp_state", "stp_state", "missing"},
		{"link set br0 type bridge bogus 1", "bogus", `unknown keyword in "link set type bridge"`},
		{"addr add 10.0.0.1/24 dev eth0 valid_lft 5", "preferred_lft", "preferred_lft is greater than valid_lft"},
		{"addr add 10.0.0.1/24 dev eth0 valid_lft 0 preferred_lft 0", "valid_lft", "valid_lft is zero"},
		{"addr add 10.0.0.1/24 dev eth0 valid_lft always", "always", "invalid"},
		{"route add 10.0.0.0/8 dev eth0 hoplimit 5", "hoplimit", "not supported"},
		{"route add 2001:db8::/32 dev eth0 mtu 1400", "2001:db8::/32", "not supported for IPv6 routes"},
		{"route add 10.0.0.0/8 dev eth0 mtu 4294967296", "4294967296", `invalid "mtu" value`},
		{"route add 10.0.0.0/8 dev eth0 mtu lock", "mtu lock", "missing argument"},
		{"route add 10.0.0.0/8 dev eth0 mtu lock lock", "lock", `invalid "mtu" value`},
		{"route add 10.0.0.0/8 dev eth0 mtu 1400 mtu 1500", "1500", `duplicate "mtu"`},
		{"route add 10.0.0.0/8 dev eth0 realm 1/256", "1/256", `invalid "realm" value`},
		{"route add 10.0.0.0/8 dev eth0 realm /5", "/5", `invalid "realm" value`},
		{"route add 10.0.0.0/8 dev eth0 realm 1/2/3", "1/2/3", `invalid "realm" value`},
		{"route add 10.0.0.0/8 dev eth0 realm unknown", "unknown", `invalid "realm" value`},
		{"route add 10.0.0.0/8 dev eth0 realm 4294967296", "4294967296", `invalid "realm" value`},
		{"route add 10.0.0.0/8 nexthop via 10.0.0.2 realm 5", "realm", "not supported in a nexthop"},
		{"route add 10.0.0.0/8 nexthop via 10.0.0.2 mtu 5", "mtu", `"nexthop" or end of line is expected instead of "mtu"`},
		{"route add nat 10.0.0.0/8 via 10.1.1.1", "nat", "route type is not supported"},
		{"route test 10.0.0.0/8 dev eth0", "test", "not supported"},
		{"route flush from 10/8", "from", "not supported"},
		{"route flush via inet6 fe80::1", "inet6", "not supported"},
		{"-4 route flush src 2001:db8::1", "2001:db8::1", "invalid prefix"},
		{"route flush realms 3/x", "3/x", "invalid realms"},
		{"link add mv0 type dummy link eth0", "link", `unknown keyword in "link add type dummy"`},
		{"link add d0 link eth0 type dummy", "link", "only supported with type macvlan"},
		{"-4 link add d0 type dummy", "-4", "only supported with flush"},
		// missing arguments
		{"link set dev", "dev", "missing argument"},
		{"link set eth0 mtu", "mtu", "missing argument"},
		{"link add d0 type", "type", "missing argument"},
		{"link add d0", "link add", `missing "type KIND"`},
		{"link add type dummy", "link add", "missing device name"},
		{"link set up", "link set", `missing "dev NAME" or "group G"`},
		{"link set mtu 1400", "link set", `missing "dev NAME" or "group G"`},
		{"link set group 1 name x", "name", `cannot be used with "group"`},
		{"link set", "link set", `missing "dev NAME" or "group G"`},
		{"link del", "link del", "missing"},
		{"link del list", "list", "missing argument"},
		{"link add mv0 type macvlan mode bridge", "macvlan", `requires "link DEV"`},
		{"link add vx0 type vxlan dstport 4789", "vxlan", `requires "id VNI"`},
		{"addr add 10.0.0.1/24", "addr add", `missing "dev NAME"`},
		{"addr add dev eth0", "addr add", "missing address"},
		{"addr flush", "addr flush", `missing "dev NAME"`},
		{"addr flush to 10/8", "addr flush", `missing "dev NAME"`},
		{"addr add 10.0.0.1/24 dev eth0 label", "label", "missing argument"},
		{"route add dev eth0", "route add", "missing PREFIX"},
		{"route add 10.0.0.0/8 via", "via", "missing argument"},
		{"route add blackhole", "blackhole", "missing argument"},
		{"sysctl", "sysctl", "missing KEY=VALUE"},
		{"sysctl net.ipv4.conf.all.promote_secondaries", "net.ipv4.conf.all.promote_secondaries", `missing "=VALUE"`},
		{"ip", "ip", "missing object"},
		{"link", "link", "missing command"},
		// out of range and bad values
		{"link set eth0 mtu 4294967296", "4294967296", `invalid "mtu" value`},
		{"link set eth0 mtu -1", "-1", `invalid "mtu" value`},
		{"link set eth0 mtu 08", "08", `invalid "mtu" value`},
		{"link set eth0 mtu 1e3", "1e3", `invalid "mtu" value`},
		{"link set eth0 txqueuelen x", "x", `invalid "txqueuelen" value`},
		{"link add d0 index 0 type dummy", "0", `invalid "index" value`},
		{"link add d0 index 2147483648 type dummy", "2147483648", `invalid "index" value`},
		{"link set eth0 index 5", "index", "only when creating"},
		{"link set eth0 group 4294967296", "4294967296", `invalid "group" value`},
		{"link set eth0 group blue", "blue", `invalid "group" value`},
		{"link del group -1", "-1", `invalid "group" value`},
		{"link set eth0 address 02:00:zz:00:00:01", "02:00:zz:00:00:01", "invalid link layer address"},
		{"link add vx0 type vxlan id 16777216", "16777216", `invalid "id" value`},
		{"link add vx0 type vxlan id 1 dstport 65536", "65536", `invalid "dstport" value`},
		{"link add mv0 link eth0 type macvlan mode fast", "fast", "invalid macvlan mode"},
		{"addr add 10.0.0.256/24 dev eth0", "10.0.0.256/24", "invalid address prefix"},
		{"addr add 10.0.0.1/33 dev eth0", "10.0.0.1/33", "invalid address prefix"},
		{"addr add 10.0.0.1/255.0.255.0 dev eth0", "10.0.0.1/255.0.255.0", "invalid address prefix"},
		{"addr add fe80::1%eth0 dev eth0", "fe80::1%eth0", "invalid address prefix"},
		{"addr add 10.0.0.1/24 dev eth0 scope far", "far", `invalid "scope" value`},
		{"addr add 10.0.0.1/24 dev eth0 scope 256", "256", `invalid "scope" value`},
		{"addr add 2001:db8::1/64 dev eth0 broadcast +", "+", "only for IPv4"},
		{"addr add 10.0.0.1/24 dev eth0 broadcast -", "-", "not supported"},
		{"addr add 10.0.0.1/24 peer 2001:db8::2 dev eth0", "2001:db8::2", "family"},
		{"addr add 10.0.0.1/24 dev eth0 label eth1", "eth1", `must begin with the "dev" name`},
		{"addr add 10.0.0.1/24 dev eth0 label eth0:0123456789ab", "eth0:0123456789ab", "invalid label"},
		{"route add 10.0.0.0/8 table all", "all", `invalid "table" value`},
		{"route add 10.0.0.0/8 proto 256", "256", `invalid "proto" value`},
		{"route add 10.0.0.0/8 metric 4294967296", "4294967296", `invalid "metric" value`},
		{"route add 10.0.0.0/8 via fe80::1", "fe80::1", "gateway address family"},
		{"route add 10.0.0.0/8 nexthop via 10.0.0.2 metric 5", "metric", `"nexthop" or end of line is expected instead of "metric"`},
		{"route add 10.0.0.0/8 nexthop via 10.0.0.2 nexthop", "nexthop", `unexpected end of line after "nexthop"`},
		{"route add 10.0.0.0/8 nexthop dev eth0 weight 0", "0", `invalid "weight" value (1..256)`},
		{"route add 10.0.0.0/8 nexthop dev eth0 weight 257", "257", `invalid "weight" value (1..256)`},
		{"route add 2001:db8::/32 nexthop via fe80::1 dev eth0 onlink", "onlink", "onlink is not supported for IPv6 routes"},
		{"route add 10.0.0.0/8 nexthop via 2001:db8::1", "2001:db8::1", "nexthop gateway address family"},
		{"route add 10.0.0.0/8 src fe80::1", "fe80::1", "source address family"},
		{"nexthop add id 1 dev eth0 via 2001:db8::2", "2001:db8::2", "address family mismatch"},
		{"nexthop add id 1 blackhole via 2001:db8::2", "2001:db8::2", "address family mismatch"},
		{"-6 nexthop add id 1 via 10.0.0.2 dev eth0", "10.0.0.2", "address family mismatch"},
		{"-6 nexthop show", "-6", "not supported with nexthop show"},
		{"-6 nexthop flush", "-6", "not supported with nexthop flush"},
		{"route add 10.0.0.0/8 via inet6 10.0.0.1", "10.0.0.1", "invalid gateway"},
		{"route add 10.0.0.0/8 nexthop via inet 2001:db8::1", "2001:db8::1", "invalid gateway"},
		{"route add via inet6 fe80::1 10.0.0.0/8 dev eth0", "10.0.0.0/8", "is not an IPv6 prefix"},
		{"route add 2001:db8::/32 via inet 10.0.0.1", "10.0.0.1", "an IPv4 gateway (via inet) on an IPv6 route is not supported"},
		{"route add 2001:db8::/32 nexthop via inet 10.0.0.1", "10.0.0.1", "an IPv4 gateway (via inet) on an IPv6 route is not supported"},
		{"-4 route add 2001:db8::/32 dev eth0", "2001:db8::/32", "is not an IPv4 prefix"},
		{"-6 route flush 10/8", "10/8", "is not an IPv6 prefix"},
		{"route flush table bogus", "bogus", `invalid "table" value`},
		{"sysctl net.ipv4.conf.all.promote_secondaries=2", "2", "invalid value for promote_secondaries"},
		{"sysctl net.ipv4.conf.all.bootp_relay=1", "net.ipv4.conf.all.bootp_relay", "unknown sysctl key"},
		{"sysctl net.ipv4.conf.all.rp_filter=loose", "loose", "an integer"},
		{"sysctl net.ipv4.ip_forward=on", "on", "invalid value"},
		{"sysctl net.ipv6.conf.all.promote_secondaries=1", "net.ipv6.conf.all.promote_secondaries", "unknown sysctl key (known: net.ipv6.conf.DEV.accept_dad, disable_ipv6, forwarding, keep_addr_on_down)"},
		{"sysctl net.ipv4.conf.a/b.promote_secondaries=1", "a/b", "invalid interface name"},
		// names
		{"link add 0123456789abcdef type dummy", "0123456789abcdef", "invalid interface name"},
		{"link add name a/b type dummy", "a/b", "invalid interface name"},
		{"link add name a:b type dummy", "a:b", "invalid interface name"},
		{"link add name . type dummy", ".", "invalid interface name"},
		{"link add name .. type dummy", "..", "invalid interface name"},
		{`link add name "a b" type dummy`, "a b", "invalid interface name"},
		{`link add name "" type dummy`, "", "invalid interface name"},
		{"link set eth0 master a/b", "a/b", "invalid interface name"},
		{"addr add 10.0.0.1/24 dev a/b", "a/b", "invalid interface name"},
		{"route add 10/8 dev 0123456789abcdef", "0123456789abcdef", "invalid interface name"},
		{"link del list a b/c", "b/c", "invalid interface name"},
		// duplicates
		{"link set eth0 mtu 1400 mtu 1500", "1500", `duplicate "mtu"`},
		{"link set eth0 txqlen 1 qlen 2", "2", `duplicate "txqueuelen"`},
		{"link set eth0 group 1 group 2", "2", `duplicate "group"`},
		{"link set dev eth0 dev eth1", "eth1", `duplicate "dev"`},
		{"link add name a name b type dummy", "b", `duplicate "name"`},
		{"link add name a x type dummy", "x", `conflicts with name "a"`},
		{"link add name a b type dummy", "type", "invalid link layer address"}, // b is broadcast, as in iproute2
		{"link set eth0 up down", "down", "duplicate up/down"},
		{"link add vx0 type vxlan id 1 id 2", "2", `duplicate "id"`},
		{"link add v0 type veth peer name a name b", "b", `duplicate "peer name"`},
		{"link del group 1 group 2", "2", `duplicate "group"`},
		{"link del dev a group 1", "group", `cannot be combined`},
		{"addr add 10.0.0.1/24 10.0.0.2/24 dev eth0", "10.0.0.2/24", `unknown keyword`},
		{"addr add 10.0.0.1/24 local 10.0.0.2/24 dev eth0", "10.0.0.2/24", `duplicate "local"`},
		{"addr add 10.0.0.1/24 dev eth0 dev eth1", "eth1", `duplicate "dev"`},
		{"addr add 10.0.0.1/24 dev eth0 broadcast + brd +", "+", `duplicate "broadcast"`},
		{"route add 10/8 metric 1 priority 2", "2", `duplicate "metric"`},
		{"route add 10/8 20/8", "20/8", `duplicate "to"`},
		{"route add 10/8 table 1 table 2", "2", `duplicate "table"`},
		{"route flush 10/8 root 20/8", "20/8", `duplicate "to"`},
		// lexical
		{`link add "d0 type dummy`, `"d0 type dummy`, "unterminated quoted string"},
	}
	for _, c := range cases {
		t.Run(c.line, func(t *testing.T) {
			reqs, err := ParseString("\n" + c.line + "\n")
			assert.Empty(t, reqs)
			require.Error(t, err)
			var errs *Errors
			require.True(t, errors.As(err, &errs), "error %T", err)
			require.Len(t, *errs, 1)
			le := (*errs)[0]
			assert.Equal(t, 2, le.Line)
			assert.Equal(t, c.word, le.Word, "%v", le)
			assert.Contains(t, le.Msg, c.msg)
			assert.True(t, strings.HasPrefix(le.Error(), "line 2: "), le.Error())
		})
	}
}

func TestErrorsCollectAllLines(t *testing.T) {
	src := `link add d0 type dummy
link set d0 mtux 1500
link set d0 up
route add 10.0.0.0/33 dev d0
link set d0 mtu 1 mtu 2
`
	reqs, err := ParseString(src)
	require.Len(t, reqs, 2, "the good lines are returned")
	assert.Equal(t, 1, reqs[0].Line)
	assert.Equal(t, 3, reqs[1].Line)
	var errs *Errors
	require.ErrorAs(t, err, &errs)
	require.Len(t, *errs, 3)
	assert.Equal(t, `line 2: "mtux": unknown keyword in "link set"`, (*errs)[0].Error())
	assert.Equal(t, 4, (*errs)[1].Line)
	assert.Equal(t, `line 5: "2": duplicate "mtu"`, (*errs)[2].Error())
	assert.Equal(t, strings.Join([]string{(*errs)[0].Error(), (*errs)[1].Error(), (*errs)[2].Error()}, "\n"), err.Error())
	var le *LineError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, 2, le.Line)
}
