//go:build !unix

package calib

import "runtime"

// kernelRelease: no uname here; calibrations measure Linux only.
func kernelRelease() string { return "unknown" }

// unameMachine is GOARCH where there is no uname.
func unameMachine() string { return runtime.GOARCH }
