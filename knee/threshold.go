package knee

import (
	"fmt"
	"math"
)

// Defaults of Threshold, from the MLLess scale-in scheduler.
const (
	DefaultSpan   = 20      // EWMA span, in points
	DefaultSlope  = -7.5e-5 // loss units per unit of t (per step when t is the step)
	DefaultStable = 5       // consecutive flat checks
)

// Threshold is the first-derivative knee heuristic of the MLLess scale-in
// scheduler (MLLess §4.2, "Automatic knee detection"), as an online
// detector: the knee is the first point of the loss curve whose smoothed
// slope is flatter than Slope, accepted once the slope has stayed flatter
// for Stable consecutive points. The zero value uses the MLLess defaults.
//
// Exact semantics. For the accepted points (t_i, L_i), i = 0, 1, …:
//
//  1. s_i = EWMA(L)_i, the bias-corrected exponentially weighted mean
//     Σ_{j≤i} w^{i−j}·L_j / Σ_{j≤i} w^{i−j} with w = 1 − α and
//     α = 2/(Span+1) (pandas ewm(span=Span).mean(), adjust=True);
//  2. for i ≥ 1, the slope into point i, δ_i = (s_i − s_{i−1})/(t_i − t_{i−1}),
//     and its smoothed value g_i = EWMA(δ)_i over δ_1…δ_i (same span);
//  3. point i ≥ 1 is flat when g_i > Slope and steep otherwise;
//  4. the knee is the first point of the first run of Stable consecutive
//     flat points that comes after at least one steep point; it is accepted
//     (Add returns true) on the last point of that run.
//
// Rule 4's "after a steep point" is what makes a curve that is flat from
// the start (a constant, or a line gentler than Slope) and a line steeper
// than Slope knee-free.
//
// Differences from the MLLess code (pablogs98/MLLess,
// MLLess/utils/predictor/knee.py), which on every step re-smooths the whole
// history with the mean of a forward and a backward EWMA (so that past
// smoothed values change) and accepts a candidate index once it has not
// increased for 5 further checks: here the smoothing is causal (past values
// never change, so Add is O(1) and the knee never moves), the run of Stable
// flat points includes the first one (MLLess needs 1+5 checks), and the
// knee is the point the flat slope leads into (MLLess reports the index of
// the slope, one point earlier). MLLess compares per-step slopes; pass the
// step number as t to keep the default Slope meaningful.
type Threshold struct {
	// Span of both EWMAs, in points: α = 2/(Span+1). 0 means DefaultSpan
	// (20); Span = 1 disables smoothing. Must be ≥ 1 (or 0).
	Span float64
	// Slope is the flatness threshold, in loss units per unit of t; a
	// smoothed slope greater than Slope is flat. 0 means DefaultSlope
	// (−7.5e−5). Must be negative (or 0) and finite.
	Slope float64
	// Stable is the number of consecutive flat points needed to accept the
	// knee; 0 means DefaultStable (5). Must be ≥ 0.
	Stable int

	ready        bool
	alpha, slope float64
	stable       int
	n            int     // points accepted
	lastT        float64 // t of the last accepted point
	sNum, sDen   float64 // EWMA of the loss: numerator and weight sum
	s            float64 // current smoothed loss
	gNum, gDen   float64 // EWMA of the slope
	g            float64 // current smoothed slope
	steep        bool    // a steep point has been seen
	run          int     // length of the current run of flat points
	runStart     Point   // first point of the current run
	found        bool
	knee         Point
	ignored      int
}

// Validate checks the settings: nil or an error matching ErrConfig.
func (d *Threshold) Validate() error {
	switch {
	case math.IsNaN(d.Span) || math.IsInf(d.Span, 0) || (d.Span != 0 && d.Span < 1):
		return fmt.Errorf("%w: Threshold.Span = %v, want ≥ 1", ErrConfig, d.Span)
	case math.IsNaN(d.Slope) || math.IsInf(d.Slope, 0) || d.Slope > 0:
		return fmt.Errorf("%w: Threshold.Slope = %v, want a finite negative slope", ErrConfig, d.Slope)
	case d.Stable < 0:
		return fmt.Errorf("%w: Threshold.Stable = %d, want ≥ 0", ErrConfig, d.Stable)
	}
	return nil
}

func (d *Threshold) init() {
	if d.ready {
		return
	}
	if err := d.Validate(); err != nil {
		panic(err) // programmer error: invalid settings
	}
	span := d.Span
	if span == 0 {
		span = DefaultSpan
	}
	d.alpha = 2 / (span + 1)
	d.slope = d.Slope
	if d.slope == 0 {
		d.slope = DefaultSlope
	}
	d.stable = d.Stable
	if d.stable == 0 {
		d.stable = DefaultStable
	}
	d.ready = true
}

// Add feeds the loss at time (or step) t and reports whether the knee has
// been accepted, at this call or an earlier one. Points with a NaN or
// infinite t or loss, with t not greater than the last accepted t, or
// whose smoothed values would overflow, are ignored. Add panics if the settings are invalid (see Validate); they
// must not change after the first Add.
func (d *Threshold) Add(t, loss float64) (knee bool) {
	d.init()
	if !finite(t) || !finite(loss) || (d.n > 0 && !(t > d.lastT)) {
		d.ignored++
		return d.found
	}
	// Compute the new state first and commit it only if it is finite, so
	// that a point whose values overflow is ignored like a NaN.
	w := 1 - d.alpha
	sNum, sDen := loss+float64(w*d.sNum), 1+float64(w*d.sDen)
	s := sNum / sDen
	gNum, gDen, g := d.gNum, d.gDen, d.g
	if d.n > 0 {
		delta := (s - d.s) / (t - d.lastT)
		gNum, gDen = delta+float64(w*gNum), 1+float64(w*gDen)
		g = gNum / gDen
	}
	if !finite(sNum) || !finite(s) || !finite(gNum) || !finite(g) {
		d.ignored++
		return d.found
	}
	d.sNum, d.sDen, d.s = sNum, sDen, s
	d.gNum, d.gDen, d.g = gNum, gDen, g
	if d.n > 0 && !d.found {
		d.check(Point{Index: d.n, X: t, Y: loss})
	}
	d.n++
	d.lastT = t
	return d.found
}

// check applies rules 3 and 4 to point p, whose smoothed slope is d.g.
func (d *Threshold) check(p Point) {
	if !(d.g > d.slope) { // steep
		d.steep = true
		d.run = 0
		return
	}
	if !d.steep {
		return
	}
	if d.run == 0 {
		d.runStart = p
	}
	d.run++
	if d.run >= d.stable {
		d.found, d.knee = true, d.runStart
	}
}

// Knee returns the accepted knee: its index among the accepted points, t
// and the raw loss. ok is false while there is none.
func (d *Threshold) Knee() (p Point, ok bool) { return d.knee, d.found }

// Smoothed returns the current smoothed loss s_i and smoothed slope g_i;
// NaN before the first point (loss) or the second (slope).
func (d *Threshold) Smoothed() (loss, slope float64) {
	switch d.n {
	case 0:
		return math.NaN(), math.NaN()
	case 1:
		return d.s, math.NaN()
	}
	return d.s, d.g
}

// N returns the number of points accepted so far.
func (d *Threshold) N() int { return d.n }

// Ignored returns how many points Add has ignored as bad.
func (d *Threshold) Ignored() int { return d.ignored }

// Reset forgets all points and the knee, keeping Span, Slope and Stable
// (which may be changed before the next Add).
func (d *Threshold) Reset() {
	*d = Threshold{Span: d.Span, Slope: d.Slope, Stable: d.Stable}
}
