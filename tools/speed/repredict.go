package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rtnlsim/rtnlsim/internal/ipbatch"
	"github.com/rtnlsim/rtnlsim/sim"
)

// readReports reads the reports an earlier run wrote with -json.
func readReports(path string) ([]ipbatch.Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rs []ipbatch.Report
	if err := json.Unmarshal(b, &rs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("%s: no reports", path)
	}
	return rs, nil
}

// sameFile says whether paths a and b name one file (by their absolute
// paths, or as the same existing file).
func sameFile(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == bb {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// repriced is -repredict: the reports recorded in path, priced again
// with p (out, where they go, must be another file).
func repriced(ctx context.Context, path, out string, ws []workload, p sim.Profile) ([]ipbatch.Report, error) {
	if sameFile(path, out) {
		return nil, fmt.Errorf("-repredict %s: -json names the same file; write the new prices elsewhere", path)
	}
	recorded, err := readReports(path)
	if err != nil {
		return nil, err
	}
	reports, err := repredict(ctx, recorded, ws, p)
	if err != nil {
		if only := os.Getenv("RTNLSIM_SPEED_ONLY"); only != "" {
			err = fmt.Errorf("%w (RTNLSIM_SPEED_ONLY=%s is set)", err, only)
		}
		return nil, fmt.Errorf("-repredict %s: %w", path, err)
	}
	for _, r := range reports {
		sayRefused(r)
	}
	fmt.Fprintf(os.Stderr, "speed: %d workloads of %s priced again with %s; kernel and model wall times as recorded\n", len(reports), path, p.Name)
	return reports, nil
}

// repredict prices the workloads of recorded reports again with profile
// p: the kernel's times and the model's own wall times stay as recorded,
// the prediction and its error are the new profile's. Each report must
// name a workload of ws (the same -set and RTNLSIM_SPEED_SCALE as the
// run that wrote it).
func repredict(ctx context.Context, recorded []ipbatch.Report, ws []workload, p sim.Profile) ([]ipbatch.Report, error) {
	byName := map[string]workload{}
	for _, w := range ws {
		byName[w.name] = w
	}
	out := make([]ipbatch.Report, 0, len(recorded))
	for _, r := range recorded {
		w, ok := byName[r.Name]
		if !ok {
			return nil, fmt.Errorf("recorded workload %q is not in this set at this scale", r.Name)
		}
		s, err := scenario(w)
		if err != nil {
			return nil, err
		}
		if len(s.Setup) != r.SetupLines || len(s.Main) != r.MainLines {
			return nil, fmt.Errorf("%s: recorded with %d setup and %d main lines, this set has %d and %d (another scale?)",
				r.Name, r.SetupLines, r.MainLines, len(s.Setup), len(s.Main))
		}
		m, err := ipbatch.ModelRun(ctx, s.Setup, s.Main, p.Options(0), max(r.Threads, 1))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Name, err)
		}
		r.Profile, r.ModelVirtualNs = p.Name, m.VirtualNs
		r.ModelSetupRefused, r.ModelMainRefused = m.SetupRefused, m.MainRefused
		r.SetError()
		out = append(out, r)
	}
	return out, nil
}
