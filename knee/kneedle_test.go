package knee

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestKneedleErrors(t *testing.T) {
	x3 := []float64{0, 1, 2}
	y3 := []float64{0, 1, 1.5}
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name    string
		x, y    []float64
		opt     Options
		want    error
		wantMsg string
	}{
		{"length", x3, y3[:2], Options{}, ErrLength, "len(x) = 3, len(y) = 2"},
		{"x NaN", []float64{0, nan, 2}, y3, Options{}, ErrNonFinite, "x[1] = NaN"},
		{"y +Inf", x3, []float64{0, 1, inf}, Options{}, ErrNonFinite, "y[2] = +Inf"},
		{"y -Inf", x3, []float64{-inf, 1, 2}, Options{}, ErrNonFinite, "y[0] = -Inf"},
		{"x repeated", []float64{0, 1, 1}, y3, Options{}, ErrNotIncreasing, "x[2] = 1: x not strictly increasing (x[1] = 1)"},
		{"x decreasing", []float64{2, 1, 0}, y3, Options{}, ErrNotIncreasing, "x[1] = 1"},
		{"S negative", x3, y3, Options{S: -1}, ErrConfig, "S = -1"},
		{"S NaN", x3, y3, Options{S: nan}, ErrConfig, "S = NaN"},
		{"S Inf", x3, y3, Options{S: inf}, ErrConfig, "S = +Inf"},
		{"curve", x3, y3, Options{Curve: 2}, ErrConfig, "Curve = Curve(2)"},
		{"direction", x3, y3, Options{Direction: -1}, ErrConfig, "Direction = Direction(-1)"},
		{"interp method", x3, y3, Options{Interp: Interp{Method: 5}}, ErrConfig, "InterpMethod(5)"},
		{"degree", x3, y3, Options{Interp: Interp{Method: InterpPolynomial, Degree: -1}}, ErrConfig, "Degree = -1"},
		// Bad input is reported even when too short to have a knee.
		{"short NaN", []float64{nan}, []float64{1}, Options{}, ErrNonFinite, "x[0] = NaN"},
		{"short length", nil, []float64{1}, Options{}, ErrLength, "len(x) = 0"},
	}
	for _, tt := range tests {
		r, err := Kneedle(tt.x, tt.y, tt.opt)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: Kneedle error = %v; want %v", tt.name, err, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.wantMsg) || !strings.HasPrefix(err.Error(), "knee: ") {
			t.Errorf("%s: error %q; want it to start with \"knee: \" and contain %q", tt.name, err, tt.wantMsg)
		}
		if !reflect.DeepEqual(r, Result{}) {
			t.Errorf("%s: Result = %+v; want zero on error", tt.name, r)
		}
	}
	var ie *InputError
	_, err := Kneedle([]float64{0, 1, 2}, []float64{0, nan, 2}, Options{})
	if !errors.As(err, &ie) || ie.Input != "y" || ie.Index != 1 || !math.IsNaN(ie.Value) {
		t.Errorf("Kneedle error = %#v; want *InputError{Input: y, Index: 1, Value: NaN}", err)
	}
}

func TestOptionsValidate(t *testing.T) {
	if err := (Options{}).Validate(); err != nil {
		t.Errorf("Options{}.Validate() = %v; want nil", err)
	}
	if err := (Options{S: -2}).Validate(); !errors.Is(err, ErrConfig) {
		t.Errorf("Options{S: -2}.Validate() = %v; want ErrConfig", err)
	}
	o, err := Options{Interp: Interp{Method: InterpPolynomial}}.validate()
	if err != nil || o.S != 1 || o.Interp.Degree != DefaultDegree {
		t.Errorf("defaults: S = %v, Degree = %d, err %v; want 1, %d, nil", o.S, o.Interp.Degree, err, DefaultDegree)
	}
}

// line returns n points of y = a + b·x on x (uneven when uneven is set).
func line(n int, a, b float64, uneven bool) (x, y []float64) {
	x, y = make([]float64, n), make([]float64, n)
	for i := range n {
		x[i] = float64(i)
		if uneven {
			x[i] = float64(i*i) + float64(i)
		}
		y[i] = a + b*x[i]
	}
	return x, y
}

