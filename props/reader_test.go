package props

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/rtnlsim/rtnlsim/internal/testseed"
	"github.com/rtnlsim/rtnlsim/kernel"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
)

// TestReaderMatchesIproute2 proves the kernel target's reader: after a
// generated script, the JSON that `rtnlsim run --target kernel --format json
// --show links,addrs,routes` prints (the same rtnl.Run and Result.JSON the
// command uses) equals, byte for byte after compaction (so field for field
// and in order), what iproute2 prints in the same namespace for
// `ip -j link show`, `ip -j addr show` and `ip -j route show table all`.
//
// The fixed scripts of readerScripts run first: they hold the reader to
// what the generated ones do not make, route "tos" (a number and the
// rt_dsfield names), a device whose txqlen is 0 (for which ip leaves
// "txqlen" out), routes with onlink, "flow" (realms, rt_realms'
// cosmos), "metrics" (an MTU, locked or not, clamped, of 0) and "via"
// (RTA_VIA: an IPv6 gateway of an IPv4 route, alone and in nexthops),
// and IPv6 prefix routes with "expires" (addresses with a finite valid_lft).
//
// Fields iproute2 can print that rtnlsim leaves out, none of which the
// generated scripts (nor any script of rtnlsim's language) produce:
// "link": null (IFLA_LINK 0), "link_netnsid" (a peer in another namespace),
// "altnames", "permaddr", "proto_down", "link_pointtopoint", address
// "deleted"; route "encap", "from", "via" of a family but inet6,
// "error", metrics but "mtu", "nexthops", "mark", a nexthop's
// "flow", "uid", "iif", "ttl-propogate", "cache". If one ever appeared,
// this test would fail.
//
// IPv6 DAD is switched off in the test's namespace so that an address's
// "tentative" flag does not flip between the two reads.
func TestReaderMatchesIproute2(t *testing.T) {
	testseed.NeedKernel(t)
	seen := map[string]int{}
	for i, src := range readerScripts {
		if f := readerCase(src, seen); f != "" {
			t.Errorf("fixed script %d:\n%s\n%s", i, src, f)
		}
	}
	params := gopterParams(t, 50)
	props := gopter.NewProperties(params)
	props.Property("rtnlsim run --format json equals ip -j", prop.ForAll(func(src string) string {
		return readerCase(src, seen)
	}, scriptGen(6, 30)))
	report(t, props)
	t.Logf("what the scripts did (request kind or errno: count): %v", seen)
}

// readerScripts are the fixed cases of TestReaderMatchesIproute2.
var readerScripts = []string{
	// Routes with a tos: unnamed (0x10, 0x04) and named by rt_dsfield
	// (0x28 AF11, 0xb8 EF), in main and in another table, with a gateway.
	`link add d0 type ifb
link set d0 up
addr add 192.0.2.1/24 dev d0
route add 10.0.0.0/8 tos 0x10 via 192.0.2.254 table 100
route add 10.0.0.0/8 tos 0x28 dev d0
route add 10.1.0.0/16 tos 0xb8 dev d0 metric 5 proto static
route add 10.2.0.0/16 tos 0x04 dev d0 scope link
route add blackhole 10.3.0.0/16 tos 0x20`,
	// Route options: onlink, realms and MTUs, on plain, error and
	// multipath routes.
	`link add d0 type ifb
link set d0 up
addr add 192.0.2.1/24 dev d0
route add 10.0.0.0/16 via 10.9.9.9 dev d0 onlink mtu lock 1400 realms 2/5
route add 10.1.0.0/16 dev d0 realms 5/ mtu 70000
route add 10.2.0.0/16 dev d0 realm 70000 mtu lock 0
route add 10.3.0.0/16 dev d0 mtu 0 realm 0
route add blackhole 10.4.0.0/16 onlink realm 7 mtu 1280
route add 10.5.0.0/16 onlink mtu 1300 nexthop via 192.0.2.2 nexthop via 10.9.9.9 dev d0 onlink`,
	// IPv6 gateways of IPv4 routes (RTA_VIA): plain, onlink in another
	// table, in a multipath route with an IPv4 nexthop.
	`link add d0 type ifb
link set d0 up
addr add 192.0.2.1/24 dev d0
route add 10.0.0.0/16 via inet6 fe80::1 dev d0
route add 10.1.0.0/16 via inet6 2001:db8::1 dev d0 onlink table 100 scope link
route add 10.2.0.0/16 nexthop via inet6 fe80::1 dev d0 nexthop via 192.0.2.2 weight 3
route add 10.3.0.0/16 nexthop via inet6 fe80::2 dev d0 nexthop via inet6 fe80::3 dev d0`,
	// txqlen 0: set on an ifb (up and down), given at creation to a veth.
	`link add q0 type ifb
link set q0 txqlen 0
link add q1 type ifb
link set q1 up
link set q1 txqlen 0
link add v0 txqlen 0 type veth peer name v1
link add br0 type bridge
link set br0 txqlen 0`,
	// Nexthop objects and routes that use them: a gateway (scope link),
	// a device alone (scope host), onlink, a blackhole, groups with
	// weights and of one blackhole.
	`link set lo up
link add d0 type ifb
link set d0 up
addr add 192.0.2.1/24 dev d0
nexthop add id 1 via 192.0.2.2 dev d0
nexthop add id 2 dev d0
nexthop add id 3 via 10.9.9.9 dev d0 onlink
nexthop add id 4 blackhole
nexthop add id 10 group 1/2,3/3,256
nexthop add id 11 group 4
nexthop add id 12 group 3
route add 10.0.0.0/16 nhid 1
route add 10.1.0.0/16 nhid 10 table 100 metric 5
route add 10.2.0.0/16 nhid 11
route add 10.3.0.0/16 nhid 12
route add 10.4.0.0/16 nhid 2 proto static`,
	// IPv6 addresses with lifetimes: dynamic, deprecated, permanent with
	// a finite preferred_lft; their prefix routes expire or not.
	`link add d0 type ifb
link set d0 up
addr add 2001:db8::1/64 dev d0 valid_lft 3600 preferred_lft 1800
addr add 2001:db8:1::1/64 dev d0 valid_lft 7200 preferred_lft 0 metric 50
addr add 2001:db8:2::1/64 dev d0 preferred_lft 900`,
	// IPv6 nexthops (a gateway, link-local or not, a device, a blackhole,
	// groups) and IPv4 routes through them (RTA_VIA: "via" with the
	// family).
	`link set lo up
link add d0 type ifb
link set d0 up
addr add 2001:db8::1/64 dev d0
nexthop add id 1 via 2001:db8::2 dev d0
-6 nexthop add id 2 dev d0
-6 nexthop add id 3 blackhole
nexthop add id 4 via fe80::1 dev d0
nexthop add id 10 group 1/4,7
nexthop add id 11 group 3
nexthop add id 12 group 2
route add 10.0.0.0/16 nhid 1
route add 10.1.0.0/16 nhid 10 table 100
route add 10.2.0.0/16 nhid 2
route add 10.3.0.0/16 nhid 11
route add 10.4.0.0/16 nhid 12 proto static`,
}

