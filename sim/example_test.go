package sim_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
	"github.com/rtnlsim/rtnlsim/sim"
)

// A target, a script run on it, and its state read back in `ip -j` shape.
// The device comes up, so the kernel's own IPv6 (its EUI-64 link-local
// address, made from the MAC the seed picked, and three routes) appears
// beside the IPv4 the script asked for.
func ExampleNew() {
	ctx := context.Background()
	t := sim.New(sim.Options{Seed: 1})
	defer t.Close()
	reqs, err := script.ParseString(`
link add d0 type ifb
link set d0 up
addr add 10.0.0.1/24 dev d0
route add 192.0.2.0/24 via 10.0.0.254
link add d0 type ifb
`)
	if err != nil {
		panic(err)
	}
	res, err := rtnl.Run(ctx, t, reqs, rtnl.Show{Links: true, Addrs: true, Routes: true}, nil)
	if err != nil {
		panic(err) // the target failed, or a request is not modelled
	}
	for _, e := range res.Errors { // refusals: the run goes on, as `ip -b -force`
		fmt.Printf("line %d: %s: %s\n", e.Line, e.Request, e.Errno)
	}
	for _, l := range res.Links {
		fmt.Printf("link %d: %s <%s> mtu %d qdisc %s state %s\n",
			l.Ifindex, l.Ifname, strings.Join(l.Flags, ","), l.MTU, l.Qdisc, l.Operstate)
	}
	for _, l := range res.Addrs {
		for _, a := range l.AddrInfo {
			fmt.Printf("addr %s: %s\n", l.Ifname, rtnl.AddrText(a))
		}
	}
	for _, r := range res.Routes {
		fmt.Println("route", rtnl.RouteText(r))
	}
	// Output:
	// line 6: link add d0 type ifb: EEXIST
	// link 1: lo <LOOPBACK> mtu 65536 qdisc noop state DOWN
	// link 2: d0 <BROADCAST,NOARP,UP,LOWER_UP> mtu 1500 qdisc pfifo_fast state UNKNOWN
	// addr d0: inet 10.0.0.1/24 scope global d0
	// addr d0: inet6 fe80::3c78:29ff:fe63:1da0/64 scope link
	// route 10.0.0.0/24 dev d0 proto kernel scope link src 10.0.0.1
	// route 192.0.2.0/24 via 10.0.0.254 dev d0
	// route local 10.0.0.1 dev d0 table local proto kernel scope host src 10.0.0.1
	// route broadcast 10.0.0.255 dev d0 table local proto kernel scope link src 10.0.0.1
	// route fe80::/64 dev d0 proto kernel metric 256 pref medium
	// route local fe80::3c78:29ff:fe63:1da0 dev d0 table local proto kernel metric 0 pref medium
	// route multicast ff00::/8 dev d0 table local proto kernel metric 256 pref medium
}

// The notifications of each request, numbered by request; "~" marks the
// ones deferred work sent (linkwatch, IPv6 DAD). Options.Events keeps
// them; IPv6 is switched off here through Options.Sysctls to keep the
// list short.
func ExampleTarget_Events() {
	ctx := context.Background()
	t := sim.New(sim.Options{Seed: 1, Events: true,
		Sysctls: map[string]string{"net.ipv6.conf.all.disable_ipv6": "1"}})
	reqs, err := script.ParseString(`
link add d0 type ifb
link set d0 up
addr add 10.0.0.1/24 dev d0
link del d0
`)
	if err != nil {
		panic(err)
	}
	for _, r := range reqs {
		if err := t.Apply(ctx, r); err != nil {
			fmt.Printf("line %d: %v\n", r.Line, err)
		}
	}
	evs, err := t.Events(ctx)
	if err != nil {
		panic(err)
	}
	for _, e := range evs {
		mark := " "
		if e.Deferred {
			mark = "~"
		}
		fmt.Printf("[%d]%s%s %s %s\n", e.Request, mark, e.Type, e.Family, rtnl.EventText(e))
	}
	// Output:
	// [1] RTM_NEWLINK link 2: d0 <BROADCAST,NOARP> state DOWN
	// [2] RTM_NEWLINK link 2: d0 <BROADCAST,NOARP,UP,LOWER_UP> state UNKNOWN
	// [3] RTM_NEWADDR inet 2: d0 inet 10.0.0.1/24 scope global d0
	// [3] RTM_NEWROUTE inet local 10.0.0.1 dev d0 table local proto kernel scope host src 10.0.0.1
	// [3] RTM_NEWROUTE inet 10.0.0.0/24 dev d0 proto kernel scope link src 10.0.0.1
	// [3] RTM_NEWROUTE inet broadcast 10.0.0.255 dev d0 table local proto kernel scope link src 10.0.0.1
	// [4] RTM_NEWLINK link 2: d0 <BROADCAST,NOARP> state DOWN
	// [4] RTM_DELADDR inet 2: d0 inet 10.0.0.1/24 scope global d0
	// [4] RTM_DELROUTE inet local 10.0.0.1 dev d0 table local proto kernel scope host src 10.0.0.1
	// [4] RTM_DELLINK link 2: d0 <BROADCAST,NOARP> state DOWN
}

