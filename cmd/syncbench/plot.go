package main

import (
	"fmt"
	"image/color"
	"math"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// writePlot writes a PNG of objective against time, one line per sync
// model in its own style (styleFor), with the target as a dashed
// horizontal line.
func (c *comparison) writePlot(path string) error {
	p, err := c.objectivePlot()
	if err != nil {
		return err
	}
	return savePNG(p, 8*vg.Inch, 5*vg.Inch, path)
}

// objectivePlot is writePlot's figure.
func (c *comparison) objectivePlot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s, %d workers, %s", c.alg.Name(), c.f.workers, c.stragglerLine())
	p.X.Label.Text = fmt.Sprintf("%s time (s)", c.f.clockKind)
	p.Y.Label.Text = "objective"
	p.Legend.Top = c.minimize
	p.Add(plotter.NewGrid())
	for _, r := range c.runs {
		xys := make(plotter.XYs, len(r.Curve))
		for j, pt := range r.Curve {
			xys[j] = plotter.XY{X: pt.T.Seconds(), Y: pt.Objective}
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", r.Sync, err)
		}
		st := styleFor(r.Name)
		l.Color, l.Dashes = st.Color, st.Dashes
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(r.Name, l)
	}
	if math.IsNaN(c.target) {
		// No target (MLLess's reference run diverged): no line to draw.
		return p, nil
	}
	t, err := plotter.NewLine(plotter.XYs{{X: 0, Y: c.target}, {X: c.f.duration.Seconds(), Y: c.target}})
	if err != nil {
		return nil, fmt.Errorf("plot target: %w", err)
	}
	t.Color = color.Gray{Y: 96}
	t.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(t)
	p.Legend.Add(fmt.Sprintf("target %.4g", c.target), t)
	return p, nil
}

// savePNG writes p as a w×h PNG to path.
func savePNG(p *plot.Plot, w, h vg.Length, path string) error {
	wt, err := p.WriterTo(w, h, "png")
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := wt.WriteTo(fh); err != nil {
		fh.Close()
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return fh.Close()
}
