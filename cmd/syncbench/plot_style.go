package main

import (
	"hash/fnv"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// seriesStyle is how a series is drawn: a sync model (by its name), a
// workload (by its label) or a measure. styleFor keys it by name alone,
// so a model keeps its colour, dashes and marker across the panels and
// figures of every report, whichever others share a panel with it.
type seriesStyle struct {
	Color  color.Color
	Dashes []vg.Length
	Glyph  draw.GlyphDrawer
}

// The palette: the Okabe–Ito colours (distinct for the common colour
// vision deficiencies, yellow left out: too pale on white), then
// darker extras.
var (
	colBlue      = color.RGBA{0, 114, 178, 255}
	colOrange    = color.RGBA{230, 159, 0, 255}
	colSky       = color.RGBA{86, 180, 233, 255}
	colGreen     = color.RGBA{0, 158, 115, 255}
	colVermilion = color.RGBA{213, 94, 0, 255}
	colPurple    = color.RGBA{204, 121, 167, 255}
	colBlack     = color.RGBA{0, 0, 0, 255}
	colGrey      = color.RGBA{128, 128, 128, 255}
	colBrown     = color.RGBA{140, 86, 75, 255}
	colOlive     = color.RGBA{128, 128, 0, 255}
	colNavy      = color.RGBA{40, 40, 140, 255}
	colTeal      = color.RGBA{0, 110, 110, 255}
	colMagenta   = color.RGBA{160, 40, 120, 255}

	palette = []color.Color{colBlue, colOrange, colSky, colGreen, colVermilion, colPurple, colBlack, colGrey, colBrown, colOlive, colNavy, colTeal, colMagenta}
	dashes  = [][]vg.Length{nil, {vg.Points(6), vg.Points(2)}, {vg.Points(2), vg.Points(2)}, {vg.Points(6), vg.Points(2), vg.Points(2), vg.Points(2)}}
	// glyphs leave out the cross, which marks a run that did not reach
	// the target.
	glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PlusGlyph{}}
)

// greens are ISP's thresholds, lighter for a smaller v.
var greens = []color.Color{color.RGBA{120, 198, 121, 255}, color.RGBA{65, 171, 93, 255}, color.RGBA{35, 139, 69, 255}, color.RGBA{0, 109, 44, 255}, color.RGBA{0, 68, 27, 255}}

// knownStyles fixes the style of every model and workload the reports
// and compare's defaults draw, so that those that share a panel differ
// in colour (and marker); other names get styleFor's hashed style.
var knownStyles = map[string]seriesStyle{
	// compare's defaults.
	"bsp":         {colBlue, dashes[0], glyphs[0]},
	"ssp:3":       {colOrange, dashes[0], glyphs[4]},
	"asp":         {colVermilion, dashes[0], glyphs[5]},
	"quorum:0.9":  {colGreen, dashes[0], glyphs[3]},
	"quorum:0.75": {colTeal, dashes[1], glyphs[2]},
	// The FSP paper's systems (Figs. 7, 8, 11–13, 15); bsp:full is bspb.
	"bspb":      {colBlack, dashes[0], glyphs[1]},
	"bsp:full":  {colBlack, dashes[0], glyphs[1]},
	"bspv":      {colSky, dashes[0], glyphs[2]},
	"fspb":      {colGrey, dashes[0], glyphs[4]},
	"fspv":      {colPurple, dashes[0], glyphs[0]},
	"fspv+opt":  {colBrown, dashes[0], glyphs[3]},
	"fspv+semi": {colMagenta, dashes[1], glyphs[5]},
	"fspv+asyn": {colOlive, dashes[1], glyphs[2]},
	"fsp":       {colNavy, dashes[0], glyphs[0]}, // a fixed interval (Fig. 15)
	// MLLess (Figs. 5, 6, 9): its BSP (= isp:0), SSP and ISP's thresholds.
	"bsp+replicas":   {colBlue, dashes[1], glyphs[1]},
	"ssp:3+replicas": {colOrange, dashes[1], glyphs[4]},
	"isp:0.1":        {greens[0], dashes[2], glyphs[5]},
	"isp:0.3":        {greens[1], dashes[3], glyphs[2]},
	"isp:0.5":        {greens[2], dashes[1], glyphs[3]},
	"isp:0.7":        {greens[3], dashes[0], glyphs[0]},
	"isp:1":          {greens[4], dashes[2], glyphs[6]},
	// The MLLess workloads (Fig. 5).
	"PMF":       {colVermilion, dashes[0], glyphs[0]},
	"LR dense":  {colBlue, dashes[1], glyphs[1]},
	"LR sparse": {colOrange, dashes[2], glyphs[2]},
	// Fig. 6's measures.
	"Perf/$ gain":          {colGreen, dashes[0], glyphs[0]},
	"time to target ratio": {colGrey, dashes[0], glyphs[1]},
}

