package main

// `rtnlsim run --trace`: the narrated log of each request's kernel steps
// in virtual time (sim.Target.Trace), as text a teacher can paste or as the
// "trace" key of --format json.

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/sim"
)

// traceHelp is the --trace part of run's help.
const traceHelp = `--trace (the sim target only) narrates each request: its script line, when it
asked for, took and released rtnl_lock, each kernel step it made under the
lock and after rtnl_unlock (netdev_run_todo) with its count, unit price and
cost, the netdev notifier events it raised (NETDEV_UP, NETDEV_UNREGISTER,
...), the inetaddr chain events, the notifications it sent by type, its grace
periods (synchronize_net, expedited or not; rcu_barrier, and whether it
shared a barrier another thread started), FIB inserts and deletes,
promotions, address-list walk steps and fib_trie work (resizes, update_suffix
and flush visits). --threads N splits the requests over N user threads as
--show cost does. Times are virtual: the model's prices (the profile's, or
the seed 000 fit) times the model's counts, not measurements; a step the
profile prices at 0 shows 0. The kernel target cannot be traced.
docs/trace.md has worked examples.`

// traceRequestJSON is one request of the "trace" key.
type traceRequestJSON struct {
	Line    int    `json:"line"`
	Request string `json:"request"`
	// Handler is the kernel function the request goes to.
	Handler string `json:"handler"`
	Errno   string `json:"errno,omitempty"`
	sim.TraceRequest
}

type traceJSON struct {
	Threads    int                `json:"threads"`
	Prices     cost.Params        `json:"prices_ns"`
	Requests   []traceRequestJSON `json:"requests"`
	VirtualNs  int64              `json:"virtual_ns"`
	LockHeldNs int64              `json:"lock_held_ns"`
	Note       string             `json:"note"`
}

// traceSource is the script line, text, handler and errno of a traced
// request.
func traceSource(reqs []rtnl.Request, errs []rtnl.LineError, s sim.CostSource) (line int, text, fn, errno string) {
	if int(s.Request) >= len(reqs) {
		return 0, "(the namespace exits)", "cleanup_net", ""
	}
	q := reqs[s.Request]
	text, fn = q.Text, sim.Handler(q.Op)
	if s.Part > 0 {
		text = fmt.Sprintf("(kernel request %d of) %s", s.Part+1, text)
	}
	for _, e := range errs {
		if e.Line == q.Line {
			errno = e.Errno
		}
	}
	return q.Line, text, fn, errno
}

func traceToJSON(reqs []rtnl.Request, errs []rtnl.LineError, tr sim.Trace, prices string) traceJSON {
	out := traceJSON{Threads: tr.Threads, Prices: tr.Params, VirtualNs: tr.VirtualNs, LockHeldNs: tr.LockHeldNs,
		Requests: make([]traceRequestJSON, len(tr.Requests)),
		Note:     "virtual time: the model's prices times the model's counts, not measured; " + prices}
	for i, q := range tr.Requests {
		line, text, fn, errno := traceSource(reqs, errs, q.Source)
		out.Requests[i] = traceRequestJSON{Line: line, Request: text, Handler: fn, Errno: errno, TraceRequest: q}
	}
	return out
}

// spliceTrace adds "trace" as the last key of the JSON object obj.
func spliceTrace(obj []byte, trace any) ([]byte, error) {
	b, err := json.Marshal(trace)
	if err != nil {
		return nil, err
	}
	s := strings.TrimRight(string(obj), " \n")
	if !strings.HasSuffix(s, "}") {
		return nil, fmt.Errorf("trace: the result is not a JSON object")
	}
	s = s[:len(s)-1]
	if strings.TrimSpace(s) != "{" {
		s += ","
	}
	return []byte(s + `"trace":` + string(b) + "}"), nil
}

