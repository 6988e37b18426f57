package sim

import (
	"fmt"
	"net/netip"

	"github.com/rtnlsim/rtnlsim/fibtrie"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/uapi"
)

// Policy routing rules as net/core/fib_rules.c keeps them, with the IPv4
// (net/ipv4/fib_rules.c) and IPv6 (net/ipv6/fib6_rules.c) parts: one
// ordered list per family, the default rules of a new namespace, the
// default priority, the duplicate check, delete matching, goto targets,
// rules naming devices that come and go, and the IPv4 lookup through the
// rules that a route's gateway check makes once a rule was added or
// deleted. Read from Linux ~6.15-6.17.

// fibRule is one struct fib_rule with its family's selectors.
type fibRule struct {
	pref     uint32
	src, dst netip.Addr // as written, host bits and all
	srcLen   int
	dstLen   int
	tos      uint8
	invert   bool
	mark     uint32
	mask     uint32
	// iif and oif: the names as given, and the device each names while
	// one has that name (nil: detached, or no name).
	iifName, oifName string
	iif, oif         *Device
	table            uint32
	action           uint8
	target           uint32   // goto's priority
	ctarget          *fibRule // goto's rule; nil: unresolved
	suppress         int32    // suppress_prefixlen; -1 when not given
	proto            uint8
}

// ruleList is one family's fib_rules_ops: its rules in priority order
// and whether a rule was ever added or deleted (fib_has_custom_rules:
// IPv4 lookups then go through the rules).
type ruleList struct {
	family int
	rules  []*fibRule
	custom bool
}

// newRuleList holds the default rules: local at 0, main at 32766 and,
// for IPv4, default at 32767, protocol kernel.
func newRuleList(family int) *ruleList {
	rl := &ruleList{family: family}
	add := func(pref, table uint32) {
		rl.rules = append(rl.rules, &fibRule{pref: pref, table: table, action: rtnl.RuleActToTable,
			suppress: -1, proto: uapi.RTPROT_KERNEL})
	}
	add(0, uapi.RT_TABLE_LOCAL)
	add(0x7ffe, uapi.RT_TABLE_MAIN)
	if family == 4 {
		add(0x7fff, uapi.RT_TABLE_DEFAULT)
	}
	return rl
}

func (n *Netns) ruleList(family int) *ruleList {
	if family == 6 {
		if n.rules6 == nil {
			n.rules6 = newRuleList(6)
		}
		return n.rules6
	}
	if n.rules4 == nil {
		n.rules4 = newRuleList(4)
	}
	return n.rules4
}

// defaultPref is fib_default_rule_pref: one below the second rule's
// priority when that is not 0, else 0.
func (rl *ruleList) defaultPref() uint32 {
	if len(rl.rules) >= 2 && rl.rules[1].pref != 0 {
		return rl.rules[1].pref - 1
	}
	return 0
}

// ruleReq is a request's rule (fib_nl2rule) with which selectors it gave.
type ruleReq struct {
	fibRule
	hasPref bool
}

