package props

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/rtnlsim/rtnlsim/internal/differ"
	"github.com/rtnlsim/rtnlsim/internal/testseed"
	"github.com/rtnlsim/rtnlsim/script"
	"github.com/rtnlsim/rtnlsim/sim"
)

// TestSimLinksMatchKernel is the differential property of the sim target's
// link model: random scripts of link requests (ifb, veth, bridge, macvlan,
// vxlan; add with index, mtu, address, group, up, master, interface flags,
// broadcast, alias and carrier; set up/down, mtu, group, master/nomaster,
// address, txqlen, name, the interface flags (promisc, allmulticast,
// multicast, arp), alias, broadcast, carrier, and the group form;
// alternative names added and deleted, and devices named by them; bridge
// options on add and on set type bridge, and br0 under STP from the start
// in a third of the scripts; del by name, group and list; the
// promote_secondaries sysctl) run on a fresh sim
// target and a fresh kernel target, and must give the same errno for every
// line and the same links: ifindex, name, flags, operstate, mtu, group,
// master, link, qdisc, txqlen, link type, broadcast, alias, altnames, dump order, and MAC
// addresses by their rules (the kernel's random picks renamed to the
// model's: differ.Run). dummy is left out:
// this kernel has no dummy module. Scripts have 8 to 28 lines after their
// prologue; half start from a running topology (two bridges with ports,
// macvlans, everything up), the others from bare devices; TestLinkScriptGenTakesEveryBranch checks that every
// branch of the generators is taken. A third of the scripts keep IPv6 on
// (arIPv6Prologue) and compare everything: then the link-local addresses
// and IPv6 routes of every kind of device, as ups, downs, carrier changes
// (veth peers, bridge ports, macvlan lowers), mtus across 1280 and
// deletions make and take them, with their notifications.
//
// `link del list` is no kernel request: on the kernel target it is the
// project's emulation, one RTM_DELLINK per device after every name is
// resolved (kernel/apply.go), and the sim does the same. So a list line
// holds the model to what the kernel does with each of those RTM_DELLINKs;
// that an unknown name refuses the line whole and that devices already
// gone are skipped is the emulation agreeing with itself.
//
// Each gopter case is a batch of scripts run on kernel targets in parallel
// goroutines (each has its own namespace), because the wait for the
// kernel's deferred linkwatch work dominates. A failure names the shrunk
// script, which `rtnlsim diff FILE` replays.
// RTNLSIM_SIM_LINKS_BATCHES sets the number of batches,
// RTNLSIM_SIM_LINKS_MAXLEN the longest script (28 lines after the prologue).
func TestSimLinksMatchKernel(t *testing.T) {
	testseed.NeedKernel(t)
	batches := envInt(t, "RTNLSIM_SIM_LINKS_BATCHES", 48, 0)
	maxLen := envInt(t, "RTNLSIM_SIM_LINKS_MAXLEN", 28, 8)
	params := gopterParams(t, batches)
	// The property shrinks a failing script itself (shrinkLinkScript):
	// gopter's shrinking of a batch would rerun whole batches.
	params.MaxShrinkCount = 0
	props := gopter.NewProperties(params)
	var mu sync.Mutex
	seen := map[string]int{}
	scripts := 0
	props.Property("sim and kernel agree on errnos and links", prop.ForAll(func(batch [][]string) string {
		fails := runBatch(batch, func(lines []string) string { return simLinksCase(lines, seen, &mu) })
		mu.Lock()
		scripts += len(batch)
		mu.Unlock()
		for i, f := range fails {
			if f != "" {
				return shrinkLinkScript(batch[i], f, seen, &mu)
			}
		}
		return ""
	}, gen.SliceOfN(simLinksBatch, linkScriptGen(8, maxLen))))
	report(t, props)
	t.Logf("%d scripts run on both targets; requests and errnos seen: %v", scripts, seen)
	checkTimerLike(t, linksTimerLike.Load(), scripts)
}

