package sweep

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/internal/repro/seed000"
	"github.com/rtnlsim/rtnlsim/internal/repro/seed001"
	"github.com/rtnlsim/rtnlsim/sim"
)

func TestParseNs(t *testing.T) {
	for _, c := range []struct {
		spec   string
		points int
		want   []int
	}{
		{"100..100000", 0, []int{100, 180, 320, 560, 1000, 1800, 3200, 5600, 10000, 18000, 32000, 56000, 100000}},
		{"100..10k", 3, []int{100, 1000, 10000}},
		{"10..20", 0, []int{10, 20}},
		{"10..20", 5, []int{10, 12, 14, 17, 20}},
		{"1e2..1e3", 2, []int{100, 1000}},
		{"1000,100, 10000", 0, []int{100, 1000, 10000}},
		{"42", 0, []int{42}},
		{"1M", 0, []int{1000000}},
	} {
		got, err := ParseNs(c.spec, c.points)
		require.NoError(t, err, c.spec)
		require.Equal(t, c.want, got, c.spec)
	}
	for _, c := range []struct {
		spec   string
		points int
		msg    []string
	}{
		{"", 0, []string{"empty"}},
		{"100..abc", 0, []string{`"abc"`, "upper end", "not a number"}},
		{"x..100", 0, []string{`"x"`, "lower end"}},
		{"1000..100", 0, []string{"upper end 100", "lower end 1000"}},
		{"100,-5", 0, []string{`"-5"`, "at least 1"}},
		{"100,1.5", 0, []string{`"1.5"`, "whole number"}},
		{"100,100", 0, []string{"100 given twice"}},
		{"100,1000", 3, []string{"--points 3", "applies to a range"}},
		{"100..1000", 1, []string{"at least 2 points"}},
		{"100..1e9", 0, []string{`"1e9"`, "largest size"}},
		{"100..", 0, []string{"upper end", "empty size"}},
	} {
		_, err := ParseNs(c.spec, c.points)
		require.Error(t, err, c.spec)
		for _, m := range c.msg {
			require.ErrorContains(t, err, m, c.spec)
		}
	}
}

func TestParseShard(t *testing.T) {
	s, err := ParseShard("3/8")
	require.NoError(t, err)
	require.Equal(t, Shard{3, 8}, s)
	for _, bad := range []string{"8/8", "-1/8", "1/0", "a/b", "3", ""} {
		_, err := ParseShard(bad)
		require.Error(t, err, bad)
		require.ErrorContains(t, err, `"`+bad+`"`)
	}
}

func runPlan(t *testing.T, cfg Config, s Shard) (*Plan, []Row, []byte) {
	t.Helper()
	p, err := NewPlan(cfg)
	require.NoError(t, err)
	rows, err := p.Run(context.Background(), s, 2, nil)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, WriteCSV(&b, p.Scenario, rows))
	return p, rows, b.Bytes()
}

// The CSV has the header, one row per (curve, N) in curve then N order,
// and reads back to the same rows.
func TestCSVShape(t *testing.T) {
	cfg := Config{Scenario: "seed000", Ns: []int{100, 1000, 3000}, Options: Options{Threads: []int{1, 10}}, Seed: 7}
	p, rows, out := runPlan(t, cfg, Shard{})
	recs, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, Header(p.Scenario), recs[0])
	require.Equal(t, []string{"point", "points", "sweep", "scenario", "profile", "prices", "curve", "n", "seed", "status", "virtual_s", "lock_held_s"}, recs[0][:12])
	require.Equal(t, "note", recs[0][len(recs[0])-1])
	names := []string{"one by one, 1 thread", "one by one, 10 threads", "group", "list (+bulk-ifindex)"}
	require.Len(t, recs, 1+len(names)*3)
	for i, rec := range recs[1:] {
		require.Equal(t, names[i/3], rec[6])
		require.Equal(t, []string{"100", "1000", "3000"}[i%3], rec[7])
		require.Equal(t, StatusOK, rec[9])
		require.Contains(t, rec[5], "seed 000 fit")
	}
	back, err := ReadCSV(bytes.NewReader(out), "x.csv")
	require.NoError(t, err)
	require.Equal(t, rows, back.Rows)
	// One by one grows linearly and costs more than the group request.
	at := func(curve string, n int) Row {
		for _, r := range rows {
			if r.Curve == curve && r.N == n {
				return r
			}
		}
		t.Fatalf("no row %s N=%d", curve, n)
		return Row{}
	}
	one, group := at("one by one, 1 thread", 1000), at("group", 1000)
	require.Greater(t, one.VirtualNs, 5*group.VirtualNs)
	require.EqualValues(t, 1000, one.Counters.RCUBarrier)
	require.EqualValues(t, 1, group.Counters.RCUBarrier)
	require.Equal(t, group.VirtualNs, at("list (+bulk-ifindex)", 1000).VirtualNs)
}

