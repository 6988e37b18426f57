package main

// `rtnlsim run --show cost --plot FILE`: the user threads over virtual
// time, one lane per thread, drawn from the cost engine's timeline
// (cost.SimulateTimeline) with gonum/plot.

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rtnlsim/rtnlsim/cost"
	"github.com/rtnlsim/rtnlsim/internal/sweep"
	"github.com/rtnlsim/rtnlsim/rtnl"
	"github.com/rtnlsim/rtnlsim/sim"
)

const plotHelp = `--plot FILE.svg (or .png, .pdf; with --show cost, the sim target only) draws
the user threads over virtual time, one lane per thread: for each request
the time it waited for rtnl_lock, the time it held it (its expedited
synchronize_net apart), its normal grace periods, and each rcu_barrier call
from call to return, a barrier it shared (started by another thread) apart
from one it ran. The same run gives the same file.`

// addPlotFlag adds --plot to run and its help.
func addPlotFlag(cmd *cobra.Command, f *runFlags) {
	cmd.Flags().StringVar(&f.plot, "plot", "", "sim, with --show cost: draw the threads' lock waits, lock holds, grace periods and rcu_barrier calls over virtual time to FILE (.svg, .png or .pdf)")
	cmd.Long += "\n\n" + plotHelp
	cmd.Example += "\n  rtnlsim run --show cost --threads 4 --plot lanes.svg my.script"
}

// checkPlot refuses --plot where there is no cost timeline to draw, before
// the script runs.
func checkPlot(f *runFlags, show rtnl.Show) error {
	if f.plot == "" {
		return nil
	}
	if f.target != "sim" {
		return fmt.Errorf("--plot: the %s target has no virtual time to draw (its requests are not priced); use --target sim", f.target)
	}
	if !show.Cost {
		return fmt.Errorf("--plot draws the virtual cost of the run: add cost to --show (e.g. --show cost)")
	}
	return sweep.CheckPlotPath(f.plot)
}

// laneStyle is how a span is drawn: its fill, its half height in lanes
// (a lane is 1), and an outline or none.
type laneStyle struct {
	name    string
	fill    color.RGBA
	half    float64
	outline bool
}

var (
	styleWait      = laneStyle{"waiting for rtnl_lock", rgb(0xbdbdbd), 0.1, false}
	styleHeld      = laneStyle{"holding rtnl_lock: work", rgb(0xd62728), 0.36, false}
	styleExpedited = laneStyle{"holding rtnl_lock: synchronize_net, expedited", rgb(0xff7f0e), 0.36, false}
	styleSyncNet   = laneStyle{"synchronize_net (normal grace period)", rgb(0x9467bd), 0.36, false}
	styleBarWait   = laneStyle{"rcu_barrier: waiting for the running barrier to end, to run its own", rgb(0x1f77b4), 0.1, false}
	styleOwn       = laneStyle{"rcu_barrier: its own barrier running", rgb(0x1f77b4), 0.36, false}
	styleShared    = laneStyle{"rcu_barrier: shared a barrier another thread started", rgb(0xaec7e8), 0.36, true}
	styleAfter     = laneStyle{"after rtnl_unlock: work", rgb(0x2ca02c), 0.2, false}
	laneStyles     = []laneStyle{styleWait, styleHeld, styleExpedited, styleSyncNet, styleAfter, styleBarWait, styleOwn, styleShared}
	outlineColor   = rgb(0x1f4e79)
)

func rgb(v uint32) color.RGBA {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

func spanStyle(s cost.Span) laneStyle {
	switch s.Kind {
	case cost.SpanLockWait:
		return styleWait
	case cost.SpanSynchronizeNetExpedited:
		return styleExpedited
	case cost.SpanSynchronizeNet:
		return styleSyncNet
	case cost.SpanRCUBarrier:
		if s.Shared {
			return styleShared
		}
		return styleOwn
	}
	if s.Locked {
		return styleHeld
	}
	return styleAfter
}

// rect is the polygon of [x0,x1] x [y0,y1].
func rect(x0, x1, y0, y1 vg.Length) []vg.Point {
	return []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
}

func (st laneStyle) draw(c *draw.Canvas, x0, x1, y0, y1 vg.Length) {
	pts := rect(x0, x1, y0, y1)
	c.FillPolygon(st.fill, pts)
	if st.outline {
		c.StrokeLines(draw.LineStyle{Color: outlineColor, Width: vg.Points(0.5)}, append(pts, pts[0]))
	}
}

// Thumbnail draws the style's legend sample.
func (st laneStyle) Thumbnail(c *draw.Canvas) {
	mid, h := (c.Min.Y+c.Max.Y)/2, (c.Max.Y-c.Min.Y)*vg.Length(st.half/0.36)/2
	st.draw(c, c.Min.X, c.Max.X, mid-h, mid+h)
}

// lanes is the plot.Plotter of the threads' spans: thread i's lane is
// centred on y = -i, so thread 0 is on top.
type lanes struct {
	spans [][]cost.Span
	div   float64 // ns per axis unit
}

func (l lanes) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for th, spans := range l.spans {
		y := -float64(th)
		for _, s := range spans {
			st, from := spanStyle(s), s.Start
			if st == styleOwn && s.BarrierStart > s.Start {
				from = s.BarrierStart
				styleBarWait.draw(&c, l.x(trX, s.Start), l.x(trX, from), trY(y-styleBarWait.half), trY(y+styleBarWait.half))
			}
			st.draw(&c, l.x(trX, from), l.x(trX, s.End), trY(y-st.half), trY(y+st.half))
		}
	}
}

