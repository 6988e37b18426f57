package fibtrie

import (
	"errors"
	"testing"

	"github.com/rtnlsim/rtnlsim/uapi"
)

// optRoute is 10.1.0.0/16 via 10.9.9.9 through device 2, with x as its
// Extra and onlink as its flag.
func optRoute(onlink bool, x Extra) Route {
	r := Route{Dst: 0x0a010000, Len: 16, Table: TableMain, Type: TypeUnicast, Protocol: 3,
		Gateway: 0x0a090909, OIF: 2, NhScope: ScopeLink, Onlink: onlink}
	r.SetExtra(x)
	return r
}

// Onlink, the MTU, its lock and the realms each make another fib_info:
// appending the route with one of them changed is no duplicate, with
// all of them the same it is (EEXIST).
func TestRouteOptionsIdentity(t *testing.T) {
	f := New(Linux618())
	variants := []Route{
		optRoute(false, Extra{}),
		optRoute(false, Extra{MTU: 1400}),
		optRoute(false, Extra{MTU: 1400, MTULock: true}),
		optRoute(false, Extra{MTULock: true}),
		optRoute(true, Extra{}),
		optRoute(false, Extra{Realms: 4}),
		optRoute(true, Extra{MTU: 1300, Realms: 7<<16 | 9}),
		// one nexthop of RTA_MULTIPATH with onlink: the route's own
		// flags lack it
		optRoute(false, Extra{Multi: []Nexthop{{Gateway: 0x0a090909, OIF: 2, Weight: 1, Scope: ScopeLink, Onlink: true}}}),
	}
	for i, r := range variants {
		if err := f.Append(r); err != nil {
			t.Fatalf("variant %d: append: %v", i, err)
		}
	}
	for i, r := range variants {
		if err := f.Append(r); !errors.Is(err, uapi.EEXIST) {
			t.Errorf("variant %d again: %v, want EEXIST", i, err)
		}
	}
	// a plain onlink route is the same fib_info as one nexthop of
	// RTA_MULTIPATH with onlink under a request with onlink
	same := optRoute(true, Extra{Multi: []Nexthop{{Gateway: 0x0a090909, OIF: 2, Weight: 1, Scope: ScopeLink, Onlink: true}}})
	if err := f.Append(same); !errors.Is(err, uapi.EEXIST) {
		t.Errorf("onlink route as one onlink nexthop: %v, want EEXIST", err)
	}
	if got := len(f.Routes(TableMain)); got != len(variants) {
		t.Fatalf("%d routes, want %d", got, len(variants))
	}
}

// A delete matches the MTU it gives exactly (0 included: no MTU), a lock
// only a locked route, the realms only with a device or a gateway, and
// never looks at onlink.
func TestRouteOptionsDeleteMatch(t *testing.T) {
	stored := []Route{
		optRoute(false, Extra{}),
		optRoute(false, Extra{MTU: 1400}),
		optRoute(false, Extra{MTU: 1400, MTULock: true}),
		optRoute(true, Extra{Realms: 4}),
	}
	req := func(onlink bool, oif int, x Extra) Route {
		r := Route{Dst: 0x0a010000, Len: 16, Table: TableMain, Scope: ScopeAny, OIF: oif, Onlink: onlink}
		r.SetExtra(x)
		return r
	}
	for _, tc := range []struct {
		name string
		req  Route
		want int // index of the route removed, -1 for ESRCH
	}{
		{"prefix alone", req(false, 0, Extra{}), 0},
		{"mtu 0", req(false, 0, Extra{MTUGiven: true}), 0},
		{"mtu 1400", req(false, 0, Extra{MTU: 1400, MTUGiven: true}), 1},
		{"mtu lock 1400", req(false, 0, Extra{MTU: 1400, MTUGiven: true, MTULock: true}), 2},
		{"mtu 1401", req(false, 0, Extra{MTU: 1401, MTUGiven: true}), -1},
		{"lock alone", req(false, 0, Extra{MTULock: true}), 2},
		{"realm without device", req(false, 0, Extra{Realms: 9}), 0},
		{"realm 9 with device", req(false, 2, Extra{Realms: 9}), -1},
		{"realm 4 with device", req(false, 2, Extra{Realms: 4}), 3},
		{"onlink", req(true, 0, Extra{}), 0},
	} {
		f := New(Linux618())
		for _, r := range stored {
			if err := f.Append(r); err != nil {
				t.Fatal(err)
			}
		}
		before := f.Routes(TableMain)
		_, err := f.Remove(tc.req)
		if tc.want < 0 {
			if !errors.Is(err, uapi.ESRCH) {
				t.Errorf("%s: %v, want ESRCH", tc.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		after := f.Routes(TableMain)
		for i, a := range after {
			j := i
			if i >= tc.want {
				j++
			}
			if !sameInfo(&a, &before[j].Route) {
				t.Errorf("%s: removed another route than %d", tc.name, tc.want)
				break
			}
		}
	}
}

// SetNexthops leaves the Extra a copy shares as it was.
func TestSetNexthopsCopies(t *testing.T) {
	r := optRoute(false, Extra{MTU: 1400, Multi: []Nexthop{{OIF: 2}, {OIF: 3}}})
	c := r
	c.SetNexthops(nil)
	if len(r.Nexthops()) != 2 || c.Nexthops() != nil {
		t.Fatalf("nexthops %v and %v", r.Nexthops(), c.Nexthops())
	}
	if mtu, _ := c.MTU(); mtu != 1400 {
		t.Fatalf("the copy lost its MTU: %d", mtu)
	}
	var empty Route
	empty.SetExtra(Extra{})
	if empty.Extra != nil {
		t.Fatal("an empty Extra was kept")
	}
}
