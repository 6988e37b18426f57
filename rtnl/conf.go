package rtnl

// StartConf is the net.ipv4.conf state a new network namespace starts
// from, for the keys the model follows that start from the host's
// (promote_secondaries, and forwarding, rp_filter and accept_local, which
// route get with iif reads).
// devinet_init_net copies the "all" and "default" confs of the host
// (init_net, the creating namespace, or the compiled-in values, as
// net.core.devconf_inherit_init_net says): the values and the IPV4_DEVCONF
// state bitmap that records which keys were written. The loopback, and
// every device made later, copies default's, bits included
// (inetdev_init), and a device whose bit for a key is set is skipped when
// default is written (devinet_copy_dflt_conf). So a host that ever wrote
// net.ipv4.conf.default.promote_secondaries gives its new namespaces a
// default that no longer reaches any device.
//
// The kernel target reads it in its fresh namespace (kernel.Target.
// StartConf); the sim target takes it as sim.Options.Start. The zero
// value is the compiled-in state: every value 0, no bit set.
type StartConf struct {
	// Values are the keys read, dotted as the script writes them:
	// net.ipv4.conf.{all,default,lo}.KEY for each of StartConfBitKeys
	// and forwarding.
	Values map[string]string
	// DefaultSet are the net.ipv4.conf.default keys (of
	// StartConfBitKeys) whose state bit is set.
	DefaultSet []string
}

// StartConfBitKeys are the keys whose default state bit is probed: the
// ones a write of default copies to devices (forwarding's write does
// not).
var StartConfBitKeys = []string{"promote_secondaries", "rp_filter", "accept_local"}

// StartConfKeys are the keys StartConf.Values holds.
var StartConfKeys = func() []string {
	var out []string
	for _, k := range append(append([]string(nil), StartConfBitKeys...), "forwarding") {
		for _, dev := range []string{"all", "default", "lo"} {
			out = append(out, "net.ipv4.conf."+dev+"."+k)
		}
	}
	return out
}()