func allShapes() []Options {
	var out []Options
	for _, c := range []Curve{Concave, Convex} {
		for _, d := range []Direction{Increasing, Decreasing} {
			for _, s := range []float64{math.SmallestNonzeroFloat64, 1, 5} {
				for _, online := range []bool{false, true} {
					for _, in := range []Interp{none, poly, {Method: InterpPolynomial, Degree: 2}} {
						out = append(out, Options{S: s, Curve: c, Direction: d, Online: online, Interp: in})
					}
				}
			}
		}
	}
	return out
}

// Too few points, a flat y and a straight line have no knee: a line in the
// declared direction whatever the options, and any line with Strict. A
// line against the declared direction is a curve of the wrong shape (see
// TestKneedleWrongShape).
func TestKneedleNoKnee(t *testing.T) {
	type input struct {
		name string
		x, y []float64
		dir  Direction // the line's direction; -1 for any
	}
	var inputs []input
	add := func(name string, x, y []float64, dir Direction) { inputs = append(inputs, input{name, x, y, dir}) }
	add("empty", nil, nil, -1)
	add("one point", []float64{1}, []float64{2}, -1)
	add("two points", []float64{1, 2}, []float64{2, 5}, -1)
	add("two points down", []float64{1, 2}, []float64{5, 2}, -1)
	for _, n := range []int{3, 10, 1000} {
		for _, uneven := range []bool{false, true} {
			for _, ab := range [][2]float64{{0, 1}, {3, -2}, {1e6, 1e-3}, {1e6, -1e-3}, {-7, 0}, {1e300, 0}} {
				x, y := line(n, ab[0], ab[1], uneven)
				dir := Direction(-1)
				if ab[1] > 0 {
					dir = Increasing
				} else if ab[1] < 0 {
					dir = Decreasing
				}
				add(fmt.Sprintf("line %v%+v·x", ab[0], ab[1]), x, y, dir)
			}
		}
	}
	// Flat up to rounding: the relative spread is below 1e-12.
	add("almost flat", []float64{0, 1, 2, 3, 4}, []float64{1, 1 + 1e-15, 1, 1 - 1e-15, 1}, -1)
	for _, in := range inputs {
		for _, opt := range allShapes() {
			for _, strict := range []bool{false, true} {
				if in.dir >= 0 && strict == (opt.Direction == in.dir) {
					continue // a line in the declared direction needs no Strict
				}
				opt.Strict = strict
				r, err := Kneedle(in.x, in.y, opt)
				if err != nil || r.Found || len(r.All) != 0 {
					t.Errorf("Kneedle(%s, n=%d, %+v) = found %v at %+v (All %d), err %v; want no knee",
						in.name, len(in.x), opt, r.Found, r.Knee, len(r.All), err)
				}
			}
		}
	}
}

// A curve given the wrong shape: kneed, and Kneedle without Strict, report
// an end point (kneed 0.8.6 on exp(−x/5), x = 0..49: 0.0 as concave
// increasing, 49.0 as convex increasing and as concave decreasing); with
// Strict there is no knee.
func TestKneedleWrongShape(t *testing.T) {
	x := seq(0, 50)
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = math.Exp(-v / 5) // convex decreasing
	}
	for _, tt := range []struct {
		opt  Options
		want float64
	}{{Options{}, 0}, {Options{Curve: Convex}, 49}, {Options{Direction: Decreasing}, 49}} {
		r, err := Kneedle(x, y, tt.opt)
		if err != nil || !r.Found || r.X != tt.want {
			t.Errorf("Kneedle(exp decay, %v %v) = %+v, %v; want kneed's knee x = %v", tt.opt.Curve, tt.opt.Direction, r.Knee, err, tt.want)
		}
		tt.opt.Strict = true
		r, err = Kneedle(x, y, tt.opt)
		if err != nil || r.Found {
			t.Errorf("Kneedle(exp decay, %v %v, Strict) = %+v, %v; want no knee", tt.opt.Curve, tt.opt.Direction, r.Knee, err)
		}
	}
	for _, strict := range []bool{false, true} {
		r, err := Kneedle(x, y, Options{Curve: Convex, Direction: Decreasing, Strict: strict})
		if err != nil || !r.Found || r.X != 11 {
			t.Errorf("Kneedle(exp decay, convex decreasing, Strict %v) = %+v, %v; want kneed's knee x = 11", strict, r, err)
		}
	}
}

