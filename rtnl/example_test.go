package rtnl_test

import (
	"context"
	"os"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
	"github.com/rtnlsim/rtnlsim/sim"
)

// Run applies a script to a Target (here the model; the kernel target of
// package kernel runs the same requests in a fresh namespace), goes on
// past refusals as `ip -b -force` does, and reads back what Show asks
// for; WriteText prints it as `ip` would, refusals last.
func ExampleRun() {
	t := sim.New(sim.Options{Seed: 1, Events: true,
		Sysctls: map[string]string{"net.ipv6.conf.all.disable_ipv6": "1"}})
	defer t.Close()
	reqs, err := script.ParseString(`
link add v0 type veth peer name v1
addr add 10.0.0.1/24 dev v0
link set v0 mtu 100000
`)
	if err != nil {
		panic(err)
	}
	show := rtnl.Show{Addrs: true, Events: true}
	res, err := rtnl.Run(context.Background(), t, reqs, show, nil)
	if err != nil {
		panic(err)
	}
	res.WriteText(os.Stdout, show)
	// Output:
	// 1: lo: <LOOPBACK> mtu 65536 qdisc noop state DOWN group default qlen 1000
	//     link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00
	// 2: v1@v0: <BROADCAST,MULTICAST,M-DOWN> mtu 1500 qdisc noop state DOWN group default qlen 1000
	//     link/ether 3e:78:29:63:1d:a0 brd ff:ff:ff:ff:ff:ff
	// 3: v0@v1: <BROADCAST,MULTICAST,M-DOWN> mtu 1500 qdisc noop state DOWN group default qlen 1000
	//     link/ether 66:b5:77:a4:d4:1b brd ff:ff:ff:ff:ff:ff
	//     inet 10.0.0.1/24 scope global v0
	// [1] RTM_NEWLINK link 2: v1 <BROADCAST,MULTICAST> state DOWN
	// [1] RTM_NEWLINK link 3: v0 <BROADCAST,MULTICAST,M-DOWN> state DOWN
	// [2] RTM_NEWADDR inet 3: v0 inet 10.0.0.1/24 scope global v0
	// [2] RTM_NEWROUTE inet local 10.0.0.1 dev v0 table local proto kernel scope host src 10.0.0.1
	// line 4: link set v0 mtu 100000: EINVAL (mtu greater than device maximum)
}
