package rtnl

import (
	"bytes"
	"fmt"
	"net/netip"
	"strings"
)

// NexthopObj is the body of `ip nexthop add|replace`: one nexthop object
// (RTM_NEWNEXTHOP). Exactly one of a gateway and/or device, a blackhole
// or a group is given.
type NexthopObj struct {
	ID uint32 // NHA_ID; the language requires one (not 0)
	// V6 is nh_family AF_INET6 as iproute2 sets it: from -6, or from an
	// IPv6 gateway before any device or blackhole word.
	V6        bool
	Via       netip.Addr // NHA_GATEWAY; invalid: none
	Dev       string     // NHA_OIF; "": none
	Onlink    bool       // RTNH_F_ONLINK in nhm_flags
	Blackhole bool       // NHA_BLACKHOLE
	// Group is NHA_GROUP: the members in order (type mpath).
	Group []NexthopGrpMember
}

// NexthopGrpMember is one `ID[,WEIGHT]` of a group; Weight 1..256, 0 when
// not written (the kernel's 1).
type NexthopGrpMember struct {
	ID     uint32
	Weight int
}

// NexthopAdd is `nexthop add` (NLM_F_CREATE|NLM_F_EXCL) or, Replace,
// `nexthop replace` (NLM_F_CREATE|NLM_F_REPLACE).
type NexthopAdd struct {
	NexthopObj
	Replace bool
}

// NexthopDel is `nexthop del id N`.
type NexthopDel struct{ ID uint32 }

// NexthopFlush is `nexthop flush` as iproute2 does it: one dump, then a
// delete of each nexthop dumped; a delete that fails (a group emptied by
// an earlier one went with it) is passed over.
type NexthopFlush struct{}

func (o NexthopAdd) Verb() string {
	if o.Replace {
		return "nexthop replace"
	}
	return "nexthop add"
}
func (NexthopDel) Verb() string   { return "nexthop del" }
func (NexthopFlush) Verb() string { return "nexthop flush" }

// NexthopEntryObj is one element of `ip -j nexthop show` (iproute2 6.1):
// id, then group or the nexthop's gateway, device and scope or
// blackhole, then flags, each present under the same condition as there.
type NexthopEntryObj struct {
	ID        uint32
	Group     []NexthopGrpMember // Weight 0 when 1 (not printed)
	Gateway   string
	Dev       string
	Scope     string
	Blackhole bool
	Flags     []string
}

// MarshalJSON writes the keys in iproute2's order.
func (e NexthopEntryObj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"id":%d`, e.ID)
	if e.Group != nil {
		b.WriteString(`,"group":[`)
		for i, m := range e.Group {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":%d`, m.ID)
			if m.Weight > 1 {
				fmt.Fprintf(&b, `,"weight":%d`, m.Weight)
			}
			b.WriteByte('}')
		}
		b.WriteByte(']')
	}
	if e.Gateway != "" {
		fmt.Fprintf(&b, `,"gateway":%q`, e.Gateway)
	}
	if e.Dev != "" {
		fmt.Fprintf(&b, `,"dev":%q`, e.Dev)
	}
	if e.Scope != "" {
		fmt.Fprintf(&b, `,"scope":%q`, e.Scope)
	}
	if e.Blackhole {
		b.WriteString(`,"blackhole":null`)
	}
	b.WriteString(`,"flags":[`)
	for i, f := range e.Flags {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q", f)
	}
	b.WriteString("]}")
	return b.Bytes(), nil
}

// NexthopObjText is one nexthop as `ip nexthop show` prints it.
func NexthopObjText(e NexthopEntryObj) string {
	p := []string{"id", fmt.Sprint(e.ID)}
	if e.Group != nil {
		var g []string
		for _, m := range e.Group {
			s := fmt.Sprint(m.ID)
			if m.Weight > 1 {
				s += fmt.Sprintf(",%d", m.Weight)
			}
			g = append(g, s)
		}
		p = append(p, "group", strings.Join(g, "/"))
	}
	if e.Gateway != "" {
		p = append(p, "via", e.Gateway)
	}
	if e.Dev != "" {
		p = append(p, "dev", e.Dev)
	}
	if e.Scope != "" {
		p = append(p, "scope", e.Scope)
	}
	if e.Blackhole {
		p = append(p, "blackhole")
	}
	p = append(p, e.Flags...)
	return strings.Join(p, " ")
}
