package script

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// Value syntax, following iproute2's lib/utils.c and lib/rt_names.c with the
// Debian /etc/iproute2 defaults built in (the parser never reads /etc, so a
// script means the same on every machine).

// parseUint is strtoul with base 0 as get_u32 and friends use it: 0x/0X
// hexadecimal, a leading 0 octal, else decimal; no sign, no blanks, no
// trailing garbage; at most max.
func parseUint(s string, max uint64) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := uint64(10)
	digits := s
	switch {
	case len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		base, digits = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, digits = 8, s[1:]
	}
	var v uint64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		v = v*base + d
		if v > max {
			return 0, false
		}
	}
	return v, true
}

// validName is the kernel's dev_valid_name: 1..15 bytes, not "." or "..",
// no '/', ':' or white space.
func validName(s string) bool {
	if s == "" || len(s) >= 16 || s == "." || s == ".." {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '/', ':', ' ', '\t', '\n', '\v', '\f', '\r', 0:
			return false
		}
	}
	return true
}

const nameRule = `invalid interface name (1..15 bytes; no '/', ':' or blanks; not "." or "..")`

// parseLLAddr is ll_addr_a2n for colon-separated hex: 1..32 bytes of one or
// two hex digits each.
func parseLLAddr(s string) (net.HardwareAddr, bool) {
	parts := strings.Split(s, ":")
	if len(parts) > 32 {
		return nil, false
	}
	out := make(net.HardwareAddr, 0, len(parts))
	for _, p := range parts {
		if len(p) < 1 || len(p) > 2 {
			return nil, false
		}
		v, err := strconv.ParseUint(p, 16, 8)
		if err != nil {
			return nil, false
		}
		out = append(out, byte(v))
	}
	return out, true
}

// parseIPv4 is get_addr_ipv4: one to four dot-separated parts, each a
// strtoul base-0 number up to 255; missing trailing parts are zero
// ("10" is 10.0.0.0, "10.8" is 10.8.0.0).
func parseIPv4(s string) (netip.Addr, bool) {
	var b [4]byte
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	for i, p := range parts {
		v, ok := parseUint(p, 255)
		if !ok {
			return netip.Addr{}, false
		}
		b[i] = byte(v)
	}
	return netip.AddrFrom4(b), true
}

// parseAddr is get_addr_1 without the special words: IPv6 when the word
// has a colon (inet_pton), else IPv4.
func parseAddr(s string) (netip.Addr, bool) {
	if strings.Contains(s, ":") {
		if strings.ContainsAny(s, "%/") {
			return netip.Addr{}, false
		}
		a, err := netip.ParseAddr(s)
		if err != nil || !a.Is6() {
			return netip.Addr{}, false
		}
		return a, true
	}
	return parseIPv4(s)
}

// parsePrefix is get_prefix_1 without the special words: ADDR[/LEN] where
// LEN is a number or, as get_netmask allows, a dotted IPv4 netmask. A bare
// address gets the full length. Host bits are kept: for routes the kernel
// judges them ("Invalid prefix for given prefix length", EINVAL).
// parseDSField is rtnl_dsfield_a2n: an rt_dsfield name (CS1, AF11, EF,
// default, ...), else hex, "0x" or not.
func parseDSField(s string) (uint8, bool) {
	if v, ok := rtnl.DSFieldByName(s); ok {
		return v, true
	}
	n, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(s), "0x"), 16, 8)
	return uint8(n), err == nil
}

func parsePrefix(s string) (p netip.Prefix, explicitLen bool, ok bool) {
	addrPart, lenPart, hasSlash := strings.Cut(s, "/")
	a, ok := parseAddr(addrPart)
	if !ok {
		return netip.Prefix{}, false, false
	}
	bits := a.BitLen()
	if hasSlash {
		l, ok := parseUint(lenPart, uint64(^uint32(0)))
		if !ok {
			m, mok := parseIPv4(lenPart)
			if !mok || !strings.Contains(lenPart, ".") {
				return netip.Prefix{}, false, false
			}
			n, mok := maskBits(m)
			if !mok {
				return netip.Prefix{}, false, false
			}
			l = uint64(n)
		}
		if l > uint64(bits) {
			return netip.Prefix{}, false, false
		}
		bits = int(l)
	}
	return netip.PrefixFrom(a, bits), hasSlash, true
}