// linksTimerLike counts TestSimLinksMatchKernel's scripts whose kernel
// runs outlasted the bridge forward delay three times and differed by
// that timer's notifications.
var linksTimerLike atomic.Int64

// checkTimerLike says how many of scripts could not be compared because
// the kernel runs outlasted the bridge forward delay (differ.TimerLike),
// and fails when that is more than a quarter: then the machine is too
// loaded for the property to say anything.
func checkTimerLike(t *testing.T, n int64, scripts int) {
	t.Helper()
	if n == 0 {
		return
	}
	t.Logf("%d of %d scripts not compared: their kernel runs outlasted the bridge forward delay three times and differed by that timer's notifications", n, scripts)
	if 4*n > int64(scripts) {
		t.Errorf("%d of %d scripts could not be compared (kernel runs slower than the bridge forward delay): the machine is too loaded", n, scripts)
	}
}

// simLinksBatch is how many scripts one gopter case runs in parallel.
const simLinksBatch = 16

// The generated scripts use small pools of names so that requests meet.
var (
	simDevs    = []string{"lo", "i0", "i0", "i1", "i1", "i2", "v0", "v0", "v1", "v1", "v2", "v3", "veth0", "br0", "br0", "br1", "mv0", "mv0", "mv1", "vx0", "vx0", "vx1", "nope"}
	simMasters = []string{"br0", "br0", "br1", "i0", "v0", "mv0", "nope"}
	simMTUs    = []string{"0", "67", "68", "1300", "1400", "1500", "9000", "65535", "70000"}
	simAddrs   = []string{"02:00:00:00:00:42", "02:00:00:00:00:43", "00:00:00:00:00:00", "01:00:5e:00:00:01"}
	simLowers  = []string{"i0", "i0", "v0", "v1", "br0", "mv0", "vx0", "lo", "nope"}
)

func pick(r *rand.Rand, xs []string) string { return xs[r.IntN(len(xs))] }

// linkAddLine makes a `link add` line from r.
func linkAddLine(r *rand.Rand) string {
	var name, kindPart, pre string
	switch r.IntN(12) {
	case 0, 1:
		hit("add ifb")
		name, kindPart = pick(r, []string{"i0", "i1", "i2"}), "type ifb"
	case 2:
		hit("add veth v0 v1")
		name, kindPart = "v0", "type veth peer name v1"
	case 3:
		hit("add veth v2 v3")
		name, kindPart = "v2", "type veth peer name v3"
		if r.IntN(2) == 0 {
			// the peer's own attributes (VETH_INFO_PEER)
			hit("add veth peer options")
			kindPart += " " + pick(r, []string{"mtu 1400", "mtu 60", "mtu 9000", "address " + pick(r, simAddrs),
				"txqueuelen 50", "group 7", "mtu 1300 txqueuelen 0"})
		}
	case 4:
		hit("add veth unnamed peer")
		name, kindPart = pick(r, []string{"v2", "v1"}), "type veth"
	case 5, 6:
		hit("add bridge")
		name, kindPart = pick(r, []string{"br0", "br1"}), "type bridge"
		if r.IntN(2) == 0 {
			hit("add bridge options")
			kindPart += " " + bridgeOpts(r)
		}
	case 7, 8:
		hit("add macvlan")
		name = pick(r, []string{"mv0", "mv1"})
		pre = " link " + pick(r, simLowers)
		kindPart = "type macvlan" + pick(r, []string{"", " mode bridge", " mode private", " mode vepa", " mode passthru", " mode source"})
	case 9:
		hit("add vxlan")
		name, kindPart = pick(r, []string{"vx0", "vx1"}), "type vxlan id "+pick(r, []string{"42", "42", "7"})+pick(r, []string{"", " dstport 4789"})
		if r.IntN(2) == 0 {
			// on a lower (its mtu less 50, deleted with it), with
			// endpoints, a ttl, no learning
			hit("add vxlan options")
			kindPart += pick(r, []string{" dev " + pick(r, simLowers), " dev " + pick(r, simLowers) + " group 239.1.1.1",
				" local 10.0.0.1 remote 10.9.0.2", " dev " + pick(r, simLowers) + " ttl 64 nolearning", " dev nope"})
		}
	case 10:
		hit("add veth peer of its own name")
		name, kindPart = "v0", "type veth peer name v0"
	default:
		hit("add ifb on another kind's name")
		name, kindPart = pick(r, []string{"i0", "br0", "v0"}), "type ifb"
	}
	var opts []string
	if r.IntN(6) == 0 {
		hit("add with index")
		opts = append(opts, "index "+pick(r, []string{"2", "5", "9", "10", "12", "40"}))
	}
	if r.IntN(6) == 0 {
		hit("add with mtu")
		opts = append(opts, "mtu "+pick(r, []string{"60", "1400", "1500", "9000"}))
	}
	if r.IntN(8) == 0 {
		hit("add with address")
		opts = append(opts, "address "+pick(r, simAddrs))
	}
	if r.IntN(6) == 0 {
		hit("add with group")
		opts = append(opts, "group "+pick(r, []string{"7", "8"}))
	}
	if r.IntN(3) == 0 {
		hit("add with up")
		opts = append(opts, "up")
	}
	if r.IntN(6) == 0 {
		hit("add with master")
		opts = append(opts, "master "+pick(r, simMasters))
	}
	if r.IntN(6) == 0 {
		hit("add with flags")
		opts = append(opts, linkFlagOpts(r, false))
	}
	if r.IntN(10) == 0 {
		// rtnl_create_link takes the broadcast address and ignores an
		// alias and a carrier.
		hit("add with broadcast, alias, carrier")
		opts = append(opts, pick(r, []string{"broadcast 11:22:33:44:55:66", "broadcast 00:11", "alias a1", "carrier off"}))
	}
	o := ""
	if len(opts) > 0 {
		o = " " + strings.Join(opts, " ")
	}
	return fmt.Sprintf("link add %s%s%s %s", name, o, pre, kindPart)
}

