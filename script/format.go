package script

import (
	"fmt"
	"net/netip"
	"reflect"
	"strconv"
	"strings"

	"github.com/rtnlsim/rtnlsim/rtnl"
)

// Format writes the canonical script line for op, such that Parse of the
// line gives op back. Keywords are written in full, names always after
// their keyword (`dev NAME`, `name NAME`), numbers in decimal, scopes,
// protocols and tables by name where iproute2 has one. Pointers to Ops are
// accepted too. An Op the language cannot express (say, a LinkSet with both
// GroupSel and NewName) is written as closely as possible; Parse will then
// report the line.
func Format(op rtnl.Op) string {
	if v := reflect.ValueOf(op); v.Kind() == reflect.Pointer && !v.IsNil() {
		if o, ok := v.Elem().Interface().(rtnl.Op); ok {
			op = o
		}
	}
	var b line
	switch o := op.(type) {
	case rtnl.LinkAdd:
		b.add("link", "add", "name")
		b.word(o.Name)
		if o.Index != 0 {
			b.add("index", strconv.FormatInt(int64(o.Index), 10))
		}
		b.linkAttrs(o.LinkAttrs)
		if o.Lower != "" {
			b.add("link")
			b.word(o.Lower)
		}
		if o.Netns != "" {
			b.add("netns")
			b.word(o.Netns)
		}
		b.add("type")
		b.word(o.Kind)
		if o.Peer != "" || o.PeerNetns != "" {
			b.add("peer")
		}
		if o.Peer != "" {
			b.add("name")
			b.word(o.Peer)
		}
		if o.PeerNetns != "" {
			b.add("netns")
			b.word(o.PeerNetns)
		}
		if a := o.PeerAttrs; a.MTU != nil || a.Address != nil || a.TxQueueLen != nil || a.Group != nil {
			if o.Peer == "" && o.PeerNetns == "" {
				b.add("peer")
			}
			if a.MTU != nil {
				b.add("mtu", strconv.FormatUint(uint64(*a.MTU), 10))
			}
			if a.Address != nil {
				b.add("address", a.Address.String())
			}
			if a.TxQueueLen != nil {
				b.add("txqueuelen", strconv.FormatUint(uint64(*a.TxQueueLen), 10))
			}
			if a.Group != nil {
				b.add("group", strconv.FormatUint(uint64(*a.Group), 10))
			}
		}
		if o.MacvlanMode != "" {
			b.add("mode")
			b.word(o.MacvlanMode)
		}
		if o.VNI != nil {
			b.add("id", strconv.FormatUint(uint64(*o.VNI), 10))
		}
		if o.DstPort != nil {
			b.add("dstport", strconv.FormatUint(uint64(*o.DstPort), 10))
		}
		if v := o.Vxlan; v.Local.IsValid() || v.Remote.IsValid() || v.Dev != "" || v.TTL != nil || v.NoLearning {
			if v.Local.IsValid() {
				b.add("local", v.Local.String())
			}
			if v.Remote.IsValid() {
				kw := "remote"
				if v.Remote.IsMulticast() {
					kw = "group"
				}
				b.add(kw, v.Remote.String())
			}
			if v.Dev != "" {
				b.add("dev")
				b.word(v.Dev)
			}
			if v.TTL != nil {
				b.add("ttl", strconv.FormatUint(uint64(*v.TTL), 10))
			}
			if v.NoLearning {
				b.add("nolearning")
			}
		}
		b.bridgeOpts(o.Bridge)
	case rtnl.ShowOp:
		if o.Family != 0 {
			b.add(familyWord(o.Family))
		}
		b.add(o.Object, "show")
		if o.Dev != "" {
			b.add("dev")
			b.word(o.Dev)
		}
		b.tableSel(o.Table)
	case rtnl.RouteGet:
		if o.Dst.Is6() {
			b.add("-6")
		}
		b.add("route", "get", o.Dst.String())
		if o.Src.IsValid() {
			b.add("from", o.Src.String())
		}
		if o.IIF != "" {
			b.add("iif")
			b.word(o.IIF)
		}
		if o.OIF != "" {
			b.add("oif")
			b.word(o.OIF)
		}
		if o.TOS != 0 {
			b.add("tos", fmt.Sprintf("0x%02x", o.TOS))
		}
		if o.Mark != 0 {
			b.add("mark", strconv.FormatUint(uint64(o.Mark), 10))
		}
		if o.UID != nil {
			b.add("uid", strconv.FormatUint(uint64(*o.UID), 10))
		}
		if o.FibMatch {
			b.add("fibmatch")
		}
	case rtnl.NetnsAdd:
		b.add("netns", "add")
		b.word(o.Name)
	case rtnl.NetnsDel:
		b.add("netns", "del")
		b.word(o.Name)
	case rtnl.InNetns:
		b.add("netns", "exec")
		b.word(o.Name)
		b.add("ip", Format(o.Op))
	case rtnl.LinkSet:
		b.add("link", "set")
		if o.Dev != "" || o.GroupSel == nil {
			b.add("dev")
			b.word(o.Dev)
		}
		if o.GroupSel != nil {
			b.add("group", strconv.FormatUint(uint64(*o.GroupSel), 10))
		}
		b.linkAttrs(o.LinkAttrs)
		if o.NewName != "" {
			b.add("name")
			b.word(o.NewName)
		}
		if o.Netns != "" {
			b.add("netns")
			b.word(o.Netns)
		}
		if o.Kind != "" {
			b.add("type")
			b.word(o.Kind)
			b.bridgeOpts(o.Bridge)
		}
	case rtnl.LinkDel:
		b.add("link", "del", "dev")
		b.word(o.Dev)
	case rtnl.LinkDelGroup:
		b.add("link", "del", "group", strconv.FormatUint(uint64(o.Group), 10))
	case rtnl.LinkDelList:
		b.add("link", "del", "list")
		for _, d := range o.Devs {
			b.word(d)
		}
	case rtnl.LinkProp:
		b.add("link", "property", map[bool]string{false: "add", true: "del"}[o.Del], "dev")
		b.word(o.Dev)
		for _, a := range o.AltNames {
			b.add("altname")
			b.word(a)
		}
	case rtnl.AddrAdd:
		b.add(strings.Fields(o.Verb())...)
		b.addr(o.Addr)
	case rtnl.AddrDel:
		b.add("addr", "del")
		b.addr(o.Addr)
	case rtnl.AddrFlush:
		if o.Family != 0 {
			b.add(familyWord(o.Family))
		}
		b.add("addr", "flush", "dev")
		b.word(o.Dev)
		if o.To.IsValid() {
			b.add("to", o.To.String())
		}
		if o.Label != "" {
			b.add("label")
			b.word(o.Label)
		}
		if o.Scope != nil {
			b.add("scope", scopes.format(uint64(*o.Scope)))
		}
		if o.Secondary != nil {
			if *o.Secondary {
				b.add("secondary")
			} else {
				b.add("primary")
			}
		}
	case rtnl.RouteAdd, rtnl.RouteDel, rtnl.RouteReplace, rtnl.RouteAppend, rtnl.RoutePrepend, rtnl.RouteChange:
		b.add(strings.Fields(o.Verb())...)
		r, _ := rtnl.RouteOf(o)
		b.route(r)
	case rtnl.RouteFlush:
		if o.Family != 0 {
			b.add(familyWord(o.Family))
		}
		b.add("route", "flush")
		b.tableSel(o.Table)
		if o.Dev != "" {
			b.add("dev")
			b.word(o.Dev)
		}
		if o.Proto != nil {
			b.add("proto", protos.format(uint64(*o.Proto)))
		}
		if o.Scope != nil {
			b.add("scope", scopes.format(uint64(*o.Scope)))
		}
		if o.Type != nil {
			b.add("type", rtnl.RouteTypeName(*o.Type))
		}
		if o.TOS != nil {
			b.add("tos", fmt.Sprintf("0x%02x", *o.TOS))
		}
		if o.Metric != nil {
			b.add("metric", fmt.Sprint(*o.Metric))
		}
		if o.Via.IsValid() {
			b.add("via", o.Via.String())
		}
		if o.Src.IsValid() {
			b.add("src", o.Src.String())
		}
		if o.Realms != nil {
			b.add("realms", formatFlushRealms(*o.Realms, o.RealmsMask))
		}
		if o.Dst.IsValid() {
			switch {
			case o.Root:
				b.add("root")
			case o.Match:
				b.add("match")
			}
			b.add(o.Dst.String())
		}
	case rtnl.RuleAdd:
		b.rule("add", o.Rule)
	case rtnl.RuleDel:
		b.rule("del", o.Rule)
	case rtnl.NexthopAdd:
		b.nexthop(o)
	case rtnl.NexthopDel:
		b.add("nexthop", "del", "id", strconv.FormatUint(uint64(o.ID), 10))
	case rtnl.NexthopFlush:
		b.add("nexthop", "flush")
	case rtnl.RuleFlush:
		if o.Family == 6 {
			b.add("-6")
		}
		b.add("rule", "flush")
	case rtnl.Sysctl:
		b.add("sysctl")
		b.word(o.Key + "=" + o.Value)
	default:
		return fmt.Sprintf("# script.Format: %T has no script form", op)
	}
	return b.String()
}