func TestKneedleDiffCurve(t *testing.T) {
	x, y := figure2()
	r, err := Kneedle(x, y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ymin, ymax := slices.Min(y), slices.Max(y)
	for i := range x {
		want := (y[i]-ymin)/(ymax-ymin) - x[i] // x is already in [0, 1]
		if math.Abs(r.DiffCurve[i]-want) > 1e-15 {
			t.Errorf("DiffCurve[%d] = %v; want %v", i, r.DiffCurve[i], want)
		}
	}
	if r.DiffCurve[r.Index] != r.DiffCurve[slices.Index(r.DiffCurve, slices.Max(r.DiffCurve))] || r.Knee.Diff != r.DiffCurve[r.Index] {
		t.Errorf("figure2: knee at %d with Diff %v; want the maximum of DiffCurve %v", r.Index, r.Knee.Diff, slices.Max(r.DiffCurve))
	}

	// Convex decreasing: Diff = (1 − ŷ) − x̂, in data order.
	r, err = Kneedle(kneedX, convexDecreasing, Options{Curve: Convex, Direction: Decreasing})
	if err != nil {
		t.Fatal(err)
	}
	for i := range kneedX {
		want := 1 - (convexDecreasing[i]-1)/99 - kneedX[i]/9
		if math.Abs(r.DiffCurve[i]-want) > 1e-15 {
			t.Errorf("convex decreasing: DiffCurve[%d] = %v; want %v", i, r.DiffCurve[i], want)
		}
	}
	// Concave decreasing: mirrored, Diff = ŷ − (1 − x̂).
	r, err = Kneedle(kneedX, concaveDecreasing, Options{Direction: Decreasing})
	if err != nil {
		t.Fatal(err)
	}
	for i := range kneedX {
		want := concaveDecreasing[i]/99 - (1 - kneedX[i]/9)
		if math.Abs(r.DiffCurve[i]-want) > 1e-15 {
			t.Errorf("concave decreasing: DiffCurve[%d] = %v; want %v", i, r.DiffCurve[i], want)
		}
	}
}

// shape is a test curve with its shape.
type shape struct {
	name string
	x, y []float64
	opt  Options
}

func testShapes(t testing.TB) []shape {
	fx, fy := figure2()
	cv := loadCurves(t)
	ux := make([]float64, 60) // uneven grid
	uy := make([]float64, 60)
	for i := range ux {
		ux[i] = math.Pow(float64(i)/59, 2) * 4
		uy[i] = math.Log1p(10 * ux[i])
	}
	sx := arange(0, 10, 0.1)
	sy := make([]float64, len(sx))
	for i, v := range sx {
		sy[i] = math.Sin(v)
	}
	cvd := Options{Curve: Convex, Direction: Decreasing}
	return []shape{
		{"figure2", fx, fy, Options{}},
		{"figure2 poly", fx, fy, Options{Interp: Interp{Method: InterpPolynomial, Degree: 3}}},
		{"concave increasing", kneedX, concaveIncreasing, Options{}},
		{"bumpy online", seq(0, 90), bumpyY, Options{Curve: Convex, Direction: Decreasing, Online: true}},
		{"bumpy poly", seq(0, 90), bumpyY, Options{Curve: Convex, Direction: Decreasing, Interp: poly}},
		{"gamma", cv["gamma"].X, cv["gamma"].Y, cvd},
		{"gamma S=10", cv["gamma"].X, cv["gamma"].Y, Options{S: 10, Curve: Convex, Direction: Decreasing}},
		{"noisy gaussian", cv["noisy_gaussian"].X, cv["noisy_gaussian"].Y, Options{Online: true, Interp: Interp{Method: InterpPolynomial, Degree: 11}}},
		{"uneven log", ux, uy, Options{}},
		{"sine", sx, sy, Options{Curve: Convex, Direction: Increasing, Online: true}},
		{"logistic", seq(1, 98), logisticY, Options{Curve: Convex, Online: true}},
	}
}

func toggleCurve(c Curve) Curve {
	if c == Concave {
		return Convex
	}
	return Concave
}

func toggleDir(d Direction) Direction {
	if d == Increasing {
		return Decreasing
	}
	return Increasing
}

func knees(r Result) []int {
	var idx []int
	for _, k := range r.All {
		idx = append(idx, k.Index)
	}
	return idx
}

// Mirroring the data and the declared shape together mirrors the knee:
// negating y turns a concave increasing curve into a convex decreasing one
// with the same knee, and reversing the x axis moves the knee to the
// mirrored index.
func TestKneedleMirrorSymmetry(t *testing.T) {
	for _, s := range testShapes(t) {
		base, err := Kneedle(s.x, s.y, s.opt)
		if err != nil || !base.Found {
			t.Fatalf("%s: Kneedle = %+v, %v; want a knee", s.name, base.Knee, err)
		}
		n := len(s.x)
		negY := make([]float64, n)
		revX := make([]float64, n)
		revY := make([]float64, n)
		revNegY := make([]float64, n)
		for i := range n {
			negY[i] = -s.y[i]
			revX[i] = -s.x[n-1-i]
			revY[i] = s.y[n-1-i]
			revNegY[i] = -s.y[n-1-i]
		}
		tests := []struct {
			name     string
			x, y     []float64
			c        Curve
			d        Direction
			mirrored bool
		}{
			{"y → −y", s.x, negY, toggleCurve(s.opt.Curve), toggleDir(s.opt.Direction), false},
			{"x → −x", revX, revY, s.opt.Curve, toggleDir(s.opt.Direction), true},
			{"both", revX, revNegY, toggleCurve(s.opt.Curve), s.opt.Direction, true},
		}
		for _, tt := range tests {
			opt := s.opt
			opt.Curve, opt.Direction = tt.c, tt.d
			r, err := Kneedle(tt.x, tt.y, opt)
			if err != nil {
				t.Fatalf("%s, %s: %v", s.name, tt.name, err)
			}
			want := base.Index
			wantAll := knees(base)
			if tt.mirrored {
				want = n - 1 - want
				for i := range wantAll {
					wantAll[i] = n - 1 - wantAll[i]
				}
			}
			if !r.Found || r.Index != want || !slices.Equal(knees(r), wantAll) {
				t.Errorf("%s, %s (%v %v): knee %v at %d, all %v; want %d, all %v",
					s.name, tt.name, tt.c, tt.d, r.Found, r.Index, knees(r), want, wantAll)
				continue
			}
			for i := range n {
				j := i
				if tt.mirrored {
					j = n - 1 - i
				}
				if math.Abs(r.DiffCurve[j]-base.DiffCurve[i]) > 1e-9 {
					t.Errorf("%s, %s: DiffCurve[%d] = %v; want %v", s.name, tt.name, j, r.DiffCurve[j], base.DiffCurve[i])
					break
				}
			}
		}
	}
}

// Positive affine maps of x and y change nothing.
func TestKneedleAffineInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2011))
	logU := func(lo, hi float64) float64 {
		return math.Exp(math.Log(lo) + rng.Float64()*(math.Log(hi)-math.Log(lo)))
	}
	for _, s := range testShapes(t) {
		base, err := Kneedle(s.x, s.y, s.opt)
		if err != nil || !base.Found {
			t.Fatalf("%s: Kneedle = %+v, %v; want a knee", s.name, base.Knee, err)
		}
		n := len(s.x)
		xr := s.x[n-1] - s.x[0]
		yr := slices.Max(s.y) - slices.Min(s.y)
		for trial := range 20 {
			a, c := logU(1e-6, 1e6), logU(1e-6, 1e6)
			b, d := a*xr*(10*rng.Float64()-5), c*yr*(10*rng.Float64()-5)
			x2, y2 := make([]float64, n), make([]float64, n)
			for i := range n {
				x2[i] = a*s.x[i] + b
				y2[i] = c*s.y[i] + d
			}
			r, err := Kneedle(x2, y2, s.opt)
			if err != nil {
				t.Fatalf("%s, trial %d: %v", s.name, trial, err)
			}
			if !r.Found || r.Index != base.Index || !slices.Equal(knees(r), knees(base)) {
				t.Errorf("%s, trial %d (x·%.3g%+.3g, y·%.3g%+.3g): knee %v at %d, all %v; want %d, all %v",
					s.name, trial, a, b, c, d, r.Found, r.Index, knees(r), base.Index, knees(base))
				continue
			}
			if math.Abs(r.NormX-base.NormX) > 1e-9 || math.Abs(r.NormY-base.NormY) > 1e-9 {
				t.Errorf("%s, trial %d: normalised knee (%v, %v); want (%v, %v)", s.name, trial, r.NormX, r.NormY, base.NormX, base.NormY)
			}
		}
	}
}

