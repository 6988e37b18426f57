//go:build linux

package kernel

import (
	"encoding/binary"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// nhmsgLen is sizeof(struct nhmsg): family, scope, protocol, resvd, then
// u32 flags.
const nhmsgLen = 8

// nexthopModify is ipnh_modify for add and replace: nh_family AF_INET6
// when the parser found it so, else AF_INET for a gateway, a device or a
// blackhole, AF_UNSPEC for a group, as iproute2 picks it.
func (t *Target) nexthopModify(op rtnl.NexthopAdd) error {
	h := make([]byte, nhmsgLen)
	switch {
	case op.V6:
		h[0] = unix.AF_INET6
	case op.Via.IsValid() || op.Dev != "" || op.Blackhole:
		h[0] = unix.AF_INET
	}
	if op.Onlink {
		nativeEndian.PutUint32(h[4:], unix.RTNH_F_ONLINK)
	}
	ae := netlink.NewAttributeEncoder()
	ae.Uint32(unix.NHA_ID, op.ID)
	if op.Group != nil {
		// struct nexthop_grp: u32 id, u8 weight-1, u8 weight_high, u16
		// resvd2.
		b := make([]byte, 8*len(op.Group))
		for i, m := range op.Group {
			nativeEndian.PutUint32(b[8*i:], m.ID)
			if m.Weight > 0 {
				b[8*i+4] = uint8(m.Weight - 1)
			}
		}
		ae.Bytes(unix.NHA_GROUP, b)
	}
	if op.Dev != "" {
		idx, err := t.ifindex(op.Dev)
		if err != nil {
			return err
		}
		ae.Uint32(unix.NHA_OIF, idx)
	}
	if op.Via.IsValid() {
		ae.Bytes(unix.NHA_GATEWAY, op.Via.AsSlice())
	}
	if op.Blackhole {
		ae.Flag(unix.NHA_BLACKHOLE, true)
	}
	b, err := ae.Encode()
	if err != nil {
		return err
	}
	flags := netlink.Create | netlink.Excl
	if op.Replace {
		flags = netlink.Create | netlink.Replace
	}
	_, err = t.execute(unix.RTM_NEWNEXTHOP, flags, append(h, b...))
	return err
}

// nexthopDel is delete_nexthop: NHA_ID alone, nh_family AF_UNSPEC.
func (t *Target) nexthopDel(id uint32) error {
	ae := netlink.NewAttributeEncoder()
	ae.Uint32(unix.NHA_ID, id)
	b, err := ae.Encode()
	if err != nil {
		return err
	}
	_, err = t.execute(unix.RTM_DELNEXTHOP, 0, append(make([]byte, nhmsgLen), b...))
	return err
}

// nexthopFlush is ipnh_flush: one dump, a delete of each nexthop in it,
// whose errors iproute2 passes over.
func (t *Target) nexthopFlush() error {
	msgs, err := t.dump(unix.RTM_GETNEXTHOP, make([]byte, nhmsgLen))
	if err != nil {
		return err
	}
	for _, m := range msgs {
		d, ok := payload(m, unix.RTM_NEWNEXTHOP, unix.RTM_DELNEXTHOP, nhmsgLen)
		if !ok {
			continue
		}
		if id, ok := attrTableOf(d[nhmsgLen:]).u32(unix.NHA_ID); ok && id != 0 {
			_ = t.nexthopDel(id)
		}
	}
	return nil
}

// nexthops is `ip -j nexthop show`.
func (t *Target) nexthops(c linkCache) ([]rtnl.NexthopEntryObj, error) {
	msgs, err := t.dump(unix.RTM_GETNEXTHOP, make([]byte, nhmsgLen))
	if err != nil {
		return nil, err
	}
	out := []rtnl.NexthopEntryObj{}
	for _, m := range msgs {
		if e, ok := parseNexthop(m, c); ok {
			out = append(out, e)
		}
	}
	return out, nil
}

// parseNexthop is iproute2's print_nexthop of an RTM_NEWNEXTHOP or
// RTM_DELNEXTHOP.
func parseNexthop(m netlink.Message, c linkCache) (rtnl.NexthopEntryObj, bool) {
	d, ok := payload(m, unix.RTM_NEWNEXTHOP, unix.RTM_DELNEXTHOP, nhmsgLen)
	if !ok {
		return rtnl.NexthopEntryObj{}, false
	}
	scope, flags := d[1], nativeEndian.Uint32(d[4:])
	at := attrTableOf(d[nhmsgLen:])
	var e rtnl.NexthopEntryObj
	e.ID, _ = at.u32(unix.NHA_ID)
	if g, ok := at[unix.NHA_GROUP]; ok {
		e.Group = []rtnl.NexthopGrpMember{}
		for i := 0; i+8 <= len(g); i += 8 {
			w := int(g[i+4]) + int(g[i+5])<<8 + 1
			e.Group = append(e.Group, rtnl.NexthopGrpMember{ID: binary.NativeEndian.Uint32(g[i:]), Weight: w})
		}
	}
	if gw, ok := at.addr(unix.NHA_GATEWAY); ok {
		e.Gateway = gw.String()
	}
	if oif, ok := at.u32(unix.NHA_OIF); ok && oif != 0 {
		e.Dev = c.nameOf(oif)
	}
	if scope != unix.RT_SCOPE_UNIVERSE {
		e.Scope = rtnl.ScopeName(scope)
	}
	_, e.Blackhole = at[unix.NHA_BLACKHOLE]
	e.Flags = rtnl.RouteFlags(flags)
	return e, true
}

// rtaNhID is RTA_NH_ID of linux/rtnetlink.h, which x/sys/unix does not
// name.
const rtaNhID = 30