type line struct {
	parts []string
	raw   string // the last word as given to word(), before quoting
}

func (l *line) add(ws ...string) { l.parts, l.raw = append(l.parts, ws...), "" }
func (l *line) word(w string)    { l.parts, l.raw = append(l.parts, quoteWord(w)), w }

// String joins the words. A line must not end in a backslash, which would
// continue it on the next line: the last word is then quoted if it can be,
// else an empty comment ends the line.
func (l *line) String() string {
	s := strings.Join(l.parts, " ")
	if !strings.HasSuffix(s, `\`) {
		return s
	}
	if n := len(l.parts); l.raw != "" && l.parts[n-1] == l.raw {
		if q := "'" + l.raw + "'"; !strings.Contains(l.raw, "'") {
			return strings.Join(append(l.parts[:n-1:n-1], q), " ")
		}
		if q := `"` + l.raw + `"`; !strings.Contains(l.raw, `"`) {
			return strings.Join(append(l.parts[:n-1:n-1], q), " ")
		}
	}
	return s + " #"
}

func (l *line) linkAttrs(a rtnl.LinkAttrs) {
	if a.Group != nil {
		l.add("group", strconv.FormatUint(uint64(*a.Group), 10))
	}
	if a.MTU != nil {
		l.add("mtu", strconv.FormatUint(uint64(*a.MTU), 10))
	}
	if a.Address != nil {
		l.add("address", a.Address.String())
	}
	if a.Master != nil {
		if *a.Master == "" {
			l.add("nomaster")
		} else {
			l.add("master")
			l.word(*a.Master)
		}
	}
	if a.TxQueueLen != nil {
		l.add("txqueuelen", strconv.FormatUint(uint64(*a.TxQueueLen), 10))
	}
	for _, f := range []struct {
		kw string
		v  *bool
	}{{"promisc", a.Promisc}, {"allmulticast", a.AllMulti}, {"multicast", a.Multicast}, {"arp", a.ARP}, {"carrier", a.Carrier}} {
		if f.v != nil {
			l.add(f.kw, onOff(*f.v))
		}
	}
	if a.Alias != nil {
		l.add("alias")
		l.word(*a.Alias)
	}
	if a.Broadcast != nil {
		l.add("broadcast", a.Broadcast.String())
	}
	if a.Up != nil {
		if *a.Up {
			l.add("up")
		} else {
			l.add("down")
		}
	}
}

