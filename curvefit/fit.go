package curvefit

import (
	"fmt"
	"math"

	"github.com/syncmodels/syncmodels/internal/fpdet"
)

// FitOptions configures FitPower and FitQuadratic. The zero value is the
// default.
type FitOptions struct {
	// Weights, if not nil, gives sample i the weight Weights[i] ≥ 0 in the
	// objective Σ Weights[i]·(y[i] − f(t[i]))². Samples of weight 0 are
	// ignored. Default: all 1.
	Weights []float64
	// MaxExponent bounds θ1 of the power curve (Eq. 2) to [0, MaxExponent].
	// Zero means 3 (SGD-like decay has θ1 ≈ 0.5…1). Ignored by
	// FitQuadratic.
	MaxExponent float64
}

// FitPower fits the MLLess Eq. 2 curve L(t) = 1/(θ0·t^θ1 + θ2) + θ3,
// θ ≥ 0, to the samples (t[i], y[i]) by least squares in the loss space
// (see the package documentation for the method). Times must be ≥ 0 and
// losses > 0; the losses are fitted as given (smooth them first with EWMA,
// as MLLess does).
//
// It returns an error, never a NaN curve, when the sample cannot be fitted:
// ErrLength, *InputError (ErrNonFinite, ErrDomain), ErrTooFewPoints (fewer
// than 4 weighted samples or 3 distinct times), ErrFlat (all losses equal)
// or ErrNoFit.
func FitPower(t, y []float64, opt FitOptions) (*Power, error) {
	emax := opt.MaxExponent
	if emax == 0 {
		emax = 3
	}
	if !(emax > 0) || math.IsInf(emax, 0) {
		return nil, fmt.Errorf("%w: MaxExponent = %v; want a finite value ≥ 0", ErrDomain, opt.MaxExponent)
	}
	f, err := newFitter(t, y, opt)
	if err != nil {
		return nil, err
	}
	f.ncol = 2
	var best struct {
		e, d, sse float64
		c         [2]float64
	}
	best.sse = math.Inf(1)
	profile := func(e float64) float64 {
		f.setPowerBasis(e)
		d, sse := f.profileD()
		if sse < best.sse {
			best.e, best.d, best.sse = e, d, sse
			copy(best.c[:], f.cBest)
		}
		return sse
	}
	grid := []float64{0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.65, 0.8, 1, 1.25, 1.5, 2, 2.5, 3}
	for i := range grid {
		grid[i] *= emax / 3
	}
	searchGrid(grid, profile, 1e-8, float64(1e-10*emax), nil)
	if math.IsInf(best.sse, 0) {
		return nil, ErrNoFit
	}
	// Undo the time scaling s = t/T: θ0·t^e = c0·s^e gives θ0 = c0·T^−e.
	p := &Power{Theta: [4]float64{float64(best.c[0] * fpdet.Pow(f.T, -best.e)), best.e, best.c[1], best.d}}
	if !finite(p.Theta[:]) {
		return nil, ErrNoFit
	}
	return p, nil
}

// FitQuadratic fits the MLLess Eq. 3 curve ℓ(t) = 1/(θ0·t² + θ1·t + θ2) + θ3,
// θ ≥ 0, to the samples (t[i], y[i]) by least squares in the loss space.
// Requirements and errors are those of FitPower.
func FitQuadratic(t, y []float64, opt FitOptions) (*Quadratic, error) {
	f, err := newFitter(t, y, opt)
	if err != nil {
		return nil, err
	}
	f.ncol = 3
	for i, s := range f.s {
		f.phi[3*i], f.phi[3*i+1], f.phi[3*i+2] = s*s, s, 1
	}
	d, sse := f.profileD()
	if math.IsInf(sse, 0) {
		return nil, ErrNoFit
	}
	c, T := f.cBest, f.T
	q := &Quadratic{Theta: [4]float64{c[0] / (T * T), c[1] / T, c[2], d}}
	if !finite(q.Theta[:]) {
		return nil, ErrNoFit
	}
	return q, nil
}

// fitter holds one validated sample and the workspace of the profile
// search. The time axis is scaled to s = t/T ∈ [0, 1], T = max t.
type fitter struct {
	s, y, sw []float64 // scaled times, losses, √weights (weights > 0 only)
	T, ymin  float64
	ncol     int       // basis size: 2 (power) or 3 (quadratic)
	phi      []float64 // m×ncol basis, row-major
	a, rhs   []float64 // weighted linearised NNLS problem
	g, gTry  []float64 // model denominators g = Φc at the current / trial c
	c, cTry  []float64
	cBest    []float64 // best c of the last profileD
	solver   Solver
}

