package rtnl

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/uapi"
)

func TestLinkFlagsAsIproute2(t *testing.T) {
	// UP without RUNNING prints NO-CARRIER first; RUNNING itself is never
	// printed; M-DOWN comes last.
	require.Equal(t, []string{"NO-CARRIER", "BROADCAST", "MULTICAST", "UP", "M-DOWN"},
		LinkFlags(uapi.IFF_UP|uapi.IFF_BROADCAST|uapi.IFF_MULTICAST, true))
	require.Equal(t, []string{"BROADCAST", "NOARP", "UP", "LOWER_UP"},
		LinkFlags(uapi.IFF_UP|uapi.IFF_RUNNING|uapi.IFF_LOWER_UP|uapi.IFF_BROADCAST|uapi.IFF_NOARP, false))
	require.Equal(t, []string{}, LinkFlags(0, false))
}

func TestErrnoNames(t *testing.T) {
	require.Equal(t, "EOPNOTSUPP", ErrnoName(uapi.EOPNOTSUPP))
	require.Equal(t, "EAGAIN", ErrnoName(uapi.EAGAIN))
	require.Equal(t, "EEXIST", ErrnoName(Errno(Errf(uapi.EEXIST, "x"))))
	require.Equal(t, "", ErrnoName(Errno(nil)))
	require.Equal(t, "ENODEV (no device)", Errf(uapi.ENODEV, "no device").Error())
}

// fakeTarget refuses every other request.
type fakeTarget struct{ n int }

func (f *fakeTarget) Apply(ctx context.Context, r Request) error {
	f.n++
	if f.n%2 == 0 {
		return Errf(uapi.EEXIST, "taken")
	}
	return nil
}
func (f *fakeTarget) State(ctx context.Context, s Show) (State, error) { return State{}, nil }
func (f *fakeTarget) Events(ctx context.Context) ([]Event, error)      { return nil, nil }
func (f *fakeTarget) Close() error                                     { return nil }

func TestRunGoesOnAndJSONKeysFollowShow(t *testing.T) {
	reqs := []Request{{Line: 1, Text: "a"}, {Line: 3, Text: "b"}, {Line: 4, Text: "c"}}
	res, err := Run(context.Background(), &fakeTarget{}, reqs, Show{Links: true, Routes: true}, nil)
	require.NoError(t, err)
	require.Equal(t, []LineError{{Line: 3, Request: "b", Errno: "EEXIST", Message: "taken"}}, res.Errors)
	b, err := res.JSON(Show{Links: true, Routes: true})
	require.NoError(t, err)
	require.Equal(t, `{"links":[],"routes":[],"errors":[{"line":3,"request":"b","errno":"EEXIST","message":"taken"}]}`, string(b))
}

func TestAddrsOfIsTheLinkWithoutLinkmode(t *testing.T) {
	peer, idx, qlen := "eth9", 9, 1000
	l := Link{Ifindex: 3, LinkPeer: &peer, LinkIndex: &idx, Ifname: "v0", Flags: []string{"UP"}, MTU: 1500,
		Qdisc: "noqueue", Master: "br0", Operstate: "UP", Linkmode: "DEFAULT", Group: "default", Txqlen: &qlen,
		LinkType: "ether", Address: "02:00:00:00:00:01", Broadcast: "ff:ff:ff:ff:ff:ff"}
	b, err := json.Marshal(AddrsOf(l, nil))
	require.NoError(t, err)
	require.Equal(t, `{"ifindex":3,"link":"eth9","link_index":9,"ifname":"v0","flags":["UP"],"mtu":1500,`+
		`"qdisc":"noqueue","master":"br0","operstate":"UP","group":"default","txqlen":1000,"link_type":"ether",`+
		`"address":"02:00:00:00:00:01","broadcast":"ff:ff:ff:ff:ff:ff","addr_info":[]}`, string(b))
	var text bytes.Buffer
	Result{State: State{Links: []Link{l}, Addrs: []LinkAddrs{AddrsOf(l, nil)}}}.WriteText(&text, Show{Links: true, Addrs: true})
	require.Equal(t, "3: v0@eth9: <UP> mtu 1500 qdisc noqueue master br0 state UP mode DEFAULT group default qlen 1000\n"+
		"    link/ether 02:00:00:00:00:01 brd ff:ff:ff:ff:ff:ff\n"+
		"3: v0@eth9: <UP> mtu 1500 qdisc noqueue master br0 state UP group default qlen 1000\n"+
		"    link/ether 02:00:00:00:00:01 brd ff:ff:ff:ff:ff:ff\n", text.String())
}

