package props

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/rtnlsim/rtnlsim/internal/compare"
	"github.com/rtnlsim/rtnlsim/internal/testseed"
	"github.com/rtnlsim/rtnlsim/kernel"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
)

// TestScriptMatchesIproute2 holds the parser to iproute2 itself, which
// `rtnlsim diff` cannot do (both of its targets share the parser): every
// generated script runs through the real `ip -force -b FILE` in one fresh
// namespace, and through the parser and the kernel target (the parser's
// requests) in another. The two namespaces must end with the same links
// (MAC addresses the kernel picks compared up to renaming), addresses and
// routes of every table, as read back in `ip -j` shape, and the same lines
// must be refused: those iproute2 reports as "Command failed FILE:N" on
// one side, those the parser refuses or the kernel answers with an errno
// on the other.
//
// The lines come from the language's link, address and route subset that
// `ip -b` also reads (no `sysctl`, no leading `-4`/`-6`, no `link del
// list`, which are rtnlsim's extensions), with the forms where the parser
// and iproute2 once parted: addr del without /LEN, broadcast + with a
// peer, local/broadcast/anycast routes with table 0, a bare route flush,
// mtu/txqueuelen/group above 2^31-1 and link-layer addresses of the wrong
// length; and route options (onlink, mtu [lock], realms in their forms:
// names, FROM/, raw numbers) and flushes by match, tos, metric, via, src
// and realms. IPv6 is off in both namespaces (its link-local addresses derive
// from the random MACs). iproute2 exits on some bad arguments (invarg:
// mtu, txqueuelen, group above 2^31-1, a route's mtu above 2^32-1 or
// realm above 255) even under -force, skipping the
// rest of the batch, where the parser refuses the line and goes on; such
// a line comes only last in a generated script. It also exits on lines
// the parser cannot judge: a `master` that does not exist (the targets
// answer ENODEV and go on). To tell where iproute2 stopped, the batch file
// has a read-only `link show dev lo` after every line, whose output is
// counted; the parser's side then runs the lines up to that one.
//
// Each gopter case is a batch of scripts run in parallel. A failure is
// shrunk line by line and the script written to a file. RTNLSIM_IP_BATCHES
// sets the number of batches (of ipBatch scripts).
func TestScriptMatchesIproute2(t *testing.T) {
	testseed.NeedKernel(t)
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no ip command")
	}
	batches := envInt(t, "RTNLSIM_IP_BATCHES", 4, 0)
	params := gopterParams(t, batches)
	params.MaxShrinkCount = 0 // shrinkIPScript shrinks one script, not a batch
	props := gopter.NewProperties(params)
	var mu sync.Mutex
	refused, lines := 0, 0
	props.Property("ip -b and the parser on the kernel agree on state and refused lines", prop.ForAll(func(batch [][]string) string {
		res := runBatch(batch, func(l []string) ipResult { return ipCase(l) })
		for i, r := range res {
			mu.Lock()
			refused += r.refused
			lines += len(batch[i])
			mu.Unlock()
			if r.failure != "" {
				return shrinkIPScript(batch[i], r.failure)
			}
		}
		return ""
	}, gen.SliceOfN(ipBatch, ipScriptGen(10, 30))))
	report(t, props)
	t.Logf("%d lines run both ways, %d of them refused", lines, refused)
}

// ipBatch is how many scripts one gopter case runs in parallel.
const ipBatch = 8

// ipPrologue makes devices of each kind the kernel has, with addresses.
var ipPrologue = []string{
	"link add i0 type ifb", "link add i1 type ifb", "link set i0 up", "link set i1 up",
	"addr add 10.0.0.1/24 dev i0", "addr add 10.0.1.1/24 dev i1",
	"link add v0 type veth peer name v1", "link add br0 type bridge",
	"link add mv0 link i0 type macvlan mode bridge", "link add vx0 type vxlan id 42 dstport 4789",
}

// ipFixedMACs are the MAC addresses the generated lines set.
var ipFixedMACs = []string{"02:00:00:00:00:42"}

