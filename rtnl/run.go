package rtnl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/rtnlsim/rtnlsim/uapi"
)

// LineError is one failed request of a run: where it was, what it asked,
// and the errno it got.
type LineError struct {
	Line    int    `json:"line"`
	Request string `json:"request"`
	Errno   string `json:"errno"`
	Message string `json:"message,omitempty"`
}

// Shown is what a show line saw: the part of the state its object names,
// filtered as the line asks.
type Shown struct {
	Line    int    `json:"line"`
	Request string `json:"request"`
	State   State  `json:"state"`
	// Got is a route get line's answer (State is then empty).
	Got  *RouteEntry `json:"got,omitempty"`
	show Show
}

// Answerer is a target that keeps the answer of its last request that
// returns one (a route get).
type Answerer interface {
	Answer() (RouteEntry, bool)
}

// Result is what a run shows.
type Result struct {
	State
	Events []Event
	Errors []LineError
	// Shown are the show lines' outputs, in order.
	Shown []Shown
	// Cost is the target's virtual-time account, when it keeps one (the
	// sim) and show.Cost asks for it; the caller fills it in.
	Cost any
}

// Run applies every request in order, continuing past failures as
// `ip -b -force` does, then reads back what show asks for. progress, when
// not nil, is told after each request.
func Run(ctx context.Context, t Target, reqs []Request, show Show, progress func(done, total int)) (Result, error) {
	var res Result
	res.Errors = []LineError{}
	for i, r := range reqs {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		err := t.Apply(ctx, r)
		if err == nil && isRouteGet(r.Op) {
			a, ok := t.(Answerer)
			if !ok {
				return res, fmt.Errorf("line %d (%s): this target answers no route get", r.Line, r.Text)
			}
			got, ok := a.Answer()
			if !ok {
				return res, fmt.Errorf("line %d (%s): the target kept no answer", r.Line, r.Text)
			}
			res.Shown = append(res.Shown, Shown{Line: r.Line, Request: r.Text, Got: &got})
		}
		if err == nil {
			if sh, ok := showOf(r.Op); ok {
				st, serr := shownState(ctx, t, sh)
				if serr != nil {
					return res, fmt.Errorf("line %d (%s): %w", r.Line, r.Text, serr)
				}
				res.Shown = append(res.Shown, Shown{Line: r.Line, Request: r.Text, State: st, show: sh.show()})
			}
		}
		if err != nil {
			e := LineError{Line: r.Line, Request: r.Text, Errno: ErrnoName(Errno(err))}
			if e.Errno == "" {
				// Not a refusal: the target itself failed (or does not
				// model the request).
				return res, fmt.Errorf("line %d (%s): %w", r.Line, r.Text, err)
			}
			if re, ok := err.(*Error); ok {
				e.Message = re.Msg
			}
			res.Errors = append(res.Errors, e)
		}
		if progress != nil {
			progress(i+1, len(reqs))
		}
	}
	st, err := t.State(ctx, show)
	if err != nil {
		return res, err
	}
	res.State = st
	if show.Events {
		if res.Events, err = t.Events(ctx); err != nil {
			return res, err
		}
		if res.Events == nil {
			res.Events = []Event{}
		}
	}
	return res, nil
}

func isRouteGet(op Op) bool {
	if in, ok := op.(InNetns); ok {
		op = in.Op
	}
	_, ok := op.(RouteGet)
	return ok
}

// netnsShow is a ShowOp and the namespace it runs in ("": the target's).
type netnsShow struct {
	ShowOp
	netns string
}

func showOf(op Op) (netnsShow, bool) {
	if in, ok := op.(InNetns); ok {
		sh, ok := in.Op.(ShowOp)
		return netnsShow{sh, in.Name}, ok
	}
	sh, ok := op.(ShowOp)
	return netnsShow{ShowOp: sh}, ok
}

// show is what the object reads.
func (s netnsShow) show() Show {
	switch s.Object {
	case "link":
		return Show{Links: true}
	case "addr":
		return Show{Addrs: true}
	case "route", "nexthop":
		return Show{Routes: true}
	}
	return Show{Rules: true}
}

// shownState reads the state a show line names and keeps what it asks
// for: one device, a family, a table.
func shownState(ctx context.Context, t Target, s netnsShow) (State, error) {
	all, err := t.State(ctx, s.show())
	if err != nil {
		return State{}, err
	}
	st := all
	if s.netns != "" {
		st = State{}
		for _, ns := range all.Netns {
			if ns.Name == s.netns {
				st = ns.State
			}
		}
	}
	st.Netns = nil
	out := State{}
	if s.Object == "nexthop" {
		out.Nexthops = st.Nexthops
		return out, nil
	}
	named := func(l Link) bool { // iproute2 finds a device by any of its names
		return s.Dev == "" || l.Ifname == s.Dev || slices.Contains(l.Altnames, s.Dev)
	}
	for _, l := range st.Links {
		if named(l) {
			out.Links = append(out.Links, l)
		}
	}
	for _, la := range st.Addrs {
		if !named(la.Link) {
			continue
		}
		ai := []AddrInfo{}
		for _, a := range la.AddrInfo {
			if s.Family == 0 || (s.Family == 4) == (a.Family == "inet") {
				ai = append(ai, a)
			}
		}
		la.AddrInfo = ai
		out.Addrs = append(out.Addrs, la)
	}
	fam := s.Family
	if fam == 0 {
		fam = 4
	}
	table := s.Table
	if table == 0 {
		table = uapi.RT_TABLE_MAIN
	}
	for _, r := range st.Routes {
		if r.Family != fam {
			continue
		}
		if table != TableAll && r.Table != tableField(table) {
			continue
		}
		if table != TableAll {
			r.Table = "" // ip route show TABLE leaves the table out
		}
		out.Routes = append(out.Routes, r)
	}
	for _, r := range st.Rules {
		if r.Family == fam {
			out.Rules = append(out.Rules, r)
		}
	}
	return out, nil
}

// tableField is how a route entry names table t ("" for main).
func tableField(t uint32) string {
	if t == uapi.RT_TABLE_MAIN {
		return ""
	}
	return TableName(t)
}

// JSON renders the result as one object keyed by observable, in a fixed
// order, holding exactly what show asks for (and errors, always).
func (r Result) JSON(show Show) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	first := true
	put := func(key string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(key)
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(b)
		return nil
	}
	orEmpty := func(n int, v any) any {
		if n == 0 {
			return []struct{}{}
		}
		return v
	}
	type kv struct {
		on  bool
		key string
		val any
	}
	for _, f := range []kv{
		{show.Links, "links", orEmpty(len(r.Links), r.Links)},
		{show.Addrs, "addrs", orEmpty(len(r.Addrs), r.Addrs)},
		{show.Routes, "routes", orEmpty(len(r.Routes), r.Routes)},
		{show.Rules, "rules", orEmpty(len(r.Rules), r.Rules)},
		{show.Routes && len(r.Nexthops) > 0, "nexthops", r.Nexthops},
		{show.FibTrie, "fibtrie", r.FibTrie},
		{show.FibTrie, "fibtriestat", r.FibTrieStat},
		{len(r.Netns) > 0, "netns", r.Netns},
		{len(r.Shown) > 0, "shown", r.Shown},
		{show.Events, "events", orEmpty(len(r.Events), r.Events)},
		{show.Cost, "cost", r.Cost},
		{true, "errors", orEmpty(len(r.Errors), r.Errors)},
	} {
		if f.on {
			if err := put(f.key, f.val); err != nil {
				return nil, err
			}
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
