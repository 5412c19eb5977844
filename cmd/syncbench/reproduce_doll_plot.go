package main

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The DOLL report's series: the on-demand baseline, the three settings,
// the methods and the bound, each in one style across its figures.
var (
	dollODStyle      = seriesStyle{colGrey, nil, draw.BoxGlyph{}}
	dollSettingStyle = []seriesStyle{{colBlue, nil, draw.CircleGlyph{}}, {colVermilion, dashes[1], draw.TriangleGlyph{}}, {colGreen, dashes[2], draw.PyramidGlyph{}}}
)

// figures writes the PNGs into dir.
func (r *dollReport) figures(dir string) error {
	for _, het := range []bool{false, true} {
		name := "fig3"
		if het {
			name = "fig4"
		}
		p, err := r.costTimePlot(het)
		if err != nil {
			return err
		}
		if err := savePNG(p, 8*vg.Inch, 5.5*vg.Inch, filepath.Join(dir, name+".png")); err != nil {
			return err
		}
		if p, err = r.qualityPlot(het); err != nil {
			return err
		}
		if err := savePNG(p, 8*vg.Inch, 5*vg.Inch, filepath.Join(dir, name+"b.png")); err != nil {
			return err
		}
	}
	p, err := r.fig5Plot()
	if err != nil {
		return err
	}
	return savePNG(p, 8*vg.Inch, 5*vg.Inch, filepath.Join(dir, "fig5.png"))
}

// costTimePlot is Fig. 3a (or 4): each run's cost as a % of the on-demand
// mean against its wall-clock time, small markers per run and a large one
// per setting's mean, the on-demand runs in grey; for homogeneous
// arrivals the deadlines θ as dashed lines.
func (r *dollReport) costTimePlot(het bool) (*plot.Plot, error) {
	cells := r.plan.fig3(het)
	p := plot.New()
	fig, arr := "Fig. 3", "λ = 125"
	if het {
		fig, arr = "Fig. 4", fmt.Sprintf("λ_n ~ U(%d, %d)", dollLo, dollHi)
	}
	p.Title.Text = fmt.Sprintf("%s: static method, %s, %d runs per setting (large: means)", fig, arr, r.plan.s.runs)
	p.X.Label.Text = "wall-clock time of the J updates (virtual s)"
	p.Y.Label.Text = "cost (% of the on-demand mean)"
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	base := r.plan.baseline(cells[0])
	series := append([]*dollCell{base}, cells...)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for i, c := range series {
		st, name := dollODStyle, "on-demand"
		if i > 0 {
			st, name = dollSettingStyle[i-1], c.setting.String()
		}
		s := r.stats(c)
		var xys plotter.XYs
		var mx float64
		for k, run := range c.runs {
			xys = append(xys, plotter.XY{X: run.runtime.Seconds(), Y: s.pct[k]})
			mx += run.runtime.Seconds() / float64(len(c.runs))
			ymin, ymax = math.Min(ymin, s.pct[k]), math.Max(ymax, s.pct[k])
		}
		runs, err := scatter(p, xys, st.Color, st.Glyph, vg.Points(2.5))
		if err != nil {
			return nil, err
		}
		mean, err := scatter(p, plotter.XYs{{X: mx, Y: s.ratio}}, st.Color, st.Glyph, vg.Points(6))
		if err != nil {
			return nil, err
		}
		p.Legend.Add(fmt.Sprintf("%s: %.1f%%", name, s.ratio), runs, mean)
		for _, xy := range xys {
			xmin, xmax = math.Min(xmin, xy.X), math.Max(xmax, xy.X)
		}
	}
	if !het {
		for i, ratio := range []float64{1.05, 1.10} {
			x := float64(r.plan.s.theta0(20).Seconds() * ratio)
			xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
			l, err := plotter.NewLine(plotter.XYs{{X: x, Y: ymin - 5}, {X: x, Y: ymax + 25}})
			if err != nil {
				return nil, err
			}
			l.Color = color.Gray{Y: 110}
			l.Dashes = dashes[1+i]
			p.Add(l)
			p.Legend.Add(fmt.Sprintf("θ = %.2f·θ0", ratio), l)
		}
	}
	pad := float64(0.03 * (xmax - xmin))
	p.X.Min, p.X.Max = xmin-pad, xmax+pad
	p.Y.Min, p.Y.Max = math.Floor(ymin-5), math.Ceil(ymax+25)
	return p, nil
}