// simBridgeOpts are the bridge options a line draws, with values at and
// past the kernel's bounds (hello_time 100..1000, max_age 600..4000,
// forward_delay 200..3000 under STP: ERANGE) and none that the model
// refuses (a forward delay under a second without STP, whose timer
// fires within a run). vlan_filtering is EOPNOTSUPP on this kernel
// (built without CONFIG_BRIDGE_VLAN_FILTERING), whatever its value.
var simBridgeOpts = []struct {
	kw   string
	vals []string
}{
	{"stp_state", []string{"0", "1", "1", "2"}},
	{"forward_delay", []string{"0", "0", "1500", "3000", "199", "200", "3001"}},
	{"hello_time", []string{"99", "100", "200", "1000", "1001"}},
	{"max_age", []string{"599", "600", "2000", "4000", "4001"}},
	{"ageing_time", []string{"0", "30000", "4294967295"}},
	{"priority", []string{"0", "32768", "65535"}},
	{"vlan_filtering", []string{"0", "1"}},
	{"vlan_default_pvid", []string{"0", "1", "4095"}},
	{"mcast_snooping", []string{"0", "1"}},
}

// bridgeOpts is one to three bridge options; the kernel applies them in
// br_changelink's order, and the ones before a failing one stay.
func bridgeOpts(r *rand.Rand) string {
	var o []string
	for range 1 + r.IntN(3) {
		b := simBridgeOpts[r.IntN(len(simBridgeOpts))]
		opt := b.kw + " " + pick(r, b.vals)
		hit("bridge option " + opt)
		o = append(o, opt)
	}
	return strings.Join(o, " ")
}

// simAltNames are alternative names: two of their own, a long one, and
// names devices have or may take (EEXIST, and the name templates count
// them).
var simAltNames = []string{"a0", "a0", "a1", "a1", "an-alternative-name-longer-than-15", "i0", "i2", "v3", "br1", "vx1"}

