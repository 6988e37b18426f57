// Package sweep runs a scenario of the model at many sizes N, one curve
// per method and profile, and writes the cost curves as CSV and as a chart
// (`rtnlsim sweep`, `rtnlsim merge`).
//
// A sweep is a list of points (curve, N), numbered in curve order then N.
// A point's result depends on the point alone: its seed is derived from
// the sweep's seed, the scenario, the curve and N (not from a shard), so a
// sweep can be split into shards (--shard i/n: Plan.ShardOf deals the
// points to n shards, largest N first) that run anywhere, and Merge of the
// shards' CSVs is byte for byte the CSV of the whole sweep.
package sweep

import (
	"context"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Config is a sweep.
type Config struct {
	Scenario string
	// Ns are the sizes, ascending (ParseNs).
	Ns []int
	// Profiles are --profile arguments (none: SeedEra).
	Profiles []string
	Options  Options
	// Seed is the sweep's seed; each point's seed derives from it.
	Seed int64
}

// Point is one (curve, N) of a sweep.
type Point struct {
	Index int
	Curve *Curve
	N     int
	Seed  int64
}

// Skip says that N is above the curve's MaxN: the point is written as
// skipped, not run.
func (pt Point) Skip() bool { return pt.Curve.MaxN > 0 && pt.N > pt.Curve.MaxN }

// Plan is a sweep resolved into its points.
type Plan struct {
	Config   Config
	Scenario Scenario
	Curves   []Curve
	Points   []Point
	// ID identifies the sweep (scenario, sizes, curves, prices, limits,
	// seed): shards of one sweep share it, and Merge refuses to mix IDs.
	ID string
}

// NewPlan resolves cfg.
func NewPlan(cfg Config) (*Plan, error) {
	sc, err := LookupScenario(cfg.Scenario)
	if err != nil {
		return nil, err
	}
	if len(cfg.Ns) == 0 {
		return nil, fmt.Errorf("sweep %s: no sizes", cfg.Scenario)
	}
	for i, n := range cfg.Ns {
		if n < 1 || n > MaxN || (i > 0 && n <= cfg.Ns[i-1]) {
			return nil, fmt.Errorf("sweep %s: sizes must be ascending, distinct, from 1 to %d (got %v)", cfg.Scenario, MaxN, cfg.Ns)
		}
	}
	profs, err := resolveProfiles(sc, cfg.Profiles)
	if err != nil {
		return nil, err
	}
	curves, err := sc.curves(cfg.Options, profs)
	if err != nil {
		return nil, err
	}
	if len(profs) > 1 {
		// The profile's label keeps the names distinct (they key the
		// chart's lines and the points' seeds).
		for i := range curves {
			curves[i].Name += " [" + curves[i].Profile + "]"
		}
	}
	p := &Plan{Config: cfg, Scenario: sc, Curves: curves}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s|%v|%d|", sc.Name, cfg.Ns, cfg.Seed)
	for i := range p.Curves {
		c := &p.Curves[i]
		fmt.Fprintf(h, "%s|%s|%s|%d|", c.Name, c.Profile, c.Prices, c.MaxN)
		for _, n := range cfg.Ns {
			p.Points = append(p.Points, Point{Index: len(p.Points), Curve: c, N: n,
				Seed: pointSeed(cfg.Seed, sc.Name, c.Name, n)})
		}
	}
	p.ID = fmt.Sprintf("%016x", h.Sum64())
	return p, nil
}

// pointSeed derives a point's seed from the sweep's seed and the point
// (splitmix64 of the seed mixed with a hash of the point).
func pointSeed(seed int64, scenario, curve string, n int) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s|%s|%d", scenario, curve, n)
	x := uint64(seed) ^ h.Sum64()
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	x ^= x >> 31
	return int64(x >> 1) // non-negative
}

// Shard is --shard i/n: shard I of N (0 <= I < N). The zero value is the
// whole sweep.
type Shard struct{ I, N int }

// ParseShard parses "i/n".
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	switch {
	case !ok || err1 != nil || err2 != nil:
		return Shard{}, fmt.Errorf("--shard %q: want i/n, e.g. 0/8 (shards numbered from 0, as $SLURM_ARRAY_TASK_ID with --array=0-7)", s)
	case n < 1:
		return Shard{}, fmt.Errorf("--shard %q: the number of shards must be at least 1", s)
	case i < 0 || i >= n:
		return Shard{}, fmt.Errorf("--shard %q: shard %d is outside 0..%d", s, i, n-1)
	}
	return Shard{I: i, N: n}, nil
}

