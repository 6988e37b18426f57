package fibtrie_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/fibtrie"
)

func ip4(a, b, c, d uint32) uint32 { return a<<24 | b<<16 | c<<8 | d }

// LookupFlow passes over aliases of a narrower scope before it looks at
// the type (so a universe-scope blackhole does not stop a link-scope
// lookup, a link-scope one does), and over aliases through another
// device after it (so a blackhole stops a lookup whatever its device).
func TestLookupFlowScopeAndOIF(t *testing.T) {
	f := fibtrie.New(fibtrie.Linux618())
	main := fibtrie.TableMain
	add := func(r fibtrie.Route) {
		t.Helper()
		r.Table = main
		require.NoError(t, f.Add(r))
	}
	add(fibtrie.Route{Dst: ip4(10, 0, 0, 0), Len: 8, Type: fibtrie.TypeUnicast, Scope: fibtrie.ScopeLink, OIF: 2})
	add(fibtrie.Route{Dst: ip4(10, 1, 0, 0), Len: 16, Type: fibtrie.TypeBlackhole, Scope: fibtrie.ScopeUniverse})
	add(fibtrie.Route{Dst: ip4(10, 2, 0, 0), Len: 16, Type: fibtrie.TypeBlackhole, Scope: fibtrie.ScopeLink})
	add(fibtrie.Route{Dst: ip4(10, 3, 0, 0), Len: 16, Type: fibtrie.TypeUnicast, Scope: fibtrie.ScopeLink, OIF: 3})
	add(fibtrie.Route{Dst: ip4(10, 3, 0, 0), Len: 16, Type: fibtrie.TypeUnicast, Scope: fibtrie.ScopeLink, OIF: 4, Priority: 5})

	at := func(fl fibtrie.Flow) *fibtrie.Alias { return f.LookupFlow(main, fl) }
	// Universe scope: the blackhole matches first.
	require.Equal(t, fibtrie.TypeBlackhole, at(fibtrie.Flow{Dst: ip4(10, 1, 2, 3)}).Type)
	// Link scope: the universe blackhole is passed over, the /8 matches.
	a := at(fibtrie.Flow{Dst: ip4(10, 1, 2, 3), Scope: fibtrie.ScopeLink})
	require.Equal(t, uint8(8), a.Len)
	// A link-scope blackhole matches whatever the device asked for.
	require.Equal(t, fibtrie.TypeBlackhole, at(fibtrie.Flow{Dst: ip4(10, 2, 0, 1), Scope: fibtrie.ScopeLink, OIF: 9}).Type)
	// The device picks among the aliases of a prefix, then backtracks.
	require.Equal(t, 4, at(fibtrie.Flow{Dst: ip4(10, 3, 0, 1), OIF: 4}).OIF)
	require.Equal(t, 3, at(fibtrie.Flow{Dst: ip4(10, 3, 0, 1)}).OIF)
	require.Equal(t, uint8(8), at(fibtrie.Flow{Dst: ip4(10, 3, 0, 1), OIF: 2}).Len)
	require.Nil(t, at(fibtrie.Flow{Dst: ip4(10, 3, 0, 1), OIF: 7}))
	// Host scope: nothing here is that narrow.
	require.Nil(t, at(fibtrie.Flow{Dst: ip4(10, 3, 0, 1), Scope: fibtrie.ScopeHost}))
	// Lookup is LookupFlow with scope universe and no device.
	require.Equal(t, f.Lookup(main, ip4(10, 3, 0, 1)), at(fibtrie.Flow{Dst: ip4(10, 3, 0, 1)}))
	require.Nil(t, f.LookupFlow(100, fibtrie.Flow{Dst: ip4(10, 3, 0, 1)}))
}

// NewTable makes an empty table (fib_new_table), local sharing main's
// trie; HasTable is fib_get_table.
func TestNewTable(t *testing.T) {
	f := fibtrie.New(fibtrie.Linux618())
	require.False(t, f.HasTable(100))
	f.NewTable(100)
	require.True(t, f.HasTable(100))
	require.False(t, f.HasTable(fibtrie.TableMain))
	f.NewTable(fibtrie.TableLocal)
	require.True(t, f.HasTable(fibtrie.TableMain))
	require.Equal(t, []uint32{100, fibtrie.TableMain, fibtrie.TableLocal}, f.TableIDs())
	require.NoError(t, f.Add(fibtrie.Route{Dst: ip4(10, 0, 0, 1), Len: 32, Table: fibtrie.TableLocal,
		Type: fibtrie.TypeLocal, Scope: fibtrie.ScopeHost, OIF: 2}))
	require.NotNil(t, f.Lookup(fibtrie.TableMain, ip4(10, 0, 0, 1)), "merged: main's lookup sees local")
}

// FlushEach reports what Flush frees, highest key first.
func TestFlushEachOrder(t *testing.T) {
	f := fibtrie.New(fibtrie.Linux618())
	for _, d := range []uint32{1, 3, 2, 4} {
		require.NoError(t, f.Add(fibtrie.Route{Dst: ip4(10, d, 0, 0), Len: 16, Table: fibtrie.TableMain,
			Type: fibtrie.TypeUnicast, Scope: fibtrie.ScopeLink, OIF: int(d % 2), PrefSrc: ip4(10, 0, 0, d%2)}))
	}
	require.NoError(t, f.Add(fibtrie.Route{Dst: ip4(10, 5, 0, 0), Len: 16, Table: fibtrie.TableMain,
		Type: fibtrie.TypeBlackhole}))
	marked := f.MarkDead(func(a *fibtrie.Alias) bool { return a.OIF == 1 })
	require.Equal(t, 2, marked)
	var got []string
	n := f.FlushEach(nil, func(a *fibtrie.Alias) { got = append(got, fibtrie.FormatIP(a.Dst)) })
	require.Equal(t, 2, n)
	require.Equal(t, []string{"10.3.0.0", "10.1.0.0"}, got)
	require.Len(t, f.Routes(fibtrie.TableMain), 3)
}

// A dead error route (its prefsrc went away) is flushed like any dead
// route, as this kernel does; a live one stays unless flushAll.
func TestFlushDeadErrorRoute(t *testing.T) {
	f := fibtrie.New(fibtrie.Linux618())
	src := ip4(10, 0, 0, 1)
	for i, typ := range []fibtrie.RouteType{fibtrie.TypeBlackhole, fibtrie.TypeUnreachable, fibtrie.TypeProhibit} {
		require.NoError(t, f.Add(fibtrie.Route{Dst: ip4(10, uint32(5+i), 0, 0), Len: 16, Table: fibtrie.TableMain,
			Type: typ, PrefSrc: src}))
	}
	require.NoError(t, f.Add(fibtrie.Route{Dst: ip4(10, 9, 0, 0), Len: 16, Table: fibtrie.TableMain,
		Type: fibtrie.TypeThrow}))
	require.Equal(t, 0, f.Flush(nil))
	require.Equal(t, 3, f.MarkDead(func(a *fibtrie.Alias) bool { return a.PrefSrc == src }))
	var got []string
	require.Equal(t, 3, f.FlushEach(nil, func(a *fibtrie.Alias) { got = append(got, a.Type.ProcName()) }))
	require.Equal(t, []string{"PROHIBIT", "UNREACHABLE", "BLACKHOLE"}, got)
	require.Len(t, f.Routes(fibtrie.TableMain), 1)
	require.Equal(t, 1, f.FlushTable(fibtrie.TableMain, nil, true))
}
