package sim

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/uapi"
)

// TestPeerIDs: rtnl_net_newid's rules and __peernet2id's walk.
func TestPeerIDs(t *testing.T) {
	a, b, c, d := &Netns{name: "a"}, &Netns{name: "b"}, &Netns{name: "c"}, &Netns{name: "d"}
	p := NewPeerIDs()
	id, err := p.Assign(a, 5)
	require.NoError(t, err)
	require.EqualValues(t, 5, id)
	_, err = p.Assign(a, 6)
	require.True(t, errors.Is(err, uapi.EEXIST), "a peer with an id")
	_, err = p.Assign(b, 5)
	require.True(t, errors.Is(err, uapi.EEXIST), "an id in use")
	_, err = p.Assign(b, -2)
	require.True(t, errors.Is(err, uapi.EINVAL))
	id, err = p.Assign(b, -1)
	require.NoError(t, err)
	require.EqualValues(t, 0, id, "lowest free")
	id, visited := p.IDOf(a)
	require.EqualValues(t, 5, id)
	require.Equal(t, 2, visited, "ids in order: 0 (b), then 5 (a)")
	id, visited = p.IDOf(c)
	require.EqualValues(t, -1, id)
	require.Equal(t, 2, visited)
	id, visited = p.Alloc(c)
	require.EqualValues(t, 1, id)
	require.Equal(t, 2, visited)
	require.Same(t, c, p.Lookup(1))
	require.Nil(t, p.Lookup(2))
	require.Nil(t, p.Lookup(-1))
	id, _ = p.Alloc(d)
	require.EqualValues(t, 2, id)
	require.Equal(t, 4, p.Len())
}
