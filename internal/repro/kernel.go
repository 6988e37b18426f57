package repro

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/internal/calib"
	"github.com/rtnlsim/rtnlsim/internal/kmeasure"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/script"
	"github.com/rtnlsim/rtnlsim/sim"
)

// KernelCase is one scenario measured on this machine for a Kernel cell:
// the same kmeasure.Scenario runs on the kernel (kmeasure.RunScenarioMin)
// and on the sim (calib.SimWork), and the sim's work is priced.
type KernelCase struct {
	// Key names the case in Options.KernelSizes.
	Key string
	// N is the default size.
	N int
	// Size describes size n for the cell.
	Size func(n int) string
	// Scenario builds the scenario of size n.
	Scenario func(n int) (kmeasure.Scenario, error)
}

// MeasureKernel runs kc on the kernel and the sim and fills a Kernel cell
// in seconds. The sim runs sim.DefaultProfile, the model of this
// machine's kernel. era and eraName are the seed-era prices, used when
// o.Machine is nil.
func MeasureKernel(ctx context.Context, o Options, kc KernelCase, era cost.Params, eraName string) (*Kernel, error) {
	n := o.Size(kc.Key, kc.N)
	s, err := kc.Scenario(n)
	if err != nil {
		return nil, err
	}
	k := &Kernel{Size: kc.Size(n), Runs: o.Runs()}
	o.Progressf("kernel: %s (%s), %d run(s) ...", s.Name, k.Size, o.Runs())
	t0 := time.Now()
	best, _, err := kmeasure.RunScenarioMin(ctx, s, o.Runs(), func(run int, d time.Duration) {
		o.Progressf("  run %d/%d: %.3f s", run+1, o.Runs(), d.Seconds())
	})
	if err != nil {
		return nil, fmt.Errorf("kernel scenario %s: %w", s.Name, err)
	}
	o.Progressf("  minimum %.3f s (%.1f s with setup)", best.Seconds(), time.Since(t0).Seconds())
	m := best.Seconds()
	k.Measured = &m
	p, err := sim.ParseProfile(sim.DefaultProfile)
	if err != nil {
		return nil, err
	}
	run, err := calib.SimWork(p, s)
	if err != nil {
		return nil, fmt.Errorf("kernel scenario %s on the sim: %w", s.Name, err)
	}
	prices, name := o.KernelPrices(era, eraName)
	res, err := run.Simulate(prices)
	if err != nil {
		return nil, fmt.Errorf("kernel scenario %s on the sim, priced with %s: %w", s.Name, name, err)
	}
	v := float64(res.VirtualNs) / 1e9
	k.Model = &v
	k.Profile = name
	k.SetError()
	return k, nil
}

// Parse parses a script the package generated itself.
func Parse(src string) ([]rtnl.Request, error) {
	reqs, err := script.ParseString(src)
	if err != nil {
		return nil, fmt.Errorf("repro: generated script: %w", err)
	}
	return reqs, nil
}

// Lines builds n lines of format with the 1-based index substituted for
// every %[1]d.
func Lines(n int, format string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, format+"\n", i)
	}
	return b.String()
}

// SplitThreads splits reqs into threads contiguous runs, in order (the
// first len%threads runs one longer), as cost.SplitInOrder does.
func SplitThreads(reqs []rtnl.Request, threads int) [][]rtnl.Request {
	if threads < 1 {
		threads = 1
	}
	if threads > len(reqs) {
		threads = max(1, len(reqs))
	}
	out := make([][]rtnl.Request, 0, threads)
	per, extra := len(reqs)/threads, len(reqs)%threads
	at := 0
	for t := 0; t < threads; t++ {
		k := per
		if t < extra {
			k++
		}
		out = append(out, reqs[at:at+k])
		at += k
	}
	return out
}

// MustParse parses a script a seed generated itself; an error there is a
// bug in that seed, so it panics.
func MustParse(src string) []rtnl.Request {
	reqs, err := script.ParseString(src)
	if err != nil {
		panic("sim: a generated script does not parse: " + err.Error())
	}
	return reqs
}