func (l lanes) x(tr func(float64) vg.Length, ns int64) vg.Length { return tr(float64(ns) / l.div) }

// laneTicks labels each lane with its thread.
type laneTicks struct{ threads int }

func (t laneTicks) Ticks(_, _ float64) []plot.Tick {
	out := make([]plot.Tick, t.threads)
	for i := range out {
		out[i] = plot.Tick{Value: -float64(i), Label: "thread " + strconv.Itoa(i)}
	}
	return out
}

// lanesTitle names the script, the profile and the totals.
func lanesTitle(script, profile string, threads int, res cost.Result, prices string) string {
	name := script
	if script == "-" {
		name = "<stdin>"
	}
	return strings.Join([]string{
		fmt.Sprintf("rtnlsim run %s: %d request(s) on %d user thread(s), profile %s", name, len(res.Requests), threads, profile),
		fmt.Sprintf("virtual time %s, rtnl_lock held %s; rcu_barrier calls %d, barriers run %d",
			dur(res.VirtualNs), dur(res.LockHeldNs), res.Counters.RCUBarrier, res.Counters.RCUBarrierExecuted),
		"virtual: the model's prices times its counts, not measured " + prices,
	}, "\n")
}

// writeLanes draws the timeline tl of res (one lane per thread) to path,
// in the format its extension names.
func writeLanes(path, title string, res cost.Result, tl [][]cost.Span) error {
	if err := sweep.CheckPlotPath(path); err != nil {
		return err
	}
	div, unit := 1e6, "ms"
	if res.VirtualNs >= 10e9 {
		div, unit = 1e9, "s"
	}
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Label.Text = "virtual time (" + unit + ")"
	p.X.Min, p.X.Max = 0, max(float64(res.VirtualNs)/div, 1e-3)
	n := max(len(tl), 1)
	p.Y.Min, p.Y.Max = -float64(n)+0.5, 0.5
	p.Y.Tick.Marker = laneTicks{threads: len(tl)}
	p.Y.Tick.Length = 0
	p.Add(lanes{spans: tl, div: div})

	w := 26 * vg.Centimeter
	laneH := 1.1 * vg.Centimeter
	legendH := 4*vg.Points(14) + vg.Points(12)
	h := vg.Points(110) + vg.Length(n)*laneH + legendH
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	cw, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return err
	}
	dc := draw.New(cw)
	p.Draw(draw.Crop(dc, 0, 0, legendH, 0))
	// The legend goes under the lanes, in two columns, so that it hides
	// none of them.
	area := draw.Crop(dc, vg.Points(40), 0, 0, -(h - legendH))
	half := (w - vg.Points(40)) / 2
	cols := []draw.Canvas{draw.Crop(area, 0, -half, 0, 0), draw.Crop(area, half, 0, 0, 0)}
	for i, c := range cols {
		lg := plot.NewLegend()
		lg.Top, lg.Left = true, true
		lg.TextStyle.Font.Size = vg.Points(9)
		lg.ThumbnailWidth = vg.Points(24)
		lg.Padding = vg.Points(3)
		for _, st := range laneStyles[i*4 : min(len(laneStyles), i*4+4)] {
			lg.Add(st.name, st)
		}
		lg.Draw(c)
	}
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := cw.WriteTo(fh); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

// plotRun draws the run's timeline, split over f.threads as --show cost
// prices it (res).
func plotRun(st *sim.Target, f runFlags, script string, res cost.Result, prices string) error {
	p, err := st.Prices()
	if err != nil {
		return err
	}
	got, tl, err := cost.SimulateTimeline(p, cost.SplitInOrder(st.Work(), f.threads))
	if err != nil {
		return err
	}
	if got.VirtualNs != res.VirtualNs {
		return fmt.Errorf("--plot: the timeline's run (%d ns) is not the priced one (%d ns)", got.VirtualNs, res.VirtualNs)
	}
	return writeLanes(f.plot, lanesTitle(script, f.profile, f.threads, got, prices), got, tl)
}
