package cost

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Contiguous runs in order, the first len%threads one longer; fewer than
// one thread is one.
func TestSplitInOrder(t *testing.T) {
	require.Equal(t, [][]int{{0, 1, 2}, {3, 4}, {5, 6}}, SplitInOrder([]int{0, 1, 2, 3, 4, 5, 6}, 3))
	require.Equal(t, [][]int{{0}, {1}, {}, {}}, SplitInOrder([]int{0, 1}, 4))
	require.Equal(t, [][]int{{0, 1}}, SplitInOrder([]int{0, 1}, 0))
}
