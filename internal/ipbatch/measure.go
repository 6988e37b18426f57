package ipbatch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/kernel"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/sim"
)

// Scenario is a workload: a setup that prepares the namespace (not
// timed), then the main part, timed.
type Scenario struct {
	Name string
	// SetupName names the setup in errors (its file).
	SetupName string
	Setup     []rtnl.Request
	Main      []rtnl.Request
}

// Options say how to measure.
type Options struct {
	Threads int // user threads (ip processes) the main part is split over
	Runs    int // K: kernel runs, empty-batch runs and model runs each
	// Profile is the kernel the model models (sim.LoadProfile).
	Profile sim.Profile
	// Dir is where the batch files go (a fresh directory under it,
	// removed afterwards); "" is the system's temporary directory.
	Dir string
	// Progress, when set, is told what is being run.
	Progress io.Writer
}

// Stats are K times in ns: the median (the mean of the middle two for an
// even K), the extremes, and every time in run order.
type Stats struct {
	MedianNs int64   `json:"median_ns"`
	MinNs    int64   `json:"min_ns"`
	MaxNs    int64   `json:"max_ns"`
	AllNs    []int64 `json:"all_ns"`
}

// StatsOf summarises ds.
func StatsOf(ds []time.Duration) Stats {
	s := Stats{AllNs: make([]int64, len(ds))}
	for i, d := range ds {
		s.AllNs[i] = int64(d)
	}
	if len(ds) == 0 {
		return s
	}
	s.MinNs, s.MaxNs = slices.Min(s.AllNs), slices.Max(s.AllNs)
	s.MedianNs = Median(s.AllNs)
	return s
}

// Median is the middle value of xs (the mean of the middle two for an even
// count), 0 for none.
func Median(xs []int64) int64 {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	switch {
	case n == 0:
		return 0
	case n%2 == 0:
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[n/2]
}

// LoadAvg is the first three fields of /proc/loadavg, or "unknown" (off
// Linux), for the record of a timed run.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// CPUTimes is the machine-wide line of /proc/stat: time every CPU spent
// in each state since boot, in clock ticks (user, nice, system, idle,
// iowait, irq, softirq, steal, ...); nil off Linux.
type CPUTimes []uint64

// ReadCPUTimes reads CPUTimes from /proc/stat.
func ReadCPUTimes() CPUTimes {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return nil
	}
	return parseCPUTimes(string(b))
}

func parseCPUTimes(stat string) CPUTimes {
	line, _, _ := strings.Cut(stat, "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return nil
	}
	var t CPUTimes
	for _, s := range f[1:] {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return nil
		}
		t = append(t, v)
	}
	return t
}

// StealText says what share of the CPU time between a and b (a read
// before, b after) the hypervisor gave to others (steal, the eighth
// field): on a virtual machine the host's other guests slow every timed
// run down, which the load average does not show. "" when either read
// failed.
func StealText(a, b CPUTimes) string {
	if len(a) < 8 || len(b) < 8 {
		return ""
	}
	var total uint64
	for i := range 8 { // guest time is inside user time already
		total += b[i] - a[i]
	}
	if total == 0 {
		return ""
	}
	return fmt.Sprintf("steal %.1f%% of CPU time", 100*float64(b[7]-a[7])/float64(total))
}

// Report is one scenario measured on the kernel and on the model.
type Report struct {
	Name       string `json:"name"`
	Threads    int    `json:"threads"`
	Runs       int    `json:"runs"`
	Profile    string `json:"profile"`
	SetupLines int    `json:"setup_lines"`
	MainLines  int    `json:"main_lines"`
	// Kernel is the time from starting the ip processes until the last
	// exited; ProcessStart is the same for empty batch files (process
	// start and exit alone). It is not subtracted from Kernel.
	Kernel       Stats `json:"kernel"`
	ProcessStart Stats `json:"process_start"`
	// ModelVirtualNs is the model's predicted time for the main part (the
	// same in every run: the model is deterministic).
	ModelVirtualNs int64 `json:"model_virtual_ns"`
	// ErrorPct is (predicted - kernel median) / kernel median, in %.
	ErrorPct float64 `json:"error_pct"`
	// ModelWall is the model's own time to apply the main part.
	ModelWall Stats `json:"model_wall"`
	// FasterBy is the kernel median over the model's wall median.
	FasterBy          float64  `json:"model_faster_by"`
	ModelSetupRefused []string `json:"model_setup_refused,omitempty"`
	ModelMainRefused  []string `json:"model_main_refused,omitempty"`
}

