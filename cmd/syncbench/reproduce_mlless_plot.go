package main

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/syncmodels/syncmodels/harness"
)

// figures writes the PNGs into dir.
func (r *mllessReport) figures(dir string) error {
	if len(r.cases) == 0 {
		return nil
	}
	p, err := r.fig5()
	if err != nil {
		return err
	}
	if err := savePNG(p, 8*vg.Inch, 5*vg.Inch, filepath.Join(dir, "fig5.png")); err != nil {
		return err
	}
	if p, err = r.fig6(); err != nil {
		return err
	}
	if err := savePNG(p, 9*vg.Inch, 5*vg.Inch, filepath.Join(dir, "fig6.png")); err != nil {
		return err
	}
	for _, c := range r.cases {
		cmp := c.comparison(c.sweep())
		if cmp == nil {
			continue
		}
		p, err := cmp.objectivePlot()
		if err != nil {
			return err
		}
		p.Title.Text = fmt.Sprintf("%s, %d workers: ISP threshold sweep (Fig. 5)", c.w.label, mllessBase)
		if err := savePNG(p, 8*vg.Inch, 5*vg.Inch, filepath.Join(dir, "curves-sweep-"+c.w.key+".png")); err != nil {
			return err
		}
	}
	c := r.pmf()
	if c == nil {
		return nil
	}
	if p, err = r.fig9(c); err != nil {
		return err
	}
	if err := savePNG(p, 8*vg.Inch, 5*vg.Inch, filepath.Join(dir, "fig9.png")); err != nil {
		return err
	}
	var rows [][]*plot.Plot
	for _, n := range mllessFig9Pools {
		cmp := c.comparison(c.fig9(n))
		if cmp == nil {
			continue
		}
		p, err := cmp.objectivePlot()
		if err != nil {
			return err
		}
		p.Title.Text = fmt.Sprintf("%s, %d workers, global batch %d (Fig. 9)", c.w.label, n, mllessBase*c.w.batch)
		rows = append(rows, []*plot.Plot{p})
	}
	if len(rows) == 0 {
		return nil
	}
	return saveTiles(rows, 8*vg.Inch, vg.Length(len(rows))*4*vg.Inch, filepath.Join(dir, "curves-fig9-"+c.w.key+".png"))
}

// comparison returns the runs that ran as a compare comparison, for
// compare's plot; nil if none ran.
func (c *mllessCase) comparison(runs []*mllessRun) *comparison {
	var cmp *comparison
	for _, run := range runs {
		if run.res == nil {
			continue
		}
		if cmp == nil {
			cmp = &comparison{f: run.f, alg: c.algs[c.w.lr], d: c.d, initial: c.initial, best: c.ref, target: c.target, derived: true, minimize: true}
		}
		cmp.runs = append(cmp.runs, finiteCurve(run.res))
		cmp.ttt = append(cmp.ttt, c.ttt(run))
	}
	return cmp
}

// fig5 is the normalized time to target against v, one line per workload;
// a run that did not reach the target is a cross at the top.
func (r *mllessReport) fig5() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("ISP, %d workers: time to target ÷ BSP's (Fig. 5)", mllessBase)
	p.X.Label.Text = "significance threshold v (0 = BSP)"
	p.Y.Label.Text = "normalized time to target"
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	top := 1.0
	var missed plotter.XYs
	for i, c := range r.cases {
		sw := c.sweep()
		base := c.ttt(sw[0])
		var xys plotter.XYs
		for k, run := range sw {
			t := c.ttt(run)
			switch {
			case run.res == nil:
			case t >= 0 && base > 0:
				xys = append(xys, plotter.XY{X: mllessThresholds[k], Y: t.Seconds() / base.Seconds()})
				top = math.Max(top, t.Seconds()/base.Seconds())
			default:
				missed = append(missed, plotter.XY{X: mllessThresholds[k], Y: math.NaN()})
			}
		}
		if len(xys) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		l.Color, pts.Color = plotutil.Color(i), plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i)
		pts.Shape = systemGlyphs[i%len(systemGlyphs)]
		p.Add(l, pts)
		p.Legend.Add(c.w.label, l, pts)
	}
	for i := range missed {
		missed[i].Y = 1.1 * top
	}
	if sc, err := scatter(p, missed, color.Black, draw.CrossGlyph{}, vg.Points(4)); err != nil {
		return nil, err
	} else if sc != nil {
		p.Legend.Add("not reached", sc)
	}
	p.X.Min, p.X.Max = -0.05, mllessThresholds[len(mllessThresholds)-1]+0.05
	p.Y.Min, p.Y.Max = 0, 1.5*top
	return p, nil
}

