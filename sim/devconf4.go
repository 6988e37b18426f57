package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// The net.ipv4.conf keys the input route path reads (routeget_input.go):
// forwarding, rp_filter and accept_local, for all, default and each
// in_device, as net/ipv4/devinet.c keeps them.

// routeConfKeys are the keys kept here.
var routeConfKeys = []string{"forwarding", "rp_filter", "accept_local"}

// confVals is one ipv4_devconf's values of routeConfKeys, and its state
// bits (the keys written, or copied set from default).
type confVals struct {
	val map[string]int
	set map[string]bool
}

func newConfVals() *confVals { return &confVals{val: map[string]int{}, set: map[string]bool{}} }

func (c *confVals) clone() *confVals {
	out := newConfVals()
	for k, v := range c.val {
		out.val[k] = v
	}
	for k, v := range c.set {
		out.set[k] = v
	}
	return out
}

// routeConf is the namespace's all and default, and each in_device's
// copy (by its InDevice: a device that gets IPv4 again gets a new copy).
type routeConf struct {
	all, dflt *confVals
	dev       map[*InDevice]*confVals
}

func (n *Netns) rconf() *routeConf {
	if n.conf4 == nil {
		n.conf4 = &routeConf{all: newConfVals(), dflt: newConfVals(), dev: map[*InDevice]*confVals{}}
	}
	return n.conf4
}

// devConf is the in_device's conf, made as inetdev_init makes it (a copy
// of default, bits included) if the device got IPv4 before it was kept.
func (n *Netns) devConf(in *InDevice) *confVals {
	rc := n.rconf()
	c, ok := rc.dev[in]
	if !ok {
		c = rc.dflt.clone()
		rc.dev[in] = c
	}
	return c
}

// routeConfInit is inetdev_init's copy of default for a new in_device.
func (n *Netns) routeConfInit(in *InDevice) {
	rc := n.rconf()
	rc.dev[in] = rc.dflt.clone()
}

// routeConfWrite is a write of net.ipv4.conf.DEV.KEY for the kept keys.
// forwarding is devinet_sysctl_forward's: all (and ip_forward) sets
// default and every device when its value changes, default reaches no
// device, a device's is its own. The others are devinet_conf_proc's: the
// key's state bit is set, and a write of default is copied to every
// device whose bit is clear (and that no address made set them all).
func (n *Netns) routeConfWrite(dev, key string, v int) {
	rc := n.rconf()
	switch {
	case key == "forwarding" && dev == "all":
		if rc.all.val[key] == v {
			return
		}
		rc.all.val[key], rc.dflt.val[key] = v, v
		for d := range n.listed() {
			if d.in != nil {
				n.devConf(d.in).val[key] = v
			}
		}
	case key == "forwarding" && dev == "default":
		rc.dflt.val[key] = v
	case dev == "all":
		rc.all.val[key] = v
	case dev == "default":
		rc.dflt.val[key], rc.dflt.set[key] = v, true
		for d := range n.listed() {
			if d.in != nil && !d.in.setAll && !n.devConf(d.in).set[key] {
				n.devConf(d.in).val[key] = v
			}
		}
	default:
		if d := n.byDevName(dev); d != nil && d.in != nil {
			c := n.devConf(d.in)
			c.val[key] = v
			if key != "forwarding" {
				c.set[key] = true
			}
		}
	}
}

// startRouteConf takes the values and default's bits the namespace
// starts from (rtnl.StartConf) for the kept keys, and gives them to lo,
// which copied default's before any request.
func (n *Netns) startRouteConf(sc rtnl.StartConf) error {
	rc := n.rconf()
	for _, key := range routeConfKeys {
		for _, dev := range []string{"all", "default", "lo"} {
			k := "net.ipv4.conf." + dev + "." + key
			s, ok := sc.Values[k]
			if !ok {
				continue
			}
			v, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				return fmt.Errorf("%s=%q: %w", k, s, err)
			}
			switch dev {
			case "all":
				rc.all.val[key] = v
			case "default":
				rc.dflt.val[key] = v
			default:
				if lo := n.ByName("lo"); lo != nil && lo.in != nil {
					n.devConf(lo.in).val[key] = v
				}
			}
		}
		set := slices.Contains(sc.DefaultSet, key)
		rc.dflt.set[key] = set
		if lo := n.ByName("lo"); lo != nil && lo.in != nil {
			n.devConf(lo.in).set[key] = set
		}
	}
	return nil
}

// inDevForward is IN_DEV_FORWARD: the device's own value.
func (n *Netns) inDevForward(in *InDevice) bool { return n.devConf(in).val["forwarding"] != 0 }

// inDevRPFilter is IN_DEV_RPFILTER: the larger of all's and the device's.
func (n *Netns) inDevRPFilter(in *InDevice) int {
	return max(n.rconf().all.val["rp_filter"], n.devConf(in).val["rp_filter"])
}

// inDevAcceptLocal is IN_DEV_ACCEPT_LOCAL: all's or the device's.
func (n *Netns) inDevAcceptLocal(in *InDevice) bool {
	return n.rconf().all.val["accept_local"] != 0 || n.devConf(in).val["accept_local"] != 0
}
