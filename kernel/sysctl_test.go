//go:build linux

package kernel

import "testing"

// TestSysctlPath: a device name's dots stay dots in its /proc/sys path.
func TestSysctlPath(t *testing.T) {
	for key, want := range map[string]string{
		"net.ipv6.conf.eth0.100.accept_dad":     "/proc/sys/net/ipv6/conf/eth0.100/accept_dad",
		"net.ipv6.conf.v.1.disable_ipv6":        "/proc/sys/net/ipv6/conf/v.1/disable_ipv6",
		"net.ipv4.conf.v.1.promote_secondaries": "/proc/sys/net/ipv4/conf/v.1/promote_secondaries",
		"net.ipv4.conf.all.promote_secondaries": "/proc/sys/net/ipv4/conf/all/promote_secondaries",
		"net.ipv6.conf.default.accept_dad":      "/proc/sys/net/ipv6/conf/default/accept_dad",
	} {
		if got := sysctlPath(key); got != want {
			t.Errorf("sysctlPath(%q) = %q, want %q", key, got, want)
		}
	}
}
