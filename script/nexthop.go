package script

import (
	"strconv"
	"strings"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

var nexthopVerbs = []struct{ name, canon string }{
	// do_ipnh's order: "a" is add, "r" replace, "d" delete.
	{"add", "add"}, {"replace", "replace"}, {"delete", "del"}, {"list", "show"}, {"show", "show"},
	{"lst", "show"}, {"get", ""}, {"flush", "flush"}, {"bucket", ""}, {"help", ""},
}

// parseNexthopCmd is `nexthop add|replace|del|flush|show` (ipnh_modify,
// ipnh_list_flush); -6 only on add and replace.
func parseNexthopCmd(p *words, verb string, family int) (rtnl.Op, *LineError) {
	v, err := pickVerb("nexthop", verb, nexthopVerbs)
	if err != nil {
		return nil, err
	}
	p.ctx = "nexthop " + v
	if family == 6 && v != "add" && v != "replace" {
		// -6 makes show and flush dump IPv6 nexthops alone.
		return nil, errf("-6", "not supported with nexthop %s", v)
	}
	if family == 4 {
		// -4 would make a group's request AF_INET (EINVAL).
		return nil, errf("-4", "not supported with nexthop")
	}
	switch v {
	case "flush", "show":
		if p.more() {
			return nil, p.unsupported(p.peek())
		}
		if v == "show" {
			return rtnl.ShowOp{Object: "nexthop"}, nil
		}
		return rtnl.NexthopFlush{}, nil
	case "del":
		if !p.more() || p.peek() != "id" {
			return nil, errf(p.ctx, `"id ID" is expected`)
		}
		id, err := p.nhID(p.take())
		if err != nil {
			return nil, err
		}
		if p.more() {
			return nil, p.unsupported(p.peek())
		}
		return rtnl.NexthopDel{ID: id}, nil
	}
	var nh rtnl.NexthopObj
	seen := keywords{}
	// fam is nhm_family as ipnh_modify builds it: a device or blackhole
	// word makes an unset family AF_INET, a gateway its own.
	fam := family
	for p.more() {
		w := p.take()
		switch w {
		case "id":
			id, err := p.nhID(w)
			if err != nil {
				return nil, err
			}
			if err := seen.once("id", strconv.FormatUint(uint64(id), 10)); err != nil {
				return nil, err
			}
			nh.ID = id
		case "via":
			s, err := p.arg(w)
			if err != nil {
				return nil, err
			}
			a, ok := parseAddr(s)
			if !ok {
				return nil, errf(s, "invalid gateway address")
			}
			if fam == 0 {
				fam = familyOf(a)
			} else if fam != familyOf(a) {
				return nil, errf(s, "address family mismatch")
			}
			if err := seen.once("via", s); err != nil {
				return nil, err
			}
			nh.Via = a
		case "dev":
			n, err := p.name(w)
			if err != nil {
				return nil, err
			}
			if err := seen.once("dev", n); err != nil {
				return nil, err
			}
			nh.Dev = n
			if fam == 0 {
				fam = 4
			}
		case "onlink":
			nh.Onlink = true
		case "blackhole":
			nh.Blackhole = true
			if fam == 0 {
				fam = 4
			}
		case "group":
			s, err := p.arg(w)
			if err != nil {
				return nil, err
			}
			g, err := parseNhGroup(s)
			if err != nil {
				return nil, err
			}
			if err := seen.once("group", s); err != nil {
				return nil, err
			}
			nh.Group = g
		case "type":
			s, err := p.arg(w)
			if err != nil {
				return nil, err
			}
			if s != "mpath" {
				return nil, errf(s, `group type is not supported (mpath)`)
			}
		default:
			return nil, p.unsupported(w)
		}
	}
	if nh.ID == 0 {
		return nil, errf(p.ctx, `a nexthop without "id ID" is not supported`)
	}
	nh.V6 = fam == 6
	return rtnl.NexthopAdd{NexthopObj: nh, Replace: v == "replace"}, nil
}

// nhID takes a nexthop id (1..4294967295) after kw.
func (p *words) nhID(kw string) (uint32, *LineError) {
	v, err := p.number(kw, 1, 0xffffffff)
	return uint32(v), err
}

// parseNhGroup is add_nh_group_attr's `ID[,WEIGHT]/...`, weights 1..256
// here.
func parseNhGroup(s string) ([]rtnl.NexthopGrpMember, *LineError) {
	var g []rtnl.NexthopGrpMember
	for _, part := range strings.Split(s, "/") {
		idS, wS, hasW := strings.Cut(part, ",")
		id, ok := parseUint(idS, 0xffffffff)
		if !ok {
			return nil, errf(s, `"group" value is invalid`)
		}
		m := rtnl.NexthopGrpMember{ID: uint32(id)}
		if hasW {
			w, ok := parseUint(wS, 256)
			if !ok || w == 0 {
				return nil, errf(wS, `"weight" is invalid (1..256)`)
			}
			m.Weight = int(w)
		}
		g = append(g, m)
	}
	return g, nil
}

func (l *line) nexthop(o rtnl.NexthopAdd) {
	// An IPv6 gateway written first carries the family; else -6 does.
	if o.V6 && (!o.Via.IsValid() || o.Group != nil) {
		l.add("-6")
	}
	l.add("nexthop")
	if o.Replace {
		l.add("replace")
	} else {
		l.add("add")
	}
	l.add("id", strconv.FormatUint(uint64(o.ID), 10))
	if o.Group != nil {
		var parts []string
		for _, m := range o.Group {
			s := strconv.FormatUint(uint64(m.ID), 10)
			if m.Weight != 0 {
				s += "," + strconv.Itoa(m.Weight)
			}
			parts = append(parts, s)
		}
		l.add("group", strings.Join(parts, "/"))
	}
	if o.Via.IsValid() {
		l.add("via", o.Via.String())
	}
	if o.Dev != "" {
		l.add("dev")
		l.word(o.Dev)
	}
	if o.Onlink {
		l.add("onlink")
	}
	if o.Blackhole {
		l.add("blackhole")
	}
}
