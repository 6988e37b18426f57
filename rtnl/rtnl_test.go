package rtnl

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/uapi"
)

func TestLinkFlagsAsIproute2(t *testing.T) {
	// UP without RUNNING prints NO-CARRIER first; RUNNING itself is never
	// printed; M-DOWN comes last.
	require.Equal(t, []string{"NO-CARRIER", "BROADCAST", "MULTICAST", "UP", "M-DOWN"},
		LinkFlags(uapi.IFF_UP|uapi.IFF_BROADCAST|uapi.IFF_MULTICAST, true))
	require.Equal(t, []string{"BROADCAST", "NOARP", "UP", "LOWER_UP"},
		LinkFlags(uapi.IFF_UP|uapi.IFF_RUNNING|uapi.IFF_LOWER_UP|uapi.IFF_BROADCAST|uapi.IFF_NOARP, false))
	require.Equal(t, []string{}, LinkFlags(0, false))
}

func TestErrnoNames(t *testing.T) {
	require.Equal(t, "EOPNOTSUPP", ErrnoName(uapi.EOPNOTSUPP))
	require.Equal(t, "EAGAIN", ErrnoName(uapi.EAGAIN))
	require.Equal(t, "EEXIST", ErrnoName(Errno(Errf(uapi.EEXIST, "x"))))
	require.Equal(t, "", ErrnoName(Errno(nil)))
	require.Equal(t, "ENODEV (no device)", Errf(uapi.ENODEV, "no device").Error())
}

// fakeTarget refuses every other request.
type fakeTarget struct{ n int }

func (f *fakeTarget) Apply(ctx context.Context, r Request) error {
	f.n++
	if f.n%2 == 0 {
		return Errf(uapi.EEXIST, "taken")
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

func TestAddrsOfIsTheLinkWithoutLinkmode(t *testing.T) {
	peer, idx, qlen := "eth9", 9, 1000
	l := Link{Ifindex: 3, LinkPeer: &peer, LinkIndex: &idx, Ifname: "v0", Flags: []string{"UP"}, MTU: 1500,
		Qdisc: "noqueue", Master: "br0", Operstate: "UP", Linkmode: "DEFAULT", Group: "default", Txqlen: &qlen,
		LinkType: "ether", Address: "02:00:00:00:00:01", Broadcast: "ff:ff:ff:ff:ff:ff"}
	b, err := json.Marshal(AddrsOf(l, nil))
	require.NoError(t, err)
	require.Equal(t, `{"ifindex":3,"link":"eth9","link_index":9,"ifname":"v0","flags":["UP"],"mtu":1500,`+
		`"qdisc":"noqueue","master":"br0","operstate":"UP","group":"default","txqlen":1000,"link_type":"ether",`+
		`"address":"02:00:00:00:00:01","broadcast":"ff:ff:ff:ff:ff:ff","addr_info":[]}`, string(b))
	var text bytes.Buffer
	Result{State: State{Links: []Link{l}, Addrs: []LinkAddrs{AddrsOf(l, nil)}}}.WriteText(&text, Show{Links: true, Addrs: true})
	require.Equal(t, "3: v0@eth9: <UP> mtu 1500 qdisc noqueue master br0 state UP mode DEFAULT group default qlen 1000\n"+
		"    link/ether 02:00:00:00:00:01 brd ff:ff:ff:ff:ff:ff\n"+
		"3: v0@eth9: <UP> mtu 1500 qdisc noqueue master br0 state UP group default qlen 1000\n"+
		"    link/ether 02:00:00:00:00:01 brd ff:ff:ff:ff:ff:ff\n", text.String())
}

func TestRouteFlagsInPrintRtFlagsOrder(t *testing.T) {
	require.Equal(t, []string{}, RouteFlags(0))
	require.Equal(t, []string{"dead", "onlink", "linkdown", "rt_offload"},
		RouteFlags(uapi.RTM_F_OFFLOAD|uapi.RTNH_F_LINKDOWN|uapi.RTNH_F_ONLINK|uapi.RTNH_F_DEAD))
	// Bits LinkFlags has no name for are printed in hex, after the named ones.
	require.Equal(t, []string{"UP", "80000000"}, LinkFlags(uapi.IFF_UP|uapi.IFF_RUNNING|0x80000000, false))
}