// ruleFromRequest is fib_nl2rule and fib_nl2rule_rtnl: the request's
// fields as the kernel reads them, the address and goto checks, the
// default priority, the devices by name.
func (n *Netns) ruleFromRequest(rl *ruleList, r rtnl.Rule, add bool) (*ruleReq, error) {
	q := &ruleReq{fibRule: fibRule{suppress: -1, tos: r.TOS, invert: r.Not}}
	bits := 32
	if rl.family == 6 {
		bits = 128
	}
	if r.Src.IsValid() && r.Src.Bits() > 0 {
		if r.Src.Addr().BitLen() != bits {
			return nil, rtnl.Errf(uapi.EINVAL, "Invalid source address")
		}
		q.src, q.srcLen = r.Src.Addr(), r.Src.Bits()
	}
	if r.Dst.IsValid() && r.Dst.Bits() > 0 {
		if r.Dst.Addr().BitLen() != bits {
			return nil, rtnl.Errf(uapi.EINVAL, "Invalid dst address")
		}
		q.dst, q.dstLen = r.Dst.Addr(), r.Dst.Bits()
	}
	if r.Pref != nil {
		q.pref, q.hasPref = *r.Pref, true
	}
	if r.Protocol != nil {
		q.proto = *r.Protocol
	}
	q.iifName, q.oifName = r.Iif, r.Oif
	if r.Fwmark != nil {
		q.mark = *r.Fwmark
		if q.mark != 0 {
			q.mask = 0xffffffff
		}
	}
	if r.Fwmask != nil {
		q.mask = *r.Fwmask
	}
	q.action, q.table = r.Defaults(add)
	if r.SuppressPrefixlen != nil {
		q.suppress = *r.SuppressPrefixlen
	}
	if r.Goto != nil {
		if q.action != rtnl.RuleActGoto {
			return nil, rtnl.Errf(uapi.EINVAL, "Unexpected goto")
		}
		q.target = *r.Goto
	} else if q.action == rtnl.RuleActGoto {
		return nil, rtnl.Errf(uapi.EINVAL, "Missing goto target for action goto")
	}
	// fib_nl2rule_rtnl, for deletes too: a delete without a priority
	// matches any, but its goto is checked against the default.
	if !q.hasPref {
		q.pref = rl.defaultPref()
	}
	if r.Goto != nil && q.target <= q.pref {
		return nil, rtnl.Errf(uapi.EINVAL, "Backward goto not supported")
	}
	if q.iifName != "" {
		q.iif = n.ByName(q.iifName)
	}
	if q.oifName != "" {
		q.oif = n.ByName(q.oifName)
	}
	return q, nil
}

// compareAddrs is the family's compare: the lengths, tos and addresses
// the request gives must be the rule's.
func (x *fibRule) compareAddrs(q *ruleReq) bool {
	if q.srcLen != 0 && (x.srcLen != q.srcLen || x.src != q.src) {
		return false
	}
	if q.dstLen != 0 && (x.dstLen != q.dstLen || x.dst != q.dst) {
		return false
	}
	return q.tos == 0 || x.tos == q.tos
}

// exists is rule_exists: a rule whose every other field equals the
// request's, and whose addresses and tos equal those the request gives.
func (rl *ruleList) exists(q *ruleReq) bool {
	for _, x := range rl.rules {
		if x.action != q.action || x.table != q.table || x.pref != q.pref ||
			x.iifName != q.iifName || x.oifName != q.oifName || x.mark != q.mark ||
			x.mask != q.mask || x.suppress != q.suppress || x.proto != q.proto {
			continue
		}
		if x.compareAddrs(q) {
			return true
		}
	}
	return false
}

// find is rule_find: the first rule matching every field the delete
// gives.
func (rl *ruleList) find(q *ruleReq) int {
	for i, x := range rl.rules {
		switch {
		case q.action != 0 && x.action != q.action,
			q.table != 0 && x.table != q.table,
			q.hasPref && x.pref != q.pref,
			q.iifName != "" && x.iifName != q.iifName,
			q.oifName != "" && x.oifName != q.oifName,
			q.mark != 0 && x.mark != q.mark,
			q.suppress != -1 && x.suppress != q.suppress,
			q.mask != 0 && x.mask != q.mask,
			q.proto != 0 && x.proto != q.proto,
			!x.compareAddrs(q):
			continue
		}
		return i
	}
	return -1
}

