package knee

import (
	"fmt"
	"math"
)

// Curve is the shape of the curve around the knee.
type Curve int

const (
	// Concave curves bend downwards (negative second derivative): a "knee", like throughput
	// against load or accuracy against training steps. The default.
	Concave Curve = iota
	// Convex curves bend upwards (positive second derivative): an "elbow", like a training loss
	// against steps or a K-means inertia against k.
	Convex
)

func (c Curve) String() string {
	switch c {
	case Concave:
		return "concave"
	case Convex:
		return "convex"
	}
	return fmt.Sprintf("Curve(%d)", int(c))
}

// Direction says whether y grows or falls with x.
type Direction int

const (
	// Increasing: y grows with x. The default.
	Increasing Direction = iota
	// Decreasing: y falls as x grows.
	Decreasing
)

func (d Direction) String() string {
	switch d {
	case Increasing:
		return "increasing"
	case Decreasing:
		return "decreasing"
	}
	return fmt.Sprintf("Direction(%d)", int(d))
}

// InterpMethod selects how y is smoothed before detection.
type InterpMethod int

const (
	// InterpNone uses y as given. It is what kneed's default
	// interp_method="interp1d" amounts to: kneed evaluates a linear
	// interpolant of the data at the data's own x values.
	InterpNone InterpMethod = iota
	// InterpPolynomial replaces y by the least-squares polynomial of degree
	// Interp.Degree in x, evaluated at the data's x values: kneed's
	// interp_method="polynomial" with polynomial_degree. Use it for noisy
	// curves.
	InterpPolynomial
)

func (m InterpMethod) String() string {
	switch m {
	case InterpNone:
		return "none"
	case InterpPolynomial:
		return "polynomial"
	}
	return fmt.Sprintf("InterpMethod(%d)", int(m))
}

// DefaultDegree is the polynomial degree used when Interp.Degree is 0
// (kneed's default polynomial_degree).
const DefaultDegree = 7

// Interp is the optional smoothing of y applied before detection.
type Interp struct {
	// Method is InterpNone (the default) or InterpPolynomial.
	Method InterpMethod
	// Degree of the least-squares polynomial for InterpPolynomial; 0 means
	// DefaultDegree (7). A degree of at least len(x)−1 interpolates the data
	// and so leaves y unchanged. Must be ≥ 0.
	Degree int
}

// Options configures Kneedle. The zero value is the paper's and kneed's
// default: S = 1, a concave increasing curve, offline, no smoothing.
type Options struct {
	// S is the sensitivity: how many "flat" steps of mean x spacing (in the
	// unit square) the difference curve must drop below a local maximum
	// before that maximum is declared a knee. Larger is more conservative.
	// 0 means the default 1; negative, NaN and ±Inf are errors. For the
	// most aggressive setting, S = 0 in the paper and kneed (a knee at the
	// first local maximum followed by any drop), pass a tiny S such as
	// math.SmallestNonzeroFloat64: drops below the tie tolerance (at least
	// 1e-12, see the package documentation) are rounding noise either way.
	S float64
	// Curve is Concave (knee, the default) or Convex (elbow).
	Curve Curve
	// Direction is Increasing (the default) or Decreasing.
	Direction Direction
	// Online keeps scanning after the first knee: Result holds the last
	// knee declared and Result.All every knee declared, in order. Offline
	// (the default) stops at the first knee, like kneed's online=False.
	Online bool
	// Interp is the optional smoothing of y; the default is none.
	Interp Interp
}

// Validate checks o and returns the options with defaults filled in.
func (o Options) validate() (Options, error) {
	if math.IsNaN(o.S) || math.IsInf(o.S, 0) || o.S < 0 {
		return o, fmt.Errorf("%w: S = %v, want a finite S ≥ 0", ErrOption, o.S)
	}
	if o.S == 0 {
		o.S = 1
	}
	if o.Curve != Concave && o.Curve != Convex {
		return o, fmt.Errorf("%w: Curve = %v", ErrOption, o.Curve)
	}
	if o.Direction != Increasing && o.Direction != Decreasing {
		return o, fmt.Errorf("%w: Direction = %v", ErrOption, o.Direction)
	}
	switch o.Interp.Method {
	case InterpNone:
	case InterpPolynomial:
		if o.Interp.Degree < 0 {
			return o, fmt.Errorf("%w: Interp.Degree = %d, want ≥ 0", ErrOption, o.Interp.Degree)
		}
		if o.Interp.Degree == 0 {
			o.Interp.Degree = DefaultDegree
		}
	default:
		return o, fmt.Errorf("%w: Interp.Method = %v", ErrOption, o.Interp.Method)
	}
	return o, nil
}