// linkFlagOpts is one to three of the interface flags iplink_parse takes
// (promisc, allmulticast, multicast, arp), on or off, and up or down
// with them at times when upDown: __dev_change_flags applies them in one
// call.
func linkFlagOpts(r *rand.Rand, upDown bool) string {
	var o []string
	for range 1 + r.IntN(3) {
		o = append(o, pick(r, []string{"promisc", "allmulticast", "multicast", "arp"})+" "+pick(r, []string{"on", "off"}))
	}
	if upDown && r.IntN(4) == 0 {
		o = append(o, pick(r, []string{"up", "down"}))
	}
	return strings.Join(o, " ")
}

// linkOtherLine makes a set, delete or sysctl line from r.
func linkOtherLine(r *rand.Rand) string {
	dev := pick(r, simDevs)
	notLo := func() string {
		for {
			if d := pick(r, simDevs); d != "lo" {
				return d
			}
		}
	}
	switch r.IntN(30) {
	case 28, 29:
		// br_changelink before do_setlink, up or down with it at times;
		// on another kind EOPNOTSUPP.
		hit("set bridge options")
		br := pick(r, []string{"br0", "br0", "br1", "i0", "nope"})
		if br != "br0" && br != "br1" {
			hit("set bridge options on another kind")
		}
		return fmt.Sprintf("link set %s%s type bridge %s", br, pick(r, []string{"", "", " up", " down"}), bridgeOpts(r))
	case 0, 1, 2, 3:
		hit("set up")
		return fmt.Sprintf("link set %s up", dev)
	case 4, 5:
		hit("set down")
		return fmt.Sprintf("link set %s down", dev)
	case 6, 7:
		hit("set mtu")
		return fmt.Sprintf("link set %s mtu %s", notLo(), pick(r, simMTUs))
	case 8:
		hit("set group")
		return fmt.Sprintf("link set %s group %s", dev, pick(r, []string{"0", "7", "8"}))
	case 9, 10, 11:
		hit("set master")
		return fmt.Sprintf("link set %s master %s", dev, pick(r, simMasters))
	case 12:
		hit("set nomaster")
		return fmt.Sprintf("link set %s nomaster", dev)
	case 13:
		hit("set address")
		return fmt.Sprintf("link set %s address %s", notLo(), pick(r, simAddrs))
	case 14:
		hit("set txqlen")
		return fmt.Sprintf("link set %s txqlen %s", dev, pick(r, []string{"0", "5", "1000"}))
	case 15:
		hit("set name")
		return pick(r, []string{"link set i0 name i2", "link set i2 name i0", "link set v1 name v3", "link set br1 name br0", "link set mv0 name mv1", "link set i1 name i1"})
	case 16:
		hit("group form")
		return pick(r, []string{"link set group 7 up", "link set group 7 down", "link set group 7 mtu 1400", "link set group 8 master br0", "link set group 0 up", "link set group 8 nomaster"})
	case 17, 18:
		hit("del")
		return fmt.Sprintf("link del %s", dev)
	case 19:
		hit("del group")
		return fmt.Sprintf("link del group %s", pick(r, []string{"0", "7", "8"}))
	case 20:
		hit("del list")
		n := 1 + r.IntN(3)
		var devs []string
		for range n {
			devs = append(devs, pick(r, simDevs[1:]))
		}
		return "link del list " + strings.Join(devs, " ")
	case 22, 23:
		hit("set flags")
		return fmt.Sprintf("link set %s %s", dev, linkFlagOpts(r, true))
	case 24:
		hit("set alias")
		return fmt.Sprintf("link set %s alias %s", dev, pick(r, []string{"uplink", "'port 1'", `""`, "uplink"}))
	case 25:
		if r.IntN(3) == 0 {
			hit("set carrier")
			return fmt.Sprintf("link set %s carrier %s", dev, pick(r, []string{"on", "off"}))
		}
		hit("set broadcast")
		return fmt.Sprintf("link set %s broadcast %s", dev, pick(r, []string{"11:22:33:44:55:66", "ff:ff:ff:ff:ff:ff", "00:11", "01:02:03:04:05:06:07"}))
	case 26:
		hit("altname")
		verb := pick(r, []string{"add", "add", "del"})
		line := fmt.Sprintf("link property %s dev %s", verb, dev)
		for range 1 + r.IntN(2) {
			line += " altname " + pick(r, simAltNames)
		}
		return line
	case 27:
		// A line naming a device by an alternative name (the kernel
		// resolves IFLA_IFNAME through them; so does ip).
		hit("by altname")
		return pick(r, []string{"link set a0 up", "link set a1 mtu 1400", "link del a0", "link set a1 name i3",
			"link set a0 master br0", "link add a1 type ifb"})
	default:
		if r.IntN(2) == 0 {
			// Keys the model stores and nothing it shows depends on:
			// the errno (ENOENT without the device or its IPv4) and
			// that nothing else changes.
			hit("sysctl other keys")
			if r.IntN(4) == 0 {
				return "sysctl net.ipv4.ip_forward=" + pick(r, []string{"0", "1"})
			}
			return fmt.Sprintf("sysctl net.ipv4.conf.%s.%s=%s", pick(r, []string{"i0", "v0", "br0", "mv0", "all", "default", "nope"}),
				pick(r, []string{"forwarding", "rp_filter", "arp_ignore", "arp_announce", "proxy_arp"}), pick(r, []string{"0", "1", "2"}))
		}
		hit("sysctl promote_secondaries")
		return fmt.Sprintf("sysctl net.ipv4.conf.%s.promote_secondaries=1", pick(r, []string{"i0", "v0", "br0", "mv0", "all", "default", "nope"}))
	}
}

