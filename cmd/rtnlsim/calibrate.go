package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/rtnlsim/rtnlsim/internal/calib"
	"github.com/rtnlsim/rtnlsim/internal/outpath"
	"github.com/rtnlsim/rtnlsim/sim"
)

// pricesNote says where p's prices come from: the line under a cost table
// or a trace.
func pricesNote(p sim.Profile) string {
	if p.Cost == nil {
		return "(prices: sim.DefaultPrices, the seed 000 fit on 2021 hardware; docs/model.md)"
	}
	if p.Provenance != nil {
		return fmt.Sprintf("(prices: %s, calibrated on kernel %s, %s, %s)", p.File, p.Provenance.Kernel, p.Provenance.Machine, p.Provenance.Date)
	}
	return fmt.Sprintf("(prices: %s)", p.File)
}

// calibrationTable is the help's list of the calibration set with the
// sizes calib.FullSizes and calib.QuickSizes give it, so that the help
// cannot fall behind them.
func calibrationTable() string {
	f, q := calib.FullSizes, calib.QuickSizes
	rows := []struct {
		what        string
		full, quick [2]int
		unit        string
	}{
		{"link del one by one, 1 thread, devices DOWN and UP", f.OneByOne, q.OneByOne, "devices"},
		{"link del group 10 (one batch), DOWN and UP", f.Group, q.Group, "devices"},
		{"link set dev X down of UP devices with a /24 each", f.Down, q.Down, "devices"},
		{"addr flush of one /8, promote_secondaries 0", f.Flush0, q.Flush0, "addresses"},
		{"addr flush of one /8, promote_secondaries 1", f.Flush, q.Flush, "addresses"},
		{"route add of /24s through one device", f.Route, q.Route, "routes"},
		{"route flush dev of such routes, lo down and lo up", f.Flush2, q.Flush2, "routes"},
		{"route del of such routes, one by one", f.RouteDel, q.RouteDel, "routes"},
		{"link set dev X up of DOWN devices, one by one", f.Up, q.Up, "devices"},
		{"link set dev X mtu 1400 of UP devices, one by one", f.MTU, q.MTU, "devices"},
		{"link set dev X mtu 1400 of DOWN devices, one by one", f.MTUDown, q.MTUDown, "devices"},
		{"addr del of the primary of one /8, promote_secondaries 1", f.DelPrimary, q.DelPrimary, "addresses"},
		{fmt.Sprintf("route del and add of a /24 (%d / %d times) beside /32s", f.Toggles, q.Toggles), f.Suffix, q.Suffix, "routes"},
		{"link set dev X down of UP devices without addresses, IPv6 off", f.BareDown, q.BareDown, "devices"},
		{"link set dev g0 up, then down, IPv6 on", f.UpDown, q.UpDown, "times"},
		{fmt.Sprintf("link set dev X down of %d / %d devices with a /24, beside", f.DownDevs, q.DownDevs), f.DownRoutes, q.DownRoutes, "routes"},
	}
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "  %-62s  %d,%d / %d,%d %s\n", r.what, r.full[0], r.full[1], r.quick[0], r.quick[1], r.unit)
	}
	return b.String()
}