func ipScriptGen(minLen, maxLen int) gopter.Gen {
	line := gen.Weighted([]gen.WeightedGen{
		{Weight: 4, Gen: ipLinkLine()},
		{Weight: 4, Gen: ipAddrLine()},
		{Weight: 3, Gen: routeLine()},
		{Weight: 3, Gen: ipEdgeLine()},
	})
	last := gen.Weighted([]gen.WeightedGen{{Weight: 2, Gen: gen.Const("")}, {Weight: 1, Gen: ipAbortLine()}})
	body := gen.SliceOfN(maxLen, line).SuchThat(func(l []string) bool { return len(l) >= minLen })
	return gopter.CombineGens(body, last).Map(func(v []any) []string {
		lines := append(append([]string(nil), ipPrologue...), v[0].([]string)...)
		if s := v[1].(string); s != "" {
			lines = append(lines, s)
		}
		return lines
	})
}

// ipLinkLine is linkLine without the deletes that take other devices with
// them: `link del group 7`, a veth end (its peer goes too) and i0 (mv0 on
// it goes too). iproute2's batch keeps a name-to-ifindex cache that drops
// only the device a line deletes by name, so after such a delete a line
// naming a device deleted on the side (or a new device of that name)
// uses the stale ifindex: the kernel answers ENODEV, or `route flush dev`
// filters on an ifindex nothing has. The targets look names up afresh;
// the language does not model that cache.
func ipLinkLine() gopter.Gen {
	return linkLine().Map(func(l string) string {
		switch l {
		case "link del group 7", "link del v0", "link del v1", "link del i0":
			return "link set group 7 down"
		}
		return l
	})
}

// ipAddrLine is addrLine without its sysctl lines, with deletes both with
// and without /LEN and addresses with peers.
func ipAddrLine() gopter.Gen {
	return gen.IntRange(0, 1<<20).Map(func(r int) string {
		dev := []string{"i0", "i1", "br0", "v0"}[r%4]
		sub := subnets[(r/4)%len(subnets)]
		host := 1 + (r/16)%4
		plen := []int{24, 24, 16, 32}[(r/64)%4]
		switch (r / 256) % 9 {
		case 0, 1:
			return fmt.Sprintf("addr add %s.%d/%d dev %s", sub, host, plen, dev)
		case 2:
			return fmt.Sprintf("addr add %s.%d/%d dev %s label %s:%d", sub, host, plen, dev, dev, host)
		case 3:
			return fmt.Sprintf("addr add %s.%d/%d broadcast + dev %s", sub, host, plen, dev)
		case 4:
			return fmt.Sprintf("addr del %s.%d/%d dev %s", sub, host, plen, dev)
		case 5:
			return fmt.Sprintf("addr del %s.%d dev %s", sub, host, dev)
		case 6:
			peer := []string{"/30", "/29", "", "/24"}[(r/2048)%4]
			lcl := []string{"", "/24"}[(r/8192)%2]
			return fmt.Sprintf("addr add %s.%d%s peer %s.%d%s brd + dev %s", sub, host, lcl, sub, host+4, peer, dev)
		case 7:
			return fmt.Sprintf("addr del %s.%d peer %s.%d dev %s", sub, host, sub, host+4, dev)
		default:
			return fmt.Sprintf("addr flush dev %s", dev)
		}
	})
}

