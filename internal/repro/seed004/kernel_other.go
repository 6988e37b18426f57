//go:build !linux

package seed004

import (
	"context"
	"fmt"
	"runtime"
)

// errNeedsLinux is what the kernel measurements say on other systems: they
// make network namespaces and read them through rtnetlink sockets.
var errNeedsLinux = fmt.Errorf("seed 004's kernel measurement needs Linux: it reads other network namespaces of the running kernel (this is %s)", runtime.GOOS)

// Measure needs Linux.
func Measure(ctx context.Context, c Config) (Measurement, error) { return Measurement{}, errNeedsLinux }

// NonStrictCheck needs Linux.
func NonStrictCheck(ctx context.Context) (nonStrict, strict int, err error) {
	return 0, 0, errNeedsLinux
}
