package sim

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
)

// applyScript applies a script on a fresh target and returns it with the errno
// name of every line ("" for success). The language refuses numbers above
// 2147483647 as iproute2 does, but the kernel takes any u32 from other
// clients: a value 2000000000+K in an mtu, group or txqueuelen stands for
// bigU32[K].
func applyScript(t *testing.T, src string) (*Target, []string) {
	t.Helper()
	reqs, err := script.ParseString(src)
	require.NoError(t, err)
	for i := range reqs {
		reqs[i].Op = withBigU32(reqs[i].Op)
	}
	tg := New(Options{Seed: 7})
	var errs []string
	for _, r := range reqs {
		errs = append(errs, rtnl.ErrnoName(rtnl.Errno(tg.Apply(context.Background(), r))))
	}
	return tg, errs
}

// ifnames lists the links in dump order as "ifindex:name".
func ifnames(tg *Target) string {
	var out []string
	for _, d := range tg.Netns().Devices() {
		out = append(out, itoa(int(d.ifindex))+":"+d.name)
	}
	return strings.Join(out, " ")
}

func TestLoopback(t *testing.T) {
	tg, _ := applyScript(t, "")
	st, err := tg.State(context.Background(), rtnl.Show{Links: true})
	require.NoError(t, err)
	require.Len(t, st.Links, 1)
	lo := st.Links[0]
	require.Equal(t, 1, lo.Ifindex)
	require.Equal(t, "lo", lo.Ifname)
	require.Equal(t, []string{"LOOPBACK"}, lo.Flags)
	require.Equal(t, 65536, lo.MTU)
	require.Equal(t, "noop", lo.Qdisc)
	require.Equal(t, "DOWN", lo.Operstate)
	require.Equal(t, 1000, *lo.Txqlen)
	require.Equal(t, "loopback", lo.LinkType)
	require.Equal(t, "00:00:00:00:00:00", lo.Address)
	require.Equal(t, "00:00:00:00:00:00", lo.Broadcast)
}

func TestVethPairGoesTogether(t *testing.T) {
	tg, errs := applyScript(t, "link add v0 type veth peer name v1\nlink add i0 type ifb\nlink del v1\nlink del v0\n")
	require.Equal(t, []string{"", "", "", "ENODEV"}, errs)
	require.Equal(t, "1:lo 4:i0", ifnames(tg))
	// The peer registers first; deleting either end takes both.
	tg, _ = applyScript(t, "link add v0 type veth peer name v1\n")
	require.Equal(t, "1:lo 2:v1 3:v0", ifnames(tg))
	require.Equal(t, "v1", tg.Netns().ByName("v0").Peer().name)
	// An explicit ifindex the peer just took: register_netdevice's
	// xa_insert says EBUSY, and the peer's ifindex stays used.
	tg, errs = applyScript(t, "link add i0 type ifb\nlink add v2 index 3 type veth peer name v3\nlink add i1 type ifb\n")
	require.Equal(t, []string{"", "EBUSY", ""}, errs)
	require.Equal(t, "1:lo 2:i0 4:i1", ifnames(tg))
}

func TestBridgeDeleteReleasesPorts(t *testing.T) {
	tg, errs := applyScript(t, `link add br0 type bridge
link add i0 type ifb
link add v0 type veth peer name v1
link set i0 master br0
link set v0 master br0
link set br0 up
link del br0
`)
	require.Equal(t, []string{"", "", "", "", "", "", ""}, errs)
	n := tg.Netns()
	require.Equal(t, "1:lo 3:i0 4:v1 5:v0", ifnames(tg))
	for _, name := range []string{"i0", "v0", "v1"} {
		require.Nil(t, n.ByName(name).Master(), name)
	}
	// A released port can join another bridge.
	_, errs = applyScript(t, "link add br0 type bridge\nlink add i0 type ifb\nlink set i0 master br0\nlink del br0\nlink add br1 type bridge\nlink set i0 master br1\n")
	require.Equal(t, []string{"", "", "", "", "", ""}, errs)
}

