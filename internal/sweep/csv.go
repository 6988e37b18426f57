package sweep

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/rtnlsim/rtnlsim/cost"
)

// Row statuses.
const (
	StatusOK      = "ok"
	StatusSkipped = "skipped"
)

// Row is one point's line of a sweep CSV.
type Row struct {
	Point    int    // index of the point in the whole sweep
	Points   int    // points in the whole sweep
	Sweep    string // Plan.ID
	Scenario string
	Profile  string
	Prices   string
	Curve    string
	N        int
	Seed     int64
	Status   string
	// VirtualNs is the model's time for the point; LockHeldNs the time
	// rtnl_lock was held.
	VirtualNs, LockHeldNs int64
	Counters              cost.Counters
	Note                  string
}

// fixedColumns are the CSV's first columns; the step counters of the
// scenario follow (Scenario.Counters), then "note".
var fixedColumns = []string{"point", "points", "sweep", "scenario", "profile", "prices", "curve", "n", "seed", "status", "virtual_s", "lock_held_s"}

// RCUBarrierExecuted is the counter column of barriers that ran (the
// rcu_barrier column counts calls).
const RCUBarrierExecuted = "rcu_barrier_executed"

// counterOf returns the counter named col of c: a step's name (its
// calls) or RCUBarrierExecuted. The CSV's header is checked against
// Scenario.Counters before a row is read or written, so col is known.
func counterOf(c cost.Counters, col string) int64 {
	if col == RCUBarrierExecuted {
		return c.RCUBarrierExecuted
	}
	return c.Get(stepNamed(col))
}

// setCounter sets the counter named col of c (as counterOf names it).
func setCounter(c *cost.Counters, col string, v int64) {
	if col == RCUBarrierExecuted {
		c.RCUBarrierExecuted = v
		return
	}
	s := stepNamed(col)
	c.Add(s, v-c.Get(s))
}

// stepNamed is the cost step whose name is col.
func stepNamed(col string) cost.Step {
	for _, s := range cost.Steps() {
		if s.String() == col {
			return s
		}
	}
	panic("sweep: no cost step " + strconv.Quote(col) + " (a Scenario.Counters entry that is not a step)")
}

// Header is the CSV header of a scenario's sweep.
func Header(sc Scenario) []string {
	h := append([]string(nil), fixedColumns...)
	h = append(h, sc.Counters...)
	return append(h, "note")
}

// seconds writes ns as seconds, exactly (9 decimals).
func seconds(ns int64) string {
	sign := ""
	if ns < 0 {
		sign, ns = "-", -ns
	}
	return fmt.Sprintf("%s%d.%09d", sign, ns/1e9, ns%1e9)
}

// parseSeconds reads what seconds wrote.
func parseSeconds(s string) (int64, error) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	a, b, ok := strings.Cut(s, ".")
	if !ok || len(b) != 9 {
		return 0, fmt.Errorf("%q is not seconds with 9 decimals", s)
	}
	i, err1 := strconv.ParseInt(a, 10, 64)
	f, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("%q is not seconds", s)
	}
	ns := i*1e9 + f
	if neg {
		ns = -ns
	}
	return ns, nil
}

// Record is the row as CSV fields under header (Header's).
func (r Row) Record(header []string) []string {
	rec := []string{strconv.Itoa(r.Point), strconv.Itoa(r.Points), r.Sweep, r.Scenario, r.Profile, r.Prices,
		r.Curve, strconv.Itoa(r.N), strconv.FormatInt(r.Seed, 10), r.Status}
	counters := header[len(fixedColumns) : len(header)-1]
	if r.Status == StatusOK {
		rec = append(rec, seconds(r.VirtualNs), seconds(r.LockHeldNs))
		for _, col := range counters {
			rec = append(rec, strconv.FormatInt(counterOf(r.Counters, col), 10))
		}
	} else {
		for range 2 + len(counters) {
			rec = append(rec, "")
		}
	}
	return append(rec, r.Note)
}