// With polynomial smoothing the knee of a noisy saturating curve stays
// near the knee of the clean curve, for every seed.
func TestKneedleNoisy(t *testing.T) {
	const n = 200
	x := linspace(0, 1, n)
	clean := make([]float64, n)
	for i, v := range x {
		clean[i] = 1 - math.Exp(-v/0.15)
	}
	opt := Options{Interp: Interp{Method: InterpPolynomial, Degree: 7}}
	ref, err := Kneedle(x, clean, opt)
	if err != nil || !ref.Found {
		t.Fatalf("clean curve: %+v, %v", ref, err)
	}
	for _, sigma := range []float64{0.005, 0.02} {
		for seed := range uint64(50) {
			rng := rand.New(rand.NewPCG(seed, 7))
			y := make([]float64, n)
			for i := range y {
				y[i] = clean[i] + sigma*rng.NormFloat64()
			}
			r, err := Kneedle(x, y, opt)
			if err != nil || !r.Found {
				t.Errorf("σ = %v, seed %d: %+v, %v; want a knee", sigma, seed, r.Knee, err)
				continue
			}
			if math.Abs(r.X-ref.X) > 0.05 {
				t.Errorf("σ = %v, seed %d: knee x = %.3f; want within 0.05 of the clean knee %.3f", sigma, seed, r.X, ref.X)
			}
		}
	}
}

