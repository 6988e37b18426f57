package rtnl

import (
	"fmt"
	"net"
	"strconv"

	"github.com/rtnlsim/rtnlsim/uapi"
)

// The names iproute2 6.1 prints for numbers, so that both targets render
// State the way `ip -j` does. The tables are iproute2's built-in ones plus
// the /etc/iproute2 defaults Debian ships; rtnlsim does not read /etc, so
// its output does not depend on the machine's local edits.

// bitName names one flag bit.
type bitName struct {
	bit  uint32
	name string
}

// appendBitNames appends the names of the bits of flags that names knows,
// in names' order, and returns the bits it had no name for.
func appendBitNames(out []string, flags uint32, names []bitName) ([]string, uint32) {
	for _, n := range names {
		if flags&n.bit != 0 {
			out = append(out, n.name)
			flags &^= n.bit
		}
	}
	return out, flags
}

// linkFlagNames is print_link_flags' order.
var linkFlagNames = []bitName{
	{uapi.IFF_LOOPBACK, "LOOPBACK"}, {uapi.IFF_BROADCAST, "BROADCAST"},
	{uapi.IFF_POINTOPOINT, "POINTOPOINT"}, {uapi.IFF_MULTICAST, "MULTICAST"},
	{uapi.IFF_NOARP, "NOARP"}, {uapi.IFF_ALLMULTI, "ALLMULTI"},
	{uapi.IFF_PROMISC, "PROMISC"}, {uapi.IFF_MASTER, "MASTER"},
	{uapi.IFF_SLAVE, "SLAVE"}, {uapi.IFF_DEBUG, "DEBUG"},
	{uapi.IFF_DYNAMIC, "DYNAMIC"}, {uapi.IFF_AUTOMEDIA, "AUTOMEDIA"},
	{uapi.IFF_PORTSEL, "PORTSEL"}, {uapi.IFF_NOTRAILERS, "NOTRAILERS"},
	{uapi.IFF_UP, "UP"}, {uapi.IFF_LOWER_UP, "LOWER_UP"},
	{uapi.IFF_DORMANT, "DORMANT"}, {uapi.IFF_ECHO, "ECHO"},
}

// LinkFlags renders ifi_flags as iproute2 does: NO-CARRIER first when UP
// without RUNNING, the known bits in order, any rest in hex, and M-DOWN
// last when the device's IFLA_LINK points at a device that is not up.
func LinkFlags(flags uint32, mdown bool) []string {
	out := []string{}
	if flags&uapi.IFF_UP != 0 && flags&uapi.IFF_RUNNING == 0 {
		out = append(out, "NO-CARRIER")
	}
	out, flags = appendBitNames(out, flags&^uapi.IFF_RUNNING, linkFlagNames)
	if flags != 0 {
		out = append(out, fmt.Sprintf("%x", flags))
	}
	if mdown {
		out = append(out, "M-DOWN")
	}
	return out
}

var operStates = []string{"UNKNOWN", "NOTPRESENT", "DOWN", "LOWERLAYERDOWN", "TESTING", "DORMANT", "UP"}

// OperState names IF_OPER_*.
func OperState(s uint8) string {
	if int(s) < len(operStates) {
		return operStates[s]
	}
	return strconv.Itoa(int(s))
}

// LinkMode names IF_LINK_MODE_*.
func LinkMode(m uint8) string {
	switch m {
	case 0:
		return "DEFAULT"
	case 1:
		return "DORMANT"
	case 2:
		return "TESTING"
	}
	return "none"
}

// GroupName is rtnl_group_n2a with /etc/iproute2/group's "0 default".
func GroupName(g uint32) string {
	if g == 0 {
		return "default"
	}
	return strconv.FormatUint(uint64(g), 10)
}

// LinkType names ARPHRD_* as ll_type_n2a does, for the types rtnlsim meets.
func LinkType(t uint16) string {
	switch t {
	case uapi.ARPHRD_ETHER:
		return "ether"
	case uapi.ARPHRD_LOOPBACK:
		return "loopback"
	case uapi.ARPHRD_NONE:
		return "none"
	case uapi.ARPHRD_VOID:
		return "void"
	}
	return fmt.Sprintf("[%d]", t)
}

// HWAddr formats a link-layer address the way ll_addr_n2a does.
func HWAddr(a net.HardwareAddr) string { return a.String() }

// ScopeName is rtnl_rtscope_n2a with /etc/iproute2/rt_scopes.
func ScopeName(s uint8) string {
	switch s {
	case uapi.RT_SCOPE_UNIVERSE:
		return "global"
	case uapi.RT_SCOPE_SITE:
		return "site"
	case uapi.RT_SCOPE_LINK:
		return "link"
	case uapi.RT_SCOPE_HOST:
		return "host"
	case uapi.RT_SCOPE_NOWHERE:
		return "nowhere"
	}
	return strconv.Itoa(int(s))
}

