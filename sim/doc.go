// Package sim is the model of the Linux rtnetlink control plane: an
// in-process, deterministic kernel that carries out rtnl.Requests as Linux
// does (6.18 unless a profile says otherwise) and records what each one
// made the kernel do.
//
// A Target holds one network namespace (Netns) with, on the kernel's own
// structures: devices (the loopback and the kinds of rtnl.Kinds, with
// their drivers' defaults, carrier, operstate and qdisc, veth peers,
// bridge ports, macvlan lowers); the netdev index of the profile's era
// (ifindex allocation, dump order); each device's IPv4 address list with
// the promotion of secondaries; the IPv4 FIB (package fibtrie) with the
// kernel's routes and the user routes; the IPv6 the kernel configures by
// itself (::1, link-local addresses, their routes), user IPv6 addresses
// and routes (route6.go; replace and multipath fail with ErrNotModelled);
// the notifications the kernel sends
// (rtnl.Event, kept with Options.Events); and each request's kernel work,
// a cost.Work that package cost prices in virtual time.
//
//	t := sim.New(sim.Options{Seed: 1, Events: true})
//	reqs, err := script.ParseString("link add d0 type ifb\nlink set d0 up")
//	res, err := rtnl.Run(ctx, t, reqs, rtnl.Show{Links: true, Addrs: true}, nil)
//	evs, err := t.Events(ctx) // notifications, numbered by request
//	c, err := t.Cost(2)       // the requests, in order, over 2 threads
//
// Target.Apply carries out one request; a refusal is an *rtnl.Error with
// the kernel's errno. Target.State reads links, addresses and routes back
// in iproute2's JSON shape; Work and CostSources give the cost work, Trace
// (after StartTrace) narrates it; ExitNetns ends the namespace. The seed
// picks what the kernel picks at random (MAC addresses, hence link-local
// addresses and bridge ids): the same Options and requests give the same
// state, events and cost anywhere. A Target is for one goroutine at a time.
//
// Target.Netns is a read-only view: Netns.ByName, ByIndex, Devices (dump
// order), Links, Addrs and Routes; Device's accessors (Ifindex, Name, Kind,
// MTU, Group, TxQLen, Up, Carrier, OperState, Address, Master, Peer, Lower,
// Ports, IPv4, IPv4Addrs). State changes only through requests.
//
// ParseProfile reads base[+switch...]: DefaultProfile (linux-6.18),
// linux-6.4 (hash-only netdev index), +bulk-ifindex (`link del list` as
// one request and one unregister batch), +ifa-flush; Profile.Options(seed)
// makes the Options. LoadProfile also reads the files `rtnlsim calibrate`
// writes, with this machine's prices. Without prices a target uses
// DefaultPrices: rcu_barrier, expedited synchronize_net and per-device
// unregister work fitted to published 2021 figures; other steps cost 0.
//
// Where the package models each kernel source file (all its files):
//
//	net/core/dev.c
//	    (package netdevindex: dev_index_head, net->dev_by_index, each
//	    era's ifindex allocation and link dump cursor)
//	    link.go           struct net_device, alloc_netdev, the drivers' setup
//	    netns.go          register_netdevice, notifier events, linkwatch
//	                      (link_watch.c), dev_activate (sch_generic.c)
//	    devlist.go        dev_base_head, kept cheap for a million devices
//	    unregister.go     the priced steps of unregister_netdevice_many
//	net/core/rtnetlink.c
//	    link_ops.go       rtnl_newlink, do_setlink, rtnl_dellink, group ops;
//	                      dev_open/close, mtu, address, name; the newlink
//	                      of veth, macvlan and vxlan, each kind's dellink
//	    dellist.go        `link del list`: one request per device, or +bulk-ifindex
//	    events.go         rtmsg_ifinfo, br_ifinfo_notify
//	    render.go         rtnl_fill_ifinfo, as `ip -j link` shows it
//	net/ipv4/devinet.c
//	    devinet.go        struct in_device's list: insert, delete, promote,
//	                      each walk step by step (the oracle)
//	    devinet_count.go  the same requests, each walk counted, not made
//	    ifaindex.go       the list-order indexes that count them
//	    inet.go           inetdev_event, the address requests, addr flush
//	net/netlink/af_netlink.c (netlink_dump) and iproute2's ipaddr_flush
//	    ipflush.go        `ip addr flush`: the chunked dump, ip's deletes
//	                      sent between its reads
//	net/ipv4/fib_frontend.c
//	    fib.go            fib_magic, fib_add_ifaddr, fib_del_ifaddr, fib_disable_ip
//	net/ipv4/fib_semantics.c (and fib_frontend.c's route requests)
//	    route.go          fib_create_info, fib_check_nh, fib_valid_prefsrc
//	                      (fib_info sharing, fib_sync_down_dev: package fibtrie)
//	net/ipv4/fib_trie.c   package fibtrie
//	net/ipv6/addrconf.c, route.c
//	    addrconf.go       inet6_dev, ::1, link-local, their routes, DAD, ifdown
//	    addrconf_user.go  user IPv6 addresses: add, del, their routes and DAD
//	    route6.go         user IPv6 routes: ip6_route_add, ip6_validate_gw, ip6_route_del
//	    ipv6cost.go       the IPv6 walks the cost model prices; net.ipv6 sysctls
//	net/core/net_namespace.c
//	    peerns.go         netns_ids: rtnl_net_newid, __peernet2id
//	    netns_exit.go     cleanup_net: br_net_exit_rtnl, default_device_exit_batch
//	net/bridge/br_if.c, br_stp.c, br_stp_if.c
//	    link_bridge.go    ports, STP off, bridge id, carrier, mtu, features
//	kernel/rcu/tree.c     package cost (rcu_barrier and its sharing)
//	the model's own
//	    target.go         Target, Options, Apply, State, Events, Cost
//	    profile.go        profiles, profile files, DefaultPrices
//	    trace.go          the narrated trace (`rtnlsim run --trace`)
package sim