// ruleAdd is fib_newrule: nl2rule, the duplicate check (NLM_F_EXCL),
// the family's configure, then the goto targets, the insertion after the
// last rule of no higher priority, and RTM_NEWRULE.
func (n *Netns) ruleAdd(r rtnl.Rule) error {
	rl := n.ruleList(r.Family)
	q, err := n.ruleFromRequest(rl, r, true)
	if err != nil {
		return err
	}
	if rl.exists(q) {
		return rtnl.Errf(uapi.EEXIST, "")
	}
	if err := n.ruleConfigure(rl, q); err != nil {
		return err
	}
	rl.custom = true
	nr := q.fibRule
	nr.ctarget = nil
	if nr.action == rtnl.RuleActGoto {
		for _, x := range rl.rules {
			if x.pref == nr.target {
				nr.ctarget = x
				break
			}
		}
	}
	// Unresolved gotos to this priority now jump here.
	for _, x := range rl.rules {
		if x.action == rtnl.RuleActGoto && x.target == nr.pref && x.ctarget == nil {
			x.ctarget = &nr
		}
	}
	at := 0
	for i, x := range rl.rules {
		if x.pref > nr.pref {
			break
		}
		at = i + 1
	}
	rl.rules = append(rl.rules, nil)
	copy(rl.rules[at+1:], rl.rules[at:])
	rl.rules[at] = &nr
	n.ruleEvent("RTM_NEWRULE", rl, &nr)
	return nil
}

// ruleConfigure is fib4_rule_configure (the tos checks, fib_unmerge, a
// new empty table for `table 0`) or fib6_rule_configure (the ECN check,
// no table 0).
func (n *Netns) ruleConfigure(rl *ruleList, q *ruleReq) error {
	if q.tos&3 != 0 {
		return rtnl.Errf(uapi.EINVAL, "Invalid dsfield (tos): ECN bits must be 0")
	}
	if rl.family == 6 {
		if q.action == rtnl.RuleActToTable && q.table == 0 {
			return rtnl.Errf(uapi.EINVAL, "Invalid table")
		}
		if q.action == rtnl.RuleActToTable {
			n.fib6.newTable(q.table)
		}
		return nil
	}
	if q.tos&^0x1e != 0 {
		return rtnl.Errf(uapi.EINVAL, "Invalid tos")
	}
	n.unmerge()
	if q.table == 0 && q.action == rtnl.RuleActToTable {
		// fib_empty_table: the lowest id with no table, made now.
		id := uint32(1)
		for n.fib.HasTable(id) {
			id++
		}
		n.fib.NewTable(id)
		q.table = id
	}
	return nil
}

// ruleDel is fib_delrule: the first match, the family's delete
// (IPv4: fib_unmerge), RTM_DELRULE, and the gotos that jumped to the
// rule move to the next rule when it has the same priority.
func (n *Netns) ruleDel(r rtnl.Rule) error {
	rl := n.ruleList(r.Family)
	q, err := n.ruleFromRequest(rl, r, false)
	if err != nil {
		return err
	}
	i := rl.find(q)
	if i < 0 {
		return rtnl.Errf(uapi.ENOENT, "")
	}
	n.ruleRemove(rl, i)
	return nil
}

func (n *Netns) ruleRemove(rl *ruleList, i int) {
	x := rl.rules[i]
	if rl.family == 4 {
		n.unmerge()
	}
	rl.custom = true
	rl.rules = append(rl.rules[:i], rl.rules[i+1:]...)
	n.ruleEvent("RTM_DELRULE", rl, x)
	var next *fibRule
	if i < len(rl.rules) && rl.rules[i].pref == x.pref {
		next = rl.rules[i]
	}
	for _, y := range rl.rules {
		if y.ctarget == x {
			y.ctarget = next
		}
	}
}

// ruleFlush is `ip rule flush`: the family's rules as one dump lists
// them, each with a priority deleted as dumped (rule_find with all its
// fields); the first delete that finds nothing stops it.
func (n *Netns) ruleFlush(op rtnl.RuleFlush) error {
	rl := n.ruleList(op.Family)
	if len(rl.rules) > maxRuleDump {
		return fmt.Errorf("%w: a rule flush of more than %d rules (its dump comes in several parts)", ErrNotModelled, maxRuleDump)
	}
	dumped := append([]*fibRule(nil), rl.rules...)
	for _, x := range dumped {
		if x.pref == 0 {
			continue
		}
		q := &ruleReq{fibRule: *x, hasPref: true}
		i := rl.find(q)
		if i < 0 {
			return rtnl.Errf(uapi.ENOENT, "")
		}
		n.ruleRemove(rl, i)
	}
	return nil
}