// TableName is rtnl_rttable_n2a with /etc/iproute2/rt_tables.
func TableName(t uint32) string {
	switch t {
	case uapi.RT_TABLE_DEFAULT:
		return "default"
	case uapi.RT_TABLE_MAIN:
		return "main"
	case uapi.RT_TABLE_LOCAL:
		return "local"
	}
	return strconv.FormatUint(uint64(t), 10)
}

// protoNames is /etc/iproute2/rt_protos as iproute2 6.1 ships it.
var protoNames = map[uint8]string{
	0: "unspec", 1: "redirect", 2: "kernel", 3: "boot", 4: "static",
	8: "gated", 9: "ra", 10: "mrt", 11: "zebra", 12: "bird", 13: "dnrouted",
	14: "xorp", 15: "ntk", 16: "dhcp", 18: "keepalived", 42: "babel",
	99: "openr", 186: "bgp", 187: "isis", 188: "ospf", 189: "rip", 192: "eigrp",
}

// ProtoName is rtnl_rtprot_n2a.
func ProtoName(p uint8) string {
	if n, ok := protoNames[p]; ok {
		return n
	}
	return strconv.Itoa(int(p))
}

// dsfieldNames is /etc/iproute2/rt_dsfield as iproute2 6.1 ships it
// (its 0x0 "default" never shows: a tos of 0 is not printed).
var dsfieldNames = map[uint8]string{
	0x28: "AF11", 0x30: "AF12", 0x38: "AF13", 0x48: "AF21", 0x50: "AF22", 0x58: "AF23",
	0x68: "AF31", 0x70: "AF32", 0x78: "AF33", 0x88: "AF41", 0x90: "AF42", 0x98: "AF43",
	0x20: "CS1", 0x40: "CS2", 0x60: "CS3", 0x80: "CS4", 0xa0: "CS5", 0xc0: "CS6", 0xe0: "CS7",
	0xb8: "EF",
}

// DSFieldByName is the value of an rt_dsfield name ("default" is 0), as
// rtnl_dsfield_a2n looks names up before it reads hex.
func DSFieldByName(name string) (uint8, bool) {
	if name == "default" {
		return 0, true
	}
	for v, n := range dsfieldNames {
		if n == name {
			return v, true
		}
	}
	return 0, false
}

// DSFieldName is rtnl_dsfield_n2a: the rt_dsfield name, else 0x%02x.
func DSFieldName(tos uint8) string {
	if n, ok := dsfieldNames[tos]; ok {
		return n
	}
	return fmt.Sprintf("0x%02x", tos)
}

// RealmName is rtnl_rtrealm_n2a with /etc/iproute2/rt_realms as
// iproute2 6.1 ships it: only 0 has a name.
func RealmName(r uint32) string {
	if r == 0 {
		return "cosmos"
	}
	return strconv.FormatUint(uint64(r), 10)
}

// FlowOf is the "flow" object of RTA_FLOW's value (FROM<<16 | TO).
func FlowOf(realms uint32) *RouteFlow {
	f := &RouteFlow{To: RealmName(realms & 0xffff)}
	if from := realms >> 16; from != 0 {
		f.From = RealmName(from)
	}
	return f
}

var routeTypeNames = []string{
	"unspec", "unicast", "local", "broadcast", "anycast", "multicast",
	"blackhole", "unreachable", "prohibit", "throw", "nat", "xresolve",
}

// RouteTypeName is rtnl_rtntype_n2a.
func RouteTypeName(t uint8) string {
	if int(t) < len(routeTypeNames) {
		return routeTypeNames[t]
	}
	return strconv.Itoa(int(t))
}

// RouteTypeByName is the inverse of RouteTypeName.
func RouteTypeByName(s string) (uint8, bool) {
	for i, n := range routeTypeNames {
		if n == s {
			return uint8(i), true
		}
	}
	return 0, false
}

// FamilyName names an address family as iproute2's family_name does.
func FamilyName(f int) string {
	switch f {
	case uapi.AF_INET:
		return "inet"
	case uapi.AF_INET6:
		return "inet6"
	case uapi.AF_PACKET:
		return "link"
	case uapi.AF_UNSPEC:
		return "none"
	}
	return "?"
}

