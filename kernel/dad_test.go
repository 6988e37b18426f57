//go:build linux

package kernel

import (
	"context"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
)

// applyLines applies a script's lines one request each and returns how
// long each took.
func applyLines(t *testing.T, tg *Target, src string) []time.Duration {
	t.Helper()
	reqs, err := script.ParseString(src)
	require.NoError(t, err)
	var took []time.Duration
	for _, r := range reqs {
		start := time.Now()
		require.NoError(t, tg.Apply(context.Background(), r), r.Text)
		took = append(took, time.Since(start))
	}
	return took
}

// dadEvents finds, per device, the request of the RTM_NEWADDR of its
// inet6 link-local address (not tentative) and of the RTM_NEWROUTE of that
// address's local route; the key is "addr DEV" or "route DEV".
func dadEvents(t *testing.T, evs []rtnl.Event) map[string]int {
	t.Helper()
	got := map[string]int{}
	local := map[string]string{} // address -> device
	for _, ev := range evs {
		if a, ok := ev.Object.(rtnl.AddrEvent); ok && ev.Type == "RTM_NEWADDR" && ev.Family == "inet6" {
			ip, err := netip.ParseAddr(a.Local)
			require.NoError(t, err)
			if ip.IsLinkLocalUnicast() {
				require.False(t, a.Tentative, "announced still tentative: %+v", a)
				got["addr "+a.Ifname] = ev.Request
				local[a.Local] = a.Ifname
			}
		}
	}
	for _, ev := range evs {
		if r, ok := ev.Object.(rtnl.RouteEntry); ok && ev.Type == "RTM_NEWROUTE" && r.Type == "local" && r.Table == "local" {
			if dev, ok := local[r.Dst]; ok && dev == r.Dev {
				got["route "+dev] = ev.Request
			}
		}
	}
	return got
}

func requireNoTentative(t *testing.T, st rtnl.State) {
	t.Helper()
	for _, l := range st.Addrs {
		for _, a := range l.AddrInfo {
			require.False(t, a.Tentative, "%s: %s is tentative", l.Ifname, a.Local)
		}
	}
}

// A veth pair gets its carrier when the second end comes up; DAD of both
// link-local addresses (accept_dad 1: a second or two) ends within that
// request's window, announcing each address and its local route.
func TestDADVethInWindow(t *testing.T) {
	tg := newTestTargetWith(t, Options{SyncLinkwatch: true})
	took := applyLines(t, tg, "link add va type veth peer name vb\nlink set va up\nlink set vb up")
	t.Logf("request times: %v", took)
	evs, err := tg.Events(context.Background())
	require.NoError(t, err)
	require.Equal(t, map[string]int{"addr va": 3, "route va": 3, "addr vb": 3, "route vb": 3}, dadEvents(t, evs))
	st, err := tg.State(context.Background(), rtnl.Show{Addrs: true})
	require.NoError(t, err)
	requireNoTentative(t, st)
}

// ifb is IFF_NOARP: DAD ends at once, from the workqueue, and its
// announcement still falls in the window of the `link set up`.
func TestDADIfbInWindow(t *testing.T) {
	tg := newTestTargetWith(t, Options{SyncLinkwatch: true})
	applyLines(t, tg, "link add i0 type ifb\nlink set i0 up")
	evs, err := tg.Events(context.Background())
	require.NoError(t, err)
	require.Equal(t, map[string]int{"addr i0": 2, "route i0": 2}, dadEvents(t, evs))
	st, err := tg.State(context.Background(), rtnl.Show{Addrs: true})
	require.NoError(t, err)
	requireNoTentative(t, st)
}

// An address on a device without carrier stays tentative until the device
// is ready, so it is not waited for; once the carrier comes, its DAD ends
// in that request's window.
func TestDADWaitsOnlyOnReadyDevices(t *testing.T) {
	tg := newTestTargetWith(t, Options{SyncLinkwatch: true})
	took := applyLines(t, tg, "link add va type veth peer name vb\naddr add 2001:db8::1/64 dev va\nlink set va up")
	require.Less(t, took[2], dadWait/2, "no wait for a device without carrier")
	st, err := tg.State(context.Background(), rtnl.Show{Addrs: true})
	require.NoError(t, err)
	var va []string
	for _, l := range st.Addrs {
		if l.Ifname == "va" {
			for _, a := range l.AddrInfo {
				va = append(va, fmt.Sprintf("%s tentative=%v", a.Local, a.Tentative))
			}
		}
	}
	require.Equal(t, []string{"2001:db8::1 tentative=true"}, va)

	before, err := tg.Events(context.Background())
	require.NoError(t, err)
	applyLines(t, tg, "link set vb up")
	after, err := tg.Events(context.Background())
	require.NoError(t, err)
	announced := false
	for _, ev := range after[len(before):] {
		if a, ok := ev.Object.(rtnl.AddrEvent); ok && ev.Type == "RTM_NEWADDR" && a.Local == "2001:db8::1" {
			require.Equal(t, 4, ev.Request)
			require.False(t, a.Tentative)
			announced = true
		}
	}
	require.True(t, announced, "2001:db8::1 announced after its DAD")
	st, err = tg.State(context.Background(), rtnl.Show{Addrs: true})
	require.NoError(t, err)
	requireNoTentative(t, st)
}

// Without SyncLinkwatch requests do not wait, but State does, and reads
// the local routes DAD added.
func TestDADStateWaits(t *testing.T) {
	tg := newTestTargetWith(t, Options{})
	applyLines(t, tg, "link add va type veth peer name vb\nlink set va up\nlink set vb up")
	start := time.Now()
	st, err := tg.State(context.Background(), rtnl.Show{Addrs: true, Routes: true})
	require.NoError(t, err)
	t.Logf("State took %v", time.Since(start))
	requireNoTentative(t, st)
	ll := map[string]string{}
	for _, l := range st.Addrs {
		for _, a := range l.AddrInfo {
			if ip, err := netip.ParseAddr(a.Local); err == nil && ip.IsLinkLocalUnicast() {
				ll[a.Local] = l.Ifname
			}
		}
	}
	require.Len(t, ll, 2)
	for _, r := range st.Routes {
		if r.Type == "local" && ll[r.Dst] == r.Dev {
			delete(ll, r.Dst)
		}
	}
	require.Empty(t, ll, "link-local addresses without their local route")
}
