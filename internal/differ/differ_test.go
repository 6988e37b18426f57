package differ

import (
	"strings"
	"testing"
	"time"

	"github.com/rtnlsim/rtnlsim/internal/compare"
	"github.com/rtnlsim/rtnlsim/rtnl"
)

// TimerLike: only a run slower than the bridge forward delay whose first
// difference is a kernel-only bridge port notification.
func TestTimerLike(t *testing.T) {
	timer := "notifications of request 24 differ: sim sent 0, kernel 5; notification 1: sim (no more), kernel RTM_NEWLINK bridge\n{...}"
	link := "notifications of request 3 differ: sim sent 1, kernel 2; notification 2: sim (no more), kernel RTM_NEWLINK link\n{...}"
	slow, quick := BridgeForwardDelay+time.Second, BridgeForwardDelay-time.Second
	for _, c := range []struct {
		o    Outcome
		want bool
	}{
		{Outcome{Diff: timer, KernelWall: slow}, true},
		{Outcome{Diff: timer, KernelWall: quick}, false},
		{Outcome{Diff: link, KernelWall: slow}, false},
		{Outcome{KernelWall: slow}, false},
	} {
		if got := c.o.TimerLike(); got != c.want {
			t.Errorf("%q after %v: TimerLike %v, want %v", c.o.Diff, c.o.KernelWall, got, c.want)
		}
	}
}

// TimerLike reads compare's own message: a kernel-only bridge port
// notification, as compare.FirstEventDiff words it, is recognised, and a
// kernel-only link one is not.
func TestTimerLikeReadsCompare(t *testing.T) {
	port := map[string]any{"ifindex": 3, "ifname": "v1", "master": "br0"}
	simEv := []rtnl.Event{{Type: "RTM_NEWLINK", Family: "link", Object: port, Request: 1}}
	for family, want := range map[string]bool{"bridge": true, "link": false} {
		kernEv := append(simEv[:1:1], rtnl.Event{Type: "RTM_NEWLINK", Family: family, Object: port, Request: 1})
		_, d := compare.FirstEventDiff(simEv, kernEv)
		if d == "" {
			t.Fatalf("%s: no difference found", family)
		}
		o := Outcome{Diff: d, KernelWall: BridgeForwardDelay}
		if got := o.TimerLike(); got != want {
			t.Errorf("kernel-only %s notification: TimerLike %v, want %v; the difference:\n%s", family, got, want, d)
		}
	}
}

func TestShownDiff(t *testing.T) {
	a := []rtnl.Shown{{Line: 3, Request: "route show", State: rtnl.State{Routes: []rtnl.RouteEntry{{Dst: "10.0.0.0/24", Flags: []string{}}}}}}
	b := []rtnl.Shown{{Line: 3, Request: "route show", State: rtnl.State{Routes: []rtnl.RouteEntry{{Dst: "10.1.0.0/24", Flags: []string{}}}}}}
	if at, d := shownDiff(a, a); d != "" || at != 0 {
		t.Errorf("equal shows differ: %d %q", at, d)
	}
	if at, d := shownDiff(a, b); at != 3 || !strings.Contains(d, "line 3 (route show) shows differently") {
		t.Errorf("different shows: %d %q", at, d)
	}
	if _, d := shownDiff(a, nil); d == "" {
		t.Error("a show line missing on one side is no difference")
	}
}

func TestAlignLifetimes(t *testing.T) {
	u := func(v uint32) *uint32 { return &v }
	addr := func(valid, pref uint32) rtnl.LinkAddrs {
		return rtnl.LinkAddrs{Link: rtnl.Link{Ifname: "i0"}, AddrInfo: []rtnl.AddrInfo{{Local: "10.0.0.1", Prefixlen: 24, ValidLife: u(valid), PreferredLife: u(pref)}}}
	}
	s := &side{res: rtnl.Result{State: rtnl.State{Addrs: []rtnl.LinkAddrs{addr(3600, 1800)}}}}
	k := &side{res: rtnl.Result{State: rtnl.State{Addrs: []rtnl.LinkAddrs{addr(3598, 1798)}}}}
	alignLifetimes(s, k)
	if a := k.res.Addrs[0].AddrInfo[0]; *a.ValidLife != 3600 || *a.PreferredLife != 1800 {
		t.Errorf("lifetimes 2 s below the model's not aligned: %d %d", *a.ValidLife, *a.PreferredLife)
	}
	k = &side{res: rtnl.Result{State: rtnl.State{Addrs: []rtnl.LinkAddrs{addr(3400, 1801)}}}}
	alignLifetimes(s, k)
	if a := k.res.Addrs[0].AddrInfo[0]; *a.ValidLife != 3400 || *a.PreferredLife != 1801 {
		t.Errorf("lifetimes far below or above the model's aligned: %d %d", *a.ValidLife, *a.PreferredLife)
	}
}

