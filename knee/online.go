package knee

import (
	"fmt"
	"math"
)

// Point is a point of a curve fed to a Detector.
type Point struct {
	// Index counts the points a detector has accepted, from 0 (ignored
	// points are not counted).
	Index int
	// X and Y are the point as given to Add (for Threshold: t and the raw,
	// unsmoothed loss).
	X, Y float64
}

// Detector finds a knee in a curve fed one point at a time, as the
// scale-in auto-tuner sees its loss curve. Threshold and OnlineKneedle
// implement it.
//
// Add feeds the next point and reports whether a knee has been accepted,
// at this call or an earlier one; once accepted the knee never moves. Points
// with a NaN or infinite coordinate, or whose x is not greater than the last
// accepted x, are ignored (Add returns the current answer and the state is
// unchanged). Knee returns the accepted knee. Reset forgets all points and
// the knee but keeps the settings.
//
// A Detector does no I/O, reads no clock and is not safe for concurrent
// use.
type Detector interface {
	Add(x, y float64) (knee bool)
	Knee() (Point, bool)
	Reset()
}

var (
	_ Detector = (*Threshold)(nil)
	_ Detector = (*OnlineKneedle)(nil)
)

// OnlineKneedle runs Kneedle on the points fed so far after every Add and
// accepts a knee once Kneedle has returned the same knee (the same Index)
// for Stable consecutive Adds. The zero value uses Kneedle's default
// options (a concave increasing curve); set Options.Curve = Convex and
// Options.Direction = Decreasing for a training loss. Options.Strict is
// always set: a detector's knee is acted upon, and kneed's reading would
// accept the first point of a loss that stays flat before it falls.
//
// Kneedle normalises the curve seen so far to the unit square, so a knee
// found on a prefix is relative to that prefix: on a smooth convex decay
// the first knee appears as soon as the prefix bends enough, and then moves
// right as the curve grows (for an exponential decay with time constant τ,
// by about τ/n points per point). Stable > 1 therefore waits until the
// knee has stopped moving, which happens once the curve has flattened for a
// while; Stable = 1 reports the first knee found. For example, on the
// noise-free loss 0.3 + 0.7·exp(−t/40), Stable = 1 accepts the knee t = 9
// after 19 points and the default Stable = 5 accepts t = 55 after 158
// points (Threshold, with its absolute slope, gives t = 241). On noisy
// losses, smooth (Options.Interp) or prefer Threshold.
//
// Each Add costs one Kneedle run over all points so far: O(n), or
// O(n·Degree²) with polynomial smoothing. The buffers are reused, so Add
// does not allocate once they have grown. After the knee is accepted, Add
// stores nothing more.
type OnlineKneedle struct {
	// Options are passed to Kneedle on every Add, with Strict set.
	// Options.Online selects which knee of each run is considered (the last
	// rather than the first). They must not change after the first Add.
	Options Options
	// Stable is how many consecutive Adds must return the same knee before
	// it is accepted; 0 means DefaultStable (5, as MLLess's "stable for 5
	// checks"); 1 accepts the first knee found. Must be ≥ 0.
	Stable int

	opt       Options // validated Options
	stable    int
	ready     bool
	x, y      []float64
	ws        workspace
	candidate int
	count     int
	found     bool
	knee      Point
	ignored   int
}

// Validate checks the settings: nil or an error matching ErrConfig.
func (d *OnlineKneedle) Validate() error {
	if _, err := d.Options.validate(); err != nil {
		return err
	}
	if d.Stable < 0 {
		return fmt.Errorf("%w: OnlineKneedle.Stable = %d, want ≥ 0", ErrConfig, d.Stable)
	}
	return nil
}

func (d *OnlineKneedle) init() {
	if d.ready {
		return
	}
	if err := d.Validate(); err != nil {
		panic(err) // programmer error: invalid settings
	}
	d.opt, _ = d.Options.validate()
	d.opt.Strict = true
	d.stable = d.Stable
	if d.stable == 0 {
		d.stable = DefaultStable
	}
	d.ready = true
}

// Add feeds the point (x, y) and reports whether a knee has been accepted.
// See Detector for the handling of bad points. Add panics if the settings
// are invalid (see Validate).
func (d *OnlineKneedle) Add(x, y float64) (knee bool) {
	d.init()
	if d.found {
		return true
	}
	if !finite(x) || !finite(y) || (len(d.x) > 0 && !(x > d.x[len(d.x)-1])) {
		d.ignored++
		return false
	}
	d.x = append(d.x, x)
	d.y = append(d.y, y)
	r := d.ws.kneedle(d.x, d.y, d.opt, false)
	switch {
	case !r.Found:
		d.count = 0
	case d.count > 0 && r.Index == d.candidate:
		d.count++
	default:
		d.candidate, d.count = r.Index, 1
	}
	if d.count >= d.stable {
		d.found = true
		d.knee = Point{Index: r.Index, X: r.X, Y: r.Y}
		d.x, d.y, d.ws = nil, nil, workspace{}
	}
	return d.found
}

// Knee returns the accepted knee; ok is false while there is none.
func (d *OnlineKneedle) Knee() (p Point, ok bool) { return d.knee, d.found }

// N returns the number of points accepted so far (before the knee).
func (d *OnlineKneedle) N() int { return len(d.x) }

// Ignored returns how many points Add has ignored as bad.
func (d *OnlineKneedle) Ignored() int { return d.ignored }

// Reset forgets all points and the knee, keeping Options and Stable (which
// may be changed before the next Add).
func (d *OnlineKneedle) Reset() {
	*d = OnlineKneedle{Options: d.Options, Stable: d.Stable, x: d.x[:0], y: d.y[:0], ws: d.ws}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
