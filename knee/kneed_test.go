package knee

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// The expected knees below are the assertions of kneed's test suite,
// tests/test_sample.py in github.com/arvkevi/kneed (read, not run: kneed is
// neither packaged for Debian nor reachable on PyPI here). Each case names
// the kneed test it comes from. kneed's interp_method="interp1d" is
// InterpNone here and "polynomial" (default degree 7) is InterpPolynomial.

// curve is a named test curve.
type curve struct{ X, Y []float64 }

// loadCurves reads testdata/knee/curves.json (written by make_refs.py).
func loadCurves(t testing.TB) map[string]curve {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "knee", "curves.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]curve
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// isClose is Python's math.isclose(a, b, rel_tol=rel).
func isClose(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))
}

func head(s []float64, n int, scale float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = s[i] * scale
	}
	return out
}

var (
	none = Interp{}
	poly = Interp{Method: InterpPolynomial}
)

func TestKneedReferenceKnees(t *testing.T) {
	fx, fy := figure2()
	cx := kneedX
	tx := head(kneedX, 7, 0.1) // x[:-3]/10 of the truncated tests
	cv := loadCurves(t)
	gamma, gauss := cv["gamma"], cv["noisy_gaussian"]
	cvd := Options{Curve: Convex, Direction: Decreasing}
	with := func(o Options, f func(*Options)) Options { f(&o); return o }

	tests := []struct {
		from   string // kneed test
		x, y   []float64
		opt    Options
		want   float64 // expected knee x
		relTol float64 // 0: exact
	}{
		// test_figure2: "From the kneedle manuscript", isclose(knee, 0.22, rel_tol=0.05).
		{"test_figure2[interp1d]", fx, fy, Options{}, 0.22, 0.05},
		{"test_figure2[polynomial]", fx, fy, Options{Interp: poly}, 0.22, 0.05},
		// test_concave_increasing etc.: exact knees on x = 0..9.
		{"test_concave_increasing[interp1d]", cx, concaveIncreasing, Options{}, 2, 0},
		{"test_concave_increasing[polynomial]", cx, concaveIncreasing, Options{Interp: poly}, 2, 0},
		{"test_concave_decreasing[interp1d]", cx, concaveDecreasing, Options{Direction: Decreasing}, 7, 0},
		{"test_concave_decreasing[polynomial]", cx, concaveDecreasing, Options{Direction: Decreasing, Interp: poly}, 7, 0},
		{"test_convex_increasing[interp1d]", cx, convexIncreasing, Options{Curve: Convex}, 7, 0},
		{"test_convex_increasing[polynomial]", cx, convexIncreasing, Options{Curve: Convex, Interp: poly}, 7, 0},
		{"test_convex_decreasing[interp1d]", cx, convexDecreasing, cvd, 2, 0},
		{"test_convex_decreasing[polynomial]", cx, convexDecreasing, with(cvd, func(o *Options) { o.Interp = poly }), 2, 0},
		// test_*_truncated: x[:-3]/10, y[:-3]/10 (7 points: the degree-7
		// polynomial interpolates).
		{"test_concave_increasing_truncated[interp1d]", tx, head(concaveIncreasing, 7, 0.1), Options{}, 0.2, 0},
		{"test_concave_increasing_truncated[polynomial]", tx, head(concaveIncreasing, 7, 0.1), Options{Interp: poly}, 0.2, 0},
		{"test_concave_decreasing_truncated[interp1d]", tx, head(concaveDecreasing, 7, 0.1), Options{Direction: Decreasing}, 0.4, 0},
		{"test_concave_decreasing_truncated[polynomial]", tx, head(concaveDecreasing, 7, 0.1), Options{Direction: Decreasing, Interp: poly}, 0.4, 0},
		{"test_convex_increasing_truncated[interp1d]", tx, head(convexIncreasing, 7, 0.1), Options{Curve: Convex}, 0.4, 0},
		{"test_convex_increasing_truncated[polynomial]", tx, head(convexIncreasing, 7, 0.1), Options{Curve: Convex, Interp: poly}, 0.4, 0},
		{"test_convex_decreasing_truncated[interp1d]", tx, head(convexDecreasing, 7, 0.1), cvd, 0.2, 0},
		{"test_convex_decreasing_truncated[polynomial]", tx, head(convexDecreasing, 7, 0.1), with(cvd, func(o *Options) { o.Interp = poly }), 0.2, 0},
		// test_convex_decreasing_bumpy: interp1d → 26, polynomial → 28.
		{"test_convex_decreasing_bumpy[interp1d]", seq(0, 90), bumpyY, cvd, 26, 0},
		{"test_convex_decreasing_bumpy[polynomial]", seq(0, 90), bumpyY, with(cvd, func(o *Options) { o.Interp = poly }), 28, 0},
		// test_gamma_online_offline: np.random.seed(23), sorted gamma(0.5, 1)
		// draws; online → 482, offline → 22.
		{"test_gamma_online_offline[online]", gamma.X, gamma.Y, with(cvd, func(o *Options) { o.Online = true }), 482, 0},
		{"test_gamma_online_offline[offline]", gamma.X, gamma.Y, cvd, 22, 0},
		// test_sensitivity lists [43, 137, 178, 258, 305, 482, 482] for
		// S = [1, 3, 5, 10, 100, 200, 400], but its check is the no-op
		// `assert kl.knee, expected_knee`; the S = 1 entry (43) contradicts
		// test_gamma_online_offline (22, same curve and options), so only
		// S ≥ 3 is taken from it.
		{"test_sensitivity[S=3]", gamma.X, gamma.Y, with(cvd, func(o *Options) { o.S = 3 }), 137, 0},
		{"test_sensitivity[S=5]", gamma.X, gamma.Y, with(cvd, func(o *Options) { o.S = 5 }), 178, 0},
		{"test_sensitivity[S=10]", gamma.X, gamma.Y, with(cvd, func(o *Options) { o.S = 10 }), 258, 0},
		{"test_sensitivity[S=100]", gamma.X, gamma.Y, with(cvd, func(o *Options) { o.S = 100 }), 305, 0},
		{"test_sensitivity[S=200]", gamma.X, gamma.Y, with(cvd, func(o *Options) { o.S = 200 }), 482, 0},
		{"test_sensitivity[S=400]", gamma.X, gamma.Y, with(cvd, func(o *Options) { o.S = 400 }), 482, 0},
		// test_NoisyGaussian: noisy_gaussian(mu=50, sigma=10, N=1000,
		// seed=42), polynomial degree 11, online; isclose(knee, 63.0,
		// rel_tol=1e-2).
		{"test_NoisyGaussian", gauss.X, gauss.Y, Options{Online: true, Interp: Interp{Method: InterpPolynomial, Degree: 11}}, 63.0, 1e-2},
		// test_flat_maxima: "When S=0.0 the first local maximum is found"
		// (≈1.0) and "When S=1.0 the global maximum is found" (≈8.0),
		// rel_tol=0.05.
		{"test_flat_maxima[S=0]", seq(0, 18), flatMaximaY, with(cvd, func(o *Options) { o.S = math.SmallestNonzeroFloat64 }), 1, 0.05},
		{"test_flat_maxima[S=1]", seq(0, 18), flatMaximaY, cvd, 8, 0.05},
		// test_logistic: convex increasing, online → 73.
		{"test_logistic", seq(1, 98), logisticY, Options{Curve: Convex, Online: true}, 73, 0},
	}
	for _, tt := range tests {
		r, err := Kneedle(tt.x, tt.y, tt.opt)
		if err != nil {
			t.Errorf("%s: Kneedle: %v", tt.from, err)
			continue
		}
		if !r.Found {
			t.Errorf("%s: Kneedle found no knee; want x = %v", tt.from, tt.want)
			continue
		}
		if !isClose(r.X, tt.want, tt.relTol) { // relTol 0: exact
			t.Errorf("%s: knee x = %v; want %v (rel tol %v)", tt.from, r.X, tt.want, tt.relTol)
		}
		if r.X != tt.x[r.Index] || r.Y != tt.y[r.Index] {
			t.Errorf("%s: knee (%v, %v) is not point %d (%v, %v)", tt.from, r.X, r.Y, r.Index, tt.x[r.Index], tt.y[r.Index])
		}
	}
}

