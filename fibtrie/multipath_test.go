package fibtrie

import (
	"net/netip"
	"testing"
)

func mpRoute(dst uint32, nhs ...Nexthop) Route {
	r := Route{Dst: dst, Len: 16, Table: TableMain, Type: TypeUnicast, Protocol: 3,
		Gateway: nhs[0].Gateway, OIF: nhs[0].OIF, NhScope: nhs[0].Scope}
	r.Extra = &Extra{Multi: nhs}
	return r
}

// Delete of a multipath route (fib_nh_match): the top-level gateway
// against the first nexthop only; a list in order, weights not compared,
// fewer entries no match, extra ones ignored.
func TestMultipathDeleteMatch(t *testing.T) {
	a := Nexthop{Gateway: 0x0a000002, OIF: 2, Weight: 2, Scope: ScopeLink}
	b := Nexthop{Gateway: 0x0a010002, OIF: 3, Weight: 1, Scope: ScopeLink}
	for _, tc := range []struct {
		name string
		req  Route
		ok   bool
	}{
		{"second gateway", Route{Gateway: b.Gateway}, false},
		{"first gateway", Route{Gateway: a.Gateway}, true},
		{"first device", Route{OIF: a.OIF}, true},
		{"fewer", Route{Extra: &Extra{Multi: []Nexthop{{Gateway: a.Gateway}}}}, false},
		{"reversed", Route{Extra: &Extra{Multi: []Nexthop{{Gateway: b.Gateway}, {Gateway: a.Gateway}}}}, false},
		{"other weights", Route{Extra: &Extra{Multi: []Nexthop{{Gateway: a.Gateway, Weight: 7}, {Gateway: b.Gateway, Weight: 9}}}}, true},
		{"more", Route{Extra: &Extra{Multi: []Nexthop{{OIF: a.OIF}, {}, {OIF: 9}}}}, true},
	} {
		f := New(Linux618())
		if err := f.Add(mpRoute(0x0a090000, a, b)); err != nil {
			t.Fatal(err)
		}
		req := tc.req
		req.Dst, req.Len, req.Table, req.Scope = 0x0a090000, 16, TableMain, ScopeAny
		_, err := f.Remove(req)
		if (err == nil) != tc.ok {
			t.Errorf("%s: delete gave %v, want match %v", tc.name, err, tc.ok)
		}
	}
}

// A device going down marks its nexthops dead; the route dies with its
// last live nexthop; unregister kills it with any.
func TestMultipathSyncDown(t *testing.T) {
	a := Nexthop{Gateway: 0x0a000002, OIF: 2, Weight: 1, Scope: ScopeLink}
	b := Nexthop{Gateway: 0x0a010002, OIF: 3, Weight: 1, Scope: ScopeLink}
	f := New(Linux618())
	if err := f.Add(mpRoute(0x0a090000, a, b)); err != nil {
		t.Fatal(err)
	}
	if n := f.SyncDownDev(2, false); n != 0 || f.Flush(nil) != 0 {
		t.Fatalf("one of two nexthops down: %d routes dead", n)
	}
	got := f.Routes(TableMain)[0].Nexthops()
	if !got[0].Dead || !got[0].LinkDown || got[1].Dead {
		t.Fatalf("nexthops after i2 down: %+v", got)
	}
	f.SyncUpMulti(2, true, true)
	if got := f.Routes(TableMain)[0].Nexthops(); got[0].Dead || got[0].LinkDown {
		t.Fatalf("nexthops after i2 up: %+v", got)
	}
	if n := f.SyncDownDevUnregister(3); n == 0 || f.Flush(nil) != 1 {
		t.Fatal("unregister of one nexthop's device left the route")
	}
	if len(f.multi) != 0 {
		t.Fatalf("%d multipath aliases still indexed", len(f.multi))
	}
}

// IPv6 gateways (RTA_VIA) in a delete: the family and the address must
// match, but in a nexthop list one matches a nexthop without a gateway.
func TestGateway6DeleteMatch(t *testing.T) {
	gw1, gw2 := netip.MustParseAddr("fe80::1"), netip.MustParseAddr("fe80::2")
	plain := func(gw uint32, gw6 netip.Addr, oif int) Route {
		r := Route{Dst: 0x0a090000, Len: 16, Table: TableMain, Type: TypeUnicast, Protocol: 3, Gateway: gw, OIF: oif, NhScope: ScopeLink}
		r.SetGateway6(gw6)
		return r
	}
	for _, tc := range []struct {
		name string
		have Route
		req  Route
		ok   bool
	}{
		{"same IPv6 gateway", plain(0, gw1, 2), plain(0, gw1, 0), true},
		{"other IPv6 gateway", plain(0, gw1, 2), plain(0, gw2, 0), false},
		{"IPv4 against IPv6", plain(0, gw1, 2), plain(0x0a000002, netip.Addr{}, 0), false},
		{"IPv6 against IPv4", plain(0x0a000002, netip.Addr{}, 2), plain(0, gw1, 0), false},
		{"list against no gateway", plain(0, netip.Addr{}, 2), Route{Extra: &Extra{Multi: []Nexthop{{Gateway6: gw2}}}}, true},
		{"list against IPv4", plain(0x0a000002, netip.Addr{}, 2), Route{Extra: &Extra{Multi: []Nexthop{{Gateway6: gw1}}}}, false},
		{"list against IPv6", plain(0, gw1, 2), Route{Extra: &Extra{Multi: []Nexthop{{Gateway6: gw1}}}}, true},
	} {
		f := New(Linux618())
		if err := f.Add(tc.have); err != nil {
			t.Fatal(err)
		}
		req := tc.req
		req.Dst, req.Len, req.Table, req.Scope = 0x0a090000, 16, TableMain, ScopeAny
		_, err := f.Remove(req)
		if (err == nil) != tc.ok {
			t.Errorf("%s: delete gave %v, want match %v", tc.name, err, tc.ok)
		}
	}
}

// The IPv6 gateway is part of the fib_info identity: append of the same
// route is EEXIST, of one with another gateway a second alias.
func TestGateway6Identity(t *testing.T) {
	r := Route{Dst: 0x0a090000, Len: 16, Table: TableMain, Type: TypeUnicast, Protocol: 3, OIF: 2, NhScope: ScopeLink}
	r.SetGateway6(netip.MustParseAddr("fe80::1"))
	f := New(Linux618())
	if err := f.Add(r); err != nil {
		t.Fatal(err)
	}
	if err := f.Append(r); err == nil {
		t.Fatal("append of the same route went in")
	}
	r.SetGateway6(netip.MustParseAddr("fe80::2"))
	if err := f.Append(r); err != nil {
		t.Fatal(err)
	}
	if n := len(f.Routes(TableMain)); n != 2 {
		t.Fatalf("%d routes, want 2", n)
	}
	if a := f.SharedInfo(&r); a == nil || a.Gateway6() != r.Gateway6() {
		t.Fatalf("SharedInfo gave %v", a)
	}
}