// ipEdgeLine is the forms where the parser and iproute2 once parted.
func ipEdgeLine() gopter.Gen {
	return oneOf([]string{
		"addr del 10.0.0.1 dev i0",
		"addr del 10.0.1.1 dev i1",
		"addr add 10.0.0.1/32 dev i0",
		"addr add 10.4.0.1 peer 10.4.0.2/30 brd + dev i0",
		"addr add 10.4.1.1/24 peer 10.4.1.2/29 broadcast + dev i1",
		"route add local 10.5.0.0/24 dev i0 table 0",
		"route add broadcast 10.6.0.1 dev i0 table 0",
		"route add anycast 10.7.0.1 dev i1 table unspec",
		"route add local 10.8.0.1 dev i1",
		"route del local 10.5.0.0/24 dev i0 table 0",
		"route flush",
		"route flush table 0",
		"route flush table all scope host",
		"route flush table local type broadcast",
		"route flush table main scope link type unicast",
		"link set i1 mtu 2147483647",
		"link set i0 address 02:00:00:00:00",
		"link set dev v0 address 02:00:00:00:00:00:07",
		"link set group 7 address 02:00:00:00:00",
		"link add x0 address 02:00:00:00:00 type ifb",
		"route add 10.9.0.0/16 nexthop via 10.0.0.2 dev i0 weight 3 nexthop via 10.0.1.2 dev i1",
		"route add 10.9.0.0/16 proto static metric 5 nexthop via 10.0.0.2 nexthop dev i1 weight 256",
		"route append 10.9.0.0/16 nexthop via 10.0.0.2 dev i0 nexthop via 10.0.1.2 dev i1 weight 2",
		"route del 10.9.0.0/16 nexthop via 10.0.0.2 nexthop via 10.0.1.2",
		"route add 10.8.0.0/16 nexthop via 10.77.0.2 dev i0 onlink nexthop via 10.0.1.2",
		"route replace 10.8.0.0/16 nexthop via 10.0.0.2 dev i0 weight 7",
		"route del 10.8.0.0/16 nexthop dev i0 nexthop nexthop",
		"route add 10.10.0.0/16 via 10.77.0.2 dev i0 onlink mtu lock 1400 realms 2/5",
		"route add 10.10.0.0/16 dev i1 mtu 70000 realm cosmos/9",
		"route append 10.10.0.0/16 via 10.0.0.2 realm 0x11170 mtu 0",
		"route append 10.10.0.0/16 via 10.0.0.2 rea 5/ mtu lock 0",
		"route del 10.10.0.0/16 mtu 1400 onlink",
		"route del 10.10.0.0/16 realms 2/5 dev i0",
		"route add 10.11.0.0/16 onlink mtu 1300 nexthop via 10.0.0.2 nexthop via 10.0.1.2",
		"route add 10.11.0.0/16 realm 4 nexthop via 10.0.0.2 nexthop via 10.0.1.2",
		"route add blackhole 10.12.0.0/16 realm 7 mtu lock 0 onlink",
		"route flush root 10.10.0.0/16",
		"route flush match 10.10.0.0/24 realms 2/",
		"route flush match 10.9.1.0/24 tos 0 metric 5",
		"route flush via 10.0.0.0/24 realm 5",
		"route flush via 0.0.0.0 me 0 table all",
		"route flush src 10.0.0.1 rea 0/9",
		"route flush via 10.0.0.2 realms 2/5 dsfield 0",
		"route flush src 0.0.0.0/0 realm 0x11170 table main",
		"route add 10.13.0.0/16 via inet6 fe80::1 dev i0",
		"route add 10.13.0.0/16 nexthop via inet6 fe80::1 dev i0 nexthop via 10.0.0.2 dev i0",
		"route del 10.13.0.0/16 via inet6 fe80::1",
		"route add 10.13.0.0/16 via inet 10.0.0.2 dev i0",
		"route del 10.13.0.0/16 nexthop via inet6 fe80::1",
	})
}

// ipAbortLine is a line iproute2 refuses with invarg, which exits: `ip
// -force -b` stops there, so these lines come only last.
func ipAbortLine() gopter.Gen {
	return oneOf([]string{
		"link set i0 mtu 2147483648",
		"link add x1 txqueuelen 4294967295 type ifb",
		"link set i0 group 2147483648",
		"link set group 2147483648 down",
		"link del group 4294967295",
		"link set mv0 master br1",                                    // no such master: iproute2 exits
		"route add 10.9.0.0/16 nexthop via 10.0.0.2 dev i0 metric 5", // a route option after a nexthop
		"route add 10.9.0.0/16 nexthop dev i0 weight 257",
		"route add 10.9.0.0/16 nexthop dev nope nexthop dev i1", // no such device: iproute2 exits
		"route add 10.10.0.0/16 dev i0 mtu 4294967296",
		"route add 10.10.0.0/16 dev i0 realms 1/256",
		"route add 10.13.0.0/16 via fe80::1 dev i0",          // an address of the route's family is expected
		"route add via inet6 fe80::1 10.13.0.0/16 dev i0",    // the gateway gave the family
		"route add 10.13.0.0/16 via inet 2001:db8::1 dev i0", // not an inet address
		"route add 10.13.0.0/16 nexthop via inet6 10.0.0.2 dev i0",
	})
}

