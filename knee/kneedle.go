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
	// math.SmallestNonzeroFloat64: a drop must still exceed the rounding
	// tolerance (at least 1e-12, see the package documentation), so that
	// rounding noise makes no knee.
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
	// Strict accepts only a knee that lies inside the curve (not its first
	// or last point) and strictly above the chord (Knee.Diff greater than
	// the rounding tolerance); a local maximum that fails this is passed
	// over and the scan goes on. kneed has no such check: on a noisy curve,
	// or one given the wrong shape, it can report the first point, or a
	// point below the chord, as the knee. The default (false) is kneed's
	// behaviour; set Strict when such a knee would be acted upon, as by a
	// scale-in tuner.
	Strict bool
}

// Validate checks o and returns the options with defaults filled in.
func (o Options) validate() (Options, error) {
	if math.IsNaN(o.S) || math.IsInf(o.S, 0) || o.S < 0 {
		return o, fmt.Errorf("%w: S = %v, want a finite S ≥ 0", ErrConfig, o.S)
	}
	if o.S == 0 {
		o.S = 1
	}
	if o.Curve != Concave && o.Curve != Convex {
		return o, fmt.Errorf("%w: Curve = %v", ErrConfig, o.Curve)
	}
	if o.Direction != Increasing && o.Direction != Decreasing {
		return o, fmt.Errorf("%w: Direction = %v", ErrConfig, o.Direction)
	}
	switch o.Interp.Method {
	case InterpNone:
	case InterpPolynomial:
		if o.Interp.Degree < 0 {
			return o, fmt.Errorf("%w: Interp.Degree = %d, want ≥ 0", ErrConfig, o.Interp.Degree)
		}
		if o.Interp.Degree == 0 {
			o.Interp.Degree = DefaultDegree
		}
	default:
		return o, fmt.Errorf("%w: Interp.Method = %v", ErrConfig, o.Interp.Method)
	}
	return o, nil
}

// Validate reports whether o is usable: a nil error or one matching
// ErrConfig.
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
	// Diff is the difference curve at the knee (a local maximum): how far
	// the knee lies above the chord in the unit square, in (0, 1] with
	// Strict, and possibly 0 or below without it (as in kneed).
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
	// DiffCurve is the whole normalised difference curve, DiffCurve[i]
	// belonging to point i, after the curve has been turned into a concave
	// increasing one in the unit square (see the package documentation);
	// Knee.Diff is its value at the knee. It is nil when no difference
	// curve exists: fewer than 3 points or a flat y.
	DiffCurve []float64
}

// minTol is the smallest rounding tolerance, in the unit square: a fall of
// the difference curve must exceed it to declare a knee, and with Strict a
// knee must lie above the chord by more than it. It matters only for a
// tiny S (kneed counts any fall) and keeps rounding noise from making a
// knee. The tolerance grows when the data carry a large offset relative to
// their range (see resolution). Local maxima and minima are found by exact
// comparisons, as kneed finds them.
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
// ErrNonFinite or ErrNotIncreasing) and a zero Result. Fewer than three
// points, a flat y and a straight line in the declared direction have no
// knee: Found is false and the error nil. Invalid options give an error
// matching ErrConfig.
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
			return &InputError{Input: "x", Index: i, Value: v, Err: ErrNonFinite}
		}
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &InputError{Input: "y", Index: i, Value: v, Err: ErrNonFinite}
		}
	}
	for i := 1; i < len(x); i++ {
		if !(x[i] > x[i-1]) {
			return &InputError{Input: "x", Index: i, Value: x[i], Prev: x[i-1], Err: ErrNotIncreasing}
		}
	}
	return nil
}

// workspace holds the buffers of one Kneedle run so that repeated runs (the
// online detector) do not allocate.
type workspace struct {
	ys   []float64 // smoothed y
	d    []float64 // difference curve, frame order
	dx   []float64 // successive differences of x̂
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
	lo, hi = float64(lo*0.5), float64(hi*0.5)
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
		v = float64(v * 0.5)
	}
	return (v - m.lo) / m.width
}

// mirror returns (hi − v)/(hi − lo).
func (m unitMap) mirror(v float64) float64 {
	if m.half {
		v = float64(v * 0.5)
	}
	return (m.hi - v) / m.width
}

