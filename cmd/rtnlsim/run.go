package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/kernel"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
	"github.com/rtnlsim/rtnlsim/sim"
)

type runFlags struct {
	target    string
	profile   string
	show      string
	format    string
	threads   int
	exitNetns bool
	setup     string
	trace     bool   // --trace (trace.go)
	plot      string // --plot (plot.go)
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [flags] SCRIPT|-",
		Short: "Run a script on a target and show the resulting state",
		Long: `Run applies every line of SCRIPT (ip -b syntax; - reads standard input) on
the target, continuing past refused lines as ip -b -force does, then prints
the observables named by --show. A refused line is reported with its line
number and errno; the exit status is 0 when the script ran, even if lines
were refused, 1 when the script does not parse, 2 on other failures.

--profile picks the kernel the sim models: linux-6.18 (default; the xarray
netdev index, ifindex-ordered dumps), linux-6.4 (dumps walk the 256-bucket
hash), linux-4.2-rc3 or linux-4.2 (seed 003: that era's fib_table_flush,
with and without its regression; the rest is 6.18's), plus switches:
+bulk-ifindex makes "link del list" one RTM_DELLINK with many IFLA_IFINDEX
(one unregister batch, one rcu_barrier) instead of one request per device;
+ifa-flush makes "addr flush" one request that deletes without promoting
secondaries (seed 001). The sim models links, IPv4 and IPv6 addresses
and routes, and policy rules; what it does not cover (an IPv6 route through the loopback, for one) stops a
sim run. The sim is the default target; --target kernel
runs the script on this machine's kernel instead (Linux, root), with
linux-6.18 without switches only; that kernel has no list delete, so there
"link del list" is the kernel target's emulation: one RTM_DELLINK per
device.

--setup FILE runs FILE first on the same target, then SCRIPT; the setup is
left out of --show cost, events and --trace (the cost is the main script's
alone, from a fresh virtual clock; --threads splits the main script only).
A refused setup line is reported as FILE:line and the run goes on.`,
		Example: `  rtnlsim run --target kernel --show links,addrs,routes --format json my.script
  rtnlsim run --setup devices.script --show cost --threads 4 delete.script
  rtnlsim run --target sim --profile linux-6.18+bulk-ifindex --show cost my.script
  echo 'link add d0 type ifb' | rtnlsim run --target kernel -`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			show, err := parseShow(f.show)
			if err != nil {
				return err
			}
			if err := checkTrace(cmd, &f, &show); err != nil {
				return err
			}
			if err := checkPlot(&f, show); err != nil {
				return err
			}
			if f.format != "text" && f.format != "json" {
				return fmt.Errorf("--format must be text or json, not %q", f.format)
			}
			reqs, err := readScript(args[0], cmd.InOrStdin())
			if err != nil {
				return scriptFailure(cmd, err)
			}
			var setup []rtnl.Request
			if f.setup != "" {
				if f.setup == "-" {
					return fmt.Errorf("--setup: give a file, not standard input")
				}
				if setup, err = readScript(f.setup, nil); err != nil {
					return scriptFailure(cmd, err)
				}
			}
			// Refused before the target is made: a kernel target would
			// need root and Linux only to say no.
			if show.Cost && f.target == "kernel" {
				return fmt.Errorf("--show cost: the %s target has no virtual cost; use --target sim", f.target)
			}
			if f.threads < 1 {
				return fmt.Errorf("--threads must be at least 1")
			}
			if f.exitNetns && f.target == "kernel" {
				return fmt.Errorf("--exit-netns: the kernel target's namespace always exits when the run ends; its cost is the sim's to tell")
			}
			tg, prices, err := openTarget(f.target, f.profile, show, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer tg.Close()
			st, _ := tg.(*sim.Target)
			if f.trace {
				st.StartTrace()
			}
			if f.setup != "" {
				if tg, err = applySetup(cmd.Context(), tg, setup, f.setup, show, cmd.ErrOrStderr()); err != nil {
					return err
				}
			}
			res, err := rtnl.Run(cmd.Context(), tg, reqs, show, progress(cmd.ErrOrStderr(), len(reqs)))
			if err != nil {
				return err
			}
			if f.exitNetns {
				// The namespace exits after the script: what it held is
				// unregistered in one batch and priced as one more request.
				if err := st.ExitNetns(); err != nil {
					return err
				}
				if res, err = rerun(cmd.Context(), st, res, show); err != nil {
					return err
				}
			}
			var priced *cost.Result
			if show.Cost {
				c, err := st.Cost(f.threads)
				if err != nil {
					return err
				}
				priced, res.Cost = &c, costJSON{Threads: f.threads, Lines: costLines(reqs, st.CostSources()), Result: c}
			}
			if f.plot != "" {
				if err := plotRun(st, f, args[0], *priced, prices); err != nil {
					return err
				}
			}
			if f.trace {
				tr, err := st.Trace(f.threads)
				if err != nil {
					return err
				}
				if err := writeResultTrace(cmd.OutOrStdout(), res, show, f.format, reqs, tr, prices); err != nil {
					return err
				}
			} else if err := writeResult(cmd.OutOrStdout(), res, show, f.format); err != nil {
				return err
			}
			if priced != nil && f.format == "text" {
				writeCostText(cmd.OutOrStdout(), reqs, st.CostSources(), *priced, f.threads, prices)
			}
			return nil
		},
	}
	addRunFlags(cmd, &f)
	addTraceFlag(cmd, &f)
	addPlotFlag(cmd, &f)
	return cmd
}