func (l *line) addr(a rtnl.Addr) {
	if a.Wildcard {
		l.add(a.Prefix.Addr().String())
	} else {
		l.add(a.Prefix.String())
	}
	if a.Peer.IsValid() {
		l.add("peer", a.Peer.String())
	}
	l.add("dev")
	l.word(a.Dev)
	if a.Label != "" {
		l.add("label")
		l.word(a.Label)
	}
	if a.Broadcast.IsValid() {
		l.add("broadcast", a.Broadcast.String())
	} else if a.BroadcastAuto {
		l.add("broadcast", "+")
	}
	if a.Scope != nil {
		l.add("scope", scopes.format(uint64(*a.Scope)))
	}
	if a.NoPrefixRoute {
		l.add("noprefixroute")
	}
	if a.NoDAD {
		l.add("nodad")
	}
	if a.Metric != nil {
		l.add("metric", strconv.FormatUint(uint64(*a.Metric), 10))
	}
	lft := func(kw string, v *uint32) {
		switch {
		case v == nil:
		case *v == foreverLft:
			l.add(kw, "forever")
		default:
			l.add(kw, strconv.FormatUint(uint64(*v), 10))
		}
	}
	lft("valid_lft", a.ValidLft)
	lft("preferred_lft", a.PreferredLft)
}

