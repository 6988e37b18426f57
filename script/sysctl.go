package script

import (
	"sort"
	"strconv"
	"strings"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// ConfKeys are the net.ipv4.conf.DEV keys `sysctl` accepts, with the values
// each takes (nil: any integer, as proc_dointvec reads it). This,
// Conf6Keys and NetKeys are the places to add keys the model learns. Of
// these promote_secondaries, ignore_routes_with_linkdown, and forwarding,
// rp_filter and accept_local (what route get with iif answers) change
// what the model does; the others change nothing it shows (their netconf
// notifications are not modelled) and are kept.
var ConfKeys = map[string][]string{
	"promote_secondaries": {"0", "1"},
	"forwarding":          nil,
	"rp_filter":           nil,
	"arp_ignore":          nil,
	"arp_announce":        nil,
	"arp_filter":          nil,
	"proxy_arp":           nil,
	"accept_local":        nil,
	"log_martians":        nil,
	// ignore_routes_with_linkdown: dumps show linkdown routes dead too.
	"ignore_routes_with_linkdown": nil,
}

// NetKeys are the keys outside net.ipv4.conf and net.ipv6.conf `sysctl`
// accepts.
var NetKeys = map[string][]string{
	"net.ipv4.ip_forward": nil,
}

// Conf6Keys are the net.ipv6.conf.DEV keys `sysctl` accepts.
var Conf6Keys = map[string][]string{
	"disable_ipv6": {"0", "1"},
	"accept_dad":   {"0", "1", "2"},
	"forwarding":   nil, // anycast routes (sim/anycast6.go)
	// keep_addr_on_down: user addresses kept over a down
	// (sim/addrconf.go, addrconfIfdown)
	"keep_addr_on_down": nil,
}

const (
	confPrefix  = "net.ipv4.conf."
	conf6Prefix = "net.ipv6.conf."
)

// parseSysctl reads `sysctl [-w] KEY=VALUE`, blanks around '=' allowed.
func parseSysctl(p *words) (rtnl.Op, *LineError) {
	p.ctx = "sysctl"
	if p.more() && p.peek() == "-w" {
		p.take()
	}
	if !p.more() {
		return nil, errf("sysctl", "missing KEY=VALUE")
	}
	expr := strings.Join(p.rest(), " ")
	eq := strings.LastIndexByte(expr, '=')
	if eq < 0 {
		return nil, errf(expr, `missing "=VALUE"`)
	}
	key := strings.TrimSpace(expr[:eq])
	val := strings.TrimSpace(expr[eq+1:])
	if key == "" || strings.ContainsAny(key, blanks) {
		return nil, errf(expr, "expected KEY=VALUE")
	}
	if val == "" || strings.ContainsAny(val, blanks) {
		return nil, errf(expr, "expected KEY=VALUE")
	}
	if values, ok := NetKeys[key]; ok {
		if !validValue(values, val) {
			return nil, errf(val, "invalid value for %s", key)
		}
		return rtnl.Sysctl{Key: key, Value: val}, nil
	}
	prefix, keys := confPrefix, ConfKeys
	if strings.HasPrefix(key, conf6Prefix) {
		prefix, keys = conf6Prefix, Conf6Keys
	}
	if !strings.HasPrefix(key, prefix) {
		return nil, errf(key, "unknown sysctl key (net.ipv4.conf.DEV.KEY, net.ipv6.conf.DEV.KEY or %s)", strings.Join(keyNames(NetKeys), ", "))
	}
	devKey := key[len(prefix):]
	dot := strings.LastIndexByte(devKey, '.')
	if dot < 0 {
		return nil, errf(key, "unknown sysctl key (%sDEV.KEY)", prefix)
	}
	dev, name := devKey[:dot], devKey[dot+1:]
	values, known := keys[name]
	if !known {
		return nil, errf(key, "unknown sysctl key (known: %sDEV.%s)", prefix, strings.Join(keyNames(keys), ", "))
	}
	if dev != "all" && dev != "default" && !validName(dev) {
		return nil, errf(dev, "%s (or all, default)", nameRule)
	}
	if !validValue(values, val) {
		if values == nil {
			return nil, errf(val, "invalid value for %s (an integer)", name)
		}
		return nil, errf(val, "invalid value for %s (%s)", name, strings.Join(values, ", "))
	}
	return rtnl.Sysctl{Key: key, Value: val}, nil
}

// validValue: one of values, or when values is nil an int as
// proc_get_long reads it (an optional '-', then digits).
func validValue(values []string, val string) bool {
	if values == nil {
		_, err := strconv.ParseInt(val, 10, 32)
		return err == nil && val[0] != '+'
	}
	return contains(values, val)
}

func keyNames(keys map[string][]string) []string {
	var out []string
	for k := range keys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
