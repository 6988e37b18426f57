package props

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/internal/differ"
	"github.com/rtnlsim/rtnlsim/script"
)

// TestSimNetnsMatchKernel is the differential property of namespaces a
// script names (sim/netns_move.go): random scripts that move veth ends,
// an ifb and a bridge port between the target's namespace and two named
// ones (and back, and within one), refused moves (lo, a bridge, a name
// the target namespace has, a namespace that does not exist, a device
// that left), delete and remake the named ones (cleanup_net takes their
// devices and veth peers elsewhere), make devices in the named ones (there, with `netns`, and
// veth peers across), and configure the devices where they are (up,
// down, addresses, routes, rules, mtu, renames, deletes, which take a
// veth's peer in another namespace with them), run with `rtnlsim diff`'s
// comparison (differ.Run; IPv6 off in the target's namespace, on in the
// named ones, as `ip netns add` makes them): every line's errno, the
// links, addresses, routes and rules of every namespace, and the
// notifications of every namespace, request by request. TestNetnsScriptGenTakesEveryBranch
// checks the generator. RTNLSIM_SIM_NETNS_BATCHES sets the number of
// batches.
func TestSimNetnsMatchKernel(t *testing.T) {
	diffProperty(t, "sim and kernel agree on errnos, every namespace's state and notifications", "RTNLSIM_SIM_NETNS_BATCHES", 8, netnsScriptGen(8, 24),
		"rtnlsim-netns-counterexample-*.ip", netnsCase)
}

// netnsPrologue makes two named namespaces and the devices that move.
var netnsPrologue = []string{
	"netns add c1", "netns add c2",
	"link add v0 type veth peer name v1", "link add v2 type veth peer name v3",
	"link add i0 type ifb", "link add br0 type bridge",
	"link set v0 up", "link set br0 up", "addr add 10.0.0.1/24 dev v0",
}

// The generator's pools, by branch.
var netnsPools = []struct {
	branch string
	weight int // out of the pools' sum
	lines  []string
}{
	{"move", 6, []string{"link set v1 netns c1", "link set v1 netns c1", "link set v3 netns c1", "link set v3 netns c2",
		"link set v2 netns c2", "link set i0 netns c1", "link set v0 netns c2", "-n c1 link set v1 netns c2",
		"-n c2 link set v3 netns c1", "-n c2 link set i0 netns c1", "-n c1 link set v1 netns c1",
		"netns exec c1 ip link set i0 netns c2"}},
	{"refused move", 2, []string{"link set lo netns c1", "link set br0 netns c1", "link set i0 netns nosuch",
		"netns exec nosuch ip link set lo up", "netns add c1", "-n c1 link set lo netns c2"}},
	{"in namespace", 7, []string{"-n c1 link set v1 up", "-n c1 addr add 10.0.0.2/24 dev v1",
		"-n c1 route add default via 10.0.0.1", "-n c1 link set v3 up", "-n c2 link set v2 up",
		"-n c2 addr add 10.2.0.2/24 dev v2", "-n c1 rule add iif v1 table 100", "-n c1 link set lo up",
		"-n c1 link set v1 mtu 1400", "-n c1 link set v1 name eth0", "-n c1 link set eth0 name v1",
		"-n c1 link del v1", "-n c2 link set v3 down", "-n c2 link set v3 up", "netns exec c1 ip link set i0 up"}},
	{"here", 5, []string{"link set v2 master br0", "link set v2 up", "link set v0 down", "link set v0 up",
		"link del v0", "link del v2", "addr add 10.0.0.9/24 dev v1", "link set v1 up",
		"link property add dev v1 altname a1", "rule add iif v1 table 100", "link add v1 type ifb",
		"link add v3 type ifb", "link set v3 up"}},
	{"show", 2, []string{"-n c1 addr show", "-n c2 link show v2", "link show", "route show table all",
		"-n c1 rule show", "-n c1 -6 route show", "-n c2 addr show dev v3", "addr show v0"}},
	{"del", 1, []string{"netns del c1", "netns del c2", "netns add c2", "netns add c1"}},
	{"made elsewhere", 4, []string{"-n c1 link add i5 type ifb", "-n c1 link set i5 up", "link add i7 netns c2 type ifb",
		"link add v5 type veth peer name v6 netns c2", "link set v5 up", "-n c2 link set v6 up",
		"-n c1 link add v7 type veth peer name v8 netns c2", "-n c2 link set v8 netns c1", "-n c1 link del v7"}},
}

// netnsGenLine is one line from a pool drawn by weight; hit names the
// branch.
func netnsGenLine(r *rand.Rand, hit func(string)) string {
	total := 0
	for _, p := range netnsPools {
		total += p.weight
	}
	n := r.IntN(total)
	for _, p := range netnsPools {
		if n < p.weight {
			hit(p.branch)
			return pick(r, p.lines)
		}
		n -= p.weight
	}
	panic("unreachable")
}

func netnsScriptGen(minLen, maxLen int) gopter.Gen {
	return lineScriptGen(netnsPrologue, minLen, maxLen, 11, netnsGenLine)
}

// TestNetnsScriptGenTakesEveryBranch draws lines and requires every
// branch and every line of the pools to come up, and each to parse.
func TestNetnsScriptGenTakesEveryBranch(t *testing.T) {
	hits, lines := drawLines(t, 5, 5000, netnsGenLine)
	for _, p := range netnsPools {
		require.Positive(t, hits[p.branch], "branch %q never taken", p.branch)
		for _, l := range p.lines {
			require.True(t, lines[l], "line %q never drawn", l)
			_, err := script.ParseString(l + "\n")
			require.NoError(t, err, "pool line %q does not parse", l)
		}
	}
}

// netnsCase runs one script as `rtnlsim diff` does; "" when the model
// and the kernel agree.
func netnsCase(lines []string, seen map[string]int, mu *sync.Mutex) string {
	_, out, fail, msg := diffScript(lines, differ.What{Links: true, Addrs: true, Routes: true, Rules: true, Events: true})
	if msg != "" {
		return msg
	}
	mu.Lock()
	for _, e := range out.Kernel.Errors {
		seen[e.Errno]++
	}
	for _, ns := range out.Kernel.Netns {
		seen[fmt.Sprintf("%s has %d links", ns.Name, len(ns.Links))]++
	}
	mu.Unlock()
	if out.Diff != "" {
		return fail(out.Diff)
	}
	return ""
}