func readerCase(src string, seen map[string]int) string {
	reqs, err := script.ParseString(src)
	if err != nil {
		return "generated script does not parse: " + err.Error()
	}
	tg, err := kernel.New(kernel.Options{Sysctls: map[string]string{
		"net/ipv6/conf/all/accept_dad": "0", "net/ipv6/conf/default/accept_dad": "0",
	}})
	if err != nil {
		return err.Error()
	}
	defer tg.Close()
	ctx := context.Background()
	show := rtnl.Show{Links: true, Addrs: true, Routes: true}
	res, err := rtnl.Run(ctx, tg, reqs, show, nil)
	if err != nil {
		return err.Error()
	}
	for _, r := range reqs {
		seen[r.Op.Verb()]++
	}
	for _, e := range res.Errors {
		seen[e.Errno]++
	}
	// Read ours, then iproute2's, then ours again; compare only when ours
	// did not move across iproute2's read (the kernel's deferred work,
	// linkwatch for one, can land at any time).
	for attempt := 0; attempt < 20; attempt++ {
		before, err := runJSON(ctx, tg, show)
		if err != nil {
			return err.Error()
		}
		theirs, err := iproute2(tg.NetnsPath())
		if err != nil {
			return err.Error()
		}
		after, err := runJSON(ctx, tg, show)
		if err != nil {
			return err.Error()
		}
		if !bytes.Equal(before, after) {
			time.Sleep(200 * time.Millisecond)
			continue
		}
		var ours map[string]json.RawMessage
		if err := json.Unmarshal(after, &ours); err != nil {
			return err.Error()
		}
		if ours["nexthops"] == nil {
			ours["nexthops"] = json.RawMessage("[]") // printed only when there are some
		}
		for _, k := range []string{"links", "addrs", "routes", "nexthops"} {
			var a bytes.Buffer
			if err := json.Compact(&a, ours[k]); err != nil {
				return err.Error()
			}
			if !bytes.Equal(a.Bytes(), theirs[k]) {
				return fmt.Sprintf("%s differ:\nrtnlsim: %s\nip -j:   %s", k, a.Bytes(), theirs[k])
			}
		}
		return ""
	}
	return "state never settled across an iproute2 read"
}

// runJSON is what `rtnlsim run --format json` prints for the target's
// current state.
func runJSON(ctx context.Context, tg rtnl.Target, show rtnl.Show) ([]byte, error) {
	res, err := rtnl.Run(ctx, tg, nil, show, nil)
	if err != nil {
		return nil, err
	}
	return res.JSON(show)
}

func iproute2(netns string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for k, args := range map[string][]string{
		"links":    {"link", "show"},
		"addrs":    {"addr", "show"},
		"routes":   {"route", "show", "table", "all"},
		"nexthops": {"nexthop", "show"},
	} {
		b, err := exec.Command("nsenter", append([]string{"--net=" + netns, "ip", "-j"}, args...)...).Output()
		if err != nil {
			return nil, fmt.Errorf("ip -j %v: %w", args, err)
		}
		var c bytes.Buffer
		if err := json.Compact(&c, b); err != nil {
			return nil, fmt.Errorf("ip -j %v: %w", args, err)
		}
		out[k] = c.Bytes()
	}
	return out, nil
}