// The seed000 curves pass through the seed 000 table's rows at N = 10,000
// (they are built and priced the same way).
func TestSeed000CurvesMatchTable(t *testing.T) {
	_, rows, _ := runPlan(t, Config{Scenario: "seed000", Ns: []int{10000}, Options: Options{Threads: []int{1, 10, 50}}}, Shard{})
	p, err := seed000.Fit(seed000.DefaultFit)
	require.NoError(t, err)
	table, err := seed000.Rows(p, seed000.DefaultFit)
	require.NoError(t, err)
	require.Len(t, rows, 5)
	for i, r := range rows {
		require.Equal(t, table[i].PredictedNs, r.VirtualNs, "%s vs %s", r.Curve, table[i].Scenario)
	}
}

// The seed001 curves are seed001.Predict of ip's flush at seed001.FlushPrices, and
// promote=1 is skipped above its limit, with a note.
func TestSeed001Curves(t *testing.T) {
	_, rows, _ := runPlan(t, Config{Scenario: "seed001", Ns: []int{50, 300}, Options: Options{Promote1MaxN: 100}}, Shard{})
	require.Len(t, rows, 6)
	for _, r := range rows {
		c := seed001.Case{N: r.N, Up: true, Promote: r.Curve == "promote=1", IfaFlush: r.Curve == "+ifa-flush", IPFlush: true}
		if c.Promote && r.N > 100 {
			require.Equal(t, StatusSkipped, r.Status)
			require.Contains(t, r.Note, "N=100")
			continue
		}
		require.Equal(t, StatusOK, r.Status, r.Curve)
		want, _, err := seed001.Predict(Seed001MachinePrices, c, nil)
		require.NoError(t, err)
		require.Equal(t, want, r.VirtualNs, "%s N=%d", r.Curve, r.N)
	}
}

// Three shards merged are byte for byte the unsharded CSV, also with an
// empty shard among them; a point's seed does not depend on the other
// points of the sweep; the shards share the large sizes.
func TestShardMergeEqualsWhole(t *testing.T) {
	for _, c := range []struct {
		cfg    Config
		shards int
	}{
		{Config{Scenario: "seed000", Ns: []int{100, 180, 320, 560, 1000, 2000}, Options: Options{Threads: []int{1, 10, 50}}, Seed: 3}, 3},
		{Config{Scenario: "seed001", Ns: []int{20, 40, 80, 160}, Options: Options{Promote1MaxN: 80}, Seed: 3}, 3},
		// 3 points, 4 shards: one is empty (a CSV with the header alone).
		{Config{Scenario: "seed001", Ns: []int{20}, Seed: 3}, 4},
	} {
		_, _, whole := runPlan(t, c.cfg, Shard{})
		var ins []CSV
		empty := 0
		for i := range c.shards {
			_, rows, out := runPlan(t, c.cfg, Shard{I: i, N: c.shards})
			if len(rows) == 0 {
				empty++
			}
			in, err := ReadCSV(bytes.NewReader(out), "shard")
			require.NoError(t, err)
			ins = append(ins, in)
		}
		require.Equal(t, max(0, c.shards-len(c.cfg.Ns)*3), empty, c.cfg.Scenario)
		m, err := Merge(ins, false)
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, WriteCSV(&b, m.Scenario, m.Rows))
		require.Equal(t, string(whole), b.String(), c.cfg.Scenario)
	}
	// The same point in a sweep with other sizes: the same seed.
	a, err := NewPlan(Config{Scenario: "seed000", Ns: []int{100, 1000}, Seed: 9})
	require.NoError(t, err)
	b, err := NewPlan(Config{Scenario: "seed000", Ns: []int{10, 1000, 5000}, Seed: 9})
	require.NoError(t, err)
	pa, pb := a.Points[1], b.Points[1]
	require.Equal(t, pa.Curve.Name, pb.Curve.Name)
	require.Equal(t, 1000, pb.N)
	require.Equal(t, pa.Seed, pb.Seed)
	require.NotEqual(t, a.ID, b.ID)
	c, err := NewPlan(Config{Scenario: "seed000", Ns: []int{100, 1000}, Seed: 10})
	require.NoError(t, err)
	require.NotEqual(t, pa.Seed, c.Points[1].Seed)

	// Dealing: 8 shards of seed001 at 13 sizes each get one of the 8
	// largest runnable points, and 4 or 5 points in all.
	ns, err := ParseNs("100..100000", 0)
	require.NoError(t, err)
	p, err := NewPlan(Config{Scenario: "seed001", Ns: ns})
	require.NoError(t, err)
	of := p.ShardOf(8)
	largest := map[int]bool{}
	count := map[int]int{}
	for i, pt := range p.Points {
		count[of[i]]++
		if !pt.Skip() && pt.N >= 32000 {
			largest[of[i]] = true
		}
	}
	require.Len(t, largest, 6) // 100k, 56k, 32k of promote=0 and +ifa-flush
	for s := range 8 {
		require.Contains(t, []int{4, 5}, count[s], "shard %d", s)
	}
}

