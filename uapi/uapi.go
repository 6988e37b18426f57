// Package uapi holds the numbers of the Linux user-space ABI that the
// model speaks: errno values, interface flags, address flags, route types,
// scopes, protocols, table ids, families, ARPHRD types and the rtnetlink
// message numbers, with Linux's values on every OS.
//
// golang.org/x/sys/unix defines these names only when built for Linux,
// but the model, the script language and the renderers run anywhere: a
// script means the same numbers on macOS as on Linux. The names keep the
// kernel headers' spelling. The constants are untyped, as x/sys/unix's
// are, so they fit wherever those did; on Linux a test checks every one
// against x/sys/unix.
//
// System-call arguments (socket types, open flags, clone flags, socket
// options) are not here: only Linux-only code passes them, to x/sys/unix's
// calls, and takes them from there.
package uapi

// Address families (linux/socket.h).
const (
	AF_UNSPEC = 0
	AF_INET   = 2
	AF_INET6  = 10
	AF_PACKET = 17
)

// Device types (linux/if_arp.h).
const (
	ARPHRD_ETHER    = 1
	ARPHRD_LOOPBACK = 772
	ARPHRD_NONE     = 0xfffe
	ARPHRD_VOID     = 0xffff
)

// IFNAMSIZ is the size of a device name with its terminating NUL
// (linux/if.h).
const IFNAMSIZ = 16

// Device flags, ifi_flags (linux/if.h).
const (
	IFF_UP          = 0x1
	IFF_BROADCAST   = 0x2
	IFF_DEBUG       = 0x4
	IFF_LOOPBACK    = 0x8
	IFF_POINTOPOINT = 0x10
	IFF_NOTRAILERS  = 0x20
	IFF_RUNNING     = 0x40
	IFF_NOARP       = 0x80
	IFF_PROMISC     = 0x100
	IFF_ALLMULTI    = 0x200
	IFF_MASTER      = 0x400
	IFF_SLAVE       = 0x800
	IFF_MULTICAST   = 0x1000
	IFF_PORTSEL     = 0x2000
	IFF_AUTOMEDIA   = 0x4000
	IFF_DYNAMIC     = 0x8000
	IFF_LOWER_UP    = 0x10000
	IFF_DORMANT     = 0x20000
	IFF_ECHO        = 0x40000
)

// Address flags, ifa_flags and IFA_FLAGS (linux/if_addr.h).
const (
	IFA_F_SECONDARY      = 0x1
	IFA_F_NODAD          = 0x2
	IFA_F_OPTIMISTIC     = 0x4
	IFA_F_DADFAILED      = 0x8
	IFA_F_HOMEADDRESS    = 0x10
	IFA_F_DEPRECATED     = 0x20
	IFA_F_TENTATIVE      = 0x40
	IFA_F_PERMANENT      = 0x80
	IFA_F_MANAGETEMPADDR = 0x100
	IFA_F_NOPREFIXROUTE  = 0x200
	IFA_F_MCAUTOJOIN     = 0x400
	IFA_F_STABLE_PRIVACY = 0x800
)

// Next-hop flags, rtnh_flags and the low byte of rtm_flags
// (linux/rtnetlink.h).
const (
	RTNH_F_DEAD       = 0x1
	RTNH_F_PERVASIVE  = 0x2
	RTNH_F_ONLINK     = 0x4
	RTNH_F_OFFLOAD    = 0x8
	RTNH_F_LINKDOWN   = 0x10
	RTNH_F_UNRESOLVED = 0x20
	RTNH_F_TRAP       = 0x40
)

// Route flags, rtm_flags (linux/rtnetlink.h).
const (
	RTM_F_NOTIFY         = 0x100
	RTM_F_OFFLOAD        = 0x4000
	RTM_F_TRAP           = 0x8000
	RTM_F_OFFLOAD_FAILED = 0x20000000
)

// Route types, rtm_type (linux/rtnetlink.h).
const (
	RTN_UNSPEC      = 0
	RTN_UNICAST     = 1
	RTN_LOCAL       = 2
	RTN_BROADCAST   = 3
	RTN_ANYCAST     = 4
	RTN_MULTICAST   = 5
	RTN_BLACKHOLE   = 6
	RTN_UNREACHABLE = 7
	RTN_PROHIBIT    = 8
	RTN_NAT         = 10
)

// Route protocols, rtm_protocol (linux/rtnetlink.h).
const (
	RTPROT_UNSPEC = 0
	RTPROT_KERNEL = 2
	RTPROT_BOOT   = 3
)

// Scopes, rtm_scope and ifa_scope (linux/rtnetlink.h).
const (
	RT_SCOPE_UNIVERSE = 0
	RT_SCOPE_SITE     = 200
	RT_SCOPE_LINK     = 253
	RT_SCOPE_HOST     = 254
	RT_SCOPE_NOWHERE  = 255
)

// Routing table ids (linux/rtnetlink.h).
const (
	RT_TABLE_DEFAULT = 253
	RT_TABLE_MAIN    = 254
	RT_TABLE_LOCAL   = 255
)

// rtnetlink message types (linux/rtnetlink.h).
const (
	RTM_NEWLINK  = 16
	RTM_DELLINK  = 17
	RTM_GETLINK  = 18
	RTM_NEWADDR  = 20
	RTM_DELADDR  = 21
	RTM_GETADDR  = 22
	RTM_NEWROUTE = 24
	RTM_DELROUTE = 25
	RTM_NEWRULE  = 32
	RTM_DELRULE  = 33
	RTM_NEWNSID  = 88
	RTM_GETNSID  = 90
)

// Netlink message header: alignment, length, control message types and
// nlmsg_flags (linux/netlink.h).
const (
	NLMSG_ALIGNTO = 4
	NLMSG_HDRLEN  = 16
	NLMSG_ERROR   = 2
	NLMSG_DONE    = 3

	NLM_F_REQUEST   = 0x1
	NLM_F_ACK       = 0x4
	NLM_F_DUMP_INTR = 0x10
	NLM_F_EXCL      = 0x200
	NLM_F_CREATE    = 0x400
	NLM_F_DUMP      = 0x300
)

// Attribute types: links (linux/if_link.h), addresses (linux/if_addr.h),
// namespace ids (linux/net_namespace.h).
const (
	IFLA_IFNAME         = 3
	IFLA_LINKINFO       = 18
	IFLA_NET_NS_FD      = 28
	IFLA_TARGET_NETNSID = 46
	IFLA_INFO_KIND      = 1
	IFLA_INFO_DATA      = 2

	IFA_ADDRESS        = 1
	IFA_LOCAL          = 2
	IFA_TARGET_NETNSID = 10

	NETNSA_NSID = 1
	NETNSA_FD   = 3
)

// Sizes of the fixed headers of link and address messages: struct
// ifinfomsg and struct ifaddrmsg.
const (
	SizeofIfInfomsg = 16
	SizeofIfAddrmsg = 8
)
