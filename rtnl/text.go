package rtnl

import (
	"fmt"
	"io"
	"strings"
)

// WriteText prints a result the way `ip` prints the same objects (link
// show, addr show, route show table all), then events and errors.
func (r Result) WriteText(w io.Writer, show Show) {
	for _, sh := range r.Shown {
		fmt.Fprintf(w, "line %d: %s\n", sh.Line, sh.Request)
		if sh.Got != nil {
			fmt.Fprintln(w, RouteText(*sh.Got))
			continue
		}
		Result{State: sh.State}.writeState(w, sh.show)
	}
	r.writeState(w, show)
	for _, ns := range r.Netns {
		fmt.Fprintf(w, "netns %s:\n", ns.Name)
		Result{State: ns.State}.writeState(w, show)
	}
	r.writeEvents(w, show)
}

// writeState prints the namespace's own state.
func (r Result) writeState(w io.Writer, show Show) {
	if show.Links {
		for _, l := range r.Links {
			writeLink(w, l)
		}
	}
	if show.Addrs {
		for _, l := range r.Addrs {
			writeLink(w, l.Link)
			for _, a := range l.AddrInfo {
				fmt.Fprintf(w, "    %s\n", AddrText(a))
			}
		}
	}
	if show.Routes {
		for _, rt := range r.Routes {
			fmt.Fprintln(w, RouteText(rt))
		}
	}
	if show.Rules {
		for _, rl := range r.Rules {
			fmt.Fprintln(w, RuleText(rl))
		}
	}
	if show.Routes {
		for _, nh := range r.Nexthops {
			fmt.Fprintln(w, NexthopObjText(nh))
		}
	}
	if show.FibTrie {
		fmt.Fprint(w, r.FibTrie)
		fmt.Fprint(w, r.FibTrieStat)
	}
}

// writeEvents prints the notifications and the refused lines.
func (r Result) writeEvents(w io.Writer, show Show) {
	if show.Events {
		for _, e := range r.Events {
			// The request's number when known; "~" marks linkwatch's
			// deferred notifications.
			if e.Request > 0 {
				mark := " "
				if e.Deferred {
					mark = "~"
				}
				fmt.Fprintf(w, "[%d]%s", e.Request, mark)
			}
			if e.Netns != "" {
				fmt.Fprintf(w, "(netns %s) ", e.Netns)
			}
			fmt.Fprintf(w, "%s %s %s\n", e.Type, e.Family, EventText(e))
		}
	}
	for _, e := range r.Errors {
		msg := ""
		if e.Message != "" {
			msg = " (" + e.Message + ")"
		}
		fmt.Fprintf(w, "line %d: %s: %s%s\n", e.Line, e.Request, e.Errno, msg)
	}
}

// writeLink prints a link's two lines as `ip link` does; mode only when
// Linkmode is set, which it is not in an addr show element.
func writeLink(w io.Writer, l Link) {
	var b strings.Builder
	fmt.Fprintf(&b, "%d: %s", l.Ifindex, l.Ifname)
	if l.LinkPeer != nil {
		fmt.Fprintf(&b, "@%s", *l.LinkPeer)
	} else if l.LinkIndex != nil {
		fmt.Fprintf(&b, "@if%d", *l.LinkIndex)
	}
	fmt.Fprintf(&b, ": <%s> mtu %d", strings.Join(l.Flags, ","), l.MTU)
	if l.Qdisc != "" {
		fmt.Fprintf(&b, " qdisc %s", l.Qdisc)
	}
	if l.Master != "" {
		fmt.Fprintf(&b, " master %s", l.Master)
	}
	if l.Operstate != "" {
		fmt.Fprintf(&b, " state %s", l.Operstate)
	}
	if l.Linkmode != "" {
		fmt.Fprintf(&b, " mode %s", l.Linkmode)
	}
	if l.Group != "" {
		fmt.Fprintf(&b, " group %s", l.Group)
	}
	if l.Txqlen != nil {
		fmt.Fprintf(&b, " qlen %d", *l.Txqlen)
	}
	fmt.Fprintln(w, b.String())
	nsid := ""
	if l.LinkNetnsid != nil {
		nsid = fmt.Sprintf(" link-netnsid %d", *l.LinkNetnsid)
	}
	fmt.Fprintf(w, "    link/%s %s brd %s%s\n", l.LinkType, l.Address, l.Broadcast, nsid)
	if l.Ifalias != "" {
		fmt.Fprintf(w, "    alias %s\n", l.Ifalias)
	}
	for _, a := range l.Altnames {
		fmt.Fprintf(w, "    altname %s\n", a)
	}
}

