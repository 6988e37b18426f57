package rtnl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// LineError is one failed request of a run: where it was, what it asked,
// and the errno it got.
type LineError struct {
	Line    int    `json:"line"`
	Request string `json:"request"`
	Errno   string `json:"errno"`
	Message string `json:"message,omitempty"`
}

// Result is what a run shows.
type Result struct {
	State
	Events []Event
	Errors []LineError
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
		if err := t.Apply(ctx, r); err != nil {
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
		{show.FibTrie, "fibtrie", r.FibTrie},
		{show.FibTrie, "fibtriestat", r.FibTrieStat},
		{len(r.Netns) > 0, "netns", r.Netns},
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