func TestMergeErrors(t *testing.T) {
	cfg := Config{Scenario: "seed000", Ns: []int{100, 200, 400, 800}, Seed: 1}
	_, rows, _ := runPlan(t, cfg, Shard{})
	sc, _ := LookupScenario("seed000")
	mk := func(name string, rows []Row) CSV {
		return CSV{Name: name, Scenario: sc, Header: Header(sc), Rows: rows}
	}
	_, err := Merge([]CSV{mk("a.csv", rows[:5]), mk("b.csv", rows[4:])}, false)
	require.ErrorContains(t, err, "point 4")
	require.ErrorContains(t, err, "a.csv and in b.csv")
	_, err = Merge([]CSV{mk("a.csv", rows[:5]), mk("b.csv", rows[6:])}, false)
	require.ErrorContains(t, err, "1 of the sweep's 12 points are missing (first: 5)")
	m, err := Merge([]CSV{mk("a.csv", rows[:5]), mk("b.csv", rows[6:])}, true)
	require.NoError(t, err)
	require.Len(t, m.Rows, 11)
	_, other, _ := runPlan(t, Config{Scenario: "seed000", Ns: []int{100, 200, 400, 800}, Seed: 2}, Shard{})
	_, err = Merge([]CSV{mk("a.csv", rows[:6]), mk("b.csv", other[6:])}, false)
	require.ErrorContains(t, err, "different sizes, profiles, limits or --seed")
	_, s1, _ := runPlan(t, Config{Scenario: "seed001", Ns: []int{10}}, Shard{})
	sc1, _ := LookupScenario("seed001")
	_, err = Merge([]CSV{mk("a.csv", rows), {Name: "c.csv", Scenario: sc1, Header: Header(sc1), Rows: s1}}, false)
	require.ErrorContains(t, err, "c.csv is a sweep of seed001, a.csv of seed000")

	// ReadCSV: a header of another shape, a bad cell.
	var b bytes.Buffer
	require.NoError(t, WriteCSV(&b, sc, rows))
	text := b.String()
	_, err = ReadCSV(strings.NewReader(strings.Replace(text, "notifier_call", "notifier_calls", 1)), "h.csv")
	require.ErrorContains(t, err, `h.csv: header column`)
	require.ErrorContains(t, err, `"notifier_calls", want "notifier_call"`)
	_, err = ReadCSV(strings.NewReader("n,curve\n1,x\n"), "o.csv")
	require.ErrorContains(t, err, `o.csv: header column 1 is "n", want "point"`)
	bad := strings.Replace(text, ",ok,", ",maybe,", 1)
	_, err = ReadCSV(strings.NewReader(bad), "s.csv")
	require.ErrorContains(t, err, `s.csv: line 2: column status: "maybe"`)
}

