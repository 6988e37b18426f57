package props

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/leanovate/gopter"

	"github.com/rtnlsim/rtnlsim/internal/differ"
	"github.com/rtnlsim/rtnlsim/rtnl"
)

// TestSimRulesMatchKernel is the differential property of policy routing
// rules (sim/rules.go): random scripts of IPv4 and IPv6 `rule add`, `rule
// del` and `rule flush` (priorities given and left to the kernel, every
// selector the language has, table, goto, nop and reject actions, bad tos
// values, wrong address families, backward gotos, duplicates, deletes by
// one selector), mixed with route adds whose gateway check goes through
// the rules, devices renamed, deleted and made again under the names the
// rules hold (and an alternative name), run with `rtnlsim diff`'s
// comparison (differ.Run, IPv6 off): every line's errno, the rules of both
// families, the routes, /proc/net/fib_trie (the first rule splits the
// local table from main) and every notification, request by request.
// TestRuleScriptGenTakesEveryBranch checks the generator's branches.
// A failure is shrunk and written to a file that `rtnlsim diff` replays.
// RTNLSIM_SIM_RULES_BATCHES sets the number of batches.
func TestSimRulesMatchKernel(t *testing.T) {
	diffProperty(t, "sim and kernel agree on errnos, rules, routes, fib_trie and notifications", "RTNLSIM_SIM_RULES_BATCHES", 24, ruleScriptGen(10, 26),
		"rtnlsim-rules-counterexample-*.ip", rulesCase, "rule add ok", "rule del ok", "detached", "unresolved")
}

// rulesPrologue makes the devices the rules and routes name, and turns
// forwarding on, so that route get with iif forwards.
var rulesPrologue = []string{
	"link add i0 type ifb", "link add i1 type ifb", "link set i0 up", "link set i1 up",
	"addr add 10.0.0.1/24 dev i0", "addr add 10.1.0.1/24 dev i1", "sysctl net.ipv4.ip_forward=1",
}

// Pools the rule lines draw from, so that requests meet.
var (
	rlPrefs   = []string{"100", "200", "200", "300", "500", "150", "0", "32765"}
	rlFrom4   = []string{"all", "10.0.0.0/8", "10.1.2.3/8", "10.0.0.2", "0.0.0.0/0", "2001:db8::/32"}
	rlTo4     = []string{"10.0.0.0/24", "10.5.0.0/16", "10.0.0.0/8", "10.5.0.0/16"}
	rlFrom6   = []string{"2001:db8::/32", "2001:db8::1/64", "all", "10.0.0.0/8"}
	rlTo6     = []string{"2001:db8:1::/48", "fe80::/10"}
	rlTos     = []string{"0x10", "0x10", "0x20", "0x03", "0x08"}
	rlMarks   = []string{"0x10", "0x10/0xff", "0", "0/0xff", "7"}
	rlDevs    = []string{"lo", "i0", "i1", "gone", "a0"}
	rlTables  = []string{"100", "100", "200", "main", "local", "0", "default"}
	rlActions = []string{"goto 200", "goto 300", "goto 150", "goto 50", "nop", "blackhole", "unreachable", "prohibit"}
	rlDels    = []string{"rule del pref 200", "rule del pref 100", "rule del table 100", "rule del from 10.0.0.0/8",
		"rule del fwmark 0x10", "rule del iif i0", "rule del goto 300", "rule del pref 300 goto 300",
		"rule del table main", "rule del pref 12345", "rule del from all", "rule del prohibit",
		"-6 rule del pref 200", "-6 rule del table 100", "rule del tos 0x10", "rule del pref 500 table 100"}
	rlRoutes = []string{"route add 10.5.0.0/16 via 10.0.0.2", "route add 10.6.0.0/16 via 10.1.0.2",
		"route add 10.6.0.0/16 via 10.0.0.2 table 100", "route add 10.0.0.0/24 dev i1 table 100",
		"route add blackhole 10.0.0.0/24 table 200", "route add default via 10.0.0.2",
		"route add 10.7.0.0/16 via 10.5.0.1", "route add 10.8.0.0/16 via 10.0.0.3 dev i0",
		"route add 10.9.0.0/16 via 10.1.0.7 table 200", "route del 10.5.0.0/16",
		"route add unreachable 10.0.0.0/25 table 100", "route add 10.5.0.0/16 dev i1 table 100",
		"rule show", "-6 rule show", "route show table 100",
		"route get 10.5.1.1", "route get 10.6.1.1 from 10.0.0.2", "route get 10.6.1.1 from 10.1.0.1",
		"route get 10.0.0.7 mark 0x10", "route get 10.0.0.7 tos 0x10", "route get 10.1.0.1",
		"route get 10.9.1.1 oif i0", "route get fibmatch 10.6.1.1 from 10.0.0.1", "route get 8.8.8.8 mark 7",
		"route get 10.0.0.9 from 10.0.0.1 tos 0x20", "route get 10.7.1.1 oif i1",
		// IPv6 is off: what a -6 route get meets is the rules' actions
		"-6 route get 2001:db8:1::5", "-6 route get 2001:db8:1::5 from 2001:db8::1 mark 0x10",
		"-6 route get fe80::1 tos 0x10 oif i0",
		"route get 10.5.1.1 from 10.1.0.7 iif i1", "route get 10.6.1.1 from 10.0.0.7 iif i0",
		"route get 10.0.0.1 from 10.1.0.7 iif i1 mark 0x10", "route get 10.0.0.7 from 10.5.0.9 iif i1 tos 0x10",
		"route get fibmatch 10.9.1.1 from 10.1.0.7 iif i1", "route get 10.1.0.1 from 10.0.0.2 iif lo",
		"route get 10.0.0.9 from 10.0.0.2 iif i1", "route get 10.9.1.1 from 10.1.0.7 iif i0",
		"route get 10.5.1.1 from 10.0.0.7 iif i0", "route get 10.0.0.9 from 10.1.0.7 iif lo",
		"sysctl net.ipv4.conf.i1.forwarding=0"}
	rlLinks = []string{"link set i0 name i9", "link set i9 name i0", "link del i1", "link add i1 type ifb",
		"link set i1 up", "addr add 10.1.0.1/24 dev i1", "link property add dev i0 altname a0",
		"link add gone type ifb", "link del gone", "addr add 10.0.0.2/24 dev i0"}
)

