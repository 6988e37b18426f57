package gcpace

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSetPacesUnlessTheUserDid(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	oldLimit := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(oldLimit)

	Set()
	require.Equal(t, Percent, debug.SetGCPercent(100))
	require.Equal(t, int64(SoftLimit), debug.SetMemoryLimit(1<<62))

	t.Setenv("GOGC", "100")
	Set()
	require.Equal(t, 100, debug.SetGCPercent(100), "GOGC set by the user is kept")
}
