package kernel

import (
	"context"
	"encoding/json"
	"net/netip"
	"os/exec"
	"testing"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

func u32(v uint32) *uint32 { return &v }
func bp(v bool) *bool      { return &v }

func TestSmoke(t *testing.T) {
	tg := newTestTarget(t)
	ctx := context.Background()
	reqs := []rtnl.Request{
		{Op: rtnl.LinkAdd{Name: "i0", Kind: "ifb", LinkAttrs: rtnl.LinkAttrs{Up: bp(true)}}},
		{Op: rtnl.LinkAdd{Name: "v0", Kind: "veth", Peer: "v1"}},
		{Op: rtnl.LinkAdd{Name: "br0", Kind: "bridge"}},
		{Op: rtnl.LinkSet{Dev: "v1", LinkAttrs: rtnl.LinkAttrs{Master: strp("br0")}}},
		{Op: rtnl.LinkAdd{Name: "mv0", Kind: "macvlan", Lower: "i0", MacvlanMode: "bridge"}},
		{Op: rtnl.LinkAdd{Name: "vx0", Kind: "vxlan", VNI: u32(42)}},
		{Op: rtnl.AddrAdd{Addr: rtnl.Addr{Prefix: netip.MustParsePrefix("10.0.0.1/24"), Dev: "i0"}}},
		{Op: rtnl.AddrAdd{Addr: rtnl.Addr{Prefix: netip.MustParsePrefix("10.0.0.2/24"), Dev: "i0", Label: "i0:1"}}},
		{Op: rtnl.RouteAdd{Route: rtnl.Route{Dst: netip.MustParsePrefix("192.168.0.0/16"), Via: netip.MustParseAddr("10.0.0.5")}}},
		{Op: rtnl.RouteAdd{Route: rtnl.Route{Type: "blackhole", Dst: netip.MustParsePrefix("172.16.0.0/12"), Table: 100, Metric: u32(5)}}},
		{Op: rtnl.LinkAdd{Name: "i0", Kind: "ifb"}},
	}
	show := rtnl.Show{Links: true, Addrs: true, Routes: true, Events: true, FibTrie: true}
	res, err := rtnl.Run(ctx, tg, reqs, show, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := res.JSON(show)
	t.Logf("%s", b)
	for _, args := range [][]string{{"link", "show"}, {"addr", "show"}, {"route", "show", "table", "all"}} {
		out, err := exec.Command("nsenter", append([]string{"--net=" + tg.NetnsPath(), "ip", "-j"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatal(err, string(out))
		}
		t.Logf("ip %v: %s", args, out)
	}
	var x any
	_ = json.Unmarshal(b, &x)
}

func strp(s string) *string { return &s }