func TestRouteFlagsInPrintRtFlagsOrder(t *testing.T) {
	require.Equal(t, []string{}, RouteFlags(0))
	require.Equal(t, []string{"dead", "onlink", "linkdown", "rt_offload"},
		RouteFlags(uapi.RTM_F_OFFLOAD|uapi.RTNH_F_LINKDOWN|uapi.RTNH_F_ONLINK|uapi.RTNH_F_DEAD))
	// Bits LinkFlags has no name for are printed in hex, after the named ones.
	require.Equal(t, []string{"UP", "80000000"}, LinkFlags(uapi.IFF_UP|uapi.IFF_RUNNING|0x80000000, false))
}

func TestShownStateFilters(t *testing.T) {
	st := State{
		Links: []Link{{Ifindex: 1, Ifname: "lo"}, {Ifindex: 2, Ifname: "i0", Altnames: []string{"a0"}}},
		Addrs: []LinkAddrs{
			{Link: Link{Ifindex: 1, Ifname: "lo"}, AddrInfo: []AddrInfo{{Family: "inet", Local: "127.0.0.1"}}},
			{Link: Link{Ifindex: 2, Ifname: "i0"}, AddrInfo: []AddrInfo{{Family: "inet", Local: "10.0.0.1"}, {Family: "inet6", Local: "fe80::1"}}},
		},
		Routes: []RouteEntry{{Dst: "10.0.0.0/24", Family: 4}, {Dst: "10.0.0.1", Table: "local", Family: 4},
			{Dst: "fe80::/64", Family: 6}, {Dst: "10.5.0.0/16", Table: "100", Family: 4}},
		Rules: []RuleEntry{{Priority: 0, Family: 4}, {Priority: 0, Family: 6}, {Priority: 32766, Family: 6}},
	}
	tg := stateTarget{st}
	get := func(op ShowOp) State {
		s, err := shownState(context.Background(), tg, netnsShow{ShowOp: op})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := get(ShowOp{Object: "link", Dev: "i0"}); len(s.Links) != 1 || s.Links[0].Ifname != "i0" {
		t.Errorf("link show dev i0: %+v", s.Links)
	}
	if s := get(ShowOp{Object: "link", Dev: "a0"}); len(s.Links) != 1 || s.Links[0].Ifname != "i0" {
		t.Errorf("link show dev a0 (an altname of i0): %+v", s.Links)
	}
	if s := get(ShowOp{Object: "addr", Family: 6}); len(s.Addrs) != 2 || len(s.Addrs[0].AddrInfo) != 0 || len(s.Addrs[1].AddrInfo) != 1 {
		t.Errorf("-6 addr show: %+v", s.Addrs)
	}
	if s := get(ShowOp{Object: "route"}); len(s.Routes) != 1 || s.Routes[0].Dst != "10.0.0.0/24" {
		t.Errorf("route show: %+v", s.Routes)
	}
	if s := get(ShowOp{Object: "route", Table: 100}); len(s.Routes) != 1 || s.Routes[0].Table != "" {
		t.Errorf("route show table 100 (the table left out): %+v", s.Routes)
	}
	if s := get(ShowOp{Object: "route", Table: TableAll}); len(s.Routes) != 3 {
		t.Errorf("route show table all (IPv4): %+v", s.Routes)
	}
	if s := get(ShowOp{Object: "rule", Family: 6}); len(s.Rules) != 2 {
		t.Errorf("-6 rule show: %+v", s.Rules)
	}
}

// stateTarget is a Target whose state is fixed.
type stateTarget struct{ st State }

func (s stateTarget) Apply(context.Context, Request) error       { return nil }
func (s stateTarget) State(context.Context, Show) (State, error) { return s.st, nil }
func (s stateTarget) Events(context.Context) ([]Event, error)    { return nil, nil }
func (s stateTarget) Close() error                               { return nil }

// A route's realms and MTU print as `ip route` prints them, after the
// flags; `ip -j` has "flow" and "metrics" there, without the lock.
func TestRouteFlowAndMetricsAsIproute2(t *testing.T) {
	r := RouteEntry{Dst: "10.6.0.0/16", Gateway: "10.8.8.8", Dev: "i0", Flags: []string{"onlink"},
		Flow: FlowOf(7<<16 | 9), Metrics: []RouteMetrics{{MTU: 1300, Lock: true}}}
	require.Equal(t, "10.6.0.0/16 via 10.8.8.8 dev i0 onlink realms 7/9 mtu lock 1300", RouteText(r))
	b, err := json.Marshal(r)
	require.NoError(t, err)
	require.Equal(t, `{"dst":"10.6.0.0/16","gateway":"10.8.8.8","dev":"i0","flags":["onlink"],`+
		`"flow":{"from":"7","to":"9"},"metrics":[{"mtu":1300}]}`, string(b))
	r = RouteEntry{Dst: "10.12.0.0/16", Dev: "i0", Scope: "link", Flags: []string{}, Flow: FlowOf(5 << 16),
		Metrics: []RouteMetrics{{MTU: 0, Lock: true}}}
	require.Equal(t, "10.12.0.0/16 dev i0 scope link realms 5/cosmos mtu lock 0", RouteText(r))
	require.Equal(t, &RouteFlow{To: "5"}, FlowOf(5))
}

// TestRouteGetAnswerAsIproute2: a route get's answer prints as `ip route
// get` and `ip -j route get` do on 6.18, its metrics after the cache.
func TestRouteGetAnswerAsIproute2(t *testing.T) {
	uid, cache := uint32(0), []string{}
	r := RouteEntry{Dst: "10.1.2.3", Gateway: "10.0.0.9", Dev: "i0", Prefsrc: "10.0.0.1", Flags: []string{},
		Flow: FlowOf(2<<16 | 5), Metrics: []RouteMetrics{{MTU: 1400}}, UID: &uid, Cache: &cache}
	require.Equal(t, "10.1.2.3 via 10.0.0.9 dev i0 src 10.0.0.1 realms 2/5 uid 0\n    cache mtu 1400", RouteText(r))
	b, err := json.Marshal(r)
	require.NoError(t, err)
	require.Equal(t, `{"dst":"10.1.2.3","gateway":"10.0.0.9","dev":"i0","prefsrc":"10.0.0.1","flags":[],`+
		`"flow":{"from":"2","to":"5"},"uid":0,"cache":[],"metrics":[{"mtu":1400}]}`, string(b))
	local := []string{"local"}
	r = RouteEntry{Type: "local", Dst: "10.0.0.1", From: "10.0.0.7", Dev: "lo", Flags: []string{}, UID: &uid, Cache: &local}
	require.Equal(t, "local 10.0.0.1 from 10.0.0.7 dev lo uid 0\n    cache <local>", RouteText(r))
	// an input route: iif after the metrics, in both
	redirect := []string{"redirect"}
	r = RouteEntry{Dst: "10.5.0.9", From: "10.1.0.5", Gateway: "10.1.0.2", Dev: "i1", Flags: []string{},
		Metrics: []RouteMetrics{{MTU: 1400}}, Cache: &redirect, Iif: "i1"}
	require.Equal(t, "10.5.0.9 from 10.1.0.5 via 10.1.0.2 dev i1\n    cache <redirect> mtu 1400 iif i1", RouteText(r))
	b, err = json.Marshal(r)
	require.NoError(t, err)
	require.Equal(t, `{"dst":"10.5.0.9","from":"10.1.0.5","gateway":"10.1.0.2","dev":"i1","flags":[],`+
		`"cache":["redirect"],"metrics":[{"mtu":1400}],"iif":"i1"}`, string(b))
}