// parseRow reads a record written by Record under header.
func parseRow(header, rec []string) (Row, error) {
	if len(rec) != len(header) {
		return Row{}, fmt.Errorf("%d fields, the header has %d", len(rec), len(header))
	}
	var r Row
	var err error
	atoi := func(col int) int {
		v, e := strconv.Atoi(rec[col])
		if e != nil && err == nil {
			err = fmt.Errorf("column %s: %q is not an integer", header[col], rec[col])
		}
		return v
	}
	r.Point, r.Points = atoi(0), atoi(1)
	r.Sweep, r.Scenario, r.Profile, r.Prices, r.Curve = rec[2], rec[3], rec[4], rec[5], rec[6]
	r.N = atoi(7)
	r.Status = rec[9]
	r.Note = rec[len(rec)-1]
	if err != nil {
		return r, err
	}
	if r.Seed, err = strconv.ParseInt(rec[8], 10, 64); err != nil {
		return r, fmt.Errorf("column seed: %q is not an integer", rec[8])
	}
	switch r.Status {
	case StatusSkipped:
		return r, nil
	case StatusOK:
	default:
		return r, fmt.Errorf("column status: %q is neither %s nor %s", r.Status, StatusOK, StatusSkipped)
	}
	if r.VirtualNs, err = parseSeconds(rec[10]); err != nil {
		return r, fmt.Errorf("column virtual_s: %w", err)
	}
	if r.LockHeldNs, err = parseSeconds(rec[11]); err != nil {
		return r, fmt.Errorf("column lock_held_s: %w", err)
	}
	for col := len(fixedColumns); col < len(header)-1; col++ {
		v, e := strconv.ParseInt(rec[col], 10, 64)
		if e != nil {
			return r, fmt.Errorf("column %s: %q is not an integer", header[col], rec[col])
		}
		setCounter(&r.Counters, header[col], v)
	}
	return r, nil
}

