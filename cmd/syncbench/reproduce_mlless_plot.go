package main

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
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
		p, err := c.curvesPlot(c.sweep(), fmt.Sprintf("%s, %d workers: ISP threshold sweep (Fig. 5)", c.w.label, mllessBase))
		if err != nil {
			return err
		}
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
	for _, n := range c.w.pools {
		p, err := c.curvesPlot(c.fig9(n), fmt.Sprintf("%s, %d workers, global batch %d (Fig. 9)", c.w.label, n, mllessBase*c.w.batch))
		if err != nil {
			return err
		}
		rows = append(rows, []*plot.Plot{p})
	}
	return saveTiles(rows, 8*vg.Inch, vg.Length(vg.Length(len(rows))*4*vg.Inch), filepath.Join(dir, "curves-fig9-"+c.w.key+".png"))
}

// curvesPlot is the loss against time of runs, titled title; when none
// of them finished, a panel that says why.
func (c *mllessCase) curvesPlot(runs []*mllessRun, title string) (*plot.Plot, error) {
	cmp := c.comparison(runs)
	if cmp == nil {
		var why []string
		for _, run := range runs {
			why = append(why, run.sync+": "+c.tttCell(run))
		}
		return emptyPlot(title, "no run finished ("+strings.Join(why, "; ")+")")
	}
	p, err := cmp.objectivePlot()
	if err != nil {
		return nil, err
	}
	p.Title.Text = title
	for _, run := range runs {
		if run.res == nil {
			// No curve to draw: the legend says why.
			p.Legend.Add(run.sync + ": " + c.tttCell(run))
		}
	}
	return p, nil
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
	type miss struct {
		name string
		xs   []float64
	}
	var misses []miss
	for _, c := range r.cases {
		sw := c.sweep()
		base := c.ttt(sw[0])
		st := styleFor(c.w.label)
		var xys plotter.XYs
		m := miss{name: c.w.label}
		for k, run := range sw {
			t := c.ttt(run)
			switch {
			case run.res == nil && run.diverged == nil:
			case t >= 0 && base > 0:
				xys = append(xys, plotter.XY{X: mllessThresholds[k], Y: t.Seconds() / base.Seconds()})
				top = math.Max(top, t.Seconds()/base.Seconds())
			default:
				m.xs = append(m.xs, mllessThresholds[k])
			}
		}
		misses = append(misses, m)
		if len(xys) == 0 {
			// No point to draw: the legend still names the workload,
			// its crosses say why.
			p.Legend.Add(c.w.label+": none reached the target", legendGlyph(st.Color, st.Glyph, vg.Points(3)))
			continue
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		l.Color, pts.Color, l.Dashes = st.Color, st.Color, st.Dashes
		pts.Shape = st.Glyph
		p.Add(l, pts)
		p.Legend.Add(c.w.label, l, pts)
	}
	missedAny := false
	for _, m := range misses {
		var xys plotter.XYs
		for _, x := range m.xs {
			xys = append(xys, plotter.XY{X: x, Y: float64(1.1 * top)})
		}
		if _, err := missMarks(p, m.name, xys, vg.Points(3)); err != nil {
			return nil, err
		}
		missedAny = missedAny || len(xys) > 0
	}
	if missedAny {
		p.Legend.Add("crossed out: not reached or diverged (at the top)", legendGlyph(color.Gray{Y: 150}, draw.CircleGlyph{}, vg.Points(3)), legendGlyph(color.Black, draw.CrossGlyph{}, vg.Points(4)))
	}
	p.X.Min, p.X.Max = -0.05, mllessThresholds[len(mllessThresholds)-1]+0.05
	p.Y.Min, p.Y.Max = 0, 1.5*top
	return p, nil
}

// bars adds grouped bar series (one value per group, NaN for none) to p,
// each in its series' style (styleFor(names[i])) and named in the legend;
// a missing bar says why (whys[i][g]) up from the baseline.
func bars(p *plot.Plot, names []string, values [][]float64, whys [][]string) error {
	w := vg.Points(14)
	for i, vs := range values {
		b, err := plotter.NewBarChart(plotter.Values(zeroNaN(vs)), w)
		if err != nil {
			return err
		}
		b.Color = styleFor(names[i]).Color
		b.LineStyle.Width = 0
		b.Offset = vg.Length((vg.Length(i) - vg.Length(vg.Length(len(values)-1)/2)) * w)
		p.Add(b)
		p.Legend.Add(names[i], b)
		var xys plotter.XYs
		var texts []string
		for g, v := range vs {
			if math.IsNaN(v) && whys[i][g] != "" {
				xys = append(xys, plotter.XY{X: float64(g), Y: 0})
				texts = append(texts, whys[i][g])
			}
		}
		if len(xys) == 0 {
			continue
		}
		l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: texts})
		if err != nil {
			return err
		}
		for k := range l.TextStyle {
			l.TextStyle[k].Font.Size = vg.Points(8)
			l.TextStyle[k].Color = color.Gray{Y: 70}
			l.TextStyle[k].Rotation = math.Pi / 2
			l.TextStyle[k].XAlign, l.TextStyle[k].YAlign = 0, -0.5
		}
		l.Offset = vg.Point{X: b.Offset, Y: vg.Points(3)}
		p.Add(l)
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
	var groups, whys []string
	var gain, tm []float64
	top := 1.0
	for _, c := range r.cases {
		for _, n := range mllessTunerPools {
			g := c.tunerGain(n)
			groups = append(groups, fmt.Sprintf("%s, %d", c.w.label, n))
			gain, tm = append(gain, g.gain), append(tm, g.time)
			why := ""
			if math.IsNaN(g.gain) {
				switch {
				case g.err != nil:
					why = "n/a: " + oneLine(g.err)
				case g.fixed.diverged != nil || g.tuned.diverged != nil:
					why = "n/a: a run diverged"
				default:
					why = "n/a: not reached"
				}
			} else {
				top = math.Max(top, math.Max(g.gain, g.time))
			}
			whys = append(whys, why)
		}
	}
	p.NominalX(groups...)
	if err := bars(p, []string{"Perf/$ gain", "time to target ratio"}, [][]float64{gain, tm}, [][]string{whys, make([]string, len(whys))}); err != nil {
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
	p.Y.Label.Text = "virtual time to target (s)"
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	var groups []string
	vals := make([][]float64, len(fig9Syncs))
	whys := make([][]string, len(fig9Syncs))
	top := 0.0
	for _, n := range c.w.pools {
		groups = append(groups, fmt.Sprintf("%d workers", n))
		for i, run := range c.fig9(n) {
			v, why := math.NaN(), ""
			switch t := c.ttt(run); {
			case t >= 0:
				v = t.Seconds()
				top = math.Max(top, v)
			case run.diverged != nil:
				why = "diverged"
			case run.res == nil:
				why = "not run"
			default:
				why = "not reached"
			}
			vals[i] = append(vals[i], v)
			whys[i] = append(whys[i], why)
		}
	}
	p.NominalX(groups...)
	if err := bars(p, fig9Syncs, vals, whys); err != nil {
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