func TestKneedleDoesNotModifyInput(t *testing.T) {
	x, y := figure2()
	x0, y0 := slices.Clone(x), slices.Clone(y)
	for _, opt := range allShapes() {
		if _, err := Kneedle(x, y, opt); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(x, x0) || !slices.Equal(y, y0) {
		t.Errorf("Kneedle modified its input")
	}
}

func TestKneedleDeterministic(t *testing.T) {
	for _, s := range testShapes(t) {
		a, err1 := Kneedle(s.x, s.y, s.opt)
		b, err2 := Kneedle(slices.Clone(s.x), slices.Clone(s.y), s.opt)
		if err1 != nil || err2 != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two runs differ: %+v vs %+v", s.name, a, b)
		}
	}
}

// Huge magnitudes whose range overflows float64 still normalise.
func TestKneedleHugeRange(t *testing.T) {
	x, y := figure2()
	x2, y2 := make([]float64, len(x)), make([]float64, len(y))
	for i := range x {
		x2[i] = (2*x[i] - 1) * 1.5e308
		y2[i] = y[i] / 10 * 1.7e308
	}
	want, _ := Kneedle(x, y, Options{})
	r, err := Kneedle(x2, y2, Options{})
	if err != nil || !r.Found || r.Index != want.Index {
		t.Errorf("Kneedle(huge) = %+v, %v; want knee at %d", r.Knee, err, want.Index)
	}
}