// AddrText is one address as `ip addr` prints its first line.
func AddrText(a AddrInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", a.Family, a.Local)
	if a.Address != "" {
		fmt.Fprintf(&b, " peer %s", a.Address)
	}
	fmt.Fprintf(&b, "/%d", a.Prefixlen)
	if a.Broadcast != "" {
		fmt.Fprintf(&b, " brd %s", a.Broadcast)
	}
	fmt.Fprintf(&b, " scope %s", a.Scope)
	for _, f := range []struct {
		on   bool
		name string
	}{{a.Secondary, "secondary"}, {a.Temporary, "temporary"}, {a.Nodad, "nodad"},
		{a.Tentative, "tentative"}, {a.Dynamic, "dynamic"}, {a.Noprefixroute, "noprefixroute"}} {
		if f.on {
			b.WriteString(" " + f.name)
		}
	}
	if a.Label != "" {
		b.WriteString(" " + a.Label)
	}
	return b.String()
}

// RouteText is one route as `ip route show table all` prints it.
func RouteText(r RouteEntry) string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			if k != "" {
				parts = append(parts, k)
			}
			parts = append(parts, v)
		}
	}
	add("", r.Type)
	add("", r.Dst)
	if r.NhID != nil {
		add("nhid", fmt.Sprint(*r.NhID))
	}
	add("from", r.From)
	add("tos", r.Tos)
	add("via", r.Gateway)
	if r.Via != nil {
		parts = append(parts, "via", r.Via.Family, r.Via.Host)
	}
	add("dev", r.Dev)
	add("table", r.Table)
	add("proto", r.Protocol)
	add("scope", r.Scope)
	add("src", r.Prefsrc)
	if r.Metric != nil {
		add("metric", fmt.Sprint(*r.Metric))
	}
	parts = append(parts, r.Flags...)
	if r.Flow != nil {
		if r.Flow.From != "" {
			add("realms", r.Flow.From+"/"+r.Flow.To)
		} else {
			add("realm", r.Flow.To)
		}
	}
	if r.Expires != nil {
		add("expires", fmt.Sprintf("%dsec", *r.Expires))
	}
	var metrics []string
	for _, m := range r.Metrics {
		metrics = append(metrics, "mtu")
		if m.Lock {
			metrics = append(metrics, "lock")
		}
		metrics = append(metrics, fmt.Sprint(m.MTU))
	}
	if r.Cache == nil {
		parts = append(parts, metrics...)
	}
	add("pref", r.Pref)
	if r.Mark != nil {
		// print_route: hex from 16 on
		m := fmt.Sprint(*r.Mark)
		if *r.Mark >= 16 {
			m = fmt.Sprintf("0x%x", *r.Mark)
		}
		add("mark", m)
	}
	if r.UID != nil {
		add("uid", fmt.Sprint(*r.UID))
	}
	line := strings.Join(parts, " ")
	if r.Cache != nil {
		line += "\n    cache"
		if len(*r.Cache) > 0 {
			line += " <" + strings.Join(*r.Cache, ",") + ">"
		}
		// a route get's answer prints its metrics after the cache flags
		if len(metrics) > 0 {
			line += " " + strings.Join(metrics, " ")
		}
		if r.Iif != "" {
			line += " iif " + r.Iif
		}
	}
	for _, nh := range r.Nexthops {
		line += "\n\t" + NexthopText(nh)
	}
	return line
}

// NexthopText is one nexthop line of a multipath route, as `ip route`
// prints it under the route (without the leading tab).
func NexthopText(nh NexthopEntry) string {
	parts := []string{"nexthop"}
	if nh.Gateway != "" {
		parts = append(parts, "via", nh.Gateway)
	}
	if nh.Via != nil {
		parts = append(parts, "via", nh.Via.Family, nh.Via.Host)
	}
	if nh.Dev != "" {
		parts = append(parts, "dev", nh.Dev)
	}
	parts = append(parts, "weight", fmt.Sprint(nh.Weight))
	parts = append(parts, nh.Flags...)
	return strings.Join(parts, " ")
}

// EventText is a one-line rendering of an event's object.
func EventText(e Event) string {
	switch o := e.Object.(type) {
	case Link:
		return fmt.Sprintf("%d: %s <%s> state %s", o.Ifindex, o.Ifname, strings.Join(o.Flags, ","), o.Operstate)
	case AddrEvent:
		return fmt.Sprintf("%d: %s %s", o.Ifindex, o.Ifname, AddrText(o.AddrInfo))
	case RouteEntry:
		return RouteText(o)
	case RuleEntry:
		return RuleText(o)
	case NexthopEntryObj:
		return NexthopObjText(o)
	}
	return fmt.Sprint(e.Object)
}
