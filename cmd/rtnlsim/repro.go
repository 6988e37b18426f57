package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	_ "github.com/rtnlsim/rtnlsim/internal/repro/seeds"

	"github.com/spf13/cobra"

	"github.com/rtnlsim/rtnlsim/internal/repro"
	"github.com/rtnlsim/rtnlsim/internal/sweep"
	"github.com/rtnlsim/rtnlsim/sim"
)

func newReproCmd() *cobra.Command {
	var (
		kernel  bool
		format  string
		profile string
		runs    int
		sizes   []string
		quiet   bool
		layouts bool
		lplot   string
	)
	cmd := &cobra.Command{
		Use:   "repro SEED",
		Short: "Print a seed's published figures beside the model's prediction, with each cell's error",
		Long: `repro prints the figures a seed thread published (each with the words that
publish it; the thread is cited by list, date, subject and author) beside the model's prediction under
the seed-era profile: the prices fitted to that seed's own figures. Each row
says whether it was fitted (its error only shows the fit reproduces it) or
predicted, or why the model has no number for it. Large model errors are
printed, not treated as failures: the exit status is non-zero only when the
command itself fails.

Seeds:
` + seedList() + `
--kernel adds a column measured on this machine (root; every measurement
runs in a network namespace of its own) at sizes it can afford, named in
the column, beside the model's prediction for the same scenario and size.
That prediction uses the prices of --profile, a profile file written by
` + "`rtnlsim calibrate`" + `; without one it uses the seed-era prices, and
says so. Kernel times are the minimum of --runs runs; on a busy machine
they are noisy. Sizes (--size KEY=N overrides the default):
` + sizeList(),
		Example: `  rtnlsim repro 000
  rtnlsim repro 001 --format json
  rtnlsim repro 001 --layouts --layouts-plot layouts.svg
  sudo rtnlsim repro 000 --kernel --profile profile.json --runs 3
  sudo rtnlsim repro 003 --kernel --size 003/delete-one=500`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("repro takes one SEED (known: %s)", strings.Join(repro.IDs(), ", "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(repro.Formats, format) {
				return fmt.Errorf("--format %q: want table, json or csv", format)
			}
			seed, err := repro.Lookup(args[0])
			if err != nil {
				return err
			}
			if (layouts || lplot != "") && !seed.Layouts {
				return fmt.Errorf("--layouts: seed %s has no layout search (seed 001 has)", seed.ID)
			}
			if lplot != "" {
				if err := sweep.CheckChartPath("--layouts-plot", lplot); err != nil {
					return err
				}
			}
			o := repro.Options{Kernel: kernel, KernelRuns: runs, Layouts: layouts, LayoutsPlot: lplot}
			if !quiet {
				o.Progress = cmd.ErrOrStderr()
			}
			if profile != "" {
				if !kernel {
					return fmt.Errorf("--profile prices the --kernel column; give --kernel too")
				}
				p, err := sim.LoadProfile(profile)
				if err != nil {
					return err
				}
				if p.Cost == nil {
					return fmt.Errorf("--profile %s: a profile name carries no calibrated prices; give a profile file from `rtnlsim calibrate --out FILE`", profile)
				}
				o.Machine, o.MachineName = p.Cost, "profile file "+profile
			}
			if len(sizes) > 0 {
				if !kernel {
					return fmt.Errorf("--size sets kernel sizes; give --kernel too")
				}
				o.KernelSizes = map[string]int{}
				for _, s := range sizes {
					k, v, ok := strings.Cut(s, "=")
					n, err := strconv.Atoi(v)
					if !ok || err != nil || n < 1 {
						return fmt.Errorf("--size %q: want KEY=N with N >= 1 (keys: see rtnlsim repro --help)", s)
					}
					k = strings.TrimSpace(k)
					if len(seed.Sizes) == 0 {
						return fmt.Errorf("--size %s: seed %s has no kernel sizes to set", s, seed.ID)
					}
					known := false
					var keys []string
					for _, z := range seed.Sizes {
						known = known || z.Key == k
						keys = append(keys, z.Key)
					}
					if !known {
						return fmt.Errorf("--size %s: seed %s has no size %q (its sizes: %s)", s, seed.ID, k, strings.Join(keys, ", "))
					}
					o.KernelSizes[k] = n
				}
			}
			if runs < 1 {
				return fmt.Errorf("--runs %d: want at least 1", runs)
			}
			t, err := repro.Run(cmd.Context(), args[0], o)
			if err != nil {
				return err
			}
			return repro.Write(cmd.OutOrStdout(), t, format)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&kernel, "kernel", false, "add a column measured on this machine's kernel at affordable sizes (root)")
	f.StringVar(&format, "format", "table", "output format: table, json or csv")
	f.StringVar(&profile, "profile", "", "a profile file from rtnlsim calibrate: its prices give the model's prediction beside each kernel measurement (default: the seed-era prices)")
	f.IntVar(&runs, "runs", 3, "with --kernel, how many times each kernel scenario runs (the minimum is kept)")
	f.StringSliceVar(&sizes, "size", nil, "with --kernel, KEY=N overrides a kernel size (e.g. 000/one-by-one=100; keys listed above)")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress lines on stderr")
	f.BoolVar(&layouts, "layouts", false, "seed 001: print the address-layout search (which splits of the 40,000 addresses into subnets fit both published times)")
	f.StringVar(&lplot, "layouts-plot", "", "seed 001: draw the address-layout search as a chart (.svg, .png or .pdf)")
	return cmd
}

// seedList is one line per registered seed for the help text.
func seedList() string {
	var b strings.Builder
	for _, s := range repro.Seeds() {
		fmt.Fprintf(&b, "  %s  %s\n", s.ID, s.Summary)
	}
	return b.String()
}

// sizeList lists the --size keys of the registered seeds.
func sizeList() string {
	var b strings.Builder
	for _, s := range repro.Seeds() {
		for _, z := range s.Sizes {
			fmt.Fprintf(&b, "  %-16s %5d  %s\n", z.Key, z.Default, z.What)
		}
	}
	return b.String()
}