func addRunFlags(cmd *cobra.Command, f *runFlags) {
	cmd.Flags().StringVar(&f.target, "target", "sim", "where to run: sim (the model) or kernel (a fresh network namespace of this machine's kernel; Linux, root)")
	cmd.Flags().StringVar(&f.profile, "profile", sim.DefaultProfile, "kernel profile: linux-6.18, linux-6.4, linux-4.2-rc3 or linux-4.2, plus switches +bulk-ifindex, +ifa-flush (e.g. linux-6.18+bulk-ifindex), or a profile file written by rtnlsim calibrate (its name and fitted prices; FILE.json+ifa-flush adds a switch); the kernel target is linux-6.18 only")
	cmd.Flags().StringVar(&f.show, "show", "links,addrs,routes", "observables to print: links,addrs,routes,rules,fibtrie,events,cost")
	cmd.Flags().StringVar(&f.format, "format", "text", "output format: text (as ip prints) or json (as ip -j prints)")
	cmd.Flags().IntVar(&f.threads, "threads", 1, "sim cost: split the requests, in order, over N user threads")
	cmd.Flags().StringVar(&f.setup, "setup", "", "run this script first on the same target, left out of cost, events and trace")
	cmd.Flags().BoolVar(&f.exitNetns, "exit-netns", false, "sim: after the script the namespace exits (cleanup_net), shown as one more request")
}

// applySetup applies the setup on tg, reporting refused lines as
// FILE:line, and returns the target the main script runs on: one that
// records nothing of the setup (sim.Target.Forget; on the kernel, its
// notifications are dropped and the rest renumbered).
func applySetup(ctx context.Context, tg rtnl.Target, setup []rtnl.Request, file string, show rtnl.Show, stderr io.Writer) (rtnl.Target, error) {
	for _, r := range setup {
		if err := tg.Apply(ctx, r); err != nil {
			errno := rtnl.ErrnoName(rtnl.Errno(err))
			if errno == "" {
				return nil, fmt.Errorf("%s:%d (%s): %w", file, r.Line, r.Text, err)
			}
			msg := ""
			if re, ok := err.(*rtnl.Error); ok && re.Msg != "" {
				msg = " (" + re.Msg + ")"
			}
			fmt.Fprintf(stderr, "%s:%d: %s: %s%s\n", file, r.Line, r.Text, errno, msg)
		}
	}
	if st, ok := tg.(*sim.Target); ok {
		st.Forget()
		return st, nil
	}
	if !show.Events {
		return tg, nil
	}
	// Settled, so that late notifications of the setup are not taken for
	// the main script's.
	evs, err := tg.Events(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: events: %w", file, err)
	}
	return afterSetup{Target: tg, events: len(evs), requests: len(setup)}, nil
}