// test_sine: sin(x) on np.arange(0, 10, 0.1), S=1, online, every shape:
// np.isclose(detected, [4.5, 4.9, 7.7, 1.8]).
func TestKneedSine(t *testing.T) {
	x := arange(0, 10, 0.1)
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = math.Sin(v)
	}
	tests := []struct {
		dir   Direction
		curve Curve
		want  float64
	}{
		{Decreasing, Convex, 4.5},
		{Increasing, Convex, 4.9},
		{Increasing, Concave, 7.7},
		{Decreasing, Concave, 1.8},
	}
	for _, tt := range tests {
		r, err := Kneedle(x, y, Options{S: 1, Curve: tt.curve, Direction: tt.dir, Online: true})
		if err != nil || !r.Found {
			t.Fatalf("Kneedle(sin, %v %v) = %+v, %v; want a knee", tt.curve, tt.dir, r, err)
		}
		// np.isclose: |a − b| ≤ 1e-8 + 1e-5·|b|.
		if math.Abs(r.X-tt.want) > 1e-8+1e-5*tt.want {
			t.Errorf("Kneedle(sin, %v %v).X = %v; want %v", tt.curve, tt.dir, r.X, tt.want)
		}
	}
}

// test_all_knees: bumpy, convex decreasing, online: all elbows
// [26, 31, 41, 46, 53] with normalised x [0.29213…, 0.34831…, 0.46067…,
// 0.51685…, 0.59550…] (np.isclose).
func TestKneedAllKnees(t *testing.T) {
	r, err := Kneedle(seq(0, 90), bumpyY, Options{Curve: Convex, Direction: Decreasing, Online: true})
	if err != nil {
		t.Fatal(err)
	}
	wantX := []float64{26, 31, 41, 46, 53}
	wantNorm := []float64{0.2921348314606742, 0.348314606741573, 0.4606741573033708, 0.5168539325842696, 0.5955056179775281}
	if len(r.All) != len(wantX) {
		t.Fatalf("len(All) = %d (%+v); want %d", len(r.All), r.All, len(wantX))
	}
	for i, k := range r.All {
		if k.X != wantX[i] || math.Abs(k.NormX-wantNorm[i]) > 1e-8+1e-5*wantNorm[i] {
			t.Errorf("All[%d] = (x %v, norm x %v); want (%v, %v)", i, k.X, k.NormX, wantX[i], wantNorm[i])
		}
	}
	if last := r.All[len(r.All)-1]; r.Knee != last {
		t.Errorf("online Knee = %+v; want the last of All, %+v", r.Knee, last)
	}
}