// Four UP ifb devices deleted one by one, the requests priced on one user
// thread and then split in order over two (as `rtnlsim run --threads 2`:
// lines 1-4 on one thread, 5-8 on the other). Each RTM_DELLINK holds
// rtnl_lock for its expedited grace periods and the device's teardown,
// then calls rcu_barrier after rtnl_unlock. On two threads the locked
// parts queue on rtnl_lock while one thread's barrier overlaps the other's
// work. The prices are sim.DefaultPrices, which a target uses unless
// Options.Cost (or a profile file) brings others.
func ExampleTarget_Cost() {
	ctx := context.Background()
	t := sim.New(sim.Options{Seed: 1})
	reqs, err := script.ParseString(`
link add a0 up type ifb
link add a1 up type ifb
link del a0
link del a1
link add b0 up type ifb
link add b1 up type ifb
link del b0
link del b1
`)
	if err != nil {
		panic(err)
	}
	for _, r := range reqs {
		if err := t.Apply(ctx, r); err != nil {
			panic(err)
		}
	}
	for _, threads := range []int{1, 2} {
		res, err := t.Cost(threads)
		if err != nil {
			panic(err)
		}
		c := res.Counters
		fmt.Printf("%d thread(s): %.3f ms virtual, rtnl_lock held %.3f ms, rcu_barrier calls %d, run %d\n",
			threads, float64(res.VirtualNs)/1e6, float64(res.LockHeldNs)/1e6, c.RCUBarrier, c.RCUBarrierExecuted)
	}
	p, _ := t.Prices()
	fmt.Printf("rcu_barrier price: %.0f ns; default: %v\n", p.RCUBarrierNs, p == sim.DefaultPrices())
	// Output:
	// 1 thread(s): 97.200 ms virtual, rtnl_lock held 30.250 ms, rcu_barrier calls 4, run 4
	// 2 thread(s): 74.512 ms virtual, rtnl_lock held 30.250 ms, rcu_barrier calls 4, run 4
	// rcu_barrier price: 16737388 ns; default: true
}

// Each request either succeeds, is refused with the errno the kernel
// would return (an *rtnl.Error; the target stays usable), or is outside
// the model (ErrNotModelled: an IPv6 route through the loopback, for one), which a run
// should stop at rather than count as a refusal.
func ExampleTarget_Apply() {
	ctx := context.Background()
	t := sim.New(sim.Options{Seed: 1})
	reqs, err := script.ParseString(`
link add v0 type veth peer name v1
link add v0 type veth peer name v1
link set v0 mtu 70000
link del lo
route add 2001:db8::/32 dev lo
`)
	if err != nil {
		panic(err)
	}
	for _, r := range reqs {
		err := t.Apply(ctx, r)
		var refused *rtnl.Error
		switch {
		case err == nil:
			fmt.Printf("line %d: ok\n", r.Line)
		case errors.As(err, &refused):
			fmt.Printf("line %d: %s\n", r.Line, rtnl.ErrnoName(refused.Errno))
		case errors.Is(err, sim.ErrNotModelled):
			fmt.Printf("line %d: not modelled\n", r.Line)
		default:
			panic(err)
		}
	}
	// Output:
	// line 2: ok
	// line 3: EEXIST
	// line 4: EINVAL
	// line 5: EOPNOTSUPP
	// line 6: not modelled
}