// kneedle runs the algorithm on validated input with validated options.
// With full it also fills Result.All and Result.DiffCurve.
//
// On evenly spaced x every floating-point operation is kneed 0.8.6's, in
// kneed's order (KneeLocator.__init__ and find_knee in
// kneed/knee_locator.py), so that ties and near-ties fall the same way.
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

	// Step 2: normalise to the unit square, x̂ = (x − min x)/(max x − min x)
	// and ŷ likewise.
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
	// index k, or n−1−k when the curve is mirrored. kneed mirrors by
	// reversing ŷ and keeping x̂ in place (u_k = x̂_k), which is mirroring
	// x only when the spacing is symmetric; otherwise x is mirrored too
	// (u_k = 1 − x̂_{n−1−k}, computed as (max x − x)/(max x − min x)).
	mirrored := (o.Curve == Concave) == (o.Direction == Decreasing)
	flipY := o.Curve == Convex
	mirrorX := mirrored && !symmetric(x, xm)
	w.d = grow(w.d, n)
	d := w.d
	for k := range n {
		i := k
		if mirrored {
			i = n - 1 - k
		}
		var u float64
		if mirrorX {
			u = xm.mirror(x[i])
		} else {
			u = xm.at(x[k])
		}
		v := ym.at(ys[i])
		if flipY {
			v = 1 - v // kneed: ŷ.max() − ŷ, and ŷ.max() is exactly 1
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
		res.DiffCurve = make([]float64, n)
		for k, v := range d {
			res.DiffCurve[dataIndex(k)] = v
		}
	}
	knee := func(k int) Knee {
		i := dataIndex(k)
		return Knee{Index: i, X: x[i], Y: y[i], NormX: xm.at(x[i]), NormY: ym.at(ys[i]), Diff: d[k]}
	}

	// Step 4: local maxima and minima of the difference curve: points not
	// below (not above) either neighbour, an end point being compared with
	// itself (kneed: argrelextrema with greater_equal / less_equal, mode
	// "clip").
	isMax := func(k int) bool {
		return d[k] >= d[max(k-1, 0)] && d[k] >= d[min(k+1, n-1)]
	}
	isMin := func(k int) bool {
		return d[k] <= d[max(k-1, 0)] && d[k] <= d[min(k+1, n-1)]
	}

	// Step 5: the threshold of a local maximum lies S·mean(Δx̂) below it
	// (kneed: Tmx = y_difference_maxima − S·|mean(diff(x_normalized))|,
	// numpy's pairwise summation included). The explicit conversion keeps
	// the product from being fused into the subtraction.
	w.dx = grow(w.dx, n-1)
	step := float64(o.S * meanStep(x, xm, w.dx))

	// Step 6: scan from the first local maximum. A local maximum sets the
	// threshold and arms detection; a local minimum (also when it is a
	// maximum too) disarms it until the next maximum; while armed, a next
	// value below the threshold declares a knee at the maximum the
	// threshold came from (kneed 0.8.6's find_knee).
	thr, thrK, armed, last := 0.0, -1, false, -1
	for k := 0; k < n-1; k++ {
		if isMax(k) {
			thr, thrK, armed = d[k]-step, k, true
		}
		if thrK < 0 {
			continue // before the first local maximum
		}
		if isMin(k) {
			armed = false
		}
		if !armed || !(d[k+1] < thr) {
			continue
		}
		// Beyond kneed: a drop within rounding is no drop (it only matters
		// when S·mean(Δx̂) is below the tolerance), and Strict wants an
		// interior knee above the chord.
		if !(d[thrK]-d[k+1] > tol) {
			continue
		}
		if o.Strict && (thrK == 0 || d[thrK] <= tol) {
			continue
		}
		if thrK == last {
			continue // online: the same knee again
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

// symTol is how far, relative to the range of x, the spacing of x may be
// from symmetric for Kneedle to mirror the curve the way kneed does.
const symTol = 1e-9

// symmetric reports whether the spacing of x is symmetric about its
// middle, x_k − x_0 = x_{n−1} − x_{n−1−k} for every k to within symTol of
// the range: true for evenly spaced x, up to the rounding of x itself.
func symmetric(x []float64, xm unitMap) bool {
	n := len(x)
	for k := 1; k < n-1; k++ {
		if math.Abs(xm.at(x[k])-xm.mirror(x[n-1-k])) > symTol {
			return false
		}
	}
	return true
}

// meanStep returns kneed's |mean(diff(x̂))|, x̂ = xm.at(x), computed as
// numpy computes it; dx (len(x)−1) is scratch space.
func meanStep(x []float64, xm unitMap, dx []float64) float64 {
	for k := range dx {
		dx[k] = xm.at(x[k+1]) - xm.at(x[k])
	}
	return math.Abs(pairwiseSum(dx) / float64(len(dx)))
}

// pairwiseSum adds a the way numpy's add.reduce does for a contiguous
// float64 array (pairwise_sum in numpy/core/src/umath/loops_utils.h.src):
// blocks of at most 128 values summed in eight interleaved accumulators,
// larger arrays split in two at a multiple of 8. np.mean is this sum divided
// by the count.
func pairwiseSum(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		s := 0.0
		for _, v := range a {
			s += v
		}
		return s
	case n <= 128:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range 8 {
				r[j] += a[i+j]
			}
		}
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += a[i]
		}
		return s
	}
	n2 := n / 2
	n2 -= n2 % 8
	return pairwiseSum(a[:n2]) + pairwiseSum(a[n2:])
}