// ruleGenLine is one rule add line (IPv4 or IPv6) from r, or a delete, a
// flush, a route or a link line; it calls hit with the branch it took.
func ruleGenLine(r *rand.Rand, hit func(string)) string {
	chance := func(n int) bool { return r.IntN(n) == 0 }
	switch n := r.IntN(20); {
	case n < 10:
	case n < 13:
		hit("del")
		return pick(r, rlDels)
	case n < 14:
		if chance(2) {
			hit("flush v6")
			return "-6 rule flush"
		}
		hit("flush")
		return "rule flush"
	case n < 17:
		hit("route")
		return pick(r, rlRoutes)
	default:
		hit("link")
		return pick(r, rlLinks)
	}
	v6 := chance(4)
	parts := []string{"rule", "add"}
	if v6 {
		hit("add v6")
		parts = append([]string{"-6"}, parts...)
	} else {
		hit("add v4")
	}
	opt := func(name string, pool []string, odds int) {
		if chance(odds) {
			hit(name)
			parts = append(parts, name, pick(r, pool))
		}
	}
	if chance(6) {
		hit("not")
		parts = append(parts, "not")
	}
	opt("pref", rlPrefs, 2)
	if v6 {
		opt("from", rlFrom6, 2)
		opt("to", rlTo6, 4)
	} else {
		opt("from", rlFrom4, 3)
		opt("to", rlTo4, 3)
	}
	opt("tos", rlTos, 6)
	opt("fwmark", rlMarks, 6)
	opt("iif", rlDevs, 5)
	opt("oif", rlDevs, 6)
	opt("table", rlTables, 2)
	opt("suppress_prefixlength", []string{"0", "8", "24"}, 8)
	opt("protocol", []string{"static", "kernel"}, 8)
	if chance(3) {
		hit("action")
		parts = append(parts, pick(r, rlActions))
	}
	if len(parts) == 2 || (v6 && len(parts) == 3) {
		hit("bare")
		parts = append(parts, "table", "100")
	}
	return strings.Join(parts, " ")
}

// ruleGenBranches are the branches TestRuleScriptGenTakesEveryBranch
// wants taken.
var ruleGenBranches = []string{"add v4", "add v6", "not", "pref", "from", "to", "tos", "fwmark", "iif", "oif",
	"table", "suppress_prefixlength", "protocol", "action", "bare", "del", "flush", "flush v6", "route", "link"}

func ruleScriptGen(minLen, maxLen int) gopter.Gen {
	return lineScriptGen(rulesPrologue, minLen, maxLen, 9, ruleGenLine)
}

// TestRuleScriptGenTakesEveryBranch draws lines and requires every
// branch of ruleGenLine, and every line of each pool, to come up.
func TestRuleScriptGenTakesEveryBranch(t *testing.T) {
	hits, lines := drawLines(t, 3, 20000, ruleGenLine)
	requireDrawn(t, hits, lines, ruleGenBranches, rlDels, rlRoutes, rlLinks)
}

// rulesCase runs one script as `rtnlsim diff` does; "" when the model
// and the kernel agree.
func rulesCase(lines []string, seen map[string]int, mu *sync.Mutex) string {
	reqs, out, fail, msg := diffScript(lines, differ.What{Routes: true, Rules: true, FibTrie: true, Events: true})
	if msg != "" {
		return msg
	}
	mu.Lock()
	refused := countRefused(out.Kernel.Errors, seen)
	for _, r := range reqs {
		if _, ok := r.Op.(rtnl.RuleAdd); ok && !refused[r.Line] {
			seen["rule add ok"]++
		}
		if _, ok := r.Op.(rtnl.RuleDel); ok && !refused[r.Line] {
			seen["rule del ok"]++
		}
	}
	for _, rl := range out.Kernel.Rules {
		if rl.IifDetached || rl.OifDetached {
			seen["detached"]++
		}
		if rl.Unresolved {
			seen["unresolved"]++
		}
	}
	mu.Unlock()
	if out.Diff != "" {
		return fail(out.Diff)
	}
	return ""
}
