package seed001

import (
	"fmt"
	"image/color"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PlotLayouts draws the search: the promoting flush's time at the factor
// fitted to "after", against the addresses per subnet (log-log), with the
// published "before" time and its tolerance band; fitting layouts are
// filled. The format is path's extension (.svg, .png, .pdf).
func PlotLayouts(fits []LayoutFit, pubBefore, tolPct float64, path string) error {
	if len(fits) == 0 {
		return fmt.Errorf("plot layouts: no layouts")
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("seed 001: flush of %d addresses as K subnets of S+1, with promotion,\n"+
		"at this machine's flush prices times the factor that puts the +ifa-flush flush on its published time", fits[0].Layout.N())
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Label.Text = "addresses per subnet (S+1)"
	p.Y.Label.Text = "promoting flush (s)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	var all, fit plotter.XYs
	for _, f := range fits {
		xy := plotter.XY{X: float64(f.Layout.M), Y: f.Before}
		all = append(all, xy)
		if f.Fits {
			fit = append(fit, xy)
		}
	}
	l, pts, err := plotter.NewLinePoints(all)
	if err != nil {
		return err
	}
	l.Width = vg.Points(1.2)
	p.Add(l, pts)
	p.Legend.Add("model, one layout a point", l, pts)
	lo, hi := float64(fits[0].Layout.M), float64(fits[len(fits)-1].Layout.M)
	for i, y := range []float64{pubBefore, pubBefore * (1 - tolPct/100), pubBefore * (1 + tolPct/100)} {
		h, err := plotter.NewLine(plotter.XYs{{X: lo, Y: y}, {X: hi, Y: y}})
		if err != nil {
			return err
		}
		h.Color = color.RGBA{R: 200, A: 255}
		if i > 0 {
			h.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		} else {
			p.Legend.Add("published "+strconv.FormatFloat(pubBefore, 'f', -1, 64)+" s", h)
		}
		if i == 1 {
			p.Legend.Add(fmt.Sprintf("within %g%%", tolPct), h)
		}
		p.Add(h)
	}
	if len(fit) > 0 {
		s, err := plotter.NewScatter(fit)
		if err != nil {
			return err
		}
		s.Shape = draw.CircleGlyph{}
		s.Radius = vg.Points(4)
		s.Color = color.RGBA{R: 200, A: 255}
		p.Add(s)
		p.Legend.Add("fits", s)
	}
	p.Legend.Top, p.Legend.Left = true, true
	return p.Save(22*vg.Centimeter, 15*vg.Centimeter, path)
}
