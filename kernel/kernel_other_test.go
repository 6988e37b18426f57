//go:build !linux

package kernel

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNewNeedsLinux(t *testing.T) {
	_, err := New(Options{})
	require.EqualError(t, err, "the kernel target needs Linux: it runs requests in a network namespace of the running kernel (this is "+runtime.GOOS+")")
}
