//go:build linux

package kernel

import "encoding/binary"

// Netlink speaks the host's byte order.
var nativeEndian = binary.NativeEndian
