package script

import (
	"strconv"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// bridgeKeywords are bridge_parse_opt's keywords in its order, which is
// the order an abbreviation is matched in; exact marks the two it
// compares whole (strcmp). Those without a field are refused by name.
var bridgeKeywords = []struct {
	name  string
	exact bool
	max   uint64 // the value's width: get_u8, get_u16 or get_u32
}{
	{"forward_delay", false, 1<<32 - 1}, {"hello_time", false, 1<<32 - 1}, {"max_age", false, 1<<32 - 1},
	{"ageing_time", false, 1<<32 - 1}, {"stp_state", false, 1<<32 - 1}, {"priority", false, 1<<16 - 1},
	{"vlan_filtering", false, 1<<8 - 1}, {"vlan_protocol", false, 0}, {"group_fwd_mask", false, 0},
	{"group_address", false, 0}, {"no_linklocal_learn", true, 0}, {"fdb_flush", false, 0},
	{"vlan_default_pvid", false, 1<<16 - 1}, {"vlan_stats_enabled", false, 0},
	{"vlan_stats_per_port", false, 0}, {"mcast_router", false, 0}, {"mcast_snooping", false, 1<<8 - 1},
	{"mcast_vlan_snooping", true, 0}, {"mcast_query_use_ifaddr", false, 0}, {"mcast_querier", false, 0},
	{"mcast_hash_elasticity", false, 0}, {"mcast_hash_max", false, 0},
	{"mcast_last_member_count", false, 0}, {"mcast_startup_query_count", false, 0},
	{"mcast_last_member_interval", false, 0}, {"mcast_membership_interval", false, 0},
	{"mcast_querier_interval", false, 0}, {"mcast_query_interval", false, 0},
	{"mcast_query_response_interval", false, 0}, {"mcast_startup_query_interval", false, 0},
	{"mcast_stats_enabled", false, 0}, {"mcast_igmp_version", false, 0}, {"mcast_mld_version", false, 0},
	{"nf_call_iptables", false, 0}, {"nf_call_ip6tables", false, 0}, {"nf_call_arptables", false, 0},
	{"help", false, 0},
}

// parseBridgeOpts reads the rest of the line as bridge_parse_opt does:
// each option as often as given, the last one counting (the kernel takes
// the last of a repeated attribute).
func parseBridgeOpts(p *words) (rtnl.BridgeOpts, *LineError) {
	var o rtnl.BridgeOpts
	for p.more() {
		w := p.take()
		kw := ""
		var max uint64
		for _, k := range bridgeKeywords {
			if (k.exact && w == k.name) || (!k.exact && matches(w, k.name)) {
				kw, max = k.name, k.max
				break
			}
		}
		if kw == "" {
			return o, p.unknown(w)
		}
		if max == 0 {
			return o, p.unsupported(kw)
		}
		s, err := p.arg(kw)
		if err != nil {
			return o, err
		}
		v, ok := parseUint(s, max)
		if !ok {
			return o, errf(s, "invalid %s", kw)
		}
		u32, u16, u8 := uint32(v), uint16(v), uint8(v)
		switch kw {
		case "forward_delay":
			o.ForwardDelay = &u32
		case "hello_time":
			o.HelloTime = &u32
		case "max_age":
			o.MaxAge = &u32
		case "ageing_time":
			o.AgeingTime = &u32
		case "stp_state":
			o.StpState = &u32
		case "priority":
			o.Priority = &u16
		case "vlan_filtering":
			o.VlanFiltering = &u8
		case "vlan_default_pvid":
			o.VlanDefaultPvid = &u16
		case "mcast_snooping":
			o.McastSnooping = &u8
		}
	}
	return o, nil
}

// bridgeOpts writes o in bridge_parse_opt's keywords.
func (b *line) bridgeOpts(o rtnl.BridgeOpts) {
	u32 := func(kw string, v *uint32) {
		if v != nil {
			b.add(kw, strconv.FormatUint(uint64(*v), 10))
		}
	}
	u16 := func(kw string, v *uint16) {
		if v != nil {
			b.add(kw, strconv.FormatUint(uint64(*v), 10))
		}
	}
	u8 := func(kw string, v *uint8) {
		if v != nil {
			b.add(kw, strconv.FormatUint(uint64(*v), 10))
		}
	}
	u32("forward_delay", o.ForwardDelay)
	u32("hello_time", o.HelloTime)
	u32("max_age", o.MaxAge)
	u32("ageing_time", o.AgeingTime)
	u32("stp_state", o.StpState)
	u16("priority", o.Priority)
	u8("vlan_filtering", o.VlanFiltering)
	u16("vlan_default_pvid", o.VlanDefaultPvid)
	u8("mcast_snooping", o.McastSnooping)
}
