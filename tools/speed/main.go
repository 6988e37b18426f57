// Command speed is `make speed`: seven workloads, each timed on this
// machine's kernel through ip -b and on the model (internal/ipbatch), as
// one side-by-side table, also written as JSON. Linux, root.
//
// RTNLSIM_SPEED_SCALE (default 1) scales every workload's size, e.g. 0.1
// for a quick run; RTNLSIM_SPEED_ONLY=a,c runs those workloads alone.
// -repredict FILE prices the workloads FILE recorded again with -profile,
// against FILE's kernel times, without running the kernel (no root).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rtnlsim/rtnlsim/internal/gcpace"
	"github.com/rtnlsim/rtnlsim/internal/ipbatch"
	"github.com/rtnlsim/rtnlsim/internal/outpath"
	"github.com/rtnlsim/rtnlsim/script"
	"github.com/rtnlsim/rtnlsim/sim"
)

func main() {
	gcpace.Set()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "speed:", err)
		os.Exit(1)
	}
}

func run() error {
	runs := flag.Int("runs", 3, "K runs of each workload on the kernel and on the model")
	out := flag.String("json", "speed.json", "write the reports here")
	profile := flag.String("profile", sim.DefaultProfile, "the model's profile (name or calibrate file)")
	write := flag.String("write", "", "only write each workload as NAME.setup.ip and NAME.ip into this directory")
	set := flag.String("set", "speed", "the workloads: speed (the seven) or fidelity (those and six more, a prediction set)")
	within := flag.Float64("within", 0.25, "fidelity: a prediction counts as right within this fraction of the kernel's median")
	need := flag.Float64("need", 0.9, "fidelity: exit non-zero when fewer than this fraction of the predictions are right")
	again := flag.String("repredict", "", "price the workloads of this earlier -json file again with -profile, against its kernel times (the kernel does not run; model wall times as recorded)")
	flag.Parse()
	if *write == "" {
		if err := outpath.Check("-json", *out); err != nil {
			return err
		}
	}
	scale := 1.0
	if s := os.Getenv("RTNLSIM_SPEED_SCALE"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v <= 0 {
			return fmt.Errorf("RTNLSIM_SPEED_SCALE=%q: want a number above 0", s)
		}
		scale = v
	}
	var ws []workload
	switch *set {
	case "speed":
		ws = workloads(scale)
	case "fidelity":
		ws = fidelityWorkloads(scale)
	default:
		return fmt.Errorf("-set %q: want speed or fidelity", *set)
	}
	if only := os.Getenv("RTNLSIM_SPEED_ONLY"); only != "" {
		var keep []workload
		for _, w := range ws {
			for _, k := range strings.Split(only, ",") {
				if k != "" && strings.HasPrefix(w.name, k+"-") {
					keep = append(keep, w)
				}
			}
		}
		ws = keep
	}
	if *write != "" {
		return writeScripts(*write, ws)
	}
	p, err := sim.LoadProfile(*profile)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var reports []ipbatch.Report
	var failed []error
	if *again != "" {
		if reports, err = repriced(ctx, *again, *out, ws, p); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(os.Stderr, "speed: scale %g, %d runs, load %s\n", scale, *runs, ipbatch.LoadAvg())
		if reports, failed, err = measureAll(ctx, ws, *runs, p); err != nil {
			return err
		}
	}
	if err := ipbatch.WriteTable(os.Stdout, reports); err != nil {
		return err
	}
	b, err := json.MarshalIndent(reports, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	if *set == "fidelity" {
		ok, pass := gate(reports, *within, *need)
		fmt.Printf("%d of %d predictions within %.0f%% of the kernel's median (%.0f%%; %.0f%% needed)\n",
			ok, len(reports), *within*100, 100*float64(ok)/float64(max(len(reports), 1)), *need*100)
		if !pass {
			failed = append(failed, fmt.Errorf("fidelity: %d of %d predictions within %.0f%%, fewer than %.0f%%", ok, len(reports), *within*100, *need*100))
		}
	}
	return errors.Join(failed...)
}

// measureAll measures each workload on the kernel and the model. A
// workload that fails is reported in failed and the others still run (a
// full run takes many minutes), unless the run was interrupted; a
// workload that does not parse stops it.
func measureAll(ctx context.Context, ws []workload, runs int, p sim.Profile) (reports []ipbatch.Report, failed []error, err error) {
	for _, w := range ws {
		s, err := scenario(w)
		if err != nil {
			return nil, nil, err
		}
		t0, cpu0 := time.Now(), ipbatch.ReadCPUTimes()
		r, err := ipbatch.Measure(ctx, s, ipbatch.Options{Threads: max(w.threads, 1), Runs: runs, Profile: p, Progress: os.Stderr})
		if err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", w.name, err))
			fmt.Fprintf(os.Stderr, "speed: %v\n", failed[len(failed)-1])
			if ctx.Err() != nil {
				break
			}
			continue
		}
		sayRefused(r)
		steal := ipbatch.StealText(cpu0, ipbatch.ReadCPUTimes())
		if steal != "" {
			steal = ", " + steal
		}
		fmt.Fprintf(os.Stderr, "speed: %s done in %s, load %s%s\n", w.name, time.Since(t0).Round(time.Second), ipbatch.LoadAvg(), steal)
		reports = append(reports, r)
	}
	return reports, failed, nil
}

// sayRefused reports the lines the model refused.
func sayRefused(r ipbatch.Report) {
	for _, l := range append(r.ModelSetupRefused, r.ModelMainRefused...) {
		fmt.Fprintf(os.Stderr, "speed: %s: the model refused %s\n", r.Name, l)
	}
}

func scenario(w workload) (ipbatch.Scenario, error) {
	setup, err := script.ParseString(w.setup)
	if err != nil {
		return ipbatch.Scenario{}, fmt.Errorf("%s setup: %w", w.name, err)
	}
	main, err := script.ParseString(w.main)
	if err != nil {
		return ipbatch.Scenario{}, fmt.Errorf("%s: %w", w.name, err)
	}
	return ipbatch.Scenario{Name: w.name, SetupName: w.name + ".setup", Setup: setup, Main: main}, nil
}

// writeScripts writes each workload as NAME.setup.ip and NAME.ip into
// dir, which it makes when missing.
func writeScripts(dir string, ws []workload) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, w := range ws {
		if err := os.WriteFile(filepath.Join(dir, w.name+".setup.ip"), []byte(w.setup), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, w.name+".ip"), []byte(w.main), 0o644); err != nil {
			return err
		}
	}
	return nil
}