func (l *line) route(r rtnl.Route) {
	if r.Type != "" {
		l.add(r.Type)
	}
	v6via := r.Dst.Addr().Is4() && (r.Via.Is6() || len(r.Nexthops) > 0 && r.Nexthops[0].Via.Is6())
	switch {
	case r.Dst == netip.PrefixFrom(netip.IPv4Unspecified(), 0) && v6via:
		// "default" would take the IPv6 gateway's family
		l.add(r.Dst.String())
	case r.Dst == netip.PrefixFrom(netip.IPv4Unspecified(), 0):
		l.add("default")
	case r.Dst.IsValid():
		l.add(r.Dst.String())
	default:
		l.add("default")
	}
	if r.Via.IsValid() {
		l.add("via")
		if r.Via.Is4() != r.Dst.Addr().Is4() {
			l.add(familyName(r.Via))
		}
		l.add(r.Via.String())
	}
	if r.Dev != "" {
		l.add("dev")
		l.word(r.Dev)
	}
	if r.Table != 0 || r.TableUnspec {
		l.add("table", tables.format(uint64(r.Table)))
	}
	if r.Proto != nil {
		l.add("proto", protos.format(uint64(*r.Proto)))
	}
	if r.Scope != nil {
		l.add("scope", scopes.format(uint64(*r.Scope)))
	}
	if r.Metric != nil {
		l.add("metric", strconv.FormatUint(uint64(*r.Metric), 10))
	}
	if r.Src.IsValid() {
		l.add("src", r.Src.String())
	}
	if r.TOS != 0 {
		l.add("tos", fmt.Sprintf("0x%02x", r.TOS))
	}
	if r.Onlink {
		l.add("onlink")
	}
	if r.MTU != nil {
		l.add("mtu")
		if r.MTULock {
			l.add("lock")
		}
		l.add(strconv.FormatUint(uint64(*r.MTU), 10))
	}
	if r.Realms != 0 {
		l.add(formatRealms(r.Realms))
	}
	if r.NhID != 0 {
		l.add("nhid", strconv.FormatUint(uint64(r.NhID), 10))
	}
	// The nexthop groups last: iproute2 reads nothing else after them.
	for _, nh := range r.Nexthops {
		l.add("nexthop")
		if nh.Via.IsValid() {
			l.add("via")
			if nh.Via.Is4() != r.Dst.Addr().Is4() {
				l.add(familyName(nh.Via))
			}
			l.add(nh.Via.String())
		}
		if nh.Dev != "" {
			l.add("dev")
			l.word(nh.Dev)
		}
		if nh.Weight != 0 {
			l.add("weight", strconv.Itoa(nh.Weight))
		}
		if nh.Onlink {
			l.add("onlink")
		}
	}
}

func (l *line) rule(verb string, r rtnl.Rule) {
	if r.Family == 6 {
		l.add("-6")
	}
	l.add("rule", verb)
	if r.Not {
		l.add("not")
	}
	if r.Pref != nil {
		l.add("pref", strconv.FormatUint(uint64(*r.Pref), 10))
	}
	pfx := func(kw string, p netip.Prefix) {
		switch {
		case !p.IsValid():
		case p.Bits() == 0 && p.Addr().IsUnspecified():
			l.add(kw, "all")
		default:
			l.add(kw, p.String())
		}
	}
	pfx("from", r.Src)
	pfx("to", r.Dst)
	if r.TOS != 0 {
		l.add("tos", fmt.Sprintf("0x%02x", r.TOS))
	}
	if r.Fwmark != nil {
		m := strconv.FormatUint(uint64(*r.Fwmark), 10)
		if r.Fwmask != nil {
			m += "/" + strconv.FormatUint(uint64(*r.Fwmask), 10)
		}
		l.add("fwmark", m)
	}
	if r.Iif != "" {
		l.add("iif")
		l.word(r.Iif)
	}
	if r.Oif != "" {
		l.add("oif")
		l.word(r.Oif)
	}
	if r.Table != nil {
		l.add("table", tables.format(uint64(*r.Table)))
	}
	if r.SuppressPrefixlen != nil {
		l.add("suppress_prefixlength", strconv.FormatInt(int64(*r.SuppressPrefixlen), 10))
	}
	if r.Protocol != nil {
		l.add("protocol", protos.format(uint64(*r.Protocol)))
	}
	switch r.Action {
	case rtnl.RuleActGoto:
		if r.Goto != nil {
			l.add("goto", strconv.FormatUint(uint64(*r.Goto), 10))
		}
	case rtnl.RuleActNop:
		l.add("nop")
	default:
		if n := rtnl.RuleActionName(r.Action); n != "" {
			l.add(n)
		}
	}
}

// tableSel writes a flush's or a show's table: none for 0 (main),
// `all`, or the table by name.
func (l *line) tableSel(t uint32) {
	switch t {
	case 0:
	case rtnl.TableAll:
		l.add("table", "all")
	default:
		l.add("table", tables.format(uint64(t)))
	}
}

func onOff(v bool) string {
	if v {
		return "on"
	}
	return "off"
}

// formatFlushRealms writes a flush's realms so that the parser reads back
// the value and the part of it that counts (flushRealmsMask): TO alone,
// FROM/ alone, or both (the number when a half is above 255).
func formatFlushRealms(v, mask uint32) string {
	from, to := v>>16, v&0xffff
	switch {
	case mask == 0xffff:
		return fmt.Sprint(to)
	case mask == 0xffff0000:
		return fmt.Sprintf("%d/", from)
	case from <= 255 && to <= 255:
		return fmt.Sprintf("%d/%d", from, to)
	}
	return fmt.Sprint(v)
}

// familyName is the word `via` takes before an address of the other
// family than the route's.
func familyName(a netip.Addr) string {
	if a.Is4() {
		return "inet"
	}
	return "inet6"
}