// maskBits is mask2bits: the length of a contiguous IPv4 netmask.
func maskBits(m netip.Addr) (int, bool) {
	b := m.As4()
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	host := ^v
	if host&(host+1) != 0 {
		return 0, false
	}
	n := 0
	for ; v != 0; v <<= 1 {
		n++
	}
	return n, true
}

func familyOf(a netip.Addr) int {
	if a.Is4() {
		return 4
	}
	return 6
}

// A name table: names and numbers both accepted, numbers up to max.
type nameTable struct {
	what  string
	max   uint64
	names []struct {
		name string
		val  uint64
	}
}

func (t *nameTable) parse(s string) (uint64, bool) {
	for _, n := range t.names {
		if n.name == s {
			return n.val, true
		}
	}
	return parseUint(s, t.max)
}

func (t *nameTable) format(v uint64) string {
	for _, n := range t.names {
		if n.val == v {
			return n.name
		}
	}
	return strconv.FormatUint(v, 10)
}

func (t *nameTable) rangeMsg() string {
	var ns []string
	for _, n := range t.names {
		ns = append(ns, n.name)
	}
	return fmt.Sprintf("invalid %q value (0..%d or %s)", t.what, t.max, strings.Join(ns, ", "))
}

func table(what string, max uint64, pairs ...any) *nameTable {
	t := &nameTable{what: what, max: max}
	for i := 0; i < len(pairs); i += 2 {
		t.names = append(t.names, struct {
			name string
			val  uint64
		}{pairs[i].(string), uint64(pairs[i+1].(int))})
	}
	return t
}

// /etc/iproute2/rt_scopes.
var scopes = table("scope", 255, "global", 0, "nowhere", 255, "host", 254, "link", 253, "site", 200)

// /etc/iproute2/rt_protos.
var protos = table("proto", 255,
	"unspec", 0, "redirect", 1, "kernel", 2, "boot", 3, "static", 4, "gated", 8, "ra", 9,
	"mrt", 10, "zebra", 11, "bird", 12, "dnrouted", 13, "xorp", 14, "ntk", 15, "dhcp", 16,
	"keepalived", 18, "babel", 42, "openr", 99, "bgp", 186, "isis", 187, "ospf", 188,
	"rip", 189, "eigrp", 192)

// /etc/iproute2/rt_tables.
var tables = table("table", 0xffffffff, "main", 254, "local", 255, "default", 253, "unspec", 0)

// /etc/iproute2/rt_realms.
var realms = table("realm", 255, "cosmos", 0)

// parseRealms is get_rt_realms_or_raw: [FROM/]TO, each a realm (a name
// or 0..255; FROM/ alone is TO 0), as FROM<<16 | TO; failing that, the
// value itself as a 32-bit number.
func parseRealms(s string) (uint32, bool) {
	if v, ok := realmPair(s); ok {
		return v, true
	}
	v, ok := parseUint(s, 0xffffffff)
	return uint32(v), ok
}

func realmPair(s string) (uint32, bool) {
	var v uint64
	if from, to, slash := strings.Cut(s, "/"); slash {
		f, ok := realms.parse(from)
		if !ok {
			return 0, false
		}
		v, s = f<<16, to
	}
	if s != "" {
		t, ok := realms.parse(s)
		if !ok {
			return 0, false
		}
		v |= t
	}
	return uint32(v), true
}

// formatRealms writes RTA_FLOW's value so that parseRealms reads it
// back: `realm TO`, `realms FROM/TO`, or the number when a part is above
// 255.
func formatRealms(v uint32) (kw, val string) {
	from, to := v>>16, v&0xffff
	switch {
	case from > 255 || to > 255:
		return "realm", strconv.FormatUint(uint64(v), 10)
	case from == 0:
		return "realm", strconv.FormatUint(uint64(to), 10)
	}
	return "realms", fmt.Sprintf("%d/%d", from, to)
}

// /etc/iproute2/group.
// Groups are ints to iproute2 (rtnl_group_a2n), as mtu and txqueuelen are
// (get_integer): it refuses numbers above maxInt before sending.
var groups = table("group", maxInt, "default", 0)

// maxInt is INT_MAX, the largest value get_integer takes.
const maxInt = 1<<31 - 1

// Route types: the ones the model knows, and the rest of rtnl_rtntype_a2n's
// names, which are recognised only to be refused.
var (
	routeTypes = []string{"unicast", "local", "broadcast", "blackhole", "unreachable", "prohibit",
		"throw", "anycast", "multicast"}
	otherTypes = []string{"nat", "xresolve"}
)

var macvlanModes = []string{"private", "vepa", "bridge", "passthru", "source"}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
