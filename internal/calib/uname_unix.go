//go:build unix

package calib

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// kernelRelease is uname's release: the kernel a calibration measured.
func kernelRelease() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "unknown"
	}
	return unix.ByteSliceToString(u.Release[:])
}

// unameMachine is uname's machine (x86_64, aarch64), GOARCH if uname fails.
func unameMachine() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return runtime.GOARCH
	}
	return unix.ByteSliceToString(u.Machine[:])
}
