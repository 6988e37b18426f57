package sim

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// ifaReq builds the request of `addr add|del PREFIX dev i0 [label L] [scope S]`.
func ifaReq(t *testing.T, prefix string, add bool, opts ...func(*rtnl.Addr)) IfaRequest {
	t.Helper()
	a := rtnl.Addr{Prefix: netip.MustParsePrefix(prefix), Dev: "i0"}
	for _, o := range opts {
		o(&a)
	}
	return IfaRequestOf(a, add)
}

func withLabel(l string) func(*rtnl.Addr) { return func(a *rtnl.Addr) { a.Label = l } }
func withScope(s uint8) func(*rtnl.Addr)  { return func(a *rtnl.Addr) { a.Scope = &s } }

// order renders the list as "A/len[s]" words, s marking a secondary.
func order(d *InDevice) string {
	var w []string
	for _, a := range d.List() {
		s := fmt.Sprintf("%s/%d", addrOfU32(a.Local), a.Prefixlen)
		if a.Secondary() {
			s += "s"
		}
		w = append(w, s)
	}
	return strings.Join(w, " ")
}

func notices(d *InDevice) string {
	var w []string
	for _, n := range d.TakeNotices() {
		s := fmt.Sprintf("%s %s/%d", strings.TrimPrefix(n.Type, "RTM_"), n.Local, n.Prefixlen)
		if n.Flags&uapi.IFA_F_SECONDARY != 0 {
			s += "s"
		}
		w = append(w, s)
	}
	return strings.Join(w, ", ")
}

func mustAdd(t *testing.T, d *InDevice, prefix string, opts ...func(*rtnl.Addr)) {
	t.Helper()
	require.NoError(t, d.NewAddr(ifaReq(t, prefix, true, opts...)), prefix)
}

func TestDevinetInsertOrder(t *testing.T) {
	d := NewInDevice("i0")
	mustAdd(t, d, "10.0.0.1/24")
	mustAdd(t, d, "10.0.0.2/24")
	require.Equal(t, "10.0.0.1/24 10.0.0.2/24s", order(d))
	// A new global primary goes right after the last primary, ahead of
	// that primary's secondaries.
	mustAdd(t, d, "10.1.0.1/24")
	require.Equal(t, "10.0.0.1/24 10.1.0.1/24 10.0.0.2/24s", order(d))
	// A secondary goes at the tail.
	mustAdd(t, d, "10.1.0.2/24")
	require.Equal(t, "10.0.0.1/24 10.1.0.1/24 10.0.0.2/24s 10.1.0.2/24s", order(d))
	// A host-scope primary: no primary has scope >= host, so the head.
	mustAdd(t, d, "192.168.0.1/24", withScope(uapi.RT_SCOPE_HOST))
	// A link-scope primary: after the last primary of scope host or link.
	mustAdd(t, d, "172.16.0.1/16", withScope(uapi.RT_SCOPE_LINK))
	require.Equal(t, "192.168.0.1/24 172.16.0.1/16 10.0.0.1/24 10.1.0.1/24 10.0.0.2/24s 10.1.0.2/24s", order(d))
	// Same address, other mask: another subnet, a primary.
	mustAdd(t, d, "10.0.0.1/16")
	require.Equal(t, "192.168.0.1/24 172.16.0.1/16 10.0.0.1/24 10.1.0.1/24 10.0.0.1/16 10.0.0.2/24s 10.1.0.2/24s", order(d))
	require.Equal(t, "NEWADDR 10.0.0.1/24, NEWADDR 10.0.0.2/24s, NEWADDR 10.1.0.1/24, NEWADDR 10.1.0.2/24s, "+
		"NEWADDR 192.168.0.1/24, NEWADDR 172.16.0.1/16, NEWADDR 10.0.0.1/16", notices(d))
}

func TestDevinetNewAddrErrors(t *testing.T) {
	d := NewInDevice("i0")
	mustAdd(t, d, "10.0.0.1/24")
	// EEXIST: same local, same mask, same subnet; label and scope aside.
	err := d.NewAddr(ifaReq(t, "10.0.0.1/24", true, withLabel("i0:x")))
	require.Equal(t, uapi.EEXIST, rtnl.Errno(err))
	// EINVAL: same subnet, another scope.
	err = d.NewAddr(ifaReq(t, "10.0.0.2/24", true, withScope(uapi.RT_SCOPE_LINK)))
	require.Equal(t, uapi.EINVAL, rtnl.Errno(err))
	// 0.0.0.0 is accepted and ignored.
	require.NoError(t, d.NewAddr(ifaReq(t, "0.0.0.0/8", true)))
	require.Equal(t, "10.0.0.1/24", order(d))
	require.Equal(t, "NEWADDR 10.0.0.1/24", notices(d))
	// Labels: the device name by default.
	mustAdd(t, d, "10.0.0.2/24", withLabel("i0:1"))
	l := d.List()
	require.Equal(t, "i0", l[0].Label)
	require.Equal(t, "i0:1", l[1].Label)
	// 127/8 gets scope host from iproute2; broadcast + is computed.
	r := IfaRequestOf(rtnl.Addr{Prefix: netip.MustParsePrefix("127.1.0.1/8"), Dev: "i0", BroadcastAuto: true}, true)
	require.Equal(t, uint8(uapi.RT_SCOPE_HOST), r.Scope)
	require.Equal(t, "127.255.255.255", addrOfU32(r.Broadcast).String())
}

