package ipbatch

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The steal share is the eighth field's growth over the first eight's;
// guest time (inside user time already) is not counted twice.
func TestStealText(t *testing.T) {
	a := parseCPUTimes("cpu  100 0 100 700 0 0 0 100 50 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n")
	b := parseCPUTimes("cpu  200 0 200 1400 0 0 0 200 90 0\n")
	require.Len(t, a, 10)
	require.Equal(t, "steal 10.0% of CPU time", StealText(a, b))
	require.Empty(t, StealText(nil, b))
	require.Empty(t, StealText(a, a))
	require.Nil(t, parseCPUTimes("intr 1 2 3\n"))
	require.Nil(t, parseCPUTimes("cpu 1 2 x 4 5 6 7 8\n"))
}
