package sweep

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/rtnlsim/rtnlsim/internal/outpath"
)

// PlotFormats are the chart formats, by file extension.
var PlotFormats = []string{".svg", ".png", ".pdf"}

// CheckPlotPath is CheckChartPath for --plot.
func CheckPlotPath(path string) error { return CheckChartPath("--plot", path) }

// CheckChartPath refuses a chart file, given as flag, whose extension
// gonum/plot cannot write or whose directory is not there, before the work
// that draws it runs.
func CheckChartPath(flag, path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	for _, f := range PlotFormats {
		if ext == f {
			return outpath.Check(flag, path)
		}
	}
	return fmt.Errorf("%s %q: unknown chart format %q (use %s)", flag, path, ext, strings.Join(PlotFormats, ", "))
}

// Plot draws rows (one sweep, as WriteCSV writes or Merge returns) as a
// chart: virtual time against N, one line per curve in the order the
// curves first appear, log-log when every value is positive. A curve with
// skipped points says in the legend where it stops. The title names the
// scenario, the profiles and their prices.
func Plot(rows []Row, path string) error {
	if err := CheckPlotPath(path); err != nil {
		return err
	}
	p, err := NewChart(rows)
	if err != nil {
		return err
	}
	return p.Save(22*vg.Centimeter, 15*vg.Centimeter, path)
}

// NewChart builds the chart Plot saves.
func NewChart(rows []Row) (*plot.Plot, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("plot: no rows")
	}
	type curve struct {
		name    string
		xy      plotter.XYs
		skipped []int
	}
	var curves []*curve
	byName := map[string]*curve{}
	profiles := map[string]string{}
	var profOrder []string
	logOK := true
	for _, r := range rows {
		c := byName[r.Curve]
		if c == nil {
			c = &curve{name: r.Curve}
			byName[r.Curve] = c
			curves = append(curves, c)
		}
		if _, ok := profiles[r.Profile]; !ok {
			profOrder = append(profOrder, r.Profile)
		}
		profiles[r.Profile] = r.Prices
		if r.Status != StatusOK {
			c.skipped = append(c.skipped, r.N)
			continue
		}
		y := float64(r.VirtualNs) / 1e9
		if y <= 0 || r.N <= 0 {
			logOK = false
		}
		c.xy = append(c.xy, plotter.XY{X: float64(r.N), Y: y})
	}
	sc, err := LookupScenario(rows[0].Scenario)
	title, unit := rows[0].Scenario, "N"
	if err == nil {
		title, unit = sc.Title, sc.Unit
	}
	p := plot.New()
	lines := []string{title}
	for _, pr := range profOrder {
		lines = append(lines, wrap("profile "+pr+"; prices: "+profiles[pr], 110)...)
	}
	p.Title.Text = strings.Join(lines, "\n")
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Label.Text = "N (" + unit + ")"
	p.Y.Label.Text = "virtual time (s)"
	if logOK {
		p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p.X.Tick.Marker = logTicks{x: true}
		p.Y.Tick.Marker = logTicks{}
	}
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	for i, c := range curves {
		if len(c.xy) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(c.xy)
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", c.name, err)
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i)
		l.Width = vg.Points(1.2)
		pts.Color = plotutil.Color(i)
		pts.Shape = plotutil.Shape(i)
		p.Add(l, pts)
		name := c.name
		if len(c.skipped) > 0 {
			name += fmt.Sprintf(" (not run above N=%s)", groupDigits(int(c.xy[len(c.xy)-1].X)))
		}
		p.Legend.Add(name, l, pts)
	}
	return p, nil
}

// logTicks are gonum's log ticks with readable labels: N as 1,000, time
// in plain decimals.
type logTicks struct{ x bool }

func (t logTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label == "" {
			continue
		}
		v := ticks[i].Value
		if t.x && v >= 1 {
			ticks[i].Label = groupDigits(int(math.Round(v)))
		} else {
			ticks[i].Label = strconv.FormatFloat(v, 'f', -1, 64)
		}
	}
	return ticks
}

// groupDigits writes n with thousands separators.
func groupDigits(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// wrap splits s into lines of at most width characters at spaces.
func wrap(s string, width int) []string {
	var out []string
	for len(s) > width {
		k := strings.LastIndex(s[:width], " ")
		if k <= 0 {
			break
		}
		out = append(out, s[:k])
		s = "    " + s[k+1:]
	}
	return append(out, s)
}
