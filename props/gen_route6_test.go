package props

import (
	"math/rand/v2"
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