func TestDevinetDelMatching(t *testing.T) {
	d := NewInDevice("i0")
	mustAdd(t, d, "10.0.0.1/24")
	mustAdd(t, d, "10.0.0.2/24", withLabel("i0:a"))
	for _, c := range []struct {
		req  IfaRequest
		name string
	}{
		{ifaReq(t, "10.0.0.1/16", false), "other prefix length"},
		{ifaReq(t, "10.0.0.1/24", false, withLabel("i0:a")), "other label"},
		{ifaReq(t, "10.0.0.3/24", false), "other local"},
	} {
		require.Equal(t, uapi.EADDRNOTAVAIL, rtnl.Errno(d.DelAddr(c.req)), c.name)
	}
	// Scope is not compared.
	require.NoError(t, d.DelAddr(ifaReq(t, "10.0.0.2/24", false, withScope(uapi.RT_SCOPE_HOST))))
	require.Equal(t, "10.0.0.1/24", order(d))
}

func TestDevinetDelPrimaryNoPromote(t *testing.T) {
	d := NewInDevice("i0")
	mustAdd(t, d, "10.0.0.1/24")
	mustAdd(t, d, "10.0.0.2/24")
	mustAdd(t, d, "10.1.0.1/24")
	mustAdd(t, d, "10.0.0.3/24")
	mustAdd(t, d, "10.1.0.2/24")
	d.TakeNotices()
	require.NoError(t, d.DelAddr(ifaReq(t, "10.0.0.1/24", false)))
	require.Equal(t, "10.1.0.1/24 10.1.0.2/24s", order(d))
	// The secondaries' notifications come before the primary's.
	require.Equal(t, "DELADDR 10.0.0.2/24s, DELADDR 10.0.0.3/24s, DELADDR 10.0.0.1/24", notices(d))
	require.Zero(t, d.Count.Promotions)
}

func TestDevinetDelPrimaryPromote(t *testing.T) {
	d := NewInDevice("i0")
	d.Promote = true
	mustAdd(t, d, "10.0.0.1/24")
	mustAdd(t, d, "10.1.0.1/24")
	mustAdd(t, d, "10.0.0.2/24")
	mustAdd(t, d, "10.0.0.3/24")
	require.Equal(t, "10.0.0.1/24 10.1.0.1/24 10.0.0.2/24s 10.0.0.3/24s", order(d))
	d.TakeNotices()
	require.NoError(t, d.DelAddr(ifaReq(t, "10.0.0.1/24", false)))
	// 10.0.0.2 is promoted and moved after the last primary (10.1.0.1).
	require.Equal(t, "10.1.0.1/24 10.0.0.2/24 10.0.0.3/24s", order(d))
	require.Equal(t, "DELADDR 10.0.0.1/24, NEWADDR 10.0.0.2/24", notices(d))
	require.Equal(t, 1, d.Count.Promotions)
	require.Equal(t, 1, d.Count.PromoteFibAdd) // 10.0.0.3's routes re-added
	require.Equal(t, 2, d.Count.PromoteFibDel) // 10.0.0.2 and 10.0.0.3

	// The promoted one jumps over secondaries of other subnets to the slot
	// after the last primary met before it.
	d = NewInDevice("i0")
	d.PromoteAll = true
	mustAdd(t, d, "10.0.0.1/24")
	mustAdd(t, d, "10.1.0.1/24")
	mustAdd(t, d, "10.1.0.2/24")
	mustAdd(t, d, "10.2.0.1/24")
	mustAdd(t, d, "10.0.0.2/24")
	require.Equal(t, "10.0.0.1/24 10.1.0.1/24 10.2.0.1/24 10.1.0.2/24s 10.0.0.2/24s", order(d))
	require.NoError(t, d.DelAddr(ifaReq(t, "10.0.0.1/24", false)))
	require.Equal(t, "10.1.0.1/24 10.2.0.1/24 10.0.0.2/24 10.1.0.2/24s", order(d))

	// A promoted secondary right after its primary stays in place.
	d = NewInDevice("i0")
	d.Promote = true
	mustAdd(t, d, "10.0.0.1/24")
	mustAdd(t, d, "10.0.0.2/24")
	mustAdd(t, d, "10.1.0.1/24", withScope(uapi.RT_SCOPE_LINK))
	require.Equal(t, "10.1.0.1/24 10.0.0.1/24 10.0.0.2/24s", order(d))
	require.NoError(t, d.DelAddr(ifaReq(t, "10.0.0.1/24", false)))
	require.Equal(t, "10.1.0.1/24 10.0.0.2/24", order(d))

	// Primaries of narrower scope than the deleted one are jumped over;
	// with none of scope >= its own, the promoted one takes the deleted
	// one's slot.
	d = NewInDevice("i0")
	d.Promote = true
	mustAdd(t, d, "10.0.0.1/24", withScope(uapi.RT_SCOPE_LINK))
	mustAdd(t, d, "10.1.0.1/24")
	mustAdd(t, d, "10.0.0.2/24", withScope(uapi.RT_SCOPE_LINK))
	require.Equal(t, "10.0.0.1/24 10.1.0.1/24 10.0.0.2/24s", order(d))
	require.NoError(t, d.DelAddr(ifaReq(t, "10.0.0.1/24", false)))
	require.Equal(t, "10.0.0.2/24 10.1.0.1/24", order(d))
}