// modelKey is the part of a run's name that names its model: without a
// tuned parameter in parentheses ("bspv(b=93)" is bspv) or the scale-in
// tuner ("+scale-in"), and lower case.
func modelKey(name string) string {
	if i := strings.IndexByte(name, '('); i > 0 {
		name = strings.TrimSpace(name[:i])
	}
	name = strings.TrimSuffix(name, "+scale-in")
	if _, ok := knownStyles[name]; ok {
		return name
	}
	return strings.ToLower(name)
}

// styleFor is the style of the series named name: a fixed one for the
// models and workloads of knownStyles, otherwise one drawn from a hash of
// the name (the same in every figure; two unknown names may collide).
// An FSP run at a fixed interval ("fsp:1.95µs") is "fsp".
func styleFor(name string) seriesStyle {
	key := modelKey(name)
	if s, ok := knownStyles[key]; ok {
		return s
	}
	if strings.HasPrefix(key, "fsp:") {
		return knownStyles["fsp"]
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	x := h.Sum32()
	return seriesStyle{palette[x%uint32(len(palette))], dashes[(x>>8)%uint32(len(dashes))], glyphs[(x>>16)%uint32(len(glyphs))]}
}

// lighter blends c halfway to white, for a model's second setting in a
// bar chart (Fig. 12's fspv+asyn without stragglers).
func lighter(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	f := func(v uint32) uint8 { return uint8((v>>8 + 255) / 2) }
	return color.RGBA{f(r), f(g), f(b), 255}
}

// missMarks draws the points where series name did not reach the target:
// its own marker with a cross over it, so that the mark says whose it is.
// It returns the legend glyph ("NAME: not reached"), nil if xys is empty.
func missMarks(p *plot.Plot, name string, xys plotter.XYs, r vg.Length) ([]plot.Thumbnailer, error) {
	if len(xys) == 0 {
		return nil, nil
	}
	st := styleFor(name)
	under, err := scatter(p, xys, st.Color, st.Glyph, r)
	if err != nil {
		return nil, err
	}
	cross, err := scatter(p, xys, color.Black, draw.CrossGlyph{}, r+vg.Points(1))
	if err != nil {
		return nil, err
	}
	return []plot.Thumbnailer{under, cross}, nil
}

// note writes text into p at data point (x, y), for what a panel or a
// group cannot show (nothing reached the target, a run diverged).
func note(p *plot.Plot, x, y float64, text string, rotate bool) error {
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: x, Y: y}}, Labels: []string{text}})
	if err != nil {
		return err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font.Size = vg.Points(9)
		l.TextStyle[i].Color = color.Gray{Y: 70}
		if rotate {
			l.TextStyle[i].Rotation = 1.5707963267948966 // π/2: up the bar
			l.TextStyle[i].YAlign = -0.5
			l.TextStyle[i].XAlign = 0
		} else {
			l.TextStyle[i].XAlign = -0.5
		}
	}
	p.Add(l)
	return nil
}

// emptyPlot is a panel with no data that says why.
func emptyPlot(title, why string) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.HideAxes()
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	if err := note(p, 0.5, 0.5, why, false); err != nil {
		return nil, err
	}
	return p, nil
}
