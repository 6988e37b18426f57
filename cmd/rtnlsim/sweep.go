package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/rtnlsim/rtnlsim/internal/outpath"
	"github.com/rtnlsim/rtnlsim/internal/sweep"
	"github.com/rtnlsim/rtnlsim/sim"
)

type sweepFlags struct {
	n        string
	points   int
	profiles []string
	threads  string
	promote1 int
	rc3      int
	csv      string
	plot     string
	shard    string
	seed     int64
	jobs     int
	quiet    bool
	verbose  bool
}

func newSweepCmd() *cobra.Command {
	var f sweepFlags
	var scen strings.Builder
	for _, s := range sweep.Scenarios {
		fmt.Fprintf(&scen, "  %-8s %s\n", s.Name, s.About)
	}
	cmd := &cobra.Command{
		Use:   "sweep SCENARIO --n A..B [flags]",
		Short: "Cost curves of a scenario over sizes N: CSV and a chart",
		Long: `sweep runs a scenario on the model at sizes N, one curve per method and
profile, and writes one CSV row per (curve, N): the virtual time in seconds
and the step counters. --plot draws the curves (log-log) with gonum/plot.

Scenarios:
` + scen.String() + `
Profiles (--profile, repeatable): ` + sweep.SeedEra + ` (default) is the scenario's own
seed: seed000 prices the December 2021 kernel's unregister steps with the
seed 000 fit (seed000.Fit, equal to sim.DefaultPrices); seed001 prices
linux-6.18 with the flush prices fitted on this machine (request 13.0 us, list step 5 ns, FIB op 1.31 us);
seed003 prices the seed 000 fit plus the update_suffix visit fitted to the
seed's two one-device deletions (seed003.Fit, 10K devices on the sim target:
seconds to half a minute at start). For
seed003 the curves are the FIB eras; a profile brings prices only.
A profile name (` + sim.ProfileNames() + `)
takes the scenario's seed-era prices; a profile file from rtnlsim calibrate
brings its own. The chart title and the CSV's prices column say which.

Sharding: --shard i/n runs only shard i (0 <= i < n) of the points, dealt
round-robin largest N first (the same sweep always deals them the same way);
a point's seed comes from --seed and the point, so the shards' CSVs, given to
rtnlsim merge, make exactly the CSV of the whole sweep.`,
		Example: `  rtnlsim sweep seed000 --n 100..100000 --threads 1,10,50 --csv s0.csv --plot s0.svg
  rtnlsim sweep seed001 --n 100..100000 --csv s1.csv --plot s1.svg
  rtnlsim sweep seed001 --n 100,1000 --profile linux-6.18 --profile my-calibration.json
  rtnlsim sweep seed000 --n 100..100000 --shard 3/8 --csv part3.csv   # then: rtnlsim merge part*.csv`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: sweep.ScenarioNames(),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSweep(cmd, args[0], &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.n, "n", "", "sizes: a range A..B (log-spaced, see --points), a list A,B,C, or one size; 10k, 1M and 1e5 are accepted (required)")
	fl.IntVar(&f.points, "points", 0, fmt.Sprintf("points in a range A..B, log-spaced, inner ones rounded to 2 significant digits (default %d per decade plus one)", sweep.PointsPerDecade))
	fl.StringArrayVar(&f.profiles, "profile", nil, "profile name or profile file, repeatable: one set of curves each (default "+sweep.SeedEra+")")
	fl.StringVar(&f.threads, "threads", "1", "seed000: the one-by-one curves' thread counts, comma separated (e.g. 1,10,50)")
	fl.IntVar(&f.promote1, "promote1-max-n", sweep.DefaultPromote1MaxN, "seed001: the promote=1 curve runs up to this N; points above are written as skipped (N=16,000 takes about 10 s)")
	fl.IntVar(&f.rc3, "rc3-max-n", sweep.DefaultRc3MaxN, "seed003: the linux-4.2-rc3 curve runs up to this N; points above are written as skipped (N=2000 takes about 11 s, 4000 about 144 s)")
	fl.StringVar(&f.csv, "csv", "-", "CSV output file, - for stdout")
	fl.StringVar(&f.plot, "plot", "", "chart file: .svg, .png or .pdf (none by default)")
	fl.StringVar(&f.shard, "shard", "", "run only shard i of n (i/n, 0 <= i < n), e.g. $SLURM_ARRAY_TASK_ID/8")
	fl.Int64Var(&f.seed, "seed", 1, "the sweep's seed; each point's seed derives from it and the point")
	fl.IntVar(&f.jobs, "jobs", 1, "points run at the same time")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress bar and no summary on stderr")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "one line per point on stderr with its wall time (instead of the progress bar)")
	_ = cmd.MarkFlagRequired("n")
	return cmd
}

func runSweep(cmd *cobra.Command, scenario string, f *sweepFlags) error {
	if _, err := sweep.LookupScenario(scenario); err != nil {
		return err
	}
	ns, err := sweep.ParseNs(f.n, f.points)
	if err != nil {
		return err
	}
	opts := sweep.Options{Promote1MaxN: f.promote1, Rc3MaxN: f.rc3}
	if cmd.Flags().Changed("threads") && scenario != "seed000" {
		return fmt.Errorf("--threads applies to seed000 only")
	}
	if cmd.Flags().Changed("promote1-max-n") && scenario != "seed001" {
		return fmt.Errorf("--promote1-max-n applies to seed001 only")
	}
	if cmd.Flags().Changed("rc3-max-n") && scenario != "seed003" {
		return fmt.Errorf("--rc3-max-n applies to seed003 only")
	}
	if f.rc3 < 1 {
		return fmt.Errorf("--rc3-max-n %d: must be at least 1", f.rc3)
	}
	if f.promote1 < 1 {
		return fmt.Errorf("--promote1-max-n %d: must be at least 1", f.promote1)
	}
	for _, s := range strings.Split(f.threads, ",") {
		t, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || t < 1 {
			return fmt.Errorf("--threads %q: %q is not a thread count (a positive integer)", f.threads, s)
		}
		opts.Threads = append(opts.Threads, t)
	}
	var shard sweep.Shard
	if f.shard != "" {
		if shard, err = sweep.ParseShard(f.shard); err != nil {
			return err
		}
	}
	if f.jobs < 1 {
		return fmt.Errorf("--jobs %d: must be at least 1", f.jobs)
	}
	if f.plot != "" {
		if err := sweep.CheckPlotPath(f.plot); err != nil {
			return err
		}
	}
	if err := outpath.Check("--csv", f.csv); err != nil {
		return err
	}
	plan, err := sweep.NewPlan(sweep.Config{Scenario: scenario, Ns: ns, Profiles: f.profiles, Options: opts, Seed: f.seed})
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	pts := plan.ShardPoints(shard)
	prog := newSweepProgress(stderr, len(pts), f)
	t0 := time.Now()
	rows, err := plan.Run(cmd.Context(), shard, f.jobs, prog)
	prog.finish()
	if err != nil {
		if errors.Is(err, context.Canceled) && len(rows) > 0 && f.csv != "-" {
			// Interrupted: keep what is done; merge --partial takes it.
			if werr := writeCSVTo(cmd, f.csv, plan.Scenario, rows); werr != nil {
				return fmt.Errorf("%w; the %d points done of %d are lost: %v", err, len(rows), len(pts), werr)
			}
			return fmt.Errorf("%w: the %d points done of %d are in %s (rtnlsim merge --partial reads it)", err, len(rows), len(pts), f.csv)
		}
		return err
	}
	wall := time.Since(t0)
	if err := writeCSVTo(cmd, f.csv, plan.Scenario, rows); err != nil {
		return err
	}
	if f.plot != "" {
		if err := sweep.Plot(rows, f.plot); err != nil {
			return err
		}
	}
	if !f.quiet {
		skipped := 0
		for _, r := range rows {
			if r.Status != sweep.StatusOK {
				skipped++
			}
		}
		fmt.Fprintf(stderr, "rtnlsim sweep %s: %d of %d points (shard %s, %d skipped) in %s wall time", scenario, len(rows), len(plan.Points), shard, skipped, wall.Round(time.Millisecond))
		if f.csv != "-" {
			fmt.Fprintf(stderr, "; CSV %s", f.csv)
		}
		if f.plot != "" {
			fmt.Fprintf(stderr, "; chart %s", f.plot)
		}
		fmt.Fprintln(stderr)
	}
	return nil
}

// writeCSVTo writes rows to path, or to the command's stdout for "-".
func writeCSVTo(cmd *cobra.Command, path string, sc sweep.Scenario, rows []sweep.Row) error {
	var buf bytes.Buffer
	if err := sweep.WriteCSV(&buf, sc, rows); err != nil {
		return err
	}
	if path == "-" || path == "" {
		_, err := cmd.OutOrStdout().Write(buf.Bytes())
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// sweepProgress is the progress bar (a terminal, not --quiet) or the
// per-point lines (--verbose).
type sweepProgress struct {
	mu      sync.Mutex
	bar     *progressbar.ProgressBar
	lines   io.Writer
	total   int
	done    int
	running map[int]sweep.Point
	stop    chan struct{}
}

func newSweepProgress(w io.Writer, total int, f *sweepFlags) *sweepProgress {
	p := &sweepProgress{total: total, running: map[int]sweep.Point{}}
	switch {
	case f.quiet:
	case f.verbose:
		p.lines = w
	case isTerminal(w):
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("sweep"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowDescriptionAtLineEnd(),
			progressbar.OptionClearOnFinish())
		// Redraw every second, so that the elapsed time moves during a
		// long point.
		p.stop = make(chan struct{})
		go func() {
			t := time.NewTicker(time.Second)
			defer t.Stop()
			for {
				select {
				case <-p.stop:
					return
				case <-t.C:
					p.mu.Lock()
					p.bar.Describe(p.describe())
					p.mu.Unlock()
				}
			}
		}()
	}
	return p
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func (p *sweepProgress) Start(pt sweep.Point) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running[pt.Index] = pt
	if p.bar != nil {
		p.bar.Describe(p.describe())
	}
}

// describe names the points running.
func (p *sweepProgress) describe() string {
	var parts []string
	for _, pt := range p.running {
		parts = append(parts, fmt.Sprintf("%s N=%d", pt.Curve.Name, pt.N))
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

func (p *sweepProgress) Done(pt sweep.Point, row sweep.Row, wall time.Duration, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.running, pt.Index)
	p.done++
	if p.lines != nil {
		status := fmt.Sprintf("virtual %.6g s", float64(row.VirtualNs)/1e9)
		switch {
		case err != nil:
			status = "error: " + err.Error()
		case pt.Skip():
			status = "skipped (above the curve's limit)"
		}
		fmt.Fprintf(p.lines, "[%d/%d] %s N=%d: %s wall, %s\n", p.done, p.total, pt.Curve.Name, pt.N, wall.Round(time.Millisecond), status)
	}
	if p.bar != nil {
		p.bar.Describe(p.describe())
		_ = p.bar.Add(1)
	}
}

func (p *sweepProgress) finish() {
	if p.stop != nil {
		close(p.stop)
	}
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

type mergeFlags struct {
	out     string
	plot    string
	partial bool
}

func newMergeCmd() *cobra.Command {
	var f mergeFlags
	cmd := &cobra.Command{
		Use:   "merge CSV... [--out FILE] [--plot FILE]",
		Short: "Join the CSVs of a sweep's shards into the whole sweep's CSV (and chart)",
		Long: `merge reads the CSVs that rtnlsim sweep --shard i/n wrote, checks that they
are shards of one sweep (same header, scenario, sizes, profiles, limits and
--seed), that no point is given twice and that none is missing, and writes
the rows in point order: exactly the CSV the unsharded sweep writes.
--plot draws the chart from the merged rows (one CSV alone redraws a chart).`,
		Example: `  rtnlsim merge part-*.csv --out seed000.csv --plot seed000.svg`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.plot != "" {
				if err := sweep.CheckPlotPath(f.plot); err != nil {
					return err
				}
			}
			if err := outpath.Check("--out", f.out); err != nil {
				return err
			}
			var ins []sweep.CSV
			for _, a := range args {
				c, err := sweep.ReadCSVFile(a)
				if err != nil {
					return err
				}
				ins = append(ins, c)
			}
			m, err := sweep.Merge(ins, f.partial)
			if err != nil {
				return err
			}
			if err := writeCSVTo(cmd, f.out, m.Scenario, m.Rows); err != nil {
				return err
			}
			if f.plot != "" {
				return sweep.Plot(m.Rows, f.plot)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&f.out, "out", "o", "-", "merged CSV file, - for stdout")
	cmd.Flags().StringVar(&f.plot, "plot", "", "chart file: .svg, .png or .pdf")
	cmd.Flags().BoolVar(&f.partial, "partial", false, "merge even when points are missing (a shard failed or is still running)")
	return cmd
}