func TestBridgePortDeleteLeavesBridge(t *testing.T) {
	tg, _ := applyScript(t, "link add br0 type bridge\nlink add i0 type ifb\nlink add i1 type ifb\nlink set i0 master br0\nlink set i1 master br0\nlink del i0\n")
	br := tg.Netns().ByName("br0")
	require.Len(t, br.Ports(), 1)
	require.Equal(t, "i1", br.Ports()[0].name)
	require.Equal(t, tg.Netns().ByName("i1").Address(), br.Address(), "the bridge takes its remaining port's address")
	tg, _ = applyScript(t, "link add br0 type bridge\nlink add i0 type ifb\nlink set i0 master br0\nlink del i0\n")
	require.Equal(t, "00:00:00:00:00:00", tg.Netns().ByName("br0").Address().String(), "no ports: zero address")
}

func TestMacvlanGoesWithLower(t *testing.T) {
	tg, errs := applyScript(t, `link add i0 type ifb
link add mv0 link i0 type macvlan
link add mv1 link mv0 type macvlan
link add i1 type ifb
link add mv2 link i1 type macvlan
link del i0
`)
	require.Equal(t, []string{"", "", "", "", "", ""}, errs)
	require.Equal(t, "1:lo 5:i1 6:mv2", ifnames(tg))
	// A macvlan on a macvlan sits on the lower's lower.
	tg, _ = applyScript(t, "link add i0 type ifb\nlink add mv0 link i0 type macvlan\nlink add mv1 link mv0 type macvlan\n")
	require.Equal(t, "i0", tg.Netns().ByName("mv1").Lower().name)
	// Deleting the macvlan alone leaves the lower, which can then be a
	// bridge port again.
	_, errs = applyScript(t, "link add br0 type bridge\nlink add i0 type ifb\nlink add mv0 link i0 type macvlan\nlink set i0 master br0\nlink del mv0\nlink set i0 master br0\n")
	require.Equal(t, []string{"", "", "", "EBUSY", "", ""}, errs)
	// A macvlan on a veth goes when the other end of the pair is deleted.
	tg, _ = applyScript(t, "link add v0 type veth peer name v1\nlink add mv0 link v0 type macvlan\nlink del v1\n")
	require.Equal(t, "1:lo", ifnames(tg))
}

func TestMacvlanPassthru(t *testing.T) {
	tg, errs := applyScript(t, `link add v0 type veth peer name v1
link add mv0 link v0 type macvlan mode passthru
link add mv1 link v0 type macvlan
link set mv0 address 02:00:00:00:00:07
link set mv0 up
link del mv0
link add mv1 link v0 type macvlan
link add mv2 link v0 type macvlan mode passthru
`)
	require.Equal(t, []string{"", "", "EINVAL", "", "", "", "", "EINVAL"}, errs)
	require.Equal(t, "02:00:00:00:00:07", tg.Netns().ByName("v0").Address().String(), "the passthru macvlan sets its lower's address")
	// A bridge left without ports has the zero address: it still comes
	// up, a passthru macvlan that takes it does not.
	_, errs = applyScript(t, "link add br0 type bridge\nlink add i0 type ifb\nlink set i0 master br0\nlink del i0\nlink set br0 up\nlink add mv0 up link br0 type macvlan mode passthru\n")
	require.Equal(t, []string{"", "", "", "", "", "EADDRNOTAVAIL"}, errs)
}

func TestGroupDelete(t *testing.T) {
	tg, errs := applyScript(t, `link add i0 group 7 type ifb
link add i1 type ifb
link add v0 type veth peer name v1
link set v0 group 7
link add i2 type ifb
link set i2 group 7
link del group 7
link del group 7
link del group 0
`)
	require.Equal(t, []string{"", "", "", "", "", "", "", "ENODEV", "EPERM"}, errs)
	// v1 (group 0) goes with its peer.
	require.Equal(t, "1:lo 3:i1", ifnames(tg))
	// A device without dellink in the group refuses the whole request.
	tg, errs = applyScript(t, "link add i0 group 7 type ifb\nlink set lo group 7\nlink del group 7\n")
	require.Equal(t, []string{"", "", "EOPNOTSUPP"}, errs)
	require.Equal(t, "1:lo 2:i0", ifnames(tg))
}