// strictCurve is a concave increasing curve (x = 0..20) whose difference
// curve d = ŷ − x̂ first dips below the chord, has a local maximum there at
// x = 5 (d = −0.005) followed by a fall of more than S·mean(Δx̂) = 0.05,
// and later has a true knee at x = 14 (d = 0.25). kneed 0.8.6 reports
// x = 5 offline and [5, 14] online (run on these numbers).
var strictCurve = []float64{0, 0.03, 0.07, 0.125, 0.19, 0.245, 0.2, 0.23, 0.32, 0.41, 0.5,
	0.6, 0.7, 0.85, 0.95, 0.85, 0.85, 0.88, 0.92, 0.96, 1}

// Strict passes over a knee below the chord and goes on scanning; without
// it Kneedle reports kneed's knees.
func TestKneedleStrictBelowChord(t *testing.T) {
	x := seq(0, len(strictCurve))
	for _, tt := range []struct {
		strict, online bool
		want           []float64 // knee x of All; the result is the last
	}{
		{false, false, []float64{5}},
		{false, true, []float64{5, 14}},
		{true, false, []float64{14}},
		{true, true, []float64{14}},
	} {
		r, err := Kneedle(x, strictCurve, Options{Strict: tt.strict, Online: tt.online})
		if err != nil || !r.Found || !slices.Equal(kneeXs(r.All), tt.want) || r.X != tt.want[len(tt.want)-1] {
			t.Errorf("Strict %v, online %v: knee %+v, all %v, err %v; want all %v", tt.strict, tt.online, r.Knee, kneeXs(r.All), err, tt.want)
			continue
		}
		if k := r.All[0]; !tt.strict && !(k.Diff < 0 && k.Diff == r.DiffCurve[k.Index]) {
			t.Errorf("Strict %v: first knee's Diff = %v (curve %v); want it below the chord", tt.strict, k.Diff, r.DiffCurve[k.Index])
		}
	}
}

// A noisy straight line has no knee when the noise is small enough that
// the difference curve cannot fall S·mean(Δx̂) = S/(n−1) below a maximum:
// a spread of the residuals (max − min) below S/(2(n−1)) of the range of
// y. Uniform noise of 0.9 of that spread, on lines of every direction
// (declared as such), every shape, S, n, online or not; with polynomial
// smoothing the smoothed residuals can spread further, so there the noise
// is a fifth of the bound.
func TestKneedleNoisyLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 2011))
	checked := 0
	for _, n := range []int{5, 20, 100, 1000} {
		for _, s := range []float64{0.5, 1, 2} {
			for _, opt := range allShapes() {
				if opt.S != 1 {
					continue // allShapes' S values are replaced by s
				}
				opt.S = s
				frac := 0.9
				if opt.Interp.Method == InterpPolynomial {
					frac = 0.2
				}
				slope := 3.0
				if opt.Direction == Decreasing {
					slope = -3
				}
				x := linspace(-1, 4, n)
				if rng.IntN(2) == 0 {
					x = seq(float64(rng.IntN(100)), n)
				}
				rangeY := math.Abs(slope) * (x[n-1] - x[0])
				spread := frac * s / (2 * float64(n-1)) * rangeY
				e := make([]float64, n)
				for i := range e {
					e[i] = spread * (rng.Float64() - 0.5)
				}
				// The whole spread, at two random points.
				p := rng.Perm(n)
				e[p[0]], e[p[1]] = spread/2, -spread/2
				y := make([]float64, n)
				for i := range y {
					y[i] = 10 + slope*x[i] + e[i]
				}
				lo, hi := slices.Min(e), slices.Max(e)
				r, err := Kneedle(x, y, opt)
				if err != nil || r.Found || len(r.All) != 0 {
					t.Errorf("noisy line (n=%d, noise spread %.3g of the range, %+v): knee %v at %+v, all %v, err %v; want none",
						n, (hi-lo)/rangeY, opt, r.Found, r.Knee, kneeXs(r.All), err)
				}
				checked++
			}
		}
	}
	if checked < 200 {
		t.Fatalf("only %d lines checked", checked)
	}
}