// bars adds grouped bar series (one value per group, NaN for none) to p,
// named in the legend.
func bars(p *plot.Plot, names []string, values [][]float64) error {
	w := vg.Points(14)
	for i, vs := range values {
		b, err := plotter.NewBarChart(plotter.Values(zeroNaN(vs)), w)
		if err != nil {
			return err
		}
		b.Color = plotutil.Color(i)
		b.LineStyle.Width = 0
		b.Offset = (vg.Length(i) - vg.Length(len(values)-1)/2) * w
		p.Add(b)
		p.Legend.Add(names[i], b)
	}
	return nil
}

// zeroNaN returns vs with NaNs (no value) as 0: no bar.
func zeroNaN(vs []float64) []float64 {
	out := make([]float64, len(vs))
	for i, v := range vs {
		if !math.IsNaN(v) {
			out[i] = v
		}
	}
	return out
}

// fig6 is the auto-tuner's Perf/$ gain and time ratio over the fixed
// pool, per workload and pool.
func (r *mllessReport) fig6() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "scale-in auto-tuner ÷ fixed pool (Fig. 6); 1 = no change"
	p.Y.Label.Text = "ratio"
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	var groups []string
	var gain, tm []float64
	top := 1.0
	for _, c := range r.cases {
		for _, n := range mllessTunerPools {
			g := c.tunerGain(n)
			groups = append(groups, fmt.Sprintf("%s, %d", c.w.label, n))
			gain, tm = append(gain, g.gain), append(tm, g.time)
			if !math.IsNaN(g.gain) {
				top = math.Max(top, math.Max(g.gain, g.time))
			}
		}
	}
	p.NominalX(groups...)
	if err := bars(p, []string{"Perf/$ gain", "time to target ratio"}, [][]float64{gain, tm}); err != nil {
		return nil, err
	}
	one, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 1}, {X: float64(len(groups)) - 0.5, Y: 1}})
	if err != nil {
		return nil, err
	}
	one.Color, one.Dashes = color.Gray{Y: 96}, []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(one)
	p.Y.Min, p.Y.Max = 0, 1.4*top
	return p, nil
}

// fig9 is the time to target of each model per pool, on PMF.
func (r *mllessReport) fig9(c *mllessCase) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s, global batch %d: virtual time to target (Fig. 9)", c.w.label, mllessBase*c.w.batch)
	p.Y.Label.Text = "virtual time to target (s); none: not reached or not run"
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	var groups []string
	vals := make([][]float64, len(fig9Syncs))
	top := 0.0
	for _, n := range mllessFig9Pools {
		groups = append(groups, fmt.Sprintf("%d workers", n))
		for i, run := range c.fig9(n) {
			v := math.NaN()
			if t := c.ttt(run); t >= 0 {
				v = t.Seconds()
				top = math.Max(top, v)
			}
			vals[i] = append(vals[i], v)
		}
	}
	p.NominalX(groups...)
	if err := bars(p, fig9Syncs, vals); err != nil {
		return nil, err
	}
	if top > 0 {
		p.Y.Max = 1.3 * top
	}
	p.Y.Min = 0
	return p, nil
}

// finiteCurve returns res with its curve cut at the first non-finite loss
// (a run that blew up), which a plot cannot draw.
func finiteCurve(res *harness.Result) *harness.Result {
	for i, pt := range res.Curve {
		if math.IsNaN(pt.Objective) || math.IsInf(pt.Objective, 0) {
			cut := *res
			cut.Curve = res.Curve[:i]
			return &cut
		}
	}
	return res
}