func TestListDelete(t *testing.T) {
	// Duplicates and both ends of a pair are safe.
	tg, errs := applyScript(t, "link add v0 type veth peer name v1\nlink add i0 type ifb\nlink add i1 type ifb\nlink del list v0 i0 v0 v1 i0\n")
	require.Equal(t, []string{"", "", "", ""}, errs)
	require.Equal(t, "1:lo 5:i1", ifnames(tg))
	// One unknown name: ENODEV and nothing deleted.
	tg, errs = applyScript(t, "link add i0 type ifb\nlink add i1 type ifb\nlink del list i0 nope i1\n")
	require.Equal(t, []string{"", "", "ENODEV"}, errs)
	require.Equal(t, "1:lo 2:i0 3:i1", ifnames(tg))
	// The loopback stops the list where it stands.
	tg, errs = applyScript(t, "link add i0 type ifb\nlink add i1 type ifb\nlink del list i0 lo i1\n")
	require.Equal(t, []string{"", "", "EOPNOTSUPP"}, errs)
	require.Equal(t, "1:lo 3:i1", ifnames(tg))
}

func TestErrnos(t *testing.T) {
	_, errs := applyScript(t, `link add i0 type ifb
link add i0 type ifb
link add x0 index 2 type ifb
link add v0 type veth peer name i0
link add m0 link lo type macvlan
link add m0 link nope type macvlan
link del lo
link set nope up
link add i1 type ifb
link set i1 name i0
link set i0 address 02:00:00:00:00:01
link add br0 type bridge
link set br0 master br0
link set i0 master i1
link add vx0 type vxlan id 1 dstport 4789
link add vx1 type vxlan id 1 dstport 4789
link add d0 type dummy
sysctl net.ipv4.conf.nope.promote_secondaries=1
sysctl net.ipv4.conf.i0.promote_secondaries=1
`)
	require.Equal(t, []string{"", "EEXIST", "EEXIST", "EEXIST", "EINVAL", "ENODEV", "EOPNOTSUPP", "ENODEV",
		"", "EEXIST", "EOPNOTSUPP", "", "ELOOP", "EOPNOTSUPP", "", "EEXIST", "", "ENOENT", ""}, errs)
}

func TestOperstate(t *testing.T) {
	tg, _ := applyScript(t, "link add v0 type veth peer name v1\nlink set v0 up\n")
	v0 := tg.Netns().ByName("v0")
	require.Equal(t, uint8(ifOperLowerLayerDown), v0.OperState())
	st, _ := tg.State(context.Background(), rtnl.Show{Links: true})
	require.Equal(t, []string{"NO-CARRIER", "BROADCAST", "MULTICAST", "UP", "M-DOWN"}, st.Links[2].Flags)
	tg, _ = applyScript(t, "link add v0 type veth peer name v1\nlink set v0 up\nlink set v1 up\n")
	require.Equal(t, uint8(ifOperUp), tg.Netns().ByName("v0").OperState())
	require.Equal(t, "noqueue", tg.Netns().ByName("v0").qdisc)
	tg, _ = applyScript(t, "link add i0 type ifb\nlink set i0 up\nlink set i0 down\n")
	i0 := tg.Netns().ByName("i0")
	require.Equal(t, "pfifo_fast", i0.qdisc)
	require.Equal(t, uint8(ifOperDown), i0.OperState())
}

func TestDeterministic(t *testing.T) {
	src := "link add v0 type veth peer name v1\nlink add br0 type bridge\nlink set v0 master br0\nlink add i0 type ifb\n"
	a, _ := applyScript(t, src)
	b, _ := applyScript(t, src)
	sa, _ := a.State(context.Background(), rtnl.Show{Links: true})
	sb, _ := b.State(context.Background(), rtnl.Show{Links: true})
	require.Equal(t, sa, sb)
	for _, l := range sa.Links[1:] {
		mac := l.Address
		require.NotEqual(t, "00:00:00:00:00:00", mac)
	}
	_, err := a.Events(context.Background())
	require.ErrorIs(t, err, ErrNoEvents)
	reqs, perr := script.ParseString("route replace 2001:db8::/32 dev lo\n")
	require.NoError(t, perr)
	err = a.Apply(context.Background(), reqs[0])
	require.ErrorIs(t, err, ErrNotModelled)
	require.Zero(t, rtnl.Errno(err), "not a refusal the kernel would make")
}