type ipResult struct {
	failure string
	refused int
}

func ipCase(lines []string) ipResult {
	opts := kernel.Options{Sysctls: map[string]string{
		"net/ipv6/conf/all/disable_ipv6": "1", "net/ipv6/conf/default/disable_ipv6": "1",
	}}
	show := rtnl.Show{Links: true, Addrs: true, Routes: true}
	ctx := context.Background()

	// iproute2's side.
	theirs, err := kernel.New(opts)
	if err != nil {
		return ipResult{failure: err.Error()}
	}
	defer theirs.Close()
	ipRefused, ran, err := ipBatchRun(theirs.NetnsPath(), lines)
	if err != nil {
		return ipResult{failure: err.Error()}
	}
	ipState, err := settledState(ctx, theirs, show)
	if err != nil {
		return ipResult{failure: err.Error()}
	}

	// The parser's side, on the kernel target.
	ours, err := kernel.New(opts)
	if err != nil {
		return ipResult{failure: err.Error()}
	}
	defer ours.Close()
	// Where iproute2 exited, the batch ended: the parser's side runs the
	// same lines.
	lines = lines[:ran]
	reqs, perr := script.ParseString(strings.Join(lines, "\n") + "\n")
	ourRefused := map[int]string{}
	if perr != nil {
		errs, ok := perr.(*script.Errors)
		if !ok {
			return ipResult{failure: perr.Error()}
		}
		for _, e := range *errs {
			ourRefused[e.Line] = "parser: " + e.Msg
		}
	}
	res, err := rtnl.Run(ctx, ours, reqs, rtnl.Show{}, nil)
	if err != nil {
		return ipResult{failure: err.Error()}
	}
	for _, e := range res.Errors {
		ourRefused[e.Line] = e.Errno
	}
	ourState, err := settledState(ctx, ours, show)
	if err != nil {
		return ipResult{failure: err.Error()}
	}

	if d := refusedDiff(lines, ipRefused, ourRefused); d != "" {
		return ipResult{failure: d}
	}
	isBridge := func(name string) bool { return strings.HasPrefix(name, "br") }
	if d := compare.Links(ourState.Links, ipState.Links, ipFixedMACs, isBridge); d != "" {
		return ipResult{failure: "links (rtnlsim = parser+kernel, kernel = ip -b): " + d}
	}
	if d := compare.Addrs(ourState.Addrs, ipState.Addrs); d != "" {
		return ipResult{failure: "addresses (rtnlsim = parser+kernel, kernel = ip -b): " + d}
	}
	if d := compare.Routes(ourState.Routes, ipState.Routes); d != "" {
		return ipResult{failure: "routes (rtnlsim = parser+kernel, kernel = ip -b): " + d}
	}
	return ipResult{refused: len(ipRefused)}
}

var (
	commandFailedRE = regexp.MustCompile(`(?m)^Command failed .*:(\d+)$`)
	loShownRE       = regexp.MustCompile(`(?m)^\d+: lo: `)
)

// ipProbe follows every line of the batch file: read-only, it prints lo's
// line to stdout, so that counting those tells how many lines ran when
// iproute2 exits in the middle of a batch.
const ipProbe = "link show dev lo"