func TestDevinetDestroy(t *testing.T) {
	d := NewInDevice("i0")
	d.Promote = true
	mustAdd(t, d, "10.0.0.1/24")
	mustAdd(t, d, "10.0.0.2/24")
	mustAdd(t, d, "10.1.0.1/24")
	d.TakeNotices()
	d.Destroy()
	require.Zero(t, d.Len())
	require.Equal(t, "DELADDR 10.0.0.1/24, DELADDR 10.1.0.1/24, DELADDR 10.0.0.2/24s", notices(d))
	require.Zero(t, d.Count.Promotions)
}

// flushOneSubnet adds n addresses of 10.0.0.0/8 and flushes them.
func flushOneSubnet(t *testing.T, n int, promote bool) *InDevice {
	t.Helper()
	d := NewInDevice("i0")
	d.Promote = promote
	for i := 1; i <= n; i++ {
		require.NoError(t, d.NewAddr(IfaRequestOf(rtnl.Addr{Prefix: netip.PrefixFrom(addrOfU32(10<<24|uint32(i)), 8), Dev: "i0"}, true)))
	}
	*d.Count = DevinetCounters{}
	d.TakeNotices()
	require.NoError(t, d.Flush(FlushFilter{}))
	require.Zero(t, d.Len())
	return d
}

func TestDevinetFlush(t *testing.T) {
	off := flushOneSubnet(t, 100, false)
	require.Equal(t, 1, off.Count.FlushRounds)
	require.Zero(t, off.Count.Promotions)
	require.Equal(t, 100, off.Count.Notifications)
	on := flushOneSubnet(t, 100, true)
	require.Equal(t, 1, on.Count.FlushRounds)
	require.Equal(t, 99, on.Count.Promotions)
	require.Equal(t, 100+99, on.Count.Notifications)
	// With promotion every deletion re-adds the routes of all the rest:
	// quadratic; without, linear.
	on2 := flushOneSubnet(t, 200, true)
	off2 := flushOneSubnet(t, 200, false)
	require.Equal(t, 98*99/2, on.Count.PromoteFibAdd) // deleting the k-th leaves n-k-1 to re-add
	require.Equal(t, 198*199/2, on2.Count.PromoteFibAdd)
	t.Logf("walk steps: promote off %d -> %d, on %d -> %d (n 100 -> 200)",
		off.Count.WalkSteps, off2.Count.WalkSteps, on.Count.WalkSteps, on2.Count.WalkSteps)
	require.Less(t, off2.Count.WalkSteps, 3*off.Count.WalkSteps)
	require.Greater(t, on2.Count.WalkSteps, 3*on.Count.WalkSteps)

	// to PREFIX and label filters.
	d := NewInDevice("i0")
	mustAdd(t, d, "10.0.0.1/24")
	mustAdd(t, d, "10.1.0.1/24", withLabel("i0:b"))
	mustAdd(t, d, "10.1.0.2/24")
	require.NoError(t, d.Flush(FlushFilter{Label: "i0:*"}))
	require.Equal(t, "10.0.0.1/24", order(d))
	mustAdd(t, d, "10.1.0.1/24")
	require.NoError(t, d.Flush(FlushFilter{To: netip.MustParsePrefix("10.1.0.0/16")}))
	require.Equal(t, "10.0.0.1/24", order(d))
}

func TestDevinetRender(t *testing.T) {
	d := NewInDevice("i0")
	require.NoError(t, d.NewAddr(IfaRequestOf(rtnl.Addr{Prefix: netip.MustParsePrefix("10.0.0.1/24"), Dev: "i0", BroadcastAuto: true}, true)))
	require.NoError(t, d.NewAddr(IfaRequestOf(rtnl.Addr{Prefix: netip.MustParsePrefix("10.0.0.2/32"), Peer: netip.MustParsePrefix("10.9.0.1/32"), Dev: "i0", Label: "i0:p"}, true)))
	r := d.Render()
	require.Len(t, r, 2)
	require.Equal(t, "10.0.0.1", r[0].Local)
	require.Equal(t, "10.0.0.255", r[0].Broadcast)
	require.Equal(t, "global", r[0].Scope)
	require.False(t, r[0].Dynamic)
	require.Equal(t, "10.9.0.1", r[1].Address)
	require.Equal(t, 32, r[1].Prefixlen)
	require.Equal(t, "i0:p", r[1].Label)
}