func (s Shard) String() string {
	if s.N <= 1 {
		return "all"
	}
	return fmt.Sprintf("%d/%d", s.I, s.N)
}

// ShardOf returns the shard (0 <= shard < n) of every point, by index.
// The points that run are dealt round-robin in order of N, largest
// first (ties in point order), so that every shard gets a share of the
// expensive sizes; skipped points are dealt after them, in point order.
// It depends on the sweep's definition only (its points and limits), not
// on where or when a shard runs.
func (p *Plan) ShardOf(n int) []int {
	out := make([]int, len(p.Points))
	if n <= 1 {
		return out
	}
	order := make([]int, 0, len(p.Points))
	for i, pt := range p.Points {
		if !pt.Skip() {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return p.Points[order[a]].N > p.Points[order[b]].N })
	for i, pt := range p.Points {
		if pt.Skip() {
			order = append(order, i)
		}
	}
	for rank, i := range order {
		out[i] = rank % n
	}
	return out
}

// ShardPoints returns the shard's points, in point order.
func (p *Plan) ShardPoints(s Shard) []Point {
	if s.N <= 1 {
		return append([]Point(nil), p.Points...)
	}
	of := p.ShardOf(s.N)
	var out []Point
	for i, pt := range p.Points {
		if of[i] == s.I {
			out = append(out, pt)
		}
	}
	return out
}

// Progress is told when a point starts and when it ends (its row, its
// wall time, and err nil or the point's error).
type Progress interface {
	Start(pt Point)
	Done(pt Point, row Row, wall time.Duration, err error)
}

// Run runs the shard's points, jobs at a time (at least 1), and returns
// their rows in point order. Skipped points are rows too (status
// "skipped"). The first error (or the context's end) stops the run; the
// rows of the points that finished are returned with it.
func (p *Plan) Run(ctx context.Context, s Shard, jobs int, prog Progress) ([]Row, error) {
	pts := p.ShardPoints(s)
	rows := make([]Row, len(pts))
	jobs = max(jobs, 1)
	var (
		mu       sync.Mutex
		firstErr error
		next     int
		wg       sync.WaitGroup
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	take := func() int {
		mu.Lock()
		defer mu.Unlock()
		if firstErr != nil || next >= len(pts) {
			return -1
		}
		next++
		return next - 1
	}
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr == nil {
			firstErr = err
			cancel()
		}
	}
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := take()
				if k < 0 {
					return
				}
				pt := pts[k]
				if err := ctx.Err(); err != nil {
					fail(err)
					return
				}
				row := p.row(pt)
				if prog != nil {
					prog.Start(pt)
				}
				t0 := time.Now()
				var err error
				if !pt.Skip() {
					var res Result
					res, err = pt.Curve.run(ctx, pt.N, pt.Seed)
					if err == nil {
						row.Status, row.VirtualNs, row.LockHeldNs, row.Counters = StatusOK, res.VirtualNs, res.LockHeldNs, res.Counters
					} else {
						err = fmt.Errorf("%s, N=%d: %w", pt.Curve.Name, pt.N, err)
					}
				}
				if prog != nil {
					prog.Done(pt, row, time.Since(t0), err)
				}
				if err != nil {
					fail(err)
					return
				}
				mu.Lock()
				rows[k] = row
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		// The points that finished, for a partial CSV.
		var done []Row
		for _, r := range rows {
			if r.Sweep != "" {
				done = append(done, r)
			}
		}
		return done, firstErr
	}
	return rows, nil
}

// row is pt's row before it runs: skipped, with the curve's note, if it
// is above the curve's limit.
func (p *Plan) row(pt Point) Row {
	r := Row{Point: pt.Index, Points: len(p.Points), Sweep: p.ID, Scenario: p.Scenario.Name,
		Profile: pt.Curve.Profile, Prices: pt.Curve.Prices, Curve: pt.Curve.Name, N: pt.N, Seed: pt.Seed}
	if pt.Skip() {
		r.Status, r.Note = StatusSkipped, pt.Curve.SkipNote
	}
	return r
}
