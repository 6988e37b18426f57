package sim

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
)

// forgetSetup deletes a device too, so that its price is plain to see.
const forgetSetup = threeUp + "link add x9 type ifb\nlink del x9\n"

const forgetMain = "link del x1\nlink set x2 group 7\nlink del list x2 x3\naddr add 10.0.0.1/8 dev lo\n"

// applyOn runs src on tg (it must parse and run).
func applyOn(t *testing.T, tg *Target, src string) []rtnl.Request {
	t.Helper()
	reqs, err := script.ParseString(src)
	require.NoError(t, err)
	_, err = rtnl.Run(context.Background(), tg, reqs, rtnl.Show{}, nil)
	require.NoError(t, err)
	return reqs
}

// After Forget, Cost prices the main part alone, from a fresh clock: the
// same as pricing the work the main part added to a target that never
// forgot, and not the price of setup and main together.
func TestForgetPricesMainAlone(t *testing.T) {
	whole := runSimOpts(t, Options{Seed: 1, Events: true}, forgetSetup)
	setupWork := len(whole.Work())
	applyOn(t, whole, forgetMain)

	tg := runSimOpts(t, Options{Seed: 1, Events: true}, forgetSetup)
	tg.Forget()
	require.Empty(t, tg.Work())
	applyOn(t, tg, forgetMain)

	work := whole.Work()[setupWork:]
	require.Equal(t, work, tg.Work())
	for _, threads := range []int{1, 2} {
		want, err := cost.Simulate(DefaultPrices(), cost.SplitInOrder(work, threads))
		require.NoError(t, err)
		got, err := tg.Cost(threads)
		require.NoError(t, err)
		require.Equal(t, want, got)
		all, err := whole.Cost(threads)
		require.NoError(t, err)
		require.Greater(t, all.Counters.Request, got.Counters.Request)
		if threads == 1 {
			require.Greater(t, all.VirtualNs, got.VirtualNs)
		}
	}
	// Sources are indexes into the main part; the list delete is two
	// kernel requests of its third request.
	src := tg.CostSources()
	require.Equal(t, []CostSource{{0, 0}, {1, 0}, {2, 0}, {2, 1}, {3, 0}}, src)
}

// The setup's notifications are gone and the main part's are numbered
// from its first request, as a run of the main part alone numbers them.
func TestForgetEvents(t *testing.T) {
	whole := runSimOpts(t, Options{Seed: 1, Events: true}, forgetSetup)
	before, err := whole.Events(context.Background())
	require.NoError(t, err)
	applyOn(t, whole, forgetMain)
	all, err := whole.Events(context.Background())
	require.NoError(t, err)

	tg := New(Options{Seed: 1, Events: true})
	setupReqs := len(applyOn(t, tg, forgetSetup))
	tg.Forget()
	evs, err := tg.Events(context.Background())
	require.NoError(t, err)
	require.Empty(t, evs)
	applyOn(t, tg, forgetMain)
	evs, err = tg.Events(context.Background())
	require.NoError(t, err)
	want := all[len(before):]
	require.Len(t, evs, len(want))
	require.NotEmpty(t, evs)
	for i := range want {
		w := want[i]
		w.Request -= setupReqs
		require.Equal(t, w, evs[i])
	}
	require.Equal(t, 1, evs[0].Request)
}

// A trace started before the setup, or after Forget, narrates the main
// part's requests only.
func TestForgetTrace(t *testing.T) {
	for _, early := range []bool{true, false} {
		tg := New(Options{Seed: 1})
		if early {
			tg.StartTrace()
		}
		applyOn(t, tg, forgetSetup)
		tg.Forget()
		if !early {
			tg.StartTrace()
		}
		applyOn(t, tg, forgetMain)
		tr, err := tg.Trace(1)
		require.NoError(t, err)
		require.Len(t, tr.Requests, 5)
		c, err := tg.Cost(1)
		require.NoError(t, err)
		require.Equal(t, c.VirtualNs, tr.VirtualNs)
		require.Equal(t, CostSource{}, tr.Requests[0].Source)
	}
}