// SetFlags sets the addr_info flag fields from IFA_F_* bits as
// print_ifa_flags does; bits it does not know go to IfaFlags in hex.
func (a *AddrInfo) SetFlags(family int, flags uint32) {
	if flags&uapi.IFA_F_SECONDARY != 0 {
		if family == uapi.AF_INET6 {
			a.Temporary = true
		} else {
			a.Secondary = true
		}
	}
	a.Nodad = flags&uapi.IFA_F_NODAD != 0
	a.Optimistic = flags&uapi.IFA_F_OPTIMISTIC != 0
	a.Dadfailed = flags&uapi.IFA_F_DADFAILED != 0
	a.Home = flags&uapi.IFA_F_HOMEADDRESS != 0
	a.Deprecated = flags&uapi.IFA_F_DEPRECATED != 0
	a.Tentative = flags&uapi.IFA_F_TENTATIVE != 0
	a.Dynamic = flags&uapi.IFA_F_PERMANENT == 0
	a.Mngtmpaddr = flags&uapi.IFA_F_MANAGETEMPADDR != 0
	a.Noprefixroute = flags&uapi.IFA_F_NOPREFIXROUTE != 0
	a.Autojoin = flags&uapi.IFA_F_MCAUTOJOIN != 0
	a.StablePrivacy = flags&uapi.IFA_F_STABLE_PRIVACY != 0
	known := uint32(uapi.IFA_F_SECONDARY | uapi.IFA_F_NODAD | uapi.IFA_F_OPTIMISTIC |
		uapi.IFA_F_DADFAILED | uapi.IFA_F_HOMEADDRESS | uapi.IFA_F_DEPRECATED |
		uapi.IFA_F_TENTATIVE | uapi.IFA_F_PERMANENT | uapi.IFA_F_MANAGETEMPADDR |
		uapi.IFA_F_NOPREFIXROUTE | uapi.IFA_F_MCAUTOJOIN | uapi.IFA_F_STABLE_PRIVACY)
	if rest := flags &^ known; rest != 0 {
		a.IfaFlags = fmt.Sprintf("%02x", rest)
	}
}

// routeFlagNames is print_rt_flags' order.
var routeFlagNames = []bitName{
	{uapi.RTNH_F_DEAD, "dead"}, {uapi.RTNH_F_ONLINK, "onlink"},
	{uapi.RTNH_F_PERVASIVE, "pervasive"}, {uapi.RTNH_F_OFFLOAD, "offload"},
	{uapi.RTNH_F_TRAP, "trap"}, {uapi.RTM_F_NOTIFY, "notify"},
	{uapi.RTNH_F_LINKDOWN, "linkdown"}, {uapi.RTNH_F_UNRESOLVED, "unresolved"},
	{uapi.RTM_F_OFFLOAD, "rt_offload"}, {uapi.RTM_F_TRAP, "rt_trap"},
	{uapi.RTM_F_OFFLOAD_FAILED, "rt_offload_failed"},
}

// RouteFlags names rtm_flags as print_rt_flags does, in its order; bits it
// has no name for are not printed.
func RouteFlags(f uint32) []string {
	out, _ := appendBitNames([]string{}, f, routeFlagNames)
	return out
}

// RoutePref names RTA_PREF (ICMPV6_ROUTER_PREF_*).
func RoutePref(p uint8) string {
	switch p {
	case 3:
		return "low"
	case 0:
		return "medium"
	case 1:
		return "high"
	}
	return strconv.Itoa(int(p))
}

// AddrsOf is the `ip -j addr show` element for a link and its addresses.
func AddrsOf(l Link, addrs []AddrInfo) LinkAddrs {
	if addrs == nil {
		addrs = []AddrInfo{}
	}
	l.Linkmode, l.Ifalias = "", ""
	return LinkAddrs{Link: l, AddrInfo: addrs}
}

// MsgTypeName names an rtnetlink message type.
func MsgTypeName(t uint16) string {
	switch t {
	case uapi.RTM_NEWLINK:
		return "RTM_NEWLINK"
	case uapi.RTM_DELLINK:
		return "RTM_DELLINK"
	case uapi.RTM_NEWADDR:
		return "RTM_NEWADDR"
	case uapi.RTM_DELADDR:
		return "RTM_DELADDR"
	case uapi.RTM_NEWROUTE:
		return "RTM_NEWROUTE"
	case uapi.RTM_DELROUTE:
		return "RTM_DELROUTE"
	case uapi.RTM_NEWRULE:
		return "RTM_NEWRULE"
	case uapi.RTM_DELRULE:
		return "RTM_DELRULE"
	case 0x68:
		return "RTM_NEWNEXTHOP"
	case 0x69:
		return "RTM_DELNEXTHOP"
	}
	return fmt.Sprintf("RTM_%d", t)
}