// SetError sets ErrorPct from ModelVirtualNs and the kernel's median (0
// without a kernel median).
func (r *Report) SetError() {
	r.ErrorPct = 0
	if r.Kernel.MedianNs > 0 {
		r.ErrorPct = 100 * float64(r.ModelVirtualNs-r.Kernel.MedianNs) / float64(r.Kernel.MedianNs)
	}
}

// Measure runs the scenario K times on the model (first, as it is quick to
// fail: a line it does not cover) and K times on the kernel, each run in
// a fresh namespace with the main part split over the threads as ip -b
// batch files (KernelRun), then K runs of empty batch files the same way.
func Measure(ctx context.Context, s Scenario, o Options) (Report, error) {
	r := Report{Name: s.Name, Threads: max(o.Threads, 1), Runs: o.Runs, Profile: o.Profile.Name,
		SetupLines: len(s.Setup), MainLines: len(s.Main)}
	if o.Runs < 1 {
		return r, errors.New("ipbatch: runs must be at least 1")
	}
	lines, err := Lines(s.Main)
	if err != nil {
		return r, err
	}
	names := setupNetns(s.Setup)
	for i, l := range lines {
		lines[i] = renameNetns(l, names)
	}
	say := func(format string, a ...any) {
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "%s: "+format+"\n", append([]any{s.Name}, a...)...)
		}
	}
	// Without root (or off Linux) say so now, not after the model's runs.
	kt, err := kernel.New(kernel.Options{})
	if err != nil {
		return r, err
	}
	kt.Close()
	opts := o.Profile.Options(0)
	var walls []time.Duration
	for k := range o.Runs {
		m, err := ModelRun(ctx, s.Setup, s.Main, opts, r.Threads)
		if err != nil {
			return r, err
		}
		if k == 0 {
			r.ModelVirtualNs, r.ModelSetupRefused, r.ModelMainRefused = m.VirtualNs, m.SetupRefused, m.MainRefused
		} else if m.VirtualNs != r.ModelVirtualNs {
			return r, fmt.Errorf("model: run %d predicted %dns, run 1 %dns", k+1, m.VirtualNs, r.ModelVirtualNs)
		}
		walls = append(walls, m.Wall)
		say("model run %d/%d: %s", k+1, o.Runs, m.Wall)
	}
	r.ModelWall = StatsOf(walls)
	say("model: predicted %s", time.Duration(r.ModelVirtualNs))

	dir, err := os.MkdirTemp(o.Dir, "rtnlsim-measure-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	files, err := WriteBatches(dir, "slice", cost.SplitInOrder(lines, r.Threads))
	if err != nil {
		return r, err
	}
	empty, err := WriteBatches(dir, "empty", make([][]string, r.Threads))
	if err != nil {
		return r, err
	}
	var kern, start []time.Duration
	for k := range o.Runs {
		d, err := KernelRun(ctx, s.Setup, s.SetupName, files)
		if err != nil {
			return r, fmt.Errorf("kernel run %d: %w", k+1, err)
		}
		kern = append(kern, d)
		say("kernel run %d/%d: %s", k+1, o.Runs, d)
	}
	for k := range o.Runs {
		d, err := KernelRun(ctx, nil, "", empty)
		if err != nil {
			return r, fmt.Errorf("empty batch run %d: %w", k+1, err)
		}
		start = append(start, d)
	}
	r.Kernel, r.ProcessStart = StatsOf(kern), StatsOf(start)
	say("kernel median %s; process start median %s", time.Duration(r.Kernel.MedianNs), time.Duration(r.ProcessStart.MedianNs))
	r.SetError()
	if r.ModelWall.MedianNs > 0 {
		r.FasterBy = float64(r.Kernel.MedianNs) / float64(r.ModelWall.MedianNs)
	}
	return r, nil
}
