package main

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/syncmodels/syncmodels/internal/fpdet"
)

// saveTiles draws the plots as a grid of rows into a w×h PNG at path.
func saveTiles(rows [][]*plot.Plot, w, h vg.Length, path string) error {
	img := vgimg.New(w, h)
	dc := draw.New(img)
	t := draw.Tiles{Rows: len(rows), Cols: len(rows[0]), PadX: vg.Millimeter, PadY: 3 * vg.Millimeter,
		PadTop: vg.Millimeter, PadBottom: vg.Millimeter, PadLeft: vg.Millimeter, PadRight: vg.Millimeter}
	canvases := plot.Align(rows, t, dc)
	for i, row := range rows {
		for j, p := range row {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(fh); err != nil {
		fh.Close()
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return fh.Close()
}

// scatter adds a scatter of xys (if any) in the given style and returns
// it for the legend (nil if there were no points).
func scatter(p *plot.Plot, xys plotter.XYs, c color.Color, shape draw.GlyphDrawer, r vg.Length) (*plotter.Scatter, error) {
	if len(xys) == 0 {
		return nil, nil
	}
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, err
	}
	s.GlyphStyle = draw.GlyphStyle{Color: c, Shape: shape, Radius: r}
	p.Add(s)
	return s, nil
}

// runtimePanel is one panel of Figs. 7 and 8: the time to target of every
// system per workload in setting s, on a log scale, each system in its
// own style (styleFor); a run that did not reach the target is its
// system's marker crossed out at its run length.
func runtimePanel(cases []*fspCase, s int) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fspSettings[s].label
	p.Y.Label.Text = "virtual time to target (s)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	var names []string
	for _, c := range cases {
		names = append(names, c.w.short)
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(cases))-0.4
	missedAny, top := false, 0.0
	for j, sys := range fspSystems {
		var reached, missed plotter.XYs
		for i, c := range cases {
			x := float64(i) + float64((float64(j)-float64(float64(len(fspSystems)-1)/2))*0.14)
			if t := c.ttt(c.runs[s][j]); t > 0 {
				reached = append(reached, plotter.XY{X: x, Y: t.Seconds()})
			} else if t < 0 {
				missed = append(missed, plotter.XY{X: x, Y: c.flags[s].duration.Seconds()})
			}
			top = math.Max(top, c.flags[s].duration.Seconds())
		}
		st := styleFor(sys)
		sc, err := scatter(p, reached, st.Color, st.Glyph, vg.Points(3.5))
		if err != nil {
			return nil, err
		}
		if _, err := missMarks(p, sys, missed, vg.Points(3.5)); err != nil {
			return nil, err
		}
		missedAny = missedAny || len(missed) > 0
		if sc == nil {
			// Every run missed: the legend still names the system.
			sc = legendGlyph(st.Color, st.Glyph, vg.Points(3.5))
		}
		p.Legend.Add(sys, sc)
	}
	// Headroom above the longest run for the legend (log scale).
	p.Y.Max = 10 * top
	if missedAny {
		p.Legend.Add("crossed out: not reached (at run length)", legendGlyph(color.Gray{Y: 150}, draw.CircleGlyph{}, vg.Points(3.5)), legendGlyph(color.Black, draw.CrossGlyph{}, vg.Points(4.5)))
	}
	return p, nil
}

// legendGlyph is a glyph for a legend entry, not added to any plot.
func legendGlyph(c color.Color, shape draw.GlyphDrawer, r vg.Length) *plotter.Scatter {
	return &plotter.Scatter{XYs: plotter.XYs{{}}, GlyphStyle: draw.GlyphStyle{Color: c, Shape: shape, Radius: r}}
}

// sweepPlot is Fig. 15 for one workload: time to target against the fixed
// interval η (as a fraction of P, a full-speed pass over a shard), the
// median over the sweep's seeds and each seed's; FSPV's median time to
// target and the interval it ran longest on the report's seed; and the
// acceptance bound over the best median.
func sweepPlot(c *fspCase, sw fspSweep) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s, %s: FSP with a fixed interval vs FSPV", c.w.label, fspSettings[fspSweepSetting].label)
	p.X.Label.Text = "interval η / P (P = a full-speed pass over a shard, " + fmtDur(sw.pass) + ")"
	p.Y.Label.Text = "virtual time to target (s)"
	p.X.Scale = plot.LogScale{}
	rel := func(eta time.Duration) float64 { return float64(eta) / float64(sw.pass) }
	lo, hi := rel(c.etas[0]), rel(c.etas[len(c.etas)-1])
	if sw.mainEta > 0 {
		lo, hi = math.Min(lo, rel(sw.mainEta)), math.Max(hi, rel(sw.mainEta))
	}
	var ticks plot.ConstantTicks
	for k := math.Floor(fpdet.Log2(lo)); k <= math.Ceil(fpdet.Log2(hi)); k++ {
		label := fmt.Sprintf("%g", fpdet.Exp2(k))
		if k < 0 {
			label = fmt.Sprintf("1/%g", fpdet.Exp2(-k))
		}
		ticks = append(ticks, plot.Tick{Value: fpdet.Exp2(k), Label: label})
	}
	p.X.Tick.Marker = ticks
	dur := c.flags[fspSweepSetting].duration.Seconds()
	// Headroom above the run length for the legend.
	p.Y.Min, p.Y.Max = 0, 1.4*dur
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	// The medians over the seeds as the line; every seed's time as a dot.
	var line, missed, seeds plotter.XYs
	for i, m := range sw.med {
		if m >= 0 {
			line = append(line, plotter.XY{X: rel(c.etas[i]), Y: m.Seconds()})
		} else {
			missed = append(missed, plotter.XY{X: rel(c.etas[i]), Y: dur})
		}
		for _, tk := range sw.ttts {
			if tk[i] >= 0 {
				seeds = append(seeds, plotter.XY{X: rel(c.etas[i]), Y: tk[i].Seconds()})
			}
		}
	}
	fixed, fspv := styleFor("fsp"), styleFor("fspv")
	if len(line) > 0 {
		l, pts, err := plotter.NewLinePoints(line)
		if err != nil {
			return nil, err
		}
		l.Color, pts.Color, l.Dashes = fixed.Color, fixed.Color, fixed.Dashes
		pts.Shape = fixed.Glyph
		p.Add(l, pts)
		p.Legend.Add(fmt.Sprintf("FSP, fixed η: median of %d seeds", len(sw.ttts)), l, pts)
	}
	if sc, err := scatter(p, seeds, color.Gray{Y: 150}, draw.CircleGlyph{}, vg.Points(1.5)); err != nil {
		return nil, err
	} else if sc != nil {
		p.Legend.Add("fixed η: one seed", sc)
	}
	if th, err := missMarks(p, "fsp", missed, vg.Points(3.5)); err != nil {
		return nil, err
	} else if th != nil {
		p.Legend.Add("FSP, fixed η: median not reached (at run length)", th...)
	}
	hline := func(y float64, c color.Color, dashes []vg.Length, label string) error {
		l, err := plotter.NewLine(plotter.XYs{{X: lo, Y: y}, {X: hi, Y: y}})
		if err != nil {
			return err
		}
		l.Color, l.Dashes, l.Width = c, dashes, vg.Points(1.2)
		p.Add(l)
		p.Legend.Add(label, l)
		return nil
	}
	if sw.bestMed >= 0 {
		if err := hline(float64(fspAcceptance*sw.bestMed.Seconds()), color.Gray{Y: 120}, []vg.Length{vg.Points(1), vg.Points(2)},
			fmt.Sprintf("%.3g× the best median", fspAcceptance)); err != nil {
			return nil, err
		}
	}
	if sw.fspvMed >= 0 {
		if err := hline(sw.fspvMed.Seconds(), fspv.Color, []vg.Length{vg.Points(4), vg.Points(2)}, "FSPV's median time to target"); err != nil {
			return nil, err
		}
	}
	if sw.mainEta > 0 {
		v, err := plotter.NewLine(plotter.XYs{{X: rel(sw.mainEta), Y: 0}, {X: rel(sw.mainEta), Y: dur}})
		if err != nil {
			return nil, err
		}
		v.Color, v.Dashes = fspv.Color, []vg.Length{vg.Points(1), vg.Points(2)}
		p.Add(v)
		p.Legend.Add("η FSPV ran longest on the report's seed ("+fmtDur(sw.mainEta)+")", v)
		if sw.fspvMed < 0 {
			th, err := missMarks(p, "fspv", plotter.XYs{{X: rel(sw.mainEta), Y: dur}}, vg.Points(4))
			if err != nil {
				return nil, err
			}
			p.Legend.Add("FSPV's median: not reached (at run length)", th...)
		}
	}
	return p, nil
}

// fmtDur prints a duration with at most three significant digits.
func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.3g s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.3g ms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.3g µs", float64(d)/1e3)
	}
}
