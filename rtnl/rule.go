package rtnl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"

	"github.com/rtnlsim/rtnlsim/uapi"
)

// Rule actions (FR_ACT_* of linux/fib_rules.h).
const (
	RuleActUnspec      = 0
	RuleActToTable     = 1
	RuleActGoto        = 2
	RuleActNop         = 3
	RuleActBlackhole   = 6
	RuleActUnreachable = 7
	RuleActProhibit    = 8
)

// Rule is the body of `ip rule add|del`: the selectors and the action of
// one policy routing rule, as written. Nil pointers and invalid prefixes
// are "not given".
type Rule struct {
	Family int // 4 or 6
	Pref   *uint32
	// Src and Dst keep the address as written, host bits and all: the
	// kernel stores and dumps it unmasked. A /0 (`from all`) is no
	// selector.
	Src, Dst netip.Prefix
	Not      bool  // FIB_RULE_INVERT
	TOS      uint8 // frh.tos, hex as iproute2 reads it
	Fwmark   *uint32
	Fwmask   *uint32
	Iif, Oif string
	// Table nil: main for an add with the table action, 0 otherwise.
	Table *uint32
	// Action is RuleAct*; 0 on an add is the table action.
	Action            uint8
	Goto              *uint32
	SuppressPrefixlen *int32
	Protocol          *uint8
}

// Defaults are the action and table iproute2's iprule_modify sends: an add
// without a type looks up a table, main unless one is given; any other
// request sends 0 (any) for what it does not give.
func (r Rule) Defaults(add bool) (action uint8, table uint32) {
	action = r.Action
	if r.Table != nil {
		table = *r.Table
	}
	if add && action == RuleActUnspec {
		action = RuleActToTable
		if r.Table == nil {
			table = uapi.RT_TABLE_MAIN
		}
	}
	return action, table
}

// RuleAdd is `rule add` (NLM_F_CREATE|NLM_F_EXCL).
type RuleAdd struct{ Rule }

// RuleDel is `rule del`: the first rule matching every selector given.
type RuleDel struct{ Rule }

// RuleFlush is `rule flush` as iproute2 does it: one dump of the family's
// rules, then a delete of each rule that has a priority (pref 0 stays),
// sent back as dumped; the first failed delete stops it.
type RuleFlush struct{ Family int }

func (RuleAdd) Verb() string   { return "rule add" }
func (RuleDel) Verb() string   { return "rule del" }
func (RuleFlush) Verb() string { return "rule flush" }

// RuleEntry is one element of `ip -j rule show` (iproute2 6.1): the keys
// below, in this order, each present under the same condition as there.
// Fields whose JSON value is null are bools here.
type RuleEntry struct {
	Priority          uint32
	Not               bool
	Src               string // "all" without a source selector
	SrcLen            *int   // when not a host prefix
	Dst               string // "" without a destination selector
	DstLen            *int
	Tos               string
	Fwmark, Fwmask    string
	Iif               string
	IifDetached       bool
	Oif               string
	OifDetached       bool
	Table             string // "" for table 0
	SuppressPrefixlen *int
	Goto              *uint32
	Unresolved        bool
	Nop               bool
	Action            string // blackhole, unreachable, prohibit
	Protocol          string
	Family            int // 4 or 6, which ip -j does not print
}

// MarshalJSON writes the keys in iproute2's order; the flags it prints as
// null ("not", "iif_detached", ...) are written only when set.
func (r RuleEntry) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	key := func(k string) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		fmt.Fprintf(&b, "%q:", k)
	}
	str := func(k, v string) {
		key(k)
		s, _ := json.Marshal(v)
		b.Write(s)
	}
	null := func(k string, on bool) {
		if on {
			key(k)
			b.WriteString("null")
		}
	}
	num := func(k string, v int64) {
		key(k)
		fmt.Fprintf(&b, "%d", v)
	}
	num("priority", int64(r.Priority))
	null("not", r.Not)
	str("src", r.Src)
	if r.SrcLen != nil {
		num("srclen", int64(*r.SrcLen))
	}
	if r.Dst != "" {
		str("dst", r.Dst)
		if r.DstLen != nil {
			num("dstlen", int64(*r.DstLen))
		}
	}
	if r.Tos != "" {
		str("tos", r.Tos)
	}
	if r.Fwmark != "" {
		str("fwmark", r.Fwmark)
		if r.Fwmask != "" {
			str("fwmask", r.Fwmask)
		}
	}
	if r.Iif != "" {
		str("iif", r.Iif)
		null("iif_detached", r.IifDetached)
	}
	if r.Oif != "" {
		str("oif", r.Oif)
		null("oif_detached", r.OifDetached)
	}
	if r.Table != "" {
		str("table", r.Table)
		if r.SuppressPrefixlen != nil {
			num("suppress_prefixlen", int64(*r.SuppressPrefixlen))
		}
	}
	if r.Goto != nil {
		num("goto", int64(*r.Goto))
		null("unresolved", r.Unresolved)
	}
	null("nop", r.Nop)
	if r.Action != "" {
		str("action", r.Action)
	}
	if r.Protocol != "" {
		str("protocol", r.Protocol)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// RuleText is one rule as `ip rule show` prints it.
func RuleText(r RuleEntry) string {
	var p []string
	if r.Not {
		p = append(p, "not")
	}
	withLen := func(a string, l *int) string {
		if l != nil {
			return fmt.Sprintf("%s/%d", a, *l)
		}
		return a
	}
	p = append(p, "from", withLen(r.Src, r.SrcLen))
	if r.Dst != "" {
		p = append(p, "to", withLen(r.Dst, r.DstLen))
	}
	if r.Tos != "" {
		p = append(p, "tos", r.Tos)
	}
	if r.Fwmark != "" {
		m := r.Fwmark
		if r.Fwmask != "" {
			m += "/" + r.Fwmask
		}
		p = append(p, "fwmark", m)
	}
	dev := func(kw, name string, detached bool) {
		if name != "" {
			p = append(p, kw, name)
			if detached {
				p = append(p, "[detached]")
			}
		}
	}
	dev("iif", r.Iif, r.IifDetached)
	dev("oif", r.Oif, r.OifDetached)
	if r.Table != "" {
		p = append(p, "lookup", r.Table)
		if r.SuppressPrefixlen != nil {
			p = append(p, "suppress_prefixlength", fmt.Sprint(*r.SuppressPrefixlen))
		}
	}
	if r.Goto != nil {
		p = append(p, "goto", fmt.Sprint(*r.Goto))
		if r.Unresolved {
			p = append(p, "[unresolved]")
		}
	}
	if r.Nop {
		p = append(p, "nop")
	}
	if r.Action != "" {
		p = append(p, r.Action)
	}
	if r.Protocol != "" {
		p = append(p, "proto", r.Protocol)
	}
	return fmt.Sprintf("%d:\t%s", r.Priority, strings.Join(p, " "))
}

// RuleActionName is the word iproute2 prints for an action that is not a
// table lookup, goto or nop ("" for those).
func RuleActionName(a uint8) string {
	switch a {
	case RuleActBlackhole:
		return "blackhole"
	case RuleActUnreachable:
		return "unreachable"
	case RuleActProhibit:
		return "prohibit"
	}
	return ""
}

// CHex is C's "%#x": 0x and lowercase hex digits, but 0 for zero.
func CHex(v uint32) string {
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%#x", v)
}