// afterSetup is a target whose Events leave out the setup's: the first
// events notifications, sent by the first requests requests.
type afterSetup struct {
	rtnl.Target
	events, requests int
}

func (a afterSetup) Events(ctx context.Context) ([]rtnl.Event, error) {
	evs, err := a.Target.Events(ctx)
	if len(evs) < a.events {
		return evs, err
	}
	out := append([]rtnl.Event(nil), evs[a.events:]...)
	for i := range out {
		if out[i].Request > a.requests {
			out[i].Request -= a.requests
		}
	}
	return out, err
}

// rerun reads State and Events again after the namespace's exit.
func rerun(ctx context.Context, st *sim.Target, res rtnl.Result, show rtnl.Show) (rtnl.Result, error) {
	var err error
	if res.State, err = st.State(ctx, show); err != nil {
		return res, err
	}
	if show.Events {
		if res.Events, err = st.Events(ctx); err != nil {
			return res, err
		}
	}
	return res, nil
}

// costJSON is the "cost" object of --format json. Lines holds the script
// line of each priced request (a list delete without +bulk-ifindex is
// several).
type costJSON struct {
	Threads int   `json:"threads"`
	Lines   []int `json:"lines"`
	cost.Result
}

// costLines is the script line of each priced request.
func costLines(reqs []rtnl.Request, src []sim.CostSource) []int {
	out := make([]int, len(src))
	for i, s := range src {
		if int(s.Request) < len(reqs) {
			out[i] = reqs[s.Request].Line
		}
	}
	return out
}

// writeCostText prints each request's virtual cost and the totals, then
// prices, the line that says whose prices they are.
func writeCostText(w io.Writer, reqs []rtnl.Request, src []sim.CostSource, c cost.Result, threads int, prices string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "line\tthread\tlock wait\tlocked\tunlocked\tend\t request\n")
	for i, r := range c.Requests {
		text := ""
		line := 0
		if i < len(src) && int(src[i].Request) >= len(reqs) {
			text = "(the namespace exits)"
		}
		if i < len(src) && int(src[i].Request) < len(reqs) {
			q := reqs[src[i].Request]
			text, line = q.Text, q.Line
			if src[i].Part > 0 {
				text = fmt.Sprintf("(kernel request %d of) %s", src[i].Part+1, text)
			}
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t %s\n", line, r.Thread, ms(r.LockWait), ms(r.Locked), ms(r.Unlocked), ms(r.End), text)
	}
	tw.Flush()
	k := c.Counters
	fmt.Fprintf(w, "total %s virtual on %d thread(s); rtnl_lock held %s\n", ms(c.VirtualNs), threads, ms(c.LockHeldNs))
	// Every step the run made, so that new steps show without code here.
	var steps []string
	for _, s := range cost.Steps() {
		if n := k.Get(s); n > 0 {
			part := fmt.Sprintf("%s %d", s, n)
			if s == cost.StepRCUBarrier {
				part += fmt.Sprintf(" (run %d)", k.RCUBarrierExecuted)
			}
			steps = append(steps, part)
		}
	}
	fmt.Fprintf(w, "steps: %s\n", strings.Join(steps, ", "))
	fmt.Fprintln(w, prices)
}

func ms(ns int64) string { return fmt.Sprintf("%.3fms", float64(ns)/1e6) }

