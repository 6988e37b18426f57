//go:build linux

package kernel

import (
	"fmt"
	"os"
	"strings"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// readSysctl reads a /proc/sys value inside the namespace, blanks trimmed.
func (ns *netns) readSysctl(path string) (string, error) {
	var out []byte
	err := inThread(ns.fd, func() error {
		b, err := os.ReadFile(path)
		out = b
		return err
	})
	return strings.TrimSpace(string(out)), err
}

// readStartConf reads the rtnl.StartConf of ns, a namespace no request
// has touched yet: the values of rtnl.StartConfKeys, and whether default's
// state bit of each of rtnl.StartConfBitKeys is set. That bit shows
// nowhere, so a second fresh namespace, which devinet_init_net gave the
// same copy, is probed: its default is written with another value, and
// its loopback, which copied default's value and bit when it registered,
// follows only if the bit is clear. The probe namespace is dropped after;
// ns is not written.
func readStartConf(ns *netns) (rtnl.StartConf, error) {
	sc := rtnl.StartConf{Values: map[string]string{}}
	for _, k := range rtnl.StartConfKeys {
		v, err := ns.readSysctl(sysctlPath(k))
		if err != nil {
			return sc, fmt.Errorf("read %s: %w", k, err)
		}
		sc.Values[k] = v
	}
	probe, err := newNetns(true)
	if err != nil {
		return sc, fmt.Errorf("probe namespace: %w", err)
	}
	defer probe.close()
	for _, key := range rtnl.StartConfBitKeys {
		dflt := "/proc/sys/net/ipv4/conf/default/" + key
		lo := "/proc/sys/net/ipv4/conf/lo/" + key
		before, err := probe.readSysctl(lo)
		if err != nil {
			return sc, fmt.Errorf("probe: %w", err)
		}
		other := "1"
		if before != "0" {
			other = "0"
		}
		if err := probe.writeSysctl(dflt, other); err != nil {
			return sc, fmt.Errorf("probe: %w", err)
		}
		after, err := probe.readSysctl(lo)
		if err != nil {
			return sc, fmt.Errorf("probe: %w", err)
		}
		if after == before {
			sc.DefaultSet = append(sc.DefaultSet, key)
		}
	}
	return sc, nil
}

// StartConf is the net.ipv4.conf state the target's namespace started
// from (rtnl.StartConf), read when it was made, before Options.Sysctls.
func (t *Target) StartConf() rtnl.StartConf { return t.start }