func newFitter(t, y []float64, opt FitOptions) (*fitter, error) {
	if len(t) != len(y) {
		return nil, fmt.Errorf("%w: len(t) = %d, len(y) = %d", ErrLength, len(t), len(y))
	}
	if opt.Weights != nil && len(opt.Weights) != len(y) {
		return nil, fmt.Errorf("%w: len(Weights) = %d, len(y) = %d", ErrLength, len(opt.Weights), len(y))
	}
	f := &fitter{ymin: math.Inf(1)}
	ymax := math.Inf(-1)
	for i := range y {
		w := 1.0
		if opt.Weights != nil {
			w = opt.Weights[i]
		}
		if err := checkSample("t", i, t[i], t[i] >= 0); err != nil {
			return nil, err
		}
		if err := checkSample("y", i, y[i], y[i] > 0); err != nil {
			return nil, err
		}
		if err := checkSample("Weights", i, w, w >= 0); err != nil {
			return nil, err
		}
		if w == 0 {
			continue
		}
		f.s = append(f.s, t[i])
		f.y = append(f.y, y[i])
		f.sw = append(f.sw, math.Sqrt(w))
		f.T = max(f.T, t[i])
		f.ymin, ymax = min(f.ymin, y[i]), max(ymax, y[i])
	}
	m := len(f.y)
	distinct := map[float64]bool{}
	for _, s := range f.s {
		distinct[s] = true
	}
	if m < 4 || len(distinct) < 3 {
		return nil, fmt.Errorf("%w: %d weighted samples at %d distinct times; want ≥ 4 and ≥ 3", ErrTooFewPoints, m, len(distinct))
	}
	if ymax-f.ymin <= 1e-12*ymax {
		return nil, fmt.Errorf("%w: all losses are %v", ErrFlat, ymax)
	}
	for i := range f.s {
		f.s[i] /= f.T
	}
	f.phi = make([]float64, 3*m)
	f.a = make([]float64, 3*m)
	f.rhs = make([]float64, m)
	f.g = make([]float64, m)
	f.gTry = make([]float64, m)
	f.c = make([]float64, 3)
	f.cTry = make([]float64, 3)
	f.cBest = make([]float64, 3)
	return f, nil
}

// checkSample returns an *InputError for a non-finite x or, if !inDomain,
// an out-of-domain one.
func checkSample(name string, i int, x float64, inDomain bool) error {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return &InputError{Input: name, Index: i, Value: x, Err: ErrNonFinite}
	case !inDomain:
		return &InputError{Input: name, Index: i, Value: x, Err: ErrDomain}
	}
	return nil
}

// setPowerBasis sets the basis of Eq. 2 for the exponent e: (s^e, 1).
func (f *fitter) setPowerBasis(e float64) {
	for i, s := range f.s {
		f.phi[2*i], f.phi[2*i+1] = fpdet.Pow(s, e), 1
	}
}

// profileD minimises the profile SSE(θ3) = min_c SSE(θ3, c) over
// θ3 ∈ [0, ymin): a grid dense near ymin, then Brent's method between the
// neighbours of the best grid point. It returns the best θ3 and SSE and
// leaves the linear coefficients in f.cBest.
func (f *fitter) profileD() (d, sse float64) {
	sse = math.Inf(1)
	warm := false
	eval := func(x float64) float64 {
		if warm {
			copy(f.c, f.cBest[:f.ncol])
		}
		v := f.inner(x, warm)
		if v < sse {
			d, sse = x, v
			copy(f.cBest, f.c[:f.ncol])
		}
		return v
	}
	qs := []float64{1, 0.8, 0.6, 0.45, 0.3, 0.2, 0.12, 0.06, 0.03, 0.01, 3e-3, 1e-3, 3e-4, 1e-4, 1e-5, 1e-6}
	grid := make([]float64, len(qs))
	for i, q := range qs {
		grid[i] = f.ymin * (1 - q)
	}
	searchGrid(grid, eval, 1e-10, float64(1e-13*f.ymin), func() { warm = !math.IsInf(sse, 1) })
	return d, sse
}