// WriteCSV writes the scenario's header and the rows.
func WriteCSV(w io.Writer, sc Scenario, rows []Row) error {
	cw := csv.NewWriter(w)
	h := Header(sc)
	if err := cw.Write(h); err != nil {
		return err
	}
	for _, r := range rows {
		if r.Scenario != sc.Name {
			return fmt.Errorf("write CSV: a %s row in a %s sweep", r.Scenario, sc.Name)
		}
		if err := cw.Write(r.Record(h)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// CSV is a sweep CSV read back.
type CSV struct {
	Name     string // for messages
	Scenario Scenario
	Header   []string
	Rows     []Row
}

// ReadCSV reads a sweep CSV: its header must be the one its scenario's
// sweep writes, and every row must parse. name is for messages.
func ReadCSV(rd io.Reader, name string) (CSV, error) {
	cr := csv.NewReader(rd)
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		return CSV{}, fmt.Errorf("%s: %w", name, err)
	}
	if len(recs) == 0 {
		return CSV{}, fmt.Errorf("%s: empty (no header): not a sweep CSV", name)
	}
	out := CSV{Name: name, Header: recs[0]}
	if err := checkFixed(recs[0], name); err != nil {
		return CSV{}, err
	}
	if len(recs) < 2 {
		// A shard can be empty (more shards than points): its CSV is
		// the header alone, which Merge accepts.
		return out, nil
	}
	if len(recs[1]) <= 3 {
		return CSV{}, fmt.Errorf("%s: line 2 has %d fields, the header %d", name, len(recs[1]), len(recs[0]))
	}
	if out.Scenario, err = LookupScenario(recs[1][3]); err != nil {
		return CSV{}, fmt.Errorf("%s: line 2: %w", name, err)
	}
	if err := checkHeader(recs[0], Header(out.Scenario), name); err != nil {
		return CSV{}, err
	}
	out.Rows = make([]Row, 0, len(recs)-1)
	for i, rec := range recs[1:] {
		r, err := parseRow(out.Header, rec)
		if err != nil {
			return CSV{}, fmt.Errorf("%s: line %d: %w", name, i+2, err)
		}
		if r.Scenario != out.Scenario.Name {
			return CSV{}, fmt.Errorf("%s: line %d: scenario %s in a %s CSV", name, i+2, r.Scenario, out.Scenario.Name)
		}
		out.Rows = append(out.Rows, r)
	}
	return out, nil
}

// ReadCSVFile is ReadCSV of a file.
func ReadCSVFile(path string) (CSV, error) {
	f, err := os.Open(path)
	if err != nil {
		return CSV{}, err
	}
	defer f.Close()
	return ReadCSV(f, path)
}

// checkFixed checks the header's leading columns.
func checkFixed(got []string, name string) error {
	for i, w := range fixedColumns {
		if i >= len(got) || got[i] != w {
			g := "nothing"
			if i < len(got) {
				g = strconv.Quote(got[i])
			}
			return fmt.Errorf("%s: header column %d is %s, want %q: not a sweep CSV", name, i+1, g, w)
		}
	}
	return nil
}

// checkHeader compares a header with the scenario's, naming the first
// column that differs.
func checkHeader(got, want []string, name string) error {
	for i := 0; i < max(len(got), len(want)); i++ {
		switch {
		case i >= len(got):
			return fmt.Errorf("%s: header ends after %d columns; column %d should be %q (made by another version of rtnlsim?)", name, len(got), i+1, want[i])
		case i >= len(want):
			return fmt.Errorf("%s: header has an extra column %d %q (made by another version of rtnlsim?)", name, i+1, got[i])
		case got[i] != want[i]:
			return fmt.Errorf("%s: header column %d is %q, want %q (made by another version of rtnlsim?)", name, i+1, got[i], want[i])
		}
	}
	return nil
}

// Merge joins the CSVs of a sweep's shards into the whole sweep, rows in
// point order. It refuses CSVs of different scenarios or sweeps, a point
// given twice, and, unless partial, missing points.
func Merge(ins []CSV, partial bool) (CSV, error) {
	if len(ins) == 0 {
		return CSV{}, errors.New("merge: no CSV files")
	}
	// The first CSV with rows is the one the others must agree with
	// (shards with the header alone can be empty).
	var ref *CSV
	for i := range ins {
		if len(ins[i].Rows) > 0 {
			ref = &ins[i]
			break
		}
	}
	if ref == nil {
		names := make([]string, len(ins))
		for i, in := range ins {
			names[i] = in.Name
		}
		return CSV{}, fmt.Errorf("merge: %s: no rows, only headers (every shard empty?)", strings.Join(names, ", "))
	}
	first := ref.Rows[0]
	byPoint := map[int]string{}
	var out []Row
	for _, in := range ins {
		if len(in.Rows) > 0 && in.Scenario.Name != ref.Scenario.Name {
			return CSV{}, fmt.Errorf("merge: %s is a sweep of %s, %s of %s: not shards of one sweep", in.Name, in.Scenario.Name, ref.Name, ref.Scenario.Name)
		}
		if err := checkHeader(in.Header, ref.Header, in.Name); err != nil {
			return CSV{}, fmt.Errorf("merge: %w (%s has another header)", err, ref.Name)
		}
		for _, r := range in.Rows {
			switch {
			case r.Sweep != first.Sweep:
				return CSV{}, fmt.Errorf("merge: %s is from sweep %s, %s from sweep %s: the shards were run with different sizes, profiles, limits or --seed", in.Name, r.Sweep, ref.Name, first.Sweep)
			case r.Points != first.Points:
				return CSV{}, fmt.Errorf("merge: %s says the sweep has %d points, %s says %d", in.Name, r.Points, ref.Name, first.Points)
			case r.Point < 0 || r.Point >= r.Points:
				return CSV{}, fmt.Errorf("merge: %s: point %d is outside 0..%d", in.Name, r.Point, r.Points-1)
			}
			if prev, ok := byPoint[r.Point]; ok {
				return CSV{}, fmt.Errorf("merge: point %d (%s, N=%d) is in %s and in %s: a shard given twice, or overlapping shards", r.Point, r.Curve, r.N, prev, in.Name)
			}
			byPoint[r.Point] = in.Name
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Point < out[j].Point })
	if !partial && len(out) != first.Points {
		var missing []string
		for i := 0; i < first.Points && len(missing) < 10; i++ {
			if _, ok := byPoint[i]; !ok {
				missing = append(missing, strconv.Itoa(i))
			}
		}
		return CSV{}, fmt.Errorf("merge: %d of the sweep's %d points are missing (first: %s): a shard is missing or failed (--partial merges anyway)",
			first.Points-len(out), first.Points, strings.Join(missing, ", "))
	}
	return CSV{Name: "merged", Scenario: ref.Scenario, Header: ref.Header, Rows: out}, nil
}