// Profiles: a name takes the seed-era prices and says so; a profile file
// brings its own; two profiles make two sets of curves.
func TestProfiles(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "calib.json")
	cost := cost.Params{RequestNs: 20_000, IfaWalkNs: 7, FibOpNs: 2_000, RCUBarrierNs: 1_000_000}
	require.NoError(t, sim.WriteProfileFile(file, sim.ProfileFile{Profile: "linux-6.18", Cost: cost,
		Provenance: sim.ProfileProvenance{Kernel: "6.18.0-test", Date: "2026-11-30T12:00:00Z"}}))
	_, rows, _ := runPlan(t, Config{Scenario: "seed001", Ns: []int{40}, Profiles: []string{SeedEra, "linux-6.18", file}}, Shard{})
	require.Len(t, rows, 9)
	require.Equal(t, "promote=0 [seed-era]", rows[0].Curve)
	require.Equal(t, "promote=0 [linux-6.18]", rows[3].Curve)
	require.Contains(t, rows[3].Prices, "the profile has no prices of its own")
	require.Equal(t, rows[0].VirtualNs, rows[3].VirtualNs)
	require.Equal(t, "promote=0 [linux-6.18 (calib.json)]", rows[6].Curve)
	require.Contains(t, rows[6].Prices, "profile file calib.json (calibrated on 6.18.0-test")
	require.Contains(t, rows[6].Prices, "fib_op 2 us")
	want, _, err := seed001.Predict(cost, seed001.Case{N: 40, Up: true}, nil)
	require.NoError(t, err)
	require.Equal(t, want, rows[6].VirtualNs)

	_, err = NewPlan(Config{Scenario: "seed001", Ns: []int{40}, Profiles: []string{"linux-9.9"}})
	require.ErrorContains(t, err, `unknown base "linux-9.9"`)
	_, err = NewPlan(Config{Scenario: "seed001", Ns: []int{40}, Profiles: []string{"linux-6.18", "linux-6.18"}})
	require.ErrorContains(t, err, "given twice")
	_, err = NewPlan(Config{Scenario: "seed009", Ns: []int{40}})
	require.ErrorContains(t, err, `unknown scenario "seed009" (known: seed000, seed001`)
}

func TestPlotWritten(t *testing.T) {
	_, rows, _ := runPlan(t, Config{Scenario: "seed001", Ns: []int{20, 40, 80}, Options: Options{Promote1MaxN: 40}}, Shard{})
	dir := t.TempDir()
	for _, name := range []string{"c.svg", "c.png"} {
		path := filepath.Join(dir, name)
		require.NoError(t, Plot(rows, path))
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Greater(t, len(b), 1000)
		if strings.HasSuffix(name, ".svg") {
			s := string(b)
			require.Contains(t, s, "<svg")
			require.Contains(t, s, "virtual time (s)")
			require.Contains(t, s, "N (addresses)")
			require.Contains(t, s, "promote=1 (not run above N=40)")
			require.Contains(t, s, "seed 001 flush fit")
		} else {
			require.Equal(t, "\x89PNG", string(b[:4]))
		}
	}
	require.ErrorContains(t, Plot(rows, filepath.Join(dir, "c.jpeg")), `unknown chart format ".jpeg"`)
}

// seed003 on the sim target: rc3 makes more update_suffix visits than the
// fix, and stops at its limit. A profile file's prices are used (the
// seed-era prices would run FitSeed003, which takes seconds).
func TestSeed003Curves(t *testing.T) {
	file := filepath.Join(t.TempDir(), "p.json")
	cost := cost.Params{RCUBarrierNs: 1_000_000, UnregisterDeviceNs: 100_000, TrieSuffixVisitNs: 10, FibFlushLeafNs: 50}
	require.NoError(t, sim.WriteProfileFile(file, sim.ProfileFile{Profile: "linux-6.18", Cost: cost}))
	_, rows, _ := runPlan(t, Config{Scenario: "seed003", Ns: []int{20, 40}, Profiles: []string{file}, Options: Options{Rc3MaxN: 20}}, Shard{})
	require.Len(t, rows, 4)
	rc3, rc3Big, fix := rows[0], rows[1], rows[2]
	require.Equal(t, "linux-4.2-rc3", rc3.Curve)
	require.Equal(t, StatusSkipped, rc3Big.Status)
	require.Contains(t, rc3Big.Note, "N=20")
	require.Equal(t, "linux-4.2 (the fix)", fix.Curve)
	require.Greater(t, rc3.Counters.TrieSuffixVisit, fix.Counters.TrieSuffixVisit)
	require.Equal(t, rc3.Counters.FibFlushLeaf, fix.Counters.FibFlushLeaf)
	require.EqualValues(t, 20, fix.Counters.RCUBarrier)
	require.Greater(t, rc3.VirtualNs, fix.VirtualNs)
	require.Equal(t, StatusOK, rows[3].Status)
}