func TestMTUAboveIntMax(t *testing.T) {
	// dev_validate_mtu's int: above 2147483647 is below every minimum.
	tg, errs := applyScript(t, `link add i0 type ifb
link set i0 mtu 2147483647
link set i0 mtu 2000000000
link add i1 mtu 2000000001 type ifb
link set lo mtu 2000000001
link set group 0 mtu 2000000000
`)
	require.Equal(t, []string{"", "", "EINVAL", "EINVAL", "EINVAL", "EINVAL"}, errs)
	require.Equal(t, uint32(2147483647), tg.Netns().ByName("i0").MTU())
	require.Equal(t, uint32(65536), tg.Netns().ByName("lo").MTU())
}

func TestVxlanDstPortZeroIsDefault(t *testing.T) {
	_, errs := applyScript(t, `link add x0 type vxlan id 5 dstport 0
link add x1 type vxlan id 5
link add x2 type vxlan id 5 dstport 4789
`)
	require.Equal(t, []string{"", "EEXIST", ""}, errs)
}

func TestTxQueueLenPfifoFastLimit(t *testing.T) {
	tg, errs := applyScript(t, `link add i0 type ifb
link add i1 txqueuelen 524289 type ifb
link set i0 up
link set i0 txqueuelen 524288
link set i0 txqueuelen 524289
link set i1 up
link set i1 txqueuelen 2000000001
`)
	require.Equal(t, []string{"", "", "", "", "ENOMEM", "", ""}, errs)
	i0, i1 := tg.Netns().ByName("i0"), tg.Netns().ByName("i1")
	require.Equal(t, uint32(524288), i0.TxQLen())
	require.Equal(t, "pfifo_fast", i0.qdisc)
	require.Equal(t, uint32(4294967295), i1.TxQLen())
	require.Equal(t, "noqueue", i1.qdisc) // attach_default_qdiscs' fallback
}

func TestNameTemplates(t *testing.T) {
	tg, errs := applyScript(t, `link add x%d type ifb
link add x%d type ifb
link add x05 type ifb
link del x0
link add x%d type ifb
link add v%d type veth peer name v%d
link add q%d type veth
link add a%d%d type ifb
link add a%x type ifb
link set lo name x%d
`)
	require.Equal(t, []string{"", "", "", "", "", "", "", "EINVAL", "EINVAL", ""}, errs)
	require.Equal(t, "1:x2 3:x1 4:x05 5:x0 6:v0 7:v1 8:veth0 9:q0", ifnames(tg))

	// A template cut to 15 bytes can print a name in use (EEXIST); with
	// every number taken, ENFILE.
	n := tg.Netns()
	long := "abcdefghijklm%d"
	for range 100 {
		name, err := n.allocName(long)
		require.NoError(t, err)
		n.byName[name] = &Device{}
	}
	name, err := n.allocName(long)
	require.NoError(t, err)
	require.Equal(t, "abcdefghijklm10", name)
	_, err = n.validName(long)
	require.Equal(t, "EEXIST", rtnl.ErrnoName(rtnl.Errno(err)))
	for i := range maxNetdevices {
		n.byName["f"+itoa(i)] = &Device{}
	}
	_, err = n.allocName("f%d")
	require.Equal(t, "ENFILE", rtnl.ErrnoName(rtnl.Errno(err)))
}

// bigU32 are the values above 2147483647 the tests send.
var bigU32 = []uint32{2147483648, 4294967295}

// withBigU32 replaces the stand-ins of bigU32 in a link request's mtu,
// group and txqueuelen.
func withBigU32(op rtnl.Op) rtnl.Op {
	fix := func(a *rtnl.LinkAttrs) {
		for _, p := range []**uint32{&a.MTU, &a.Group, &a.TxQueueLen} {
			if *p != nil && **p >= 2000000000 && int(**p-2000000000) < len(bigU32) {
				v := bigU32[**p-2000000000]
				*p = &v
			}
		}
	}
	switch o := op.(type) {
	case rtnl.LinkAdd:
		fix(&o.LinkAttrs)
		return o
	case rtnl.LinkSet:
		fix(&o.LinkAttrs)
		return o
	}
	return op
}