// linkScriptGen makes scripts as line slices (so that a failure shrinks
// by removing lines): a prologue, then minLen..maxLen lines. Each choice
// is its own generator: the length, whether the script starts from a
// running topology (half of them), whether it keeps IPv6 on (a third),
// whether br0 starts under STP (a third).
func linkScriptGen(minLen, maxLen int) gopter.Gen {
	line := gen.UInt64().Map(func(v uint64) string {
		r := rand.New(rand.NewPCG(v, v>>7))
		if r.IntN(5) < 2 {
			return linkAddLine(r)
		}
		return linkOtherLine(r)
	})
	body := gen.IntRange(minLen, maxLen).FlatMap(func(n any) gopter.Gen {
		return gen.SliceOfN(n.(int), line)
	}, reflect.TypeOf([]string(nil)))
	return gopter.CombineGens(gen.Bool(), gen.IntRange(0, 2), body, gen.IntRange(0, 2)).Map(func(v []any) []string {
		running, ipv6, l, stp := v[0].(bool), v[1].(int) == 0, v[2].([]string), v[3].(int) == 0
		br0 := "link add br0 type bridge"
		if stp {
			// br0 under STP from the start: its ports listen, so it
			// has no carrier; timers of 30 s and 10 s stay out of the
			// run.
			hit("STP prologue")
			br0 += " stp_state 1 forward_delay 3000 hello_time 1000"
		} else {
			hit("no STP prologue")
		}
		prologue := []string{"link add i0 type ifb", "link add i1 type ifb", "link add v0 type veth peer name v1",
			br0, "link add mv0 link v0 type macvlan", "link add vx0 type vxlan id 42"}
		if running {
			// Start from a running topology: two bridges with
			// ports, macvlans, everything up.
			hit("running topology")
			prologue = append(prologue, "link add v2 type veth peer name v3", "link add br1 type bridge",
				"link set v1 master br0", "link set i0 master br0", "link set v3 master br1", "link set vx0 master br1",
				"link add mv1 link i1 type macvlan", "link set group 0 up")
		} else {
			hit("bare topology")
		}
		if ipv6 {
			// Keep IPv6 on (simLinksCase compares it all).
			hit("IPv6 on")
			prologue = append(slices.Clone(arIPv6Prologue), prologue...)
		} else {
			hit("IPv6 off")
		}
		if bodyLengths != nil {
			bodyLengths[len(l)]++
		}
		switch len(l) {
		case minLen:
			hit("shortest body")
		case maxLen:
			hit("longest body")
		}
		return append(prologue, l...)
	})
}