// ipBatchRun runs the lines with `ip -force -b FILE` in the namespace at
// netns, each followed by ipProbe, and returns the lines it refused, each
// with what it printed about them, and how many lines it ran: all of
// them, or up to the one on which it exited (invarg and the like exit even
// under -force).
func ipBatchRun(netns string, lines []string) (refused map[int]string, ran int, err error) {
	var src strings.Builder
	for _, l := range lines {
		src.WriteString(l + "\n" + ipProbe + "\n")
	}
	f, err := os.CreateTemp("", "rtnlsim-ip-*.ip")
	if err != nil {
		return nil, 0, err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(src.String()); err != nil {
		f.Close()
		return nil, 0, err
	}
	f.Close()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("nsenter", "--net="+netns, "ip", "-force", "-b", f.Name())
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if _, exit := err.(*exec.ExitError); err != nil && !exit {
		return nil, 0, fmt.Errorf("ip -b: %w", err)
	}
	refused = map[int]string{}
	var said []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		if m := commandFailedRE.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			if n%2 == 0 {
				return nil, 0, fmt.Errorf("ip -b refused a probe (file line %d): %s", n, stderr.String())
			}
			refused[(n+1)/2] = strings.Join(said, " / ")
			said = nil
		} else if l != "" && !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "Warning: Executing wildcard") {
			said = append(said, l)
		}
	}
	ran = len(loShownRE.FindAllIndex(stdout.Bytes(), -1))
	if ran < len(lines) {
		// iproute2 exited on line ran+1, having said why.
		if err == nil || len(said) == 0 {
			return nil, 0, fmt.Errorf("ip -b ran %d of %d lines: %s", ran, len(lines), stderr.String())
		}
		ran++
		refused[ran] = strings.Join(said, " / ") + " (ip exited)"
	} else if len(said) > 0 {
		return nil, 0, fmt.Errorf("ip -b said %q about no line", said)
	}
	return refused, ran, nil
}

// settledState reads the target's state until two reads in a row agree
// (the kernel's deferred work, linkwatch for one, lands at its own pace).
func settledState(ctx context.Context, tg rtnl.Target, show rtnl.Show) (rtnl.State, error) {
	var last []byte
	var st rtnl.State
	for range 20 {
		res, err := rtnl.Run(ctx, tg, nil, show, nil)
		if err != nil {
			return st, err
		}
		b, err := res.JSON(show)
		if err != nil {
			return st, err
		}
		if bytes.Equal(b, last) {
			return res.State, nil
		}
		last, st = b, res.State
		time.Sleep(20 * time.Millisecond)
	}
	return st, nil
}

// refusedDiff names the lines one side refused and the other did not.
func refusedDiff(lines []string, ip, ours map[int]string) string {
	var nums []int
	for n := range ip {
		if _, ok := ours[n]; !ok {
			nums = append(nums, n)
		}
	}
	for n := range ours {
		if _, ok := ip[n]; !ok {
			nums = append(nums, n)
		}
	}
	if len(nums) == 0 {
		return ""
	}
	sort.Ints(nums)
	var b strings.Builder
	b.WriteString("refused lines differ:\n")
	for _, n := range nums {
		text := ""
		if n >= 1 && n <= len(lines) {
			text = lines[n-1]
		}
		if why, ok := ip[n]; ok {
			fmt.Fprintf(&b, "line %d %q: ip refused it (%s), the parser and kernel target did not\n", n, text, why)
		} else {
			fmt.Fprintf(&b, "line %d %q: ip ran it, the parser and kernel target refused it (%s)\n", n, text, ours[n])
		}
	}
	return b.String()
}

// shrinkIPScript shrinks a failing script line by line (keeping the
// prologue's role to the shrinker too), writes it to a file and returns
// the last failure.
func shrinkIPScript(lines []string, failure string) string {
	lines, failure = shrinkLines(lines, failure, func(try []string) string { return ipCase(try).failure })
	if file := writeScript("rtnlsim-ip-counterexample-*.ip", lines); file != "" {
		failure += "\nthe script is in " + file + " (run it with `ip -force -b FILE` and `rtnlsim run --target kernel FILE`)"
	}
	return fmt.Sprintf("shrunk to %d lines:\n%s\n%s", len(lines), strings.Join(lines, "\n"), failure)
}
