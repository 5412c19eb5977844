package main

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/syncmodels/syncmodels/p2p"
)

// p2pLine adds a line with points in a style and returns it for the
// legend.
func p2pLine(p *plot.Plot, xys plotter.XYs, c color.Color, dash []vg.Length, g draw.GlyphDrawer, width vg.Length) (*plotter.Line, error) {
	l, s, err := plotter.NewLinePoints(xys)
	if err != nil {
		return nil, err
	}
	l.Color, l.Dashes, l.Width = c, dash, width
	if g != nil {
		s.GlyphStyle = draw.GlyphStyle{Color: c, Shape: g, Radius: vg.Points(3)}
		p.Add(l, s)
	} else {
		p.Add(l)
	}
	return l, nil
}

// plotFig3 is Fig. 3: computation per epoch against the batch size, with
// and without functions, a panel per number of peers (log y).
func (r *p2pReport) plotFig3(path string) error {
	var row []*plot.Plot
	for _, peers := range p2pPeers {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%d peers (VGG11)", peers)
		p.X.Label.Text = "batch size B"
		p.Y.Label.Text = "gradient computation per epoch (s)"
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 64, Label: "64"}, {Value: 128, Label: "128"}, {Value: 512, Label: "512"}, {Value: 1024, Label: "1024"}})
		p.Add(plotter.NewGrid())
		for _, sv := range []bool{false, true} {
			var xys plotter.XYs
			for _, b := range p2pBatches {
				xys = append(xys, plotter.XY{X: float64(b), Y: r.plan.timing(p2pVGG11, peers, b, sv, false).runs[0].compute.Seconds()})
			}
			c, g, name := colOrange, draw.GlyphDrawer(draw.BoxGlyph{}), "instance (t2.large)"
			if sv {
				c, g, name = colBlue, draw.CircleGlyph{}, "serverless (t2.small + Lambda)"
			}
			l, err := p2pLine(p, xys, c, nil, g, vg.Points(1.5))
			if err != nil {
				return err
			}
			p.Legend.Add(name, l)
		}
		p.Legend.Top = true
		row = append(row, p)
	}
	return saveTiles([][]*plot.Plot{row}, 15*vg.Inch, 5*vg.Inch, path)
}

// plotFig4 is Fig. 4: computation and communication per epoch against
// the peers, a panel per model.
func (r *p2pReport) plotFig4(path string) error {
	var row []*plot.Plot
	for _, m := range []p2pModel{p2pVGG11, p2pMobile} {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s, B = 1024", m.name)
		p.X.Label.Text = "peers"
		p.Y.Label.Text = "per epoch (s)"
		p.X.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 4, Label: "4"}, {Value: 8, Label: "8"}, {Value: 12, Label: "12"}})
		p.Add(plotter.NewGrid())
		var cp, cm plotter.XYs
		for _, peers := range p2pPeers {
			x := r.plan.timing(m, peers, 1024, false, false).runs[0]
			cp = append(cp, plotter.XY{X: float64(peers), Y: x.compute.Seconds()})
			cm = append(cm, plotter.XY{X: float64(peers), Y: comm(x)})
		}
		l, err := p2pLine(p, cp, colBlue, nil, draw.CircleGlyph{}, vg.Points(1.5))
		if err != nil {
			return err
		}
		p.Legend.Add("computation", l)
		if l, err = p2pLine(p, cm, colVermilion, []vg.Length{vg.Points(6), vg.Points(2)}, draw.BoxGlyph{}, vg.Points(1.5)); err != nil {
			return err
		}
		p.Legend.Add("communication", l)
		p.Legend.Top = true
		p.Y.Min = 0
		row = append(row, p)
	}
	return saveTiles([][]*plot.Plot{row}, 12*vg.Inch, 5*vg.Inch, path)
}

// plotFig6 is Fig. 6: test accuracy against epochs, sync and async, the
// median bold and every seed thin; a panel without and one with QSGD.
func (r *p2pReport) plotFig6(path string) error {
	var row []*plot.Plot
	for _, q := range []bool{false, true} {
		p := plot.New()
		p.Title.Text = "float64 gradients"
		if q {
			p.Title.Text = "QSGD, 255 levels"
		}
		p.X.Label.Text = "epoch"
		p.Y.Label.Text = "test accuracy"
		p.Add(plotter.NewGrid())
		for _, mode := range []p2p.Mode{p2p.Sync, p2p.Async} {
			c := r.plan.fig6(mode, q)
			col, dash := colBlue, []vg.Length(nil)
			if mode == p2p.Async {
				col, dash = colVermilion, []vg.Length{vg.Points(6), vg.Points(2)}
			}
			for _, x := range c.runs {
				var xys plotter.XYs
				for e, a := range x.acc {
					xys = append(xys, plotter.XY{X: float64(e + 1), Y: a})
				}
				if _, err := p2pLine(p, xys, lighter(col), dash, nil, vg.Points(0.5)); err != nil {
					return err
				}
			}
			var med plotter.XYs
			for e := range c.runs[0].acc {
				med = append(med, plotter.XY{X: float64(e + 1), Y: overSeeds(c.over(func(x *p2pRun) float64 { return x.acc[e] })).median})
			}
			l, err := p2pLine(p, med, col, dash, nil, vg.Points(2))
			if err != nil {
				return err
			}
			p.Legend.Add(mode.String()+" (median)", l)
		}
		p.Legend.Top = false
		p.Legend.Left = false
		row = append(row, p)
	}
	return saveTiles([][]*plot.Plot{row}, 12*vg.Inch, 5*vg.Inch, path)
}
