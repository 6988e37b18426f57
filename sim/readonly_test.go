package sim

import (
	"context"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
)

// The handles outside code gets to the model's state (a target, its
// namespaces, their devices) export no fields: the state changes only
// through requests, so the model's indexes (names, ifindexes, groups) can
// never disagree with the devices they index.
func TestModelHandlesExportNoFields(t *testing.T) {
	for _, v := range []any{Target{}, Netns{}, Device{}} {
		ty := reflect.TypeOf(v)
		for i := range ty.NumField() {
			require.False(t, ty.Field(i).IsExported(), "%s.%s is exported: outside code could change the model behind its indexes", ty.Name(), ty.Field(i).Name)
		}
	}
}

// A device renamed by a request frees its old name and holds the new one:
// `link add` of the new name is refused with EEXIST, of the old one
// succeeds. (Before the fields were read-only, setting Device.Name from
// outside left the name table behind, and `link add x` made a second x.)
func TestNamesFollowRequestsOnly(t *testing.T) {
	tg := New(Options{})
	reqs, err := script.ParseString("link add d0 type ifb\nlink set d0 name x\nlink add x type ifb\nlink add d0 type ifb\n")
	require.NoError(t, err)
	res, err := rtnl.Run(context.Background(), tg, reqs, rtnl.Show{Links: true}, nil)
	require.NoError(t, err)
	require.Len(t, res.Errors, 1)
	require.Equal(t, 3, res.Errors[0].Line)
	require.Equal(t, "EEXIST", res.Errors[0].Errno)
	n := tg.Netns()
	require.Equal(t, "x", n.ByName("x").Name())
	require.Equal(t, "d0", n.ByName("d0").Name())
	var names []string
	for _, d := range n.Devices() {
		names = append(names, d.Name())
	}
	require.Equal(t, []string{"lo", "x", "d0"}, names)
}

// A request the model refuses as not modelled (or of a type it does not
// take) did not happen: the next request's notifications and its cost
// entry carry the same number.
func TestRefusedRequestTakesNoNumber(t *testing.T) {
	tg := New(Options{Events: true, Sysctls: map[string]string{"net.ipv6.conf.default.disable_ipv6": "1"}})
	ctx := context.Background()
	reqs, err := script.ParseString("link add d0 type ifb\nroute add local 2001:db8::/32 dev d0\nlink set d0 up\n")
	require.NoError(t, err)
	require.NoError(t, tg.Apply(ctx, reqs[0]))
	require.ErrorIs(t, tg.Apply(ctx, reqs[1]), ErrNotModelled)
	require.NoError(t, tg.Apply(ctx, reqs[2]))
	evs, err := tg.Events(ctx)
	require.NoError(t, err)
	last := evs[len(evs)-1]
	src := tg.CostSources()
	require.Len(t, src, 2)
	require.Equal(t, 2, last.Request, "the notifications of `link set d0 up`")
	require.EqualValues(t, 1, src[1].Request, "its cost entry (0-based)")
}

// Options are copied by New: editing the prices a target was made with
// afterwards does not change its costs.
func TestOptionsAreCopied(t *testing.T) {
	p := DefaultPrices()
	tg := New(Options{Cost: &p})
	reqs, err := script.ParseString("link add d0 type ifb\nlink del d0\n")
	require.NoError(t, err)
	_, err = rtnl.Run(context.Background(), tg, reqs, rtnl.Show{}, nil)
	require.NoError(t, err)
	before, err := tg.Cost(1)
	require.NoError(t, err)
	p.RCUBarrierNs = 1
	after, err := tg.Cost(1)
	require.NoError(t, err)
	require.Equal(t, before.VirtualNs, after.VirtualNs)
}