// openTarget opens the named target with the profile; notes about parts
// of the profile the model does not act on go to notes. prices is the
// line that says whose prices the model's costs use (pricesNote).
func openTarget(name, profile string, show rtnl.Show, notes io.Writer) (tg rtnl.Target, prices string, err error) {
	p, err := sim.LoadProfile(profile)
	if err != nil {
		return nil, "", fmt.Errorf("--profile: %w", err)
	}
	switch name {
	case "kernel":
		if err := p.KernelCompatible(); err != nil {
			return nil, "", fmt.Errorf("--profile: %w", err)
		}
		// Shown events are numbered by request: each request ends only
		// when the linkwatch work it caused has run.
		kt, err := kernel.New(kernel.Options{SyncLinkwatch: show.Events})
		if err != nil {
			return nil, "", err
		}
		return kt, pricesNote(p), nil
	case "sim":
		for _, u := range p.Unmodelled() {
			fmt.Fprintf(notes, "rtnlsim: note: profile %s: %s\n", p.Name, u)
		}
		opts := p.Options(0)
		opts.Events = show.Events
		return sim.New(opts), pricesNote(p), nil
	}
	return nil, "", fmt.Errorf("unknown --target %q: use kernel or sim", name)
}

func parseShow(s string) (rtnl.Show, error) {
	var show rtnl.Show
	for _, w := range strings.Split(s, ",") {
		switch strings.TrimSpace(w) {
		case "links":
			show.Links = true
		case "addrs":
			show.Addrs = true
		case "routes":
			show.Routes = true
		case "rules":
			show.Rules = true
		case "fibtrie":
			show.FibTrie = true
		case "events":
			show.Events = true
		case "cost":
			show.Cost = true
		case "":
		default:
			return show, fmt.Errorf("--show: unknown observable %q (known: links,addrs,routes,rules,fibtrie,events,cost)", w)
		}
	}
	return show, nil
}

// readScript parses SCRIPT or standard input; every bad line is reported,
// named by file and line.
func readScript(name string, stdin io.Reader) ([]rtnl.Request, error) {
	var r io.Reader
	if name == "-" {
		r = stdin
		name = "<stdin>"
	} else {
		fh, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		r = bufio.NewReader(fh)
	}
	reqs, err := script.Parse(r)
	if err != nil {
		var b strings.Builder
		var errs *script.Errors
		if errors.As(err, &errs) {
			for _, e := range *errs {
				fmt.Fprintf(&b, "%s: %s\n", name, e.Error())
			}
			return nil, parseFailure{fmt.Sprintf("%s%d line(s) do not parse; nothing was run", b.String(), len(*errs))}
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return reqs, nil
}

// parseFailure is a script that does not parse: its lines' errors, each
// with its file and line number.
type parseFailure struct{ msg string }

func (e parseFailure) Error() string { return e.msg }

// scriptFailure is what a command returns for readScript's error: a script
// that does not parse is printed as is and exits 1; a file that cannot be
// opened or read is an error like any other (exit 2).
func scriptFailure(cmd *cobra.Command, err error) error {
	var pf parseFailure
	if errors.As(err, &pf) {
		fmt.Fprintln(cmd.ErrOrStderr(), pf.msg)
		return exitError{1}
	}
	return err
}

// progress draws a bar on a terminal for long scripts.
func progress(w io.Writer, total int) func(done, total int) {
	fh, ok := w.(*os.File)
	if total < 1000 || !ok || !term.IsTerminal(int(fh.Fd())) {
		return nil
	}
	bar := progressbar.NewOptions(total, progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("requests"), progressbar.OptionShowCount(),
		progressbar.OptionClearOnFinish())
	return func(done, _ int) { _ = bar.Set(done) }
}

func writeResult(w io.Writer, res rtnl.Result, show rtnl.Show, format string) error {
	if format == "json" {
		b, err := res.JSON(show)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	res.WriteText(w, show)
	return nil
}