// Validate reports whether o is usable: a nil error or one matching
// ErrOption.
func (o Options) Validate() error {
	_, err := o.validate()
	return err
}

// Knee is a knee point found by Kneedle.
type Knee struct {
	// Index of the knee in x and y.
	Index int
	// X and Y are x[Index] and y[Index] (y as given, not smoothed).
	X, Y float64
	// NormX and NormY are the knee in the unit square, in the data's own
	// orientation: NormX = (X − min x)/(max x − min x) and NormY likewise
	// for the (smoothed) y.
	NormX, NormY float64
	// Diff is the difference curve at the knee (a local maximum), in (0, 1).
	Diff float64
}

// Result is the outcome of Kneedle.
type Result struct {
	// Found reports whether a knee was found. When it is false the
	// embedded Knee is zero.
	Found bool
	// Knee is the first knee (offline) or the last knee declared (online).
	Knee
	// All lists every knee declared, in the order found (increasing
	// difference-curve position): only the first offline, all of them
	// online.
	All []Knee
	// Diff is the normalised difference curve, Diff[i] belonging to point
	// i, after the curve has been turned into a concave increasing one in
	// the unit square (see the package documentation). It is nil when no
	// difference curve exists: fewer than 3 points or a flat y.
	Diff []float64
}

// minTol is the smallest tolerance, in the unit square, below which two
// values of the difference curve count as equal and a drop counts as none.
// It makes the result independent of rounding: of affine rescaling of x
// and y, of mirroring, and of ties that exact arithmetic would break either
// way. The tolerance grows when the data carry a large offset relative to
// their range (see resolution).
const minTol = 1e-12

// ulps is how many units in the last place of the largest |x| and |y| the
// data are taken to be known to, rounding and smoothing included.
const ulps = 64

// flatTol is the relative spread of y below which the curve is flat.
const flatTol = 1e-12

// Kneedle finds the knee (or elbow) of the curve y(x) with the Kneedle
// algorithm of Satopää et al. (2011), following kneed where the paper is
// silent; the package documentation gives the steps and the choices made.
//
// x must be strictly increasing, x and y of equal length and finite;
// otherwise Kneedle returns an error (ErrLength, or an *InputError wrapping
// ErrNotFinite or ErrNotIncreasing) and a zero Result. Fewer than three
// points, a flat y and a straight line have no knee: Found is false and the
// error nil. Invalid options give an error matching ErrOption.
func Kneedle(x, y []float64, opt Options) (Result, error) {
	o, err := opt.validate()
	if err != nil {
		return Result{}, err
	}
	if err := checkInput(x, y); err != nil {
		return Result{}, err
	}
	var w workspace
	return w.kneedle(x, y, o, true), nil
}

// checkInput checks lengths, finiteness and the order of x.
func checkInput(x, y []float64) error {
	if len(x) != len(y) {
		return fmt.Errorf("%w: len(x) = %d, len(y) = %d", ErrLength, len(x), len(y))
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &InputError{Name: "x", Index: i, Value: v, Err: ErrNotFinite}
		}
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &InputError{Name: "y", Index: i, Value: v, Err: ErrNotFinite}
		}
	}
	for i := 1; i < len(x); i++ {
		if !(x[i] > x[i-1]) {
			return &InputError{Name: "x", Index: i, Value: x[i], Prev: x[i-1], Err: ErrNotIncreasing}
		}
	}
	return nil
}

// workspace holds the buffers of one Kneedle run so that repeated runs (the
// online detector) do not allocate.
type workspace struct {
	ys   []float64 // smoothed y
	d    []float64 // difference curve, frame order
	poly polyFit
}

// grow returns s resliced to n, reallocating if needed.
func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n, n+n/4)
	}
	return s[:n]
}

// unitMap maps [lo, hi] onto [0, 1]. When hi−lo overflows, every operand
// is halved first (exact for normal numbers, so nothing else changes).
type unitMap struct {
	lo, hi, width float64
	half          bool
}

func newUnitMap(lo, hi float64) unitMap {
	if w := hi - lo; !math.IsInf(w, 0) {
		return unitMap{lo: lo, hi: hi, width: w}
	}
	lo, hi = lo*0.5, hi*0.5
	return unitMap{lo: lo, hi: hi, width: hi - lo, half: true}
}

