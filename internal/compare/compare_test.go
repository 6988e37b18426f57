package compare

import (
	"net"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

func link(idx int, name, mac string) rtnl.Link {
	return rtnl.Link{Ifindex: idx, Ifname: name, LinkType: "ether", Address: mac, Broadcast: "ff:ff:ff:ff:ff:ff", Flags: []string{}}
}

func noBridge(string) bool { return false }

func TestLinksRenameRandomMACsConsistently(t *testing.T) {
	fixed := []string{"ff:ff:ff:ff:ff:ff", "02:00:00:00:00:42"}
	sim := []rtnl.Link{link(2, "a", "aa:00:00:00:00:01"), link(3, "b", "aa:00:00:00:00:02"), link(4, "c", "02:00:00:00:00:42")}
	kern := []rtnl.Link{link(2, "a", "bb:00:00:00:00:09"), link(3, "b", "bb:00:00:00:00:08"), link(4, "c", "02:00:00:00:00:42")}
	require.Empty(t, Links(sim, kern, fixed, noBridge))

	// Two sim addresses may not map to one kernel address.
	kern[1].Address = "bb:00:00:00:00:09"
	require.Contains(t, Links(sim, kern, fixed, noBridge), "maps to")

	// A written address compares as it is.
	kern[1].Address = "bb:00:00:00:00:08"
	kern[2].Address = "02:00:00:00:00:43"
	require.Contains(t, Links(sim, kern, fixed, noBridge), "address sim 02:00:00:00:00:42")

	// Any other field differs: reported with both sides.
	kern[2].Address = "02:00:00:00:00:42"
	kern[0].MTU = 1400
	require.Contains(t, Links(sim, kern, fixed, noBridge), "link 0 differs")
}

func TestErrnos(t *testing.T) {
	kern := []rtnl.LineError{{Line: 3, Request: "link add x0 type dummy", Errno: "EOPNOTSUPP"}}
	require.Contains(t, Errnos(nil, kern), `line 3 "link add x0 type dummy": sim "ok", kernel "EOPNOTSUPP"`)
	require.Empty(t, Errnos(kern, kern))
}

func TestLinesShowsTheFirstDifference(t *testing.T) {
	require.Empty(t, Lines("x", []string{"a", "b"}, []string{"a", "b"}))
	d := Lines("fib", []string{"1", "2", "3", "4", "5", "6", "7"}, []string{"1", "2", "3", "4", "X", "Y", "6", "7"})
	require.Contains(t, d, "first at line 5")
	require.Contains(t, d, "  4\n- 5\n+ X\n+ Y\n  6\n  7")
	require.NotContains(t, d, "  1\n") // three lines of context only
	// One side ends early.
	require.Contains(t, Lines("x", []string{"a"}, []string{"a", "b"}), "+ b")
}

func TestAddrsCompareAddrInfoExactly(t *testing.T) {
	life := uint32(0xffffffff)
	a := rtnl.AddrInfo{Family: "inet", Local: "10.0.0.1", Prefixlen: 24, Scope: "global", Label: "i0", ValidLife: &life, PreferredLife: &life}
	b := a
	b.Secondary = true
	sim := []rtnl.LinkAddrs{rtnl.AddrsOf(link(2, "i0", "aa:00:00:00:00:01"), []rtnl.AddrInfo{a, a})}
	kern := []rtnl.LinkAddrs{rtnl.AddrsOf(link(2, "i0", "bb:00:00:00:00:01"), []rtnl.AddrInfo{a, a})}
	require.Empty(t, Addrs(sim, kern), "link headers (MACs) are Links' business")
	kern[0].AddrInfo[1] = b
	require.Contains(t, Addrs(sim, kern), `+     {"family":"inet","local":"10.0.0.1","prefixlen":24,"scope":"global","secondary":true`)
	kern[0].AddrInfo = kern[0].AddrInfo[:1]
	require.Contains(t, Addrs(sim, kern), "3 lines on the sim, 2 on the kernel")
}

func TestRoutesAndFibTrie(t *testing.T) {
	m := uint32(10)
	r := rtnl.RouteEntry{Type: "local", Dst: "10.0.0.1", Dev: "i0", Table: "local", Protocol: "kernel", Scope: "host", Prefsrc: "10.0.0.1", Flags: []string{}}
	s := []rtnl.RouteEntry{r}
	k := []rtnl.RouteEntry{r}
	require.Empty(t, Routes(s, k))
	k[0].Metric = &m
	require.Contains(t, Routes(s, k), "+ local 10.0.0.1 dev i0 table local proto kernel scope host src 10.0.0.1 metric 10")
	k[0].Metric, k[0].Flags = nil, nil
	require.Contains(t, Routes(s, k), "(flags: null)")
	require.Empty(t, FibTrie("Main:\n  +-- 0.0.0.0/0\n", "Main:\n  +-- 0.0.0.0/0\n"))
	require.Contains(t, FibTrie("Main:\n  a\n", "Main:\n  b\n"), "-   a\n+   b")
}

func TestFirstErrnoLineAndEventCounts(t *testing.T) {
	kern := []rtnl.LineError{{Line: 3, Errno: "EEXIST"}, {Line: 7, Errno: "ENODEV"}}
	sim := []rtnl.LineError{{Line: 3, Errno: "EEXIST"}, {Line: 5, Errno: "EINVAL"}}
	require.Equal(t, 5, FirstErrnoLine(sim, kern))
	require.Equal(t, 0, FirstErrnoLine(kern, kern))
	ev := func(req int, typ string) rtnl.Event { return rtnl.Event{Type: typ, Family: "inet", Request: req} }
	s := []rtnl.Event{ev(1, "RTM_NEWADDR"), ev(2, "RTM_NEWROUTE"), ev(2, "RTM_NEWROUTE")}
	k := []rtnl.Event{ev(1, "RTM_NEWADDR"), ev(2, "RTM_NEWROUTE"), ev(2, "RTM_DELROUTE")}
	req, d := FirstEventCountDiff(s, k)
	require.Equal(t, 2, req)
	require.Equal(t, "RTM_DELROUTE inet: sim 0, kernel 1; RTM_NEWROUTE inet: sim 2, kernel 1", d)
	require.Empty(t, EventCounts(s, s))
}

func TestFirstEventDiffNamesTheRequest(t *testing.T) {
	ev := func(req int, local string) rtnl.Event {
		return rtnl.Event{Type: "RTM_NEWADDR", Family: "inet", Request: req, Object: rtnl.AddrEvent{Ifindex: 2, AddrInfo: rtnl.AddrInfo{Local: local}}}
	}
	s := []rtnl.Event{ev(1, "10.0.0.1"), ev(3, "10.0.0.2")}
	k := []rtnl.Event{ev(1, "10.0.0.1"), ev(3, "10.0.0.3")}
	req, d := FirstEventDiff(s, k)
	require.Equal(t, 3, req)
	require.Contains(t, d, "notifications of request 3 differ: notification 1")
	req, d = FirstEventDiff(s, s)
	require.Zero(t, req)
	require.Empty(t, d)
}

// The IPv6 routes of one fib6 node list compare in any order (the kernel
// orders them as racing work inserted them); IPv4 routes and IPv6 routes
// of different nodes keep their order.
func TestRoutesIPv6NodeListOrder(t *testing.T) {
	m := func(v uint32) *uint32 { return &v }
	r := func(dst, dev string, metric uint32) rtnl.RouteEntry {
		return rtnl.RouteEntry{Dst: dst, Dev: dev, Metric: m(metric), Flags: []string{}}
	}
	a := []rtnl.RouteEntry{r("fe80::/64", "v0", 256), r("fe80::/64", "v1", 256), r("fe80::/64", "v2", 1024)}
	b := []rtnl.RouteEntry{r("fe80::/64", "v1", 256), r("fe80::/64", "v0", 256), r("fe80::/64", "v2", 1024)}
	if d := Routes(a, b); d != "" {
		t.Errorf("same node list, other order: %s", d)
	}
	c := []rtnl.RouteEntry{r("fe80::/64", "v2", 1024), r("fe80::/64", "v0", 256), r("fe80::/64", "v1", 256)}
	if Routes(a, c) == "" {
		t.Error("routes of different metrics swapped compared equal")
	}
	v4a := []rtnl.RouteEntry{r("10.0.0.0/24", "v0", 0), r("10.0.0.0/24", "v1", 0)}
	v4b := []rtnl.RouteEntry{r("10.0.0.0/24", "v1", 0), r("10.0.0.0/24", "v0", 0)}
	if Routes(v4a, v4b) == "" {
		t.Error("IPv4 routes swapped compared equal")
	}
}

// A device whose carrier came and went in one request: the kernel's
// linkwatch may have run it in between (operstate UP), once, before its
// deferred run; nothing else extra is accepted.
func TestEventsCarrierBlip(t *testing.T) {
	br := func(state string, flags ...string) rtnl.Link {
		l := link(2, "br0", "aa:00:00:00:00:01")
		l.Flags, l.Operstate = flags, state
		return l
	}
	ev := func(l rtnl.Link, deferred bool) rtnl.Event {
		return rtnl.Event{Type: "RTM_NEWLINK", Family: "link", Request: 1, Object: l, Deferred: deferred}
	}
	on := ev(br("UNKNOWN", "UP", "LOWER_UP"), false)
	off := ev(br("DOWN", "NO-CARRIER", "UP"), true)
	blip := ev(br("UP", "UP", "LOWER_UP"), false)
	sim := []rtnl.Event{on, off}
	require.Empty(t, Events(sim, []rtnl.Event{on, off}))
	require.Empty(t, Events(sim, []rtnl.Event{on, blip, off}))
	require.NotEmpty(t, Events(sim, []rtnl.Event{on, off, blip}), "after the deferred run")
	require.NotEmpty(t, Events(sim, []rtnl.Event{on, blip, blip, off}), "twice")
	other := ev(br("UP", "UP", "LOWER_UP"), false)
	other.Object = func() rtnl.Link { l := br("UP", "UP", "LOWER_UP"); l.MTU = 1400; return l }()
	require.NotEmpty(t, Events(sim, []rtnl.Event{on, other, off}), "not the device as the sim sent it")
	// A device whose operstate was DOWN when its carrier came: the blip
	// is without NO-CARRIER.
	onDown := ev(br("DOWN", "NO-CARRIER", "UP", "LOWER_UP"), false)
	require.Empty(t, Events([]rtnl.Event{onDown, off}, []rtnl.Event{onDown, blip, off}))
	// No carrier loss in the window: no blip.
	require.NotEmpty(t, Events([]rtnl.Event{on}, []rtnl.Event{on, blip}))
	// The sim's notifications must all come.
	require.NotEmpty(t, Events(sim, []rtnl.Event{on, blip}))
}

// A renaming maps the random addresses and the link-local addresses
// derived from them, and nothing else.
func TestMACRenaming(t *testing.T) {
	from, _ := net.ParseMAC("aa:00:00:00:00:01")
	to, _ := net.ParseMAC("06:11:22:00:00:00")
	m := MACRenaming{}
	m.Add(from, to)
	require.Equal(t, "fe80::a800:ff:fe00:1", EUI64LinkLocal(from).String())
	l := m.Link(link(2, "i0", "aa:00:00:00:00:01"))
	require.Equal(t, "06:11:22:00:00:00", l.Address)
	require.Equal(t, "ff:ff:ff:ff:ff:ff", l.Broadcast)
	require.Equal(t, "02:00:00:00:00:42", m.Link(link(3, "i1", "02:00:00:00:00:42")).Address)
	ev := m.Event(rtnl.Event{Type: "RTM_NEWADDR", Family: "inet6", Object: rtnl.AddrEvent{Ifindex: 2, AddrInfo: rtnl.AddrInfo{Local: "fe80::a800:ff:fe00:1"}}})
	require.Equal(t, "fe80::411:22ff:fe00:0", ev.Object.(rtnl.AddrEvent).Local)
	st := m.State(rtnl.State{Routes: []rtnl.RouteEntry{{Dst: "fe80::a800:ff:fe00:1", Type: "local"}, {Dst: "fe80::/64"}}})
	require.Equal(t, "fe80::411:22ff:fe00:0", st.Routes[0].Dst)
	require.Equal(t, "fe80::/64", st.Routes[1].Dst)
	require.Empty(t, LinksExact([]rtnl.Link{l}, []rtnl.Link{l}))
	k := l
	k.Address = "06:11:22:00:00:01"
	require.Contains(t, LinksExact([]rtnl.Link{l}, []rtnl.Link{k}), "address sim 06:11:22:00:00:00")
}