// flushSizes is sizes as "A and B" (or "A, B and C").
func flushSizes(sizes []int) string {
	parts := make([]string, len(sizes))
	for i, n := range sizes {
		parts[i] = strconv.Itoa(n)
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func newCalibrateCmd() *cobra.Command {
	var (
		out     string
		repeat  int
		predict bool
		quick   bool
		prior   string
	)
	cmd := &cobra.Command{
		Use:   "calibrate [--out profile.json] [--repeat K] [--predict] [--quick] [--prior FILE]",
		Short: "Measure this machine's kernel, fit the cost model's prices, write a profile",
		Long: fmt.Sprintf(`Calibrate runs a small, documented set of scenarios on this machine's kernel,
each in a network namespace of its own (ifb devices; nothing outside the
namespace changes; needs root), runs the same requests on the model, and
fits the price of every cost step by non-negative least squares on relative
error: a single-thread scenario's time is the sum over the steps of
count x price.

The calibration set (sizes: default / --quick):
%sUP devices keep IPv6 on (the kernel's default): their IPv6 work is what UP
adds. The address and route scenarios, and the downs of devices without
addresses, turn IPv6 off. The first request of
a batch that names a device costs ip a lookup (RTM_GETLINK by name on a
socket opened for it, the answer cached for the rest of the batch): priced
as a socket's life, a request and a link fill.

With --predict (the default) it then measures scenarios NOT in the set and
prints the model's prediction from the fitted prices beside each: deletion
one by one with 2 and 4 threads (rtnl_lock contention and rcu_barrier
sharing, simulated), group move (link set dev X group 10) UP vs DOWN,
deleting UP devices that each hold an address in a /24 of their own, and
route flushes at sizes the fit did not see (%s / %s
routes).

Kernel times are taken as users run scripts, through iproute2: each run
makes a fresh namespace, applies the scenario's setup there (through the
kernel target, untimed), waits until no earlier namespace is being
dismantled (the kernel's cleanup of the last run's namespace takes
rtnl_lock), writes the timed requests as one ip -b batch file per user
thread, and times "nsenter --net=NETNS ip -b FILE" processes, all
started together, until the last exits. Every round also times empty batch
files per thread count: ip's process start and exit alone. Their median is
SUBTRACTED from every scenario's times (the output says by how much), since
the model prices kernel work, not process start. The model counts the
name lookups ip makes (one per device name per process).

Each scenario runs --repeat K times, round-robin (K rounds, each running
every scenario once), so that a burst of other load does not hit every run
of one scenario. The point fit uses each scenario's median net time; each
round is also fitted alone, and every fitted price is printed with the
least and most the rounds gave it (predictions likewise).

Not every price can be told apart by the set: the design matrix (scenarios
x steps, counts per measured ns, columns scaled to unit norm) is printed
with its rank and condition number, and each step with its column's
distance from the span of the others. A step within %.2f of that span is
"not identified": its price is not fitted but kept from the prior prices
(--prior, else the defaults) and charged at that in the fit, and the output
says so. A price no calibration scenario exercises keeps its prior too.

The profile file (--out) holds the profile name, the prices and their
provenance (kernel release, machine, date, load, ip's process start, the
scenarios' times and residuals, the design's rank and condition, each
price's status, distance and interval, the predictions);
rtnlsim run --profile FILE and diff --profile FILE load it.`,
			calibrationTable(), flushSizes(calib.FullSizes.RouteFlush), flushSizes(calib.QuickSizes.RouteFlush), calib.MinDistance),
		Example: `  rtnlsim calibrate --out profile.json
  rtnlsim calibrate --quick --repeat 2 --out /tmp/p.json
  rtnlsim run --target sim --profile profile.json --show cost my.script`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if repeat < 1 {
				return fmt.Errorf("--repeat must be at least 1, got %d", repeat)
			}
			if err := outpath.Check("--out", out); err != nil {
				return err
			}
			o := calib.Options{Sizes: calib.FullSizes, Repeat: repeat, Predict: predict}
			if quick {
				o.Sizes = calib.QuickSizes
			}
			if prior != "" {
				p, err := sim.LoadProfile(prior)
				if err != nil {
					return fmt.Errorf("--prior: %w", err)
				}
				c, err := p.CostOrDefault()
				if err != nil {
					return fmt.Errorf("--prior: %w", err)
				}
				o.Base = &c
			}
			bar := progressbar.NewOptions(o.Steps(),
				progressbar.OptionSetWriter(cmd.ErrOrStderr()),
				progressbar.OptionSetDescription("calibrate"),
				progressbar.OptionShowCount(),
				progressbar.OptionSetElapsedTime(true),
				progressbar.OptionSetPredictTime(true),
				progressbar.OptionSetWidth(24),
				progressbar.OptionOnCompletion(func() { fmt.Fprintln(cmd.ErrOrStderr()) }))
			o.Plan = func(n int) { bar.ChangeMax(n) }
			o.Before = func(name string, run int) {
				bar.Describe(fmt.Sprintf("%s (run %d)", name, run+1))
			}
			o.After = func(string, int, time.Duration) { _ = bar.Add(1) }
			res, err := calib.Run(cmd.Context(), o)
			_ = bar.Finish()
			if err != nil {
				return err
			}
			res.WriteSummary(cmd.OutOrStdout())
			if out != "" {
				if err := sim.WriteProfileFile(out, res.ProfileFile()); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "\nwrote %s (load it with --profile %s)\n", out, out)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write the fitted profile to this JSON file")
	cmd.Flags().IntVar(&repeat, "repeat", 5, "K: rounds of kernel runs (each scenario once per round, in a fresh namespace); the median is fitted, each round too for the intervals")
	cmd.Flags().StringVar(&prior, "prior", "", "profile file (or name) whose prices the steps the calibration cannot fit keep (default: the default prices)")
	cmd.Flags().BoolVar(&predict, "predict", true, "also measure and predict the scenarios outside the calibration set (--predict=false to skip)")
	cmd.Flags().BoolVar(&quick, "quick", false, "smaller sizes (about a third of the kernel time; the CI test's sizes)")
	return cmd
}
