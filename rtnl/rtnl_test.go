package rtnl

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestLinkFlagsAsIproute2(t *testing.T) {
	// UP without RUNNING prints NO-CARRIER first; RUNNING itself is never
	// printed; M-DOWN comes last.
	require.Equal(t, []string{"NO-CARRIER", "BROADCAST", "MULTICAST", "UP", "M-DOWN"},
		LinkFlags(unix.IFF_UP|unix.IFF_BROADCAST|unix.IFF_MULTICAST, true))
	require.Equal(t, []string{"BROADCAST", "NOARP", "UP", "LOWER_UP"},
		LinkFlags(unix.IFF_UP|unix.IFF_RUNNING|unix.IFF_LOWER_UP|unix.IFF_BROADCAST|unix.IFF_NOARP, false))
	require.Equal(t, []string{}, LinkFlags(0, false))
}

func TestErrnoNames(t *testing.T) {
	require.Equal(t, "EOPNOTSUPP", ErrnoName(unix.EOPNOTSUPP))
	require.Equal(t, "EEXIST", ErrnoName(Errno(Errf(unix.EEXIST, "x"))))
	require.Equal(t, "", ErrnoName(Errno(nil)))
	require.Equal(t, "ENODEV (no device)", Errf(unix.ENODEV, "no device").Error())
}

// fakeTarget refuses every other request.
type fakeTarget struct{ n int }

func (f *fakeTarget) Apply(ctx context.Context, r Request) error {
	f.n++
	if f.n%2 == 0 {
		return Errf(unix.EEXIST, "taken")
	}
	return nil
}
func (f *fakeTarget) State(ctx context.Context, s Show) (State, error) { return State{}, nil }
func (f *fakeTarget) Events(ctx context.Context) ([]Event, error)      { return nil, nil }
func (f *fakeTarget) Close() error                                     { return nil }

func TestRunGoesOnAndJSONKeysFollowShow(t *testing.T) {
	reqs := []Request{{Line: 1, Text: "a"}, {Line: 3, Text: "b"}, {Line: 4, Text: "c"}}
	res, err := Run(context.Background(), &fakeTarget{}, reqs, Show{Links: true, Routes: true}, nil)
	require.NoError(t, err)
	require.Equal(t, []LineError{{Line: 3, Request: "b", Errno: "EEXIST", Message: "taken"}}, res.Errors)
	b, err := res.JSON(Show{Links: true, Routes: true})
	require.NoError(t, err)
	require.Equal(t, `{"links":[],"routes":[],"errors":[{"line":3,"request":"b","errno":"EEXIST","message":"taken"}]}`, string(b))
}