// linkGenBranches are the branches of the generators above, each of which
// TestLinkScriptGenTakesEveryBranch wants taken.
var linkGenBranches = []string{
	"add ifb", "add veth v0 v1", "add veth v2 v3", "add veth peer options", "add veth unnamed peer", "add bridge", "add macvlan", "add vxlan", "add vxlan options",
	"add bridge options", "set bridge options", "set bridge options on another kind",
	"add veth peer of its own name", "add ifb on another kind's name",
	"add with index", "add with mtu", "add with address", "add with group", "add with up", "add with master",
	"add with flags", "add with broadcast, alias, carrier",
	"set up", "set down", "set mtu", "set group", "set master", "set nomaster", "set address", "set txqlen", "set name",
	"set flags", "set alias", "set carrier", "set broadcast", "altname", "by altname",
	"group form", "del", "del group", "del list", "sysctl promote_secondaries", "sysctl other keys",
	"running topology", "bare topology", "IPv6 on", "IPv6 off", "STP prologue", "no STP prologue", "shortest body", "longest body",
}

// Every value of every bridge option is a branch of its own.
func init() {
	for _, b := range simBridgeOpts {
		for _, v := range b.vals {
			if o := "bridge option " + b.kw + " " + v; !slices.Contains(linkGenBranches, o) {
				linkGenBranches = append(linkGenBranches, o)
			}
		}
	}
}

// branchHits counts the generator branches taken, and bodyLengths the
// lengths of the scripts' bodies, while they are set (by
// TestLinkScriptGenTakesEveryBranch only; generation is single-threaded).
var (
	branchHits  map[string]int
	bodyLengths map[int]int
)

func hit(branch string) {
	if branchHits != nil {
		branchHits[branch]++
	}
}

// shrinkLinkScript removes the lines of a failing script one at a time,
// last first, keeping each removal after which the script still fails, and
// returns the last failure, which holds the shrunk script.
func shrinkLinkScript(lines []string, failure string, seen map[string]int, mu *sync.Mutex) string {
	lines, failure = shrinkLines(lines, failure, func(try []string) string { return simLinksCase(try, seen, mu) })
	if file := writeScript("rtnlsim-counterexample-*.ip", lines); file != "" {
		flag := ""
		if arIPv6(lines) {
			flag = "--ipv6 "
		}
		failure += "\nthe script is in " + file + ": rtnlsim diff " + flag + file
	}
	return "shrunk: " + failure
}

// simLinksIPv6 is how a script that keeps IPv6 on compares: everything,
// the notifications of every family included.
var simLinksIPv6 = differ.What{Links: true, Addrs: true, Routes: true, FibTrie: true, Events: true, IPv6: true}