// maxRuleDump is how many rules the model lets one flush dump: more
// would not fit the first part of the kernel's dump, and the deletes
// iproute2 sends while it reads would shift what the next part lists.
const maxRuleDump = 64

// rulesAttach is fib_rules_event's NETDEV_REGISTER (and the second half
// of NETDEV_CHANGENAME): detached rules naming the device attach.
func (n *Netns) rulesAttach(d *Device) {
	for _, rl := range []*ruleList{n.rules4, n.rules6} {
		if rl == nil {
			continue
		}
		for _, x := range rl.rules {
			if x.iif == nil && x.iifName == d.name {
				x.iif = d
			}
			if x.oif == nil && x.oifName == d.name {
				x.oif = d
			}
		}
	}
}

// rulesDetach is NETDEV_UNREGISTER (and the first half of
// NETDEV_CHANGENAME): rules on the device keep its name, detached.
func (n *Netns) rulesDetach(d *Device) {
	for _, rl := range []*ruleList{n.rules4, n.rules6} {
		if rl == nil {
			continue
		}
		for _, x := range rl.rules {
			if x.iif == d {
				x.iif = nil
			}
			if x.oif == d {
				x.oif = nil
			}
		}
	}
}

// ruleEvent is notify_rule_change.
func (n *Netns) ruleEvent(typ string, rl *ruleList, x *fibRule) {
	fam := "inet"
	if rl.family == 6 {
		fam = "inet6"
	}
	n.send(typ, fam, func() any { return renderRule(x, rl.family) })
}

// renderRule is fib_nl_fill_rule as `ip -j rule show` prints it.
func renderRule(x *fibRule, family int) rtnl.RuleEntry {
	e := rtnl.RuleEntry{Priority: x.pref, Not: x.invert, Src: "all", Family: family}
	host := 32
	if family == 6 {
		host = 128
	}
	if x.srcLen > 0 {
		e.Src = x.src.String()
		if x.srcLen != host {
			l := x.srcLen
			e.SrcLen = &l
		}
	}
	if x.dstLen > 0 {
		e.Dst = x.dst.String()
		if x.dstLen != host {
			l := x.dstLen
			e.DstLen = &l
		}
	}
	if x.tos != 0 {
		e.Tos = rtnl.DSFieldName(x.tos)
	}
	if x.mark != 0 || x.mask != 0 {
		e.Fwmark = rtnl.CHex(x.mark)
		if x.mask != 0xffffffff {
			e.Fwmask = rtnl.CHex(x.mask)
		}
	}
	e.Iif, e.IifDetached = x.iifName, x.iifName != "" && x.iif == nil
	e.Oif, e.OifDetached = x.oifName, x.oifName != "" && x.oif == nil
	if x.table != 0 {
		e.Table = rtnl.TableName(x.table)
		if x.suppress != -1 {
			s := int(x.suppress)
			e.SuppressPrefixlen = &s
		}
	}
	switch x.action {
	case rtnl.RuleActGoto:
		t := x.target
		e.Goto, e.Unresolved = &t, x.ctarget == nil
	case rtnl.RuleActNop:
		e.Nop = true
	default:
		e.Action = rtnl.RuleActionName(x.action)
	}
	if x.proto != 0 && x.proto != uapi.RTPROT_KERNEL {
		e.Protocol = rtnl.ProtoName(x.proto)
	}
	return e
}

// Rules is `ip -j rule show`, then `ip -6 -j rule show`.
func (n *Netns) Rules() []rtnl.RuleEntry {
	var out []rtnl.RuleEntry
	for _, f := range []int{4, 6} {
		for _, x := range n.ruleList(f).rules {
			out = append(out, renderRule(x, f))
		}
	}
	return out
}