// test_y: figure2, interp1d: knee_y ≈ 1.897 and norm_knee_y ≈ 0.758
// (rel_tol=0.03), also as the first entry of all_knees_y.
func TestKneedKneeY(t *testing.T) {
	x, y := figure2()
	r, err := Kneedle(x, y, Options{})
	if err != nil || !r.Found {
		t.Fatalf("Kneedle(figure2) = %+v, %v", r, err)
	}
	if !isClose(r.Y, 1.897, 0.03) || !isClose(r.All[0].Y, 1.897, 0.03) {
		t.Errorf("knee y = %v, All[0].Y = %v; want ≈ 1.897", r.Y, r.All[0].Y)
	}
	if !isClose(r.NormY, 0.758, 0.03) || !isClose(r.All[0].NormY, 0.758, 0.03) {
		t.Errorf("normalised knee y = %v, All[0].NormY = %v; want ≈ 0.758", r.NormY, r.All[0].NormY)
	}
	// test_figure2 also checks norm_elbow ≈ knee (rel 0.05): x is already
	// in [0, 1].
	if !isClose(r.NormX, r.X, 0.05) {
		t.Errorf("normalised knee x = %v; want ≈ knee x %v", r.NormX, r.X)
	}
}

// The paper's own worked example, Fig. 2: y = −1/x + 5 on [0.1, 1.1] is
// kneed's figure2 shifted by 0.1 in x, so the knee moves with it, to
// 0.2222… + 0.1 (kneed: 0.22 on the unshifted curve).
func TestPaperFigure2(t *testing.T) {
	x := linspace(0.1, 1.1, 10)
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = -1/v + 5
	}
	r, err := Kneedle(x, y, Options{})
	if err != nil || !r.Found {
		t.Fatalf("Kneedle = %+v, %v; want a knee", r, err)
	}
	if r.Index != 2 || !isClose(r.X, 0.1+2.0/9, 1e-12) {
		t.Errorf("knee = point %d at x = %v; want point 2 at x = %v", r.Index, r.X, 0.1+2.0/9)
	}
}

// test_y_no_knee: three points of exp(−x/10), convex decreasing: no knee.
// test_x_equals_y: a constant y: no knee.
func TestKneedNoKnee(t *testing.T) {
	r, err := Kneedle([]float64{1, 2, 3}, []float64{0.90483742, 0.81873075, 0.74081822}, Options{Curve: Convex, Direction: Decreasing})
	if err != nil || r.Found {
		t.Errorf("Kneedle(test_y_no_knee) = %+v, %v; want no knee", r, err)
	}
	x := seq(0, 10)
	y := make([]float64, 10)
	for i := range y {
		y[i] = 1
	}
	r, err = Kneedle(x, y, Options{})
	if err != nil || r.Found {
		t.Errorf("Kneedle(test_x_equals_y) = %+v, %v; want no knee", r, err)
	}
}
