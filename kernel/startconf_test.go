//go:build linux

package kernel

import (
	"slices"
	"testing"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// TestStartConf: the values read are the namespace's, and the state bit
// the probe reports decides whether a default write reaches the loopback
// of a namespace made the same way.
func TestStartConf(t *testing.T) {
	tg := newTestTarget(t)
	sc := tg.StartConf()
	for _, k := range rtnl.StartConfKeys {
		v, err := tg.ns.readSysctl(sysctlPath(k))
		if err != nil {
			t.Fatal(err)
		}
		if sc.Values[k] != v {
			t.Errorf("%s: StartConf %q, namespace %q", k, sc.Values[k], v)
		}
	}
	for _, key := range rtnl.StartConfBitKeys {
		before := sc.Values["net.ipv4.conf.lo."+key]
		other := "1"
		if before != "0" {
			other = "0"
		}
		if err := tg.ns.writeSysctl("/proc/sys/net/ipv4/conf/default/"+key, other); err != nil {
			t.Fatal(err)
		}
		after, err := tg.ns.readSysctl("/proc/sys/net/ipv4/conf/lo/" + key)
		if err != nil {
			t.Fatal(err)
		}
		if set := slices.Contains(sc.DefaultSet, key); set != (after == before) {
			t.Errorf("%s: StartConf says default's bit set=%v, but a default write %s the loopback", key, set,
				map[bool]string{true: "left", false: "changed"}[after == before])
		}
	}
}