// fibRulesLookup is __fib_lookup through the IPv4 rules for a gateway
// check's flow: no source, mark or tos, coming from lo.
func (n *Netns) fibRulesLookup(fl fibtrie.Flow) (*fibtrie.Alias, uapi.Errno) {
	a, _, errno := n.fibRulesLookupFlow(ruleFlow{Flow: fl}, nil)
	return a, errno
}

// ruleFlow is what the rules match in a flow made on this host (it comes
// from lo) besides fibtrie.Flow's: its source and mark.
type ruleFlow struct {
	fibtrie.Flow
	src, mark uint32
	// iif is flowi4_iif's device for an input lookup; nil is lo, as
	// output lookups have it.
	iif *Device
}

// fibRulesLookupFlow is __fib_lookup through the IPv4 rules
// (fib_rules_lookup): the first matching rule whose action ends the
// lookup (a table that has a route of the flow, or a reject action)
// decides, and the table it looked in is res->table; gotos jump, nops and
// unresolved gotos pass; a route no longer than a rule's
// suppress_prefixlen passes; nothing is ENETUNREACH. found, when not
// nil, is given the tos of each route a table lookup finds, suppressed or
// not: the kernel's fib_result keeps the last one.
func (n *Netns) fibRulesLookupFlow(fl ruleFlow, found *uint8) (*fibtrie.Alias, uint32, uapi.Errno) {
	rules := n.ruleList(4).rules
	for i := 0; i < len(rules); i++ {
		x := rules[i]
	jumped:
		if !x.match4(fl, n.lo) {
			continue
		}
		var res *fibtrie.Alias
		errno := uapi.EAGAIN
		switch x.action {
		case rtnl.RuleActGoto:
			if x.ctarget == nil {
				continue
			}
			x = x.ctarget
			i = ruleIndex(rules, x)
			goto jumped
		case rtnl.RuleActNop:
			continue
		case rtnl.RuleActToTable:
			if n.fib.HasTable(x.table) {
				res, errno = n.fibTableLookup(x.table, fl.Flow)
				if errno == 0 && found != nil {
					*found = res.TOS
				}
			}
		case rtnl.RuleActUnreachable:
			errno = uapi.ENETUNREACH
		case rtnl.RuleActProhibit:
			errno = uapi.EACCES
		default:
			errno = uapi.EINVAL
		}
		if errno == 0 && int32(res.Len) <= x.suppress {
			continue
		}
		if errno != uapi.EAGAIN {
			return res, x.table, errno
		}
	}
	return nil, 0, uapi.ENETUNREACH
}

func ruleIndex(rules []*fibRule, x *fibRule) int {
	for i, y := range rules {
		if y == x {
			return i
		}
	}
	return len(rules)
}

// match4 is fib_rule_match with fib4_rule_match for a flow from fl.iif
// (lo when nil), to fl.OIF, inverted by `not`.
func (x *fibRule) match4(fl ruleFlow, lo *Device) bool {
	iif := lo
	if fl.iif != nil {
		iif = fl.iif
	}
	m := func() bool {
		if x.iifName != "" && x.iif != iif {
			return false
		}
		if x.oifName != "" && (x.oif == nil || int(x.oif.ifindex) != fl.OIF) {
			return false
		}
		if (x.mark^fl.mark)&x.mask != 0 {
			return false
		}
		if x.srcLen > 0 && !prefixHolds(x.src, x.srcLen, addrOfU32(fl.src)) {
			return false
		}
		if x.dstLen > 0 && !prefixHolds(x.dst, x.dstLen, addrOfU32(fl.Dst)) {
			return false
		}
		return x.tos == 0 || x.tos == fl.TOS
	}()
	return m != x.invert
}

// prefixHolds: a is in base/bits (base's host bits ignored).
func prefixHolds(base netip.Addr, bits int, a netip.Addr) bool {
	p, err := base.Prefix(bits)
	return err == nil && p.Contains(a)
}