// writeResultTrace writes the result with the trace: in JSON as its
// "trace" key, in text after the shown observables. prices says whose
// prices the trace uses.
func writeResultTrace(w io.Writer, res rtnl.Result, show rtnl.Show, format string, reqs []rtnl.Request, tr sim.Trace, prices string) error {
	if format == "json" {
		b, err := res.JSON(show)
		if err != nil {
			return err
		}
		if b, err = spliceTrace(b, traceToJSON(reqs, res.Errors, tr, prices)); err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	res.WriteText(w, show)
	writeTraceText(w, reqs, res.Errors, tr, prices)
	return nil
}

// dur prints a duration with a unit that keeps three significant digits.
func dur(ns int64) string {
	switch {
	case ns == 0:
		return "0"
	case ns < 0:
		return "-" + dur(-ns)
	case ns < 1000:
		return strconv.FormatInt(ns, 10) + " ns"
	case ns < 1e6:
		return sig3(float64(ns)/1e3) + " us"
	case ns < 1e9:
		return sig3(float64(ns)/1e6) + " ms"
	}
	return sig3(float64(ns)/1e9) + " s"
}

// unitDur is dur for a price, which can be a fraction of a nanosecond.
func unitDur(ns float64) string {
	if ns > 0 && ns < 100 && ns != math.Trunc(ns) {
		return sig3(ns) + " ns"
	}
	return dur(int64(math.Round(ns)))
}

func sig3(v float64) string {
	switch {
	case v < 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case v < 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// clock prints timestamps of one trace in one unit with fixed decimals.
type clock struct {
	div   float64
	unit  string
	width int
}

func newClock(maxNs int64) clock {
	c := clock{div: 1, unit: "ns"}
	switch {
	case maxNs >= 1e9:
		c = clock{div: 1e9, unit: "s"}
	case maxNs >= 1e6:
		c = clock{div: 1e6, unit: "ms"}
	case maxNs >= 1e3:
		c = clock{div: 1e3, unit: "us"}
	}
	c.width = len(c.raw(maxNs))
	return c
}

func (c clock) raw(ns int64) string {
	if c.div == 1 {
		return strconv.FormatInt(ns, 10)
	}
	return strconv.FormatFloat(float64(ns)/c.div, 'f', 3, 64)
}

func (c clock) at(ns int64) string {
	return fmt.Sprintf("%*s %-2s", c.width, c.raw(ns), c.unit)
}

// eventList prints events as "NAME dev" or "NAME x3 (d0, d1, ...)".
func eventList(evs []sim.TraceEvent) string {
	parts := make([]string, len(evs))
	for i, e := range evs {
		devs := strings.Join(e.Devices, ", ")
		if e.MoreDevices {
			devs += ", ..."
		}
		if e.Count == 1 {
			parts[i] = e.Name + " " + devs
		} else {
			parts[i] = fmt.Sprintf("%s x%d (%s)", e.Name, e.Count, devs)
		}
	}
	return strings.Join(parts, ", ")
}

func countList(cs []sim.TraceCount) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s x%d", c.Name, c.Count)
	}
	return strings.Join(parts, ", ")
}

// namedCounts prints the non-zero counts as "name N, ...".
func namedCounts(kv ...any) string {
	var parts []string
	for i := 0; i+1 < len(kv); i += 2 {
		if n := kv[i+1].(int64); n != 0 {
			parts = append(parts, fmt.Sprintf("%s %d", kv[i], n))
		}
	}
	return strings.Join(parts, ", ")
}

// writeTraceText prints the trace, one block per priced request, and
// prices, the line that says whose prices it uses.
func writeTraceText(w io.Writer, reqs []rtnl.Request, errs []rtnl.LineError, tr sim.Trace, prices string) {
	ck := newClock(tr.VirtualNs)
	// Column widths over the whole trace, so every table lines up.
	stepW, fnW, nW, uW, cW := len("step"), len("kernel function"), len("count"), len("unit"), len("cost")
	for _, q := range tr.Requests {
		for _, s := range allSteps(q) {
			stepW, fnW = max(stepW, len(s.Step)), max(fnW, len(s.Function))
			nW, uW, cW = max(nW, len(strconv.FormatInt(s.Count, 10))), max(uW, len(unitDur(s.UnitNs))), max(cW, len(dur(s.CostNs)))
		}
	}
	row := func(pre, a, b, n, u, c, note string) {
		line := fmt.Sprintf("%s%-*s  %-*s  %*s  %*s  %*s", pre, stepW, a, fnW, b, nW, n, uW, u, cW, c)
		if note != "" {
			line += "  " + note
		}
		fmt.Fprintln(w, line)
	}
	// indent puts the step tables and the labelled lines beside the
	// timestamps' column, not under it.
	indent := strings.Repeat(" ", 2+ck.width+4)
	fmt.Fprintf(w, "trace: %d request(s) on %d thread(s); virtual time, from the model's prices, not measured\n", len(tr.Requests), tr.Threads)
	for i, q := range tr.Requests {
		line, text, fn, errno := traceSource(reqs, errs, q.Source)
		fmt.Fprintln(w)
		head := fmt.Sprintf("[%d] line %d, thread %d: %s", i+1, line, q.Thread, text)
		if fn != "" {
			head += "   -> " + fn
		}
		if errno != "" {
			head += "   (refused: " + errno + ")"
		}
		fmt.Fprintln(w, head)
		if q.LockWaitNs > 0 {
			fmt.Fprintf(w, "  %s  rtnl_lock asked\n", ck.at(q.ArriveNs))
			fmt.Fprintf(w, "  %s  rtnl_lock taken after waiting %s (another thread held it)\n", ck.at(q.TakeNs), dur(q.LockWaitNs))
		} else {
			fmt.Fprintf(w, "  %s  rtnl_lock asked and taken at once\n", ck.at(q.TakeNs))
		}
		row(indent, "step", "kernel function", "count", "unit", "cost", "")
		for _, s := range q.Locked {
			row(indent, s.Step, s.Function, strconv.FormatInt(s.Count, 10), unitDur(s.UnitNs), dur(s.CostNs), "")
		}
		fmt.Fprintf(w, "  %s  rtnl_unlock (held %s)\n", ck.at(q.ReleaseNs), dur(q.LockedNs))
		var plain int64
		for _, s := range q.Unlocked {
			plain += s.CostNs
		}
		for _, s := range q.Unlocked {
			note := ""
			if s.Step == cost.StepRCUBarrier.String() {
				note = barrierNote(q, plain)
			}
			row(indent, s.Step, s.Function, strconv.FormatInt(s.Count, 10), unitDur(s.UnitNs), dur(s.CostNs), note)
		}
		fmt.Fprintf(w, "  %s  returns: %s = lock wait %s + locked %s + after unlock %s\n",
			ck.at(q.EndNs), dur(q.TotalNs), dur(q.LockWaitNs), dur(q.LockedNs), dur(q.UnlockedNs))
		say := func(label, text string) {
			if text != "" {
				fmt.Fprintf(w, "%s%-15s %s\n", indent, label, text)
			}
		}
		say("netdev chain", eventList(q.NetdevEvents)+pricedNote(q, cost.StepNotifierCall, eventTotal(q.NetdevEvents), "call"))
		say("inetaddr chain", namedCounts("NETDEV_UP", q.Fib.InetaddrUp, "NETDEV_DOWN", q.Fib.InetaddrDown))
		sent := countList(q.Notifications)
		if sent == "" {
			sent = "none"
		}
		sent += pricedNote(q, cost.StepNotification, countTotal(q.Notifications), "notification")
		say("notifications", sent)
		gp := namedCounts("synchronize_net", q.SynchronizeNet, "synchronize_net expedited", q.SynchronizeNetExpedited,
			"rcu_barrier", q.RCUBarriers, "of them shared", q.BarriersShared)
		say("grace periods", gp)
		say("addresses", namedCounts("list walk steps", q.Fib.WalkSteps, "promotions", q.Fib.Promotions,
			"promoted and moved", q.Fib.PromoteMoves))
		say("fib", namedCounts("fib_table_insert", q.Fib.Inserts, "fib_table_delete", q.Fib.Deletes, "fib_flush", q.Fib.Flushes))
		t := q.Trie
		say("fib_trie", namedCounts("resize", t.ResizeCalls, "inflate", t.Inflates, "halve", t.Halves,
			"collapse", t.Collapses, "max_work stops", t.MaxWorkHits,
			"update_suffix", t.UpdateSuffixCalls, "update_suffix visits", t.UpdateSuffixVisits,
			"flush leaf visits", t.FlushLeafVisits, "tnodes new", t.TnodeAllocs, "tnodes freed", t.TnodeFrees,
			"leaves new", t.LeafAllocs, "leaves freed", t.LeafFrees,
			"tnode_free synchronize_net (unpriced)", t.SynchronizeNet))
	}
	fmt.Fprintln(w)
	if tr.Threads > 1 {
		writeTimeline(w, reqs, tr, ck)
	}
	fmt.Fprintf(w, "total: %s virtual on %d thread(s); rtnl_lock held %s\n", dur(tr.VirtualNs), tr.Threads, dur(tr.LockHeldNs))
	fmt.Fprintln(w, prices)
}

// barrierNote says how the request's rcu_barrier calls went.
func barrierNote(q sim.TraceRequest, plain int64) string {
	switch {
	case q.BarriersShared > 0 && q.BarriersShared == q.RCUBarriers:
		return "shared a barrier another thread started (rcu_seq_done: no barrier of its own)"
	case q.BarriersShared > 0:
		return fmt.Sprintf("%d of %d shared another thread's barrier", q.BarriersShared, q.RCUBarriers)
	case q.UnlockedNs > plain:
		return "waited " + dur(q.UnlockedNs-plain) + " for a barrier already running, then ran its own"
	}
	return "ran its own barrier"
}

// addTraceFlag adds --trace to run and its help.
func addTraceFlag(cmd *cobra.Command, f *runFlags) {
	cmd.Flags().BoolVar(&f.trace, "trace", false, "sim: narrate each request's kernel steps (rtnl_lock, notifier events, notifications, grace periods, FIB and trie work) with their virtual cost; the kernel target cannot be traced; shows only the trace unless --show is given")
	cmd.Long += "\n\n" + traceHelp
	cmd.Example += "\n  rtnlsim run --target sim --trace --threads 2 my.script"
}

// checkTrace refuses --trace on a target other than the sim (the
// default), and shows only the trace when --show was not given.
func checkTrace(cmd *cobra.Command, f *runFlags, show *rtnl.Show) error {
	if !f.trace {
		return nil
	}
	if f.target != "sim" {
		return fmt.Errorf("--trace: the %s target cannot be traced (rtnlsim sees only its requests and replies, not the kernel's steps inside them); use --target sim, whose trace is the model's", f.target)
	}
	if !cmd.Flags().Changed("show") {
		*show = rtnl.Show{}
	}
	return nil
}

// allSteps is the request's priced steps, under rtnl_lock and after.
func allSteps(q sim.TraceRequest) []sim.TraceStep {
	return append(append([]sim.TraceStep(nil), q.Locked...), q.Unlocked...)
}

func eventTotal(evs []sim.TraceEvent) (n int64) {
	for _, e := range evs {
		n += e.Count
	}
	return n
}

func countTotal(cs []sim.TraceCount) (n int64) {
	for _, c := range cs {
		n += c.Count
	}
	return n
}

// pricedNote says so when the cost model prices a different number of
// step calls than the trace names: its counts are approximations (a plain
// request is charged one chain call per notification sent; an unregister
// batch by UnregisterRequestWork's formula).
func pricedNote(q sim.TraceRequest, step cost.Step, named int64, what string) string {
	var priced int64
	for _, s := range allSteps(q) {
		if s.Step == step.String() {
			priced += s.Count
		}
	}
	if priced == named {
		return ""
	}
	if named == 0 && priced > 0 {
		return fmt.Sprintf("none named; priced as %d %s(s) (the cost model's count)", priced, what)
	}
	return fmt.Sprintf("  [priced as %d: the cost model's count]", priced)
}

// writeTimeline prints, for several threads, who holds rtnl_lock when and
// when each request returns, in time order.
func writeTimeline(w io.Writer, reqs []rtnl.Request, tr sim.Trace, ck clock) {
	type mark struct {
		at    int64
		order int
		text  string
	}
	var ms []mark
	for i, q := range tr.Requests {
		who := fmt.Sprintf("thread %d [%d]", q.Thread, i+1)
		ms = append(ms, mark{q.TakeNs, 1, who + " takes rtnl_lock"},
			mark{q.ReleaseNs, 0, who + " releases rtnl_lock"})
		if q.EndNs > q.ReleaseNs {
			note := "returns"
			if q.RCUBarriers > 0 {
				note = "returns from rcu_barrier"
				if q.BarriersShared > 0 {
					note += " (shared)"
				}
			}
			ms = append(ms, mark{q.EndNs, 2, who + " " + note})
		}
	}
	sort.SliceStable(ms, func(a, b int) bool {
		if ms[a].at != ms[b].at {
			return ms[a].at < ms[b].at
		}
		return ms[a].order < ms[b].order
	})
	fmt.Fprintln(w, "timeline:")
	for _, m := range ms {
		fmt.Fprintf(w, "  %s  %s\n", ck.at(m.at), m.text)
	}
	fmt.Fprintln(w)
}