// inner returns min_c SSE(θ3 = d, c) over c ≥ 0 for the current basis and
// leaves the minimiser in f.c. It is a Gauss–Newton iteration whose steps
// are NNLS problems: linearising 1/g around the current g = Φc,
//
//	y − d − 1/(Φc′) ≈ r + (Φc′ − g)/g²,  r = y − d − 1/g,
//
// so each step solves the weighted NNLS min ‖diag(√w/g²)(Φc′ − (g − r·g²))‖
// over c′ ≥ 0. The first step linearises at the data themselves
// (g = 1/(y − d), r = 0): it is the transformed fit 1/(y − d) ≈ Φc with
// weights √w·(y − d)². With warm set, the iteration starts from the
// current f.c instead. Steps that do not decrease the SSE are halved (c
// stays ≥ 0 on the segment).
func (f *fitter) inner(d float64, warm bool) float64 {
	m, k := len(f.y), f.ncol
	cur, start := math.Inf(1), 0
	if warm {
		// Start from the c in f.c (a neighbouring θ3's optimum).
		if cur = f.sse(d, f.c[:k], f.g); !math.IsInf(cur, 1) {
			start = 1
		}
	}
	if start == 0 {
		for i, yi := range f.y {
			f.g[i] = 1 / (yi - d)
		}
	}
	for it := start; it < 60; it++ {
		for i, gi := range f.g {
			r := 0.0
			if it > 0 {
				r = f.y[i] - d - 1/gi
			}
			w := f.sw[i] / (gi * gi)
			row := f.a[i*k : i*k+k]
			for j, p := range f.phi[i*k : i*k+k] {
				row[j] = w * p
			}
			f.rhs[i] = w * (gi - float64(r*gi*gi))
		}
		if _, err := f.solver.Solve(f.a[:m*k], m, k, f.rhs, f.cTry[:k]); err != nil {
			break
		}
		next := f.sse(d, f.cTry[:k], f.gTry)
		if it > 0 && !(next < cur) {
			if next-cur <= 1e-12*cur {
				break // converged: the step changes the SSE at rounding level
			}
			// Halve the step until the SSE decreases.
			for range 12 {
				for j := range k {
					f.cTry[j] = float64(0.5 * (f.c[j] + f.cTry[j]))
				}
				if next = f.sse(d, f.cTry[:k], f.gTry); next < cur {
					break
				}
			}
		}
		if !(next < cur) {
			break
		}
		done := it > 0 && cur-next <= 1e-13*cur
		cur = next
		copy(f.c, f.cTry[:k])
		f.g, f.gTry = f.gTry, f.g
		if done {
			break
		}
	}
	return cur
}

// sse returns Σ w (y − d − 1/(Φc))² and stores Φc in g; +Inf if some
// Φc ≤ 0 (the curve is infinite at that sample).
func (f *fitter) sse(d float64, c, g []float64) float64 {
	k := len(c)
	sum := 0.0
	for i, yi := range f.y {
		gi := dot(f.phi[i*k:i*k+k], c)
		if !(gi > 0) {
			return math.Inf(1)
		}
		g[i] = gi
		r := f.sw[i] * (yi - d - 1/gi)
		sum += float64(r * r)
	}
	return sum
}

// searchGrid evaluates fn on the ascending grid and then runs Brent's
// method on the interval between the neighbours of the best grid point
// (fn records its own best point). refine, if not nil, is called between
// the two phases.
func searchGrid(grid []float64, fn func(float64) float64, rtol, atol float64, refine func()) {
	b, fb := 0, math.Inf(1)
	for i, x := range grid {
		if v := fn(x); v < fb {
			b, fb = i, v
		}
	}
	if math.IsInf(fb, 1) {
		return
	}
	if refine != nil {
		refine()
	}
	lo, hi := grid[max(b-1, 0)], grid[min(b+1, len(grid)-1)]
	brent(fn, lo, hi, rtol, atol, 100)
}

// brent minimises fn on [a, b] by Brent's method (golden section with
// parabolic interpolation, Brent 1973, "localmin") to the tolerance
// rtol·|x| + atol, and returns the best point and value it found.
func brent(fn func(float64) float64, a, b, rtol, atol float64, maxIter int) (x, fx float64) {
	const cgold = 0.3819660112501051 // (3 − √5)/2
	x = a + float64(cgold*(b-a))
	w, v := x, x
	fx = fn(x)
	fw, fv := fx, fx
	var d, e float64
	for range maxIter {
		xm := float64(0.5 * (a + b))
		tol1 := float64(rtol*math.Abs(x)) + atol
		tol2 := float64(2 * tol1)
		if math.Abs(x-xm) <= tol2-float64(0.5*(b-a)) {
			break
		}
		golden := true
		if math.Abs(e) > tol1 {
			// Parabola through (v, fv), (w, fw), (x, fx).
			r := float64((x - w) * (fx - fv))
			q := float64((x - v) * (fx - fw))
			p := float64((x-v)*q) - float64((x-w)*r)
			q = float64(2 * (q - r))
			if q > 0 {
				p = -p
			} else {
				q = -q
			}
			if !math.IsNaN(p) && !math.IsInf(p, 0) && !math.IsNaN(q) && !math.IsInf(q, 0) &&
				math.Abs(p) < math.Abs(0.5*q*e) && p > q*(a-x) && p < q*(b-x) {
				e, d = d, p/q
				if u := x + d; u-a < tol2 || b-u < tol2 {
					d = math.Copysign(tol1, xm-x)
				}
				golden = false
			}
		}
		if golden {
			if x >= xm {
				e = a - x
			} else {
				e = b - x
			}
			d = float64(cgold * e)
		}
		u := x + d
		if math.Abs(d) < tol1 {
			u = x + math.Copysign(tol1, d)
		}
		fu := fn(u)
		if fu <= fx {
			if u >= x {
				a = x
			} else {
				b = x
			}
			v, w, x = w, x, u
			fv, fw, fx = fw, fx, fu
		} else {
			if u < x {
				a = u
			} else {
				b = u
			}
			if fu <= fw || w == x {
				v, w = w, u
				fv, fw = fw, fu
			} else if fu <= fv || v == x || v == w {
				v, fv = u, fu
			}
		}
	}
	return x, fx
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