// The read-only view of a target's namespace: devices in dump order and
// their accessors (d0 lost IPv4 when its mtu went below 68, as
// inetdev_event destroys the in_device). State changes only through
// requests.
func ExampleTarget_Netns() {
	ctx := context.Background()
	t := sim.New(sim.Options{Seed: 1})
	reqs, err := script.ParseString(`
link add br0 type bridge
link add v0 type veth peer name v1
link set v0 master br0 mtu 9000
addr add 10.0.0.1/24 dev br0
addr add 10.0.0.2/24 dev br0
link add d0 type ifb
link set d0 mtu 60
`)
	if err != nil {
		panic(err)
	}
	if _, err := rtnl.Run(ctx, t, reqs, rtnl.Show{}, nil); err != nil {
		panic(err)
	}
	ns := t.Netns()
	for _, d := range ns.Devices() {
		var addrs []string
		for _, a := range d.IPv4Addrs() {
			addrs = append(addrs, rtnl.AddrText(a))
		}
		kind := d.Kind()
		if kind == "" {
			kind = "loopback"
		}
		fmt.Printf("%d %s (%s) mtu %d ipv4 %v %q\n", d.Ifindex(), d.Name(), kind, d.MTU(), d.IPv4(), addrs)
	}
	v0 := ns.ByName("v0")
	fmt.Println("v0: peer", v0.Peer().Name(), "master", v0.Master().Name(), "up", v0.Up())
	fmt.Println("ifindex 2:", ns.ByIndex(2).Name(), "missing:", ns.ByName("nope") == nil)
	// Output:
	// 1 lo (loopback) mtu 65536 ipv4 true []
	// 2 br0 (bridge) mtu 9000 ipv4 true ["inet 10.0.0.1/24 scope global br0" "inet 10.0.0.2/24 scope global secondary br0"]
	// 3 v1 (veth) mtu 1500 ipv4 true []
	// 4 v0 (veth) mtu 9000 ipv4 true []
	// 5 d0 (ifb) mtu 60 ipv4 false []
	// v0: peer v1 master br0 up false
	// ifindex 2: br0 missing: true
}

// A profile names a kernel base and behaviour switches; Options turns it
// into a target's Options with a seed. A name brings no prices (Cost is
// nil: the target prices with DefaultPrices); a profile file written by
// `rtnlsim calibrate` (LoadProfile, ReadProfileFile) brings its own. Here
// the same list delete of two UP devices runs as this kernel sends it (one
// RTM_DELLINK, one unregister batch and one rcu_barrier per device) and
// with the +bulk-ifindex switch (one request, one batch).
func ExampleParseProfile() {
	for _, name := range []string{"linux-6.18", "linux-6.18+bulk-ifindex"} {
		p, err := sim.ParseProfile(name)
		if err != nil {
			panic(err)
		}
		t := sim.New(p.Options(1))
		reqs, err := script.ParseString(`
link add d0 up type ifb
link add d1 up type ifb
link del list d0 d1
`)
		if err != nil {
			panic(err)
		}
		if _, err := rtnl.Run(context.Background(), t, reqs, rtnl.Show{}, nil); err != nil {
			panic(err)
		}
		c, err := t.Cost(1)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %d kernel requests, rcu_barrier %d, %.3f ms virtual\n",
			p.Name, len(t.Work()), c.Counters.RCUBarrier, float64(c.VirtualNs)/1e6)
	}
	_, err := sim.ParseProfile("linux-6.18+bulk")
	msg, _, _ := strings.Cut(err.Error(), " (known:") // the rest lists every name
	fmt.Println(msg)
	// Output:
	// linux-6.18: 4 kernel requests, rcu_barrier 2, 48.600 ms virtual
	// linux-6.18+bulk-ifindex: 3 kernel requests, rcu_barrier 1, 27.298 ms virtual
	// profile "linux-6.18+bulk": unknown switch +bulk
}
