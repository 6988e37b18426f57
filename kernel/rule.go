//go:build linux

package kernel

import (
	"net/netip"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// fibRuleHdrLen is sizeof(struct fib_rule_hdr): family, dst_len, src_len,
// tos, table, two reserved bytes, action, then u32 flags.
const fibRuleHdrLen = 12

// ruleGroups are the multicast groups of rule notifications.
const ruleGroups = unix.RTMGRP_IPV4_RULE | 1<<(unix.RTNLGRP_IPV6_RULE-1)

func ruleFamily(f int) uint8 {
	if f == 6 {
		return unix.AF_INET6
	}
	return unix.AF_INET
}

// ruleModify is iprule_modify: the header and attributes iproute2 sends
// for an add (NLM_F_CREATE|NLM_F_EXCL) or a delete.
func (t *Target) ruleModify(typ uint16, r rtnl.Rule) error {
	add := typ == unix.RTM_NEWRULE
	action, table := r.Defaults(add)
	h := make([]byte, fibRuleHdrLen)
	h[0] = ruleFamily(r.Family)
	h[3] = r.TOS
	h[7] = action
	if r.Not {
		nativeEndian.PutUint32(h[8:], unix.FIB_RULE_INVERT)
	}
	ae := netlink.NewAttributeEncoder()
	prefix := func(attr uint16, lenAt int, p netip.Prefix) {
		if p.IsValid() && p.Bits() > 0 {
			h[lenAt] = uint8(p.Bits())
			ae.Bytes(attr, p.Addr().AsSlice())
		}
	}
	prefix(unix.FRA_DST, 1, r.Dst)
	prefix(unix.FRA_SRC, 2, r.Src)
	if r.Pref != nil {
		ae.Uint32(unix.FRA_PRIORITY, *r.Pref)
	}
	if r.Fwmark != nil {
		ae.Uint32(unix.FRA_FWMARK, *r.Fwmark)
	}
	if r.Fwmask != nil {
		ae.Uint32(unix.FRA_FWMASK, *r.Fwmask)
	}
	if r.Protocol != nil {
		ae.Uint8(unix.FRA_PROTOCOL, *r.Protocol)
	}
	if table < 256 {
		h[4] = uint8(table)
	} else {
		ae.Uint32(unix.FRA_TABLE, table)
	}
	if r.SuppressPrefixlen != nil {
		ae.Uint32(unix.FRA_SUPPRESS_PREFIXLEN, uint32(*r.SuppressPrefixlen))
	}
	if r.Iif != "" {
		ae.String(unix.FRA_IIFNAME, r.Iif)
	}
	if r.Oif != "" {
		ae.String(unix.FRA_OIFNAME, r.Oif)
	}
	if r.Goto != nil {
		ae.Uint32(unix.FRA_GOTO, *r.Goto)
	}
	b, err := ae.Encode()
	if err != nil {
		return err
	}
	var flags netlink.HeaderFlags
	if add {
		flags = netlink.Create | netlink.Excl
	}
	_, err = t.execute(typ, flags, append(h, b...))
	return err
}

// ruleFlush is iprule_flush: one dump of the family's rules, each rule
// with a priority sent back as a delete; the first error stops it.
func (t *Target) ruleFlush(op rtnl.RuleFlush) error {
	h := make([]byte, fibRuleHdrLen)
	h[0] = ruleFamily(op.Family)
	msgs, err := t.dump(unix.RTM_GETRULE, h)
	if err != nil {
		return err
	}
	for _, m := range msgs {
		if m.Header.Type != unix.RTM_NEWRULE || len(m.Data) < fibRuleHdrLen {
			continue
		}
		if _, ok := attrTableOf(m.Data[fibRuleHdrLen:]).u32(unix.FRA_PRIORITY); !ok {
			continue
		}
		if _, err := t.execute(unix.RTM_DELRULE, 0, m.Data); err != nil {
			return err
		}
	}
	return nil
}

// rules is `ip -j rule show` then `ip -6 -j rule show`.
func (t *Target) rules() ([]rtnl.RuleEntry, error) {
	out := []rtnl.RuleEntry{}
	for _, f := range []int{4, 6} {
		h := make([]byte, fibRuleHdrLen)
		h[0] = ruleFamily(f)
		msgs, err := t.dump(unix.RTM_GETRULE, h)
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			if e, ok := parseRule(m); ok {
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// parseRule is iproute2's print_rule of an RTM_NEWRULE or RTM_DELRULE.
func parseRule(m netlink.Message) (rtnl.RuleEntry, bool) {
	d, ok := payload(m, unix.RTM_NEWRULE, unix.RTM_DELRULE, fibRuleHdrLen)
	if !ok {
		return rtnl.RuleEntry{}, false
	}
	fam, dstLen, srcLen, tos, action := d[0], int(d[1]), int(d[2]), d[3], d[7]
	flags := nativeEndian.Uint32(d[8:])
	at := attrTableOf(d[fibRuleHdrLen:])
	host := 32
	if fam == unix.AF_INET6 {
		host = 128
	}
	e := rtnl.RuleEntry{Family: 4}
	if fam == unix.AF_INET6 {
		e.Family = 6
	}
	e.Priority, _ = at.u32(unix.FRA_PRIORITY)
	e.Not = flags&unix.FIB_RULE_INVERT != 0
	addr := func(attr uint16, l int) (string, *int) {
		b, ok := at[attr]
		if !ok {
			if l != 0 {
				return "0", &l
			}
			return "", nil
		}
		a, _ := netip.AddrFromSlice(b)
		if l != host {
			return a.String(), &l
		}
		return a.String(), nil
	}
	e.Src, e.SrcLen = addr(unix.FRA_SRC, srcLen)
	if e.Src == "" {
		e.Src = "all"
	}
	e.Dst, e.DstLen = addr(unix.FRA_DST, dstLen)
	if tos != 0 {
		e.Tos = rtnl.DSFieldName(tos)
	}
	mark, hasMark := at.u32(unix.FRA_FWMARK)
	mask, hasMask := at.u32(unix.FRA_FWMASK)
	if hasMark || hasMask {
		e.Fwmark = rtnl.CHex(mark)
		if hasMask && mask != 0xffffffff {
			e.Fwmask = rtnl.CHex(mask)
		}
	}
	if s, ok := at.str(unix.FRA_IIFNAME); ok {
		e.Iif, e.IifDetached = s, flags&unix.FIB_RULE_IIF_DETACHED != 0
	}
	if s, ok := at.str(unix.FRA_OIFNAME); ok {
		e.Oif, e.OifDetached = s, flags&unix.FIB_RULE_OIF_DETACHED != 0
	}
	table := uint32(d[4])
	if v, ok := at.u32(unix.FRA_TABLE); ok {
		table = v
	}
	if table != 0 {
		e.Table = rtnl.TableName(table)
		if v, ok := at.u32(unix.FRA_SUPPRESS_PREFIXLEN); ok && int32(v) != -1 {
			s := int(int32(v))
			e.SuppressPrefixlen = &s
		}
	}
	switch action {
	case rtnl.RuleActGoto:
		g, _ := at.u32(unix.FRA_GOTO)
		e.Goto, e.Unresolved = &g, flags&unix.FIB_RULE_UNRESOLVED != 0
	case rtnl.RuleActNop:
		e.Nop = true
	case rtnl.RuleActToTable:
	default:
		e.Action = rtnl.RouteTypeName(action)
	}
	if p, ok := at.u8(unix.FRA_PROTOCOL); ok && p != 0 && p != unix.RTPROT_KERNEL {
		e.Protocol = rtnl.ProtoName(p)
	}
	return e, true
}