// qualityPlot is Fig. 3b: the objective against time for the first seed,
// on demand and each setting.
func (r *dollReport) qualityPlot(het bool) (*plot.Plot, error) {
	cells := r.plan.fig3(het)
	p := plot.New()
	fig := "Fig. 3b"
	if het {
		fig = "Fig. 4 (heterogeneous)"
	}
	p.Title.Text = fmt.Sprintf("%s: objective with and without preemptions, seed %d", fig, r.plan.seed)
	p.X.Label.Text = "virtual time (s)"
	p.Y.Label.Text = fmt.Sprintf("objective (%s)", r.plan.ws[0].label)
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	series := append([]*dollCell{r.plan.baseline(cells[0])}, cells...)
	for i, c := range series {
		st, name := dollODStyle, "on-demand"
		if i > 0 {
			st, name = dollSettingStyle[i-1], c.setting.String()
		}
		run := c.runs[0]
		var xys plotter.XYs
		for _, pt := range run.curve {
			xys = append(xys, plotter.XY{X: pt.T.Seconds(), Y: pt.Objective})
		}
		xys = append(xys, plotter.XY{X: run.runtime.Seconds(), Y: run.final})
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", name, err)
		}
		l.Color, l.Dashes, l.Width = st.Color, st.Dashes, vg.Points(1.2)
		pts.Color, pts.Shape, pts.Radius = st.Color, st.Glyph, vg.Points(2.5)
		p.Add(l, pts)
		p.Legend.Add(fmt.Sprintf("%s (final %.5g)", name, run.final), l, pts)
	}
	return p, nil
}

// fig5Plot is Fig. 5: grouped bars of the static and adaptive cost ratios
// and Corollary 2's bound per price and arrivals, each method's bar
// followed by the paper's (lighter) where it gives one.
func (r *dollReport) fig5Plot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Fig. 5: α = 0.9, θ/θ0 = 1.05, %d runs per bar", r.plan.s.runs)
	p.Y.Label.Text = "cost (% of on-demand)"
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	var groups []string
	names := []string{"static", "static, the paper", "adaptive", "adaptive, the paper", "Corollary 2 (homogeneous)"}
	colors := []color.Color{colBlue, lighter(colBlue), colOrange, lighter(colOrange), colGrey}
	vals := make([][]float64, len(names))
	top := 100.0
	for _, low := range []bool{false, true} {
		for _, het := range []bool{false, true} {
			sc, ac := r.plan.fig5(r.plan.ws[0], het, low)
			price, arr := "high", "λ = 125"
			if low {
				price = "low"
			}
			if het {
				arr = "U(1, 250)"
			}
			groups = append(groups, price+" price, "+arr)
			b := r.bound(sc)
			if het {
				b = math.NaN() // a reference only for heterogeneous rates
			}
			ps, pa := math.NaN(), math.NaN()
			switch {
			case !low && !het:
				ps, pa = 69.50, 66.50
			case !low && het:
				ps, pa = 70.54, 56.54
			}
			for i, v := range []float64{r.stats(sc).ratio, ps, r.stats(ac).ratio, pa, b} {
				vals[i] = append(vals[i], v)
				if !math.IsNaN(v) {
					top = math.Max(top, v)
				}
			}
		}
	}
	p.NominalX(groups...)
	w := vg.Points(16)
	for i, vs := range vals {
		b, err := plotter.NewBarChart(plotter.Values(zeroNaN(vs)), w)
		if err != nil {
			return nil, err
		}
		b.Color = colors[i]
		b.LineStyle.Width = 0
		b.Offset = (vg.Length(i) - vg.Length(vg.Length(len(vals)-1)/2)) * w
		p.Add(b)
		p.Legend.Add(names[i], b)
	}
	p.Y.Min, p.Y.Max = 0, 1.45*top
	return p, nil
}
