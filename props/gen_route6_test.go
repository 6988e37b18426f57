package props

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rtnlsim/rtnlsim/script"
	"github.com/stretchr/testify/require"
)

// route6GenBranches are the branches of arRoute6Line that
// TestRoute6GenTakesEveryBranch wants taken.
var route6GenBranches = []string{
	"r6 add", "r6 replace", "r6 change", "r6 append", "r6 prepend", "r6 del",
	"r6 mp add", "r6 mp replace", "r6 mp change", "r6 mp append", "r6 mp prepend",
	"r6 mp 1 nexthops", "r6 mp 2 nexthops", "r6 mp 3 nexthops", "r6 mp odd nexthop", "r6 mp weight",
	"r6 mp del gateway", "r6 mp del dev", "r6 mp del list",
	"r6 get", "r6 get without -6", "r6 get to", "r6 get from", "r6 get oif", "r6 get tos", "r6 get mark", "r6 get fibmatch",
	"r6 src", "r6 src link-local", "r6 src odd", "r6 mp src",
	"r6 flush table", "r6 flush src", "r6 flush via", "r6 flush match", "r6 flush metric", "r6 flush tos", "r6 flush realms",
}

// TestRoute6GenTakesEveryBranch draws IPv6 route lines as the addresses
// property does and fails when a branch is never taken, one is taken that
// the list does not name, or a line does not parse.
func TestRoute6GenTakesEveryBranch(t *testing.T) {
	r6BranchHits = map[string]int{}
	defer func() { r6BranchHits = nil }()
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		line := arRoute6Line(r)
		_, err := script.ParseString(line + "\n")
		require.NoError(t, err, line)
	}
	for _, b := range route6GenBranches {
		require.Positive(t, r6BranchHits[b], "branch %q never taken", b)
	}
	for b := range r6BranchHits {
		require.Contains(t, route6GenBranches, b, "branch taken but not listed")
	}
}

// Pools of the IPv6 route get lines: the addresses, prefixes and anycast
// addresses arAddr6Line and arRoute6Line make (and their neighbours,
// inside 2001:db8::/96 and out of it), link-local, multicast of three
// scopes, ::1, :: and foreign destinations; sources local, foreign and
// unspecified; every device, and a missing one.
var (
	get6Dsts = []string{"2001:db8::1", "2001:db8::5", "2001:db8::1:0:5", "2001:db8::", "2001:db8:1::1", "2001:db8:1::9",
		"2001:db8:1::", "2001:db8:5::1", "2001:db8:6:1::1", "2001:db8:9::1", "fe80::1", "fe80::5", "ff02::1", "ff05::1",
		"ff0e::1", "::1", "::", "fd00::1"}
	get6Srcs = []string{"2001:db8::1", "2001:db8:1::1", "2001:db8:99::1", "fe80::1", "::"}
	get6Oifs = []string{"i0", "i0", "i1", "lo", "br0", "v0", "nope"}
)

// arRouteGet6Line makes a `-6 route get` line: a destination, and now
// and then a source, an output device, a tos, a mark, fibmatch.
func arRouteGet6Line(r *rand.Rand) string {
	chance := func(n int) bool { return r.IntN(n) == 0 }
	r6Hit("r6 get")
	parts := []string{"route", "get"}
	if chance(8) {
		// ip takes the family from the address
		r6Hit("r6 get without -6")
	} else {
		parts = append([]string{"-6"}, parts...)
	}
	if chance(8) {
		r6Hit("r6 get to")
		parts = append(parts, "to")
	}
	parts = append(parts, pick(r, get6Dsts))
	if chance(4) {
		r6Hit("r6 get from")
		parts = append(parts, "from", pick(r, get6Srcs))
	}
	if chance(3) {
		r6Hit("r6 get oif")
		parts = append(parts, "oif", pick(r, get6Oifs))
	}
	if chance(10) {
		r6Hit("r6 get tos")
		parts = append(parts, "tos", pick(r, []string{"0x10", "0x13"}))
	}
	if chance(8) {
		r6Hit("r6 get mark")
		parts = append(parts, "mark", "7")
	}
	if chance(5) {
		r6Hit("r6 get fibmatch")
		parts = append(parts, "fibmatch")
	}
	return strings.Join(parts, " ")
}