func TestAlignRouteExpires(t *testing.T) {
	e := func(v int) *int { return &v }
	route := func(exp *int) rtnl.RouteEntry {
		m := uint32(256)
		return rtnl.RouteEntry{Family: 6, Dst: "2001:db8::/64", Dev: "i0", Metric: &m, Expires: exp}
	}
	s := &side{res: rtnl.Result{State: rtnl.State{Routes: []rtnl.RouteEntry{route(e(3600))}}}}
	k := &side{res: rtnl.Result{State: rtnl.State{Routes: []rtnl.RouteEntry{route(e(3597))}}}}
	alignLifetimes(s, k)
	if got := *k.res.Routes[0].Expires; got != 3600 {
		t.Errorf("expires 3 s below the model's not aligned: %d", got)
	}
	for _, kv := range []*int{e(3400), e(3601), nil} {
		k = &side{res: rtnl.Result{State: rtnl.State{Routes: []rtnl.RouteEntry{route(kv)}}}}
		alignLifetimes(s, k)
		if got := k.res.Routes[0].Expires; (got == nil) != (kv == nil) || (got != nil && *got != *kv) {
			t.Errorf("expires %v aligned to %v", kv, got)
		}
	}
}

// BridgeTimer: the default forward delay, a shorter one a line gives, a
// second once a line turns STP on (in a named namespace too); TooSlow
// measures the run against it.
func TestBridgeTimer(t *testing.T) {
	u32 := func(v uint32) *uint32 { return &v }
	add := func(o rtnl.BridgeOpts) rtnl.Request {
		return rtnl.Request{Op: rtnl.LinkAdd{Name: "br0", Kind: rtnl.KindBridge, Bridge: o}}
	}
	set := func(o rtnl.BridgeOpts) rtnl.Request {
		return rtnl.Request{Op: rtnl.InNetns{Name: "a", Op: rtnl.LinkSet{Dev: "br0", Kind: rtnl.KindBridge, Bridge: o}}}
	}
	for _, c := range []struct {
		reqs []rtnl.Request
		want time.Duration
	}{
		{nil, BridgeForwardDelay},
		{[]rtnl.Request{add(rtnl.BridgeOpts{})}, BridgeForwardDelay},
		{[]rtnl.Request{add(rtnl.BridgeOpts{ForwardDelay: u32(0)})}, BridgeForwardDelay},
		{[]rtnl.Request{add(rtnl.BridgeOpts{ForwardDelay: u32(250)})}, 2500 * time.Millisecond},
		{[]rtnl.Request{add(rtnl.BridgeOpts{}), set(rtnl.BridgeOpts{StpState: u32(0)})}, BridgeForwardDelay},
		{[]rtnl.Request{add(rtnl.BridgeOpts{}), set(rtnl.BridgeOpts{StpState: u32(2), ForwardDelay: u32(3000)})}, time.Second},
	} {
		got := BridgeTimer(c.reqs)
		if got != c.want {
			t.Errorf("%v: BridgeTimer %v, want %v", c.reqs, got, c.want)
		}
		o := Outcome{Timer: got, KernelWall: got}
		if !o.TooSlow() {
			t.Errorf("a run of %v is not too slow for a timer of %v", o.KernelWall, got)
		}
		if o.KernelWall = got - time.Millisecond; o.TooSlow() {
			t.Errorf("a run of %v is too slow for a timer of %v", o.KernelWall, got)
		}
	}
}