// resolution returns the spacing, in [0, 1], of the float64 values near
// lo and hi (ulps units in the last place of the larger magnitude) — what
// rounding of the inputs alone can move a normalised value by.
func (m unitMap) resolution() float64 {
	return ulps * 0x1p-52 * max(math.Abs(m.lo), math.Abs(m.hi)) / m.width
}

// at returns (v − lo)/(hi − lo).
func (m unitMap) at(v float64) float64 {
	if m.half {
		v *= 0.5
	}
	return (v - m.lo) / m.width
}

// mirror returns (hi − v)/(hi − lo).
func (m unitMap) mirror(v float64) float64 {
	if m.half {
		v *= 0.5
	}
	return (m.hi - v) / m.width
}

// kneedle runs the algorithm on validated input with validated options.
// With full it also fills Result.All and Result.Diff.
func (w *workspace) kneedle(x, y []float64, o Options, full bool) Result {
	n := len(x)
	if n < 3 {
		return Result{}
	}

	// Step 1: optional smoothing.
	ys := y
	if o.Interp.Method == InterpPolynomial && o.Interp.Degree < n-1 {
		w.ys = grow(w.ys, n)
		w.poly.fit(x, y, o.Interp.Degree, w.ys)
		ys = w.ys
	}

	// Step 2: normalise to the unit square.
	ymin, ymax := ys[0], ys[0]
	for _, v := range ys {
		ymin = math.Min(ymin, v)
		ymax = math.Max(ymax, v)
	}
	if !(ymax-ymin > flatTol*math.Max(math.Abs(ymin), math.Abs(ymax))) {
		return Result{} // flat: no knee
	}
	xm := newUnitMap(x[0], x[n-1])
	ym := newUnitMap(ymin, ymax)
	tol := max(minTol, xm.resolution()+ym.resolution())

	// Step 3: turn the curve into a concave increasing one and take the
	// difference curve d_k = v_k − u_k in that frame. Frame index k is data
	// index k, or n−1−k when x is mirrored.
	mirrored := (o.Curve == Concave) == (o.Direction == Decreasing)
	flipY := o.Curve == Convex
	w.d = grow(w.d, n)
	d := w.d
	for k := range n {
		i := k
		var u float64
		if mirrored {
			i = n - 1 - k
			u = xm.mirror(x[i])
		} else {
			u = xm.at(x[i])
		}
		v := ym.at(ys[i])
		if flipY {
			v = 1 - v
		}
		d[k] = v - u
	}
	dataIndex := func(k int) int {
		if mirrored {
			return n - 1 - k
		}
		return k
	}

	res := Result{}
	if full {
		res.Diff = make([]float64, n)
		for k, v := range d {
			res.Diff[dataIndex(k)] = v
		}
	}
	knee := func(k int) Knee {
		i := dataIndex(k)
		return Knee{Index: i, X: x[i], Y: y[i], NormX: xm.at(x[i]), NormY: ym.at(ys[i]), Diff: d[k]}
	}

	// Step 4: local maxima and minima of the difference curve, comparing
	// each point with its neighbours (an end point with itself).
	isMax := func(k int) bool {
		l, r := d[max(k-1, 0)], d[min(k+1, n-1)]
		return d[k] >= l-tol && d[k] >= r-tol
	}
	isMin := func(k int) bool {
		l, r := d[max(k-1, 0)], d[min(k+1, n-1)]
		return d[k] <= l+tol && d[k] <= r+tol
	}

	// Steps 5 and 6: from each local maximum, a threshold S·mean(Δu) below
	// it; a knee is declared at the maximum when the curve drops below the
	// threshold before the next maximum. A local minimum resets the
	// threshold to 0 until the next maximum.
	step := o.S / float64(n-1) // mean spacing of u is exactly 1/(n−1)
	thr, thrK, last := 0.0, -1, -1
	for k := 0; k < n-1; k++ {
		if isMax(k) {
			thr, thrK = d[k]-step, k
		}
		if thrK < 0 {
			continue // before the first local maximum
		}
		if isMin(k) {
			thr = 0
		}
		if !(d[k+1] < thr-tol) {
			continue
		}
		// A knee lies strictly inside the curve and above the chord.
		if thrK == 0 || d[thrK] <= tol || thrK == last {
			continue
		}
		last = thrK
		kn := knee(thrK)
		res.Found, res.Knee = true, kn
		if full {
			res.All = append(res.All, kn)
		}
		if !o.Online {
			break
		}
	}
	return res
}