// simLinksCase runs one script on both targets; "" when they agree,
// otherwise the difference and the script.
func simLinksCase(lines []string, seen map[string]int, mu *sync.Mutex) string {
	src := strings.Join(lines, "\n") + "\n"
	fail := func(msg string) string {
		return fmt.Sprintf("%s\nscript (replay: rtnlsim diff FILE):\n%s", msg, src)
	}
	reqs, err := script.ParseString(src)
	if err != nil {
		return fail("generated script does not parse: " + err.Error())
	}
	compare := func() (differ.Outcome, error) {
		if arIPv6(lines) {
			return differ.Run(context.Background(), reqs, sim.Options{Seed: 1}, simLinksIPv6)
		}
		return differ.Links(context.Background(), reqs, sim.Options{Seed: 1})
	}
	out, err := compare()
	// A kernel run slower than the bridge forward delay may hold that
	// timer's notifications, which the model cannot have: run it again.
	for try := 0; err == nil && out.Diff != "" && out.TooSlow() && try < 2; try++ {
		out, err = compare()
	}
	if err != nil {
		return fail(err.Error())
	}
	if out.Diff != "" && out.TimerLike() {
		// A loaded machine: the case compares nothing (the test counts
		// these and fails when they are too many).
		linksTimerLike.Add(1)
		return ""
	}
	if out.Diff != "" && out.TooSlow() {
		return fail(fmt.Sprintf("%s\n(the kernel run took %v, longer than the bridge forward delay, three times)", out.Diff, out.KernelWall))
	}
	kRes := out.Kernel
	mu.Lock()
	for _, r := range reqs {
		seen[r.Op.Verb()]++
	}
	for _, e := range kRes.Errors {
		seen[e.Errno]++
	}
	for _, e := range differ.LinkFamilies(kRes.Events) {
		seen[e.Type+" "+e.Family]++
	}
	for _, l := range kRes.Links {
		seen["state "+l.Operstate]++
		for _, f := range l.Flags {
			if f == "NO-CARRIER" || f == "M-DOWN" {
				seen[f]++
			}
		}
		if l.Master != "" {
			seen["port"]++
		}
		if l.Qdisc != "noop" {
			seen["qdisc "+l.Qdisc]++
		}
	}
	mu.Unlock()
	if out.Diff != "" {
		return fail(out.Diff)
	}
	return ""
}

// TestSimLinksReplay runs the script named by RTNLSIM_SIM_LINKS_SCRIPT on
// both targets and compares them as TestSimLinksMatchKernel does (skipped
// without it): the way to replay a shrunk counterexample with the kernel's
// linkwatch given time to settle.
func TestSimLinksReplay(t *testing.T) {
	lines := replayLines(t, "RTNLSIM_SIM_LINKS_SCRIPT")
	var mu sync.Mutex
	if f := simLinksCase(lines, map[string]int{}, &mu); f != "" {
		t.Fatal(f)
	}
}

// TestLinkScriptGenTakesEveryBranch generates, from a fixed seed, as many
// scripts as TestSimLinksMatchKernel runs by default (48 batches of 16),
// and fails when a branch of its generators (linkGenBranches) is never
// taken, or a branch is taken that the list does not name. It needs no
// kernel. It logs the length distribution and the IPv6 fraction.
func TestLinkScriptGenTakesEveryBranch(t *testing.T) {
	branchHits, bodyLengths = map[string]int{}, map[int]int{}
	defer func() { branchHits, bodyLengths = nil, nil }()
	const scripts, minLen, maxLen = 48 * simLinksBatch, 8, 28
	g := linkScriptGen(minLen, maxLen)
	p := gopter.DefaultGenParameters().WithSize(100)
	p.Rng.Seed(20261130)
	lengths := bodyLengths
	ipv6 := 0
	for range scripts {
		res := g(p)
		v, ok := res.Retrieve()
		if !ok {
			t.Fatal("the generator gave no script")
		}
		lines := v.([]string)
		if _, err := script.ParseString(strings.Join(lines, "\n") + "\n"); err != nil {
			t.Fatalf("generated script does not parse: %v", err)
		}
		if arIPv6(lines) {
			ipv6++
		}
	}
	for _, b := range linkGenBranches {
		if branchHits[b] == 0 {
			t.Errorf("branch %q never taken in %d scripts", b, scripts)
		}
	}
	for b := range branchHits {
		if !slices.Contains(linkGenBranches, b) {
			t.Errorf("branch %q taken but not in linkGenBranches", b)
		}
	}
	if len(lengths) != maxLen-minLen+1 {
		t.Errorf("%d body lengths of %d..%d seen: %v", len(lengths), minLen, maxLen, lengths)
	}
	if ipv6 < scripts/4 || ipv6 > scripts*5/12 {
		t.Errorf("%d of %d scripts keep IPv6 on, not about a third", ipv6, scripts)
	}
	t.Logf("%d scripts: IPv6 on in %d; body lengths %v; branch hits %v", scripts, ipv6, lengths, branchHits)
}
