package cost

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The cost model page names every step and what it counts: a step added
// to the model without a line there fails here.
func TestCostModelPageNamesEveryStep(t *testing.T) {
	b, err := os.ReadFile("../docs/cost-model.md")
	require.NoError(t, err)
	page := string(b)
	for _, s := range Steps() {
		require.Contains(t, page, "| `"+s.String()+"` |", "docs/cost-model.md has no row for step %s", s)
	}
	require.True(t, strings.Contains(page, "rcu_barrier_share_window"), "docs/cost-model.md does not explain the sharing window")
}
