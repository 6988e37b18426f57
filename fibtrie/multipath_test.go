package fibtrie

import "testing"

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
