package curvefit

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

type fitRef struct {
	Model          string     `json:"model"`
	TrueTheta      [4]float64 `json:"true_theta"`
	Sigma          float64    `json:"sigma"`
	T              []float64  `json:"t"`
	Y              []float64  `json:"y"`
	ScipyBestSSE   float64    `json:"scipy_best_sse"`
	ScipyBestTheta [4]float64 `json:"scipy_best_theta"`
}

func fitModel(model string, t, y []float64, opt FitOptions) (Curve, error) {
	if model == "power" {
		return FitPower(t, y, opt)
	}
	return FitQuadratic(t, y, opt)
}

func sse(c Curve, t, y []float64) float64 { r := Residual(c, t, y); return r * r }

// TestFitVsScipyCurveFit: on noisy curves our least-squares fit must be at
// least as good as scipy.optimize.curve_fit(bounds=(0, inf)) (the fit of
// the MLLess authors' code), best of three starting points.
func TestFitVsScipyCurveFit(t *testing.T) {
	var f struct {
		Fits []fitRef `json:"fits"`
	}
	loadJSON(t, "fits.json", &f)
	for i, r := range f.Fits {
		c, err := fitModel(r.Model, r.T, r.Y, FitOptions{})
		if err != nil {
			t.Errorf("fit %d (%s): %v", i, r.Model, err)
			continue
		}
		got := sse(c, r.T, r.Y)
		if got > r.ScipyBestSSE*(1+1e-6) {
			t.Errorf("fit %d (%s): SSE = %.10g; scipy curve_fit %.10g\n got %v\nscipy θ %v", i, r.Model, got, r.ScipyBestSSE, c, r.ScipyBestTheta)
		}
		t.Logf("fit %d %-9s SSE ours/scipy − 1 = %+.2e  θ %v  (scipy θ %.6g)", i, r.Model, got/r.ScipyBestSSE-1, c.Params(), r.ScipyBestTheta)
	}
}

func steps(lo, hi, step float64) []float64 {
	var t []float64
	for x := lo; x <= hi; x += step {
		t = append(t, x)
	}
	return t
}

// TestFitRecoversNoiseFree: exact samples of a curve give back its θ.
func TestFitRecoversNoiseFree(t *testing.T) {
	tests := []struct {
		curve Curve
		t     []float64
	}{
		{Quadratic{[4]float64{1e-4, 0.01, 2, 0.3}}, steps(1, 150, 1)},
		{Quadratic{[4]float64{0, 0.05, 1, 0.1}}, steps(1, 80, 1)},
		{Quadratic{[4]float64{0.01, 0, 1.5, 0}}, steps(0, 30, 0.75)},
		{Quadratic{[4]float64{2e-6, 1e-3, 0.5, 0.6}}, steps(100, 2080, 20)},
		{Quadratic{[4]float64{3e-3, 0.2, 0, 0.05}}, steps(5, 60, 1)},
		{Power{[4]float64{0.05, 0.8, 1, 0.2}}, steps(1, 200, 1)},
		{Power{[4]float64{0.3, 0.5, 2, 0.05}}, steps(1, 100, 1)},
		{Power{[4]float64{0.002, 1.2, 0.8, 0.5}}, steps(10, 1000, 10)},
		{Power{[4]float64{1, 0.7, 0, 0.1}}, steps(1, 50, 0.8)},
		{Power{[4]float64{0.5, 1, 1, 0}}, steps(0, 40, 1)},
		{Power{[4]float64{0.01, 2.5, 0.5, 1.5}}, steps(1, 30, 0.5)},
	}
	for _, tt := range tests {
		y := Predict(tt.curve, tt.t)
		var got Curve
		var err error
		switch tt.curve.(type) {
		case Power:
			got, err = FitPower(tt.t, y, FitOptions{})
		case Quadratic:
			got, err = FitQuadratic(tt.t, y, FitOptions{})
		}
		if err != nil {
			t.Errorf("%v: %v", tt.curve, err)
			continue
		}
		// Compare each θ_j relative to its size, or, for θ_j = 0, by the
		// size of its term at the largest t relative to the denominator.
		want, gotP := tt.curve.Params(), got.Params()
		T := slices.Max(tt.t)
		worst := 0.0
		for j := range 4 {
			scale := math.Abs(want[j])
			if want[j] == 0 {
				// Absolute error for θ3 = 0; for a zero coefficient of the
				// denominator g(t) = 1/(L(t) − θ3), its term at t = T
				// relative to g(T).
				scale = 1
				if j < 3 {
					g := 1 / (tt.curve.Eval(T) - want[3])
					terms := []float64{math.Pow(T, want[1]), 1, 1} // Power: θ0·T^θ1, –, θ2
					if _, ok := tt.curve.(Quadratic); ok {
						terms = []float64{T * T, T, 1}
					}
					scale = g / terms[j]
				}
			}
			worst = max(worst, math.Abs(gotP[j]-want[j])/scale)
		}
		if worst > 1e-6 {
			t.Errorf("fit of exact %v = %v; worst relative θ error %.2g, want ≤ 1e-6", tt.curve, got, worst)
		}
		t.Logf("%-52v worst θ error %.1e, residual %.1e", tt.curve, worst, Residual(got, tt.t, y))
	}
}

// TestFitNoisy: with noise the fit must beat the true curve on its own
// sample (it is the least-squares optimum) and extrapolate sensibly.
func TestFitNoisy(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 1))
	curves := []Curve{
		Quadratic{[4]float64{1e-4, 0.01, 2, 0.3}},
		Quadratic{[4]float64{2e-5, 0.02, 1, 0.2}},
		Power{[4]float64{0.05, 0.8, 1, 0.2}},
		Power{[4]float64{0.3, 0.5, 2, 0.05}},
	}
	for _, truth := range curves {
		for _, sigma := range []float64{0.001, 0.01} {
			ts := steps(1, 120, 1)
			y := Predict(truth, ts)
			for i := range y {
				y[i] *= 1 + sigma*rng.NormFloat64()
			}
			var fit Curve
			var err error
			if _, ok := truth.(Power); ok {
				fit, err = FitPower(ts, y, FitOptions{})
			} else {
				fit, err = FitQuadratic(ts, y, FitOptions{})
			}
			if err != nil {
				t.Fatalf("%v σ=%g: %v", truth, sigma, err)
			}
			if got, tr := sse(fit, ts, y), sse(truth, ts, y); got > tr*(1+1e-9) {
				t.Errorf("%v σ=%g: SSE(fit) = %g > SSE(truth) = %g", truth, sigma, got, tr)
			}
			// Extrapolate 50% past the sample: within a few σ of the truth.
			maxErr := 0.0
			for _, x := range steps(121, 180, 1) {
				maxErr = max(maxErr, math.Abs(fit.Eval(x)-truth.Eval(x))/truth.Eval(x))
			}
			if maxErr > 10*sigma {
				t.Errorf("%v σ=%g: fit %v extrapolates with relative error %.3g", truth, sigma, fit, maxErr)
			}
			t.Logf("%-46v σ=%-5g fit %v, extrapolation error %.2g", truth, sigma, fit, maxErr)
		}
	}
}

func TestTimeToLoss(t *testing.T) {
	curves := []interface {
		Curve
		TimeToLoss(float64) (float64, bool)
	}{
		Power{[4]float64{0.05, 0.8, 1, 0.2}},
		Power{[4]float64{2, 0.5, 0, 0.1}},
		Quadratic{[4]float64{1e-4, 0.01, 2, 0.3}},
		Quadratic{[4]float64{0, 0.05, 1, 0.1}},
		Quadratic{[4]float64{0.01, 0, 1.5, 0}},
	}
	for _, c := range curves {
		th := c.Params()
		// Reachable targets: strictly between the asymptote and L(1).
		for _, frac := range []float64{0.999, 0.9, 0.5, 0.1, 1e-3} {
			target := th[3] + frac*(c.Eval(1)-th[3])
			tt, ok := c.TimeToLoss(target)
			if !ok || math.Abs(c.Eval(tt)-target) > 1e-12*target {
				t.Errorf("%v.TimeToLoss(%g) = %g, %v; Eval there = %g", c, target, tt, ok, c.Eval(tt))
			}
		}
		if tt, ok := c.TimeToLoss(th[3]); ok {
			t.Errorf("%v.TimeToLoss(asymptote) = %g, true; want false", c, tt)
		}
		if tt, ok := c.TimeToLoss(th[3] - 1); ok {
			t.Errorf("%v.TimeToLoss(below asymptote) = %g, true; want false", c, tt)
		}
		if tt, ok := c.TimeToLoss(c.Eval(0) + 1); !ok || tt != 0 {
			t.Errorf("%v.TimeToLoss(above L(0)) = %g, %v; want 0, true", c, tt, ok)
		}
		if _, ok := c.TimeToLoss(math.NaN()); ok {
			t.Errorf("%v.TimeToLoss(NaN) ok", c)
		}
		// Non-increasing in t.
		prev := math.Inf(1)
		for _, x := range steps(0, 1000, 7) {
			if v := c.Eval(x); v > prev {
				t.Errorf("%v increases at t = %g", c, x)
				break
			} else {
				prev = v
			}
		}
	}
	flat := Quadratic{[4]float64{0, 0, 2, 0.1}}
	if tt, ok := flat.TimeToLoss(0.3); ok {
		t.Errorf("flat curve reaches 0.3 at %g", tt)
	}
}

func TestFitErrors(t *testing.T) {
	ts := []float64{1, 2, 3, 4, 5}
	ys := []float64{1, 0.8, 0.7, 0.65, 0.62}
	tests := []struct {
		name string
		t, y []float64
		opt  FitOptions
		want error
	}{
		{"len mismatch", ts, ys[:4], FitOptions{}, ErrLength},
		{"weights mismatch", ts, ys, FitOptions{Weights: []float64{1, 1}}, ErrLength},
		{"too few", ts[:3], ys[:3], FitOptions{}, ErrTooFewPoints},
		{"empty", nil, nil, FitOptions{}, ErrTooFewPoints},
		{"two distinct times", []float64{1, 1, 2, 2}, []float64{1, 0.9, 0.8, 0.7}, FitOptions{}, ErrTooFewPoints},
		{"zero weights", ts, ys, FitOptions{Weights: []float64{1, 1, 1, 0, 0}}, ErrTooFewPoints},
		{"flat", ts, []float64{0.5, 0.5, 0.5, 0.5, 0.5}, FitOptions{}, ErrFlat},
		{"NaN loss", ts, with(ys, 2, math.NaN()), FitOptions{}, ErrNonFinite},
		{"Inf time", with(ts, 0, math.Inf(1)), ys, FitOptions{}, ErrNonFinite},
		{"negative time", with(ts, 0, -1), ys, FitOptions{}, ErrDomain},
		{"zero loss", ts, with(ys, 4, 0), FitOptions{}, ErrDomain},
		{"negative weight", ts, ys, FitOptions{Weights: []float64{1, 1, -1, 1, 1}}, ErrDomain},
		{"negative MaxExponent", ts, ys, FitOptions{MaxExponent: -1}, ErrDomain},
	}
	for _, tt := range tests {
		p, errP := FitPower(tt.t, tt.y, tt.opt)
		if !errors.Is(errP, tt.want) || p != nil {
			t.Errorf("%s: FitPower = %v, %v; want nil, %v", tt.name, p, errP, tt.want)
		}
		if tt.name == "negative MaxExponent" {
			continue
		}
		q, errQ := FitQuadratic(tt.t, tt.y, tt.opt)
		if !errors.Is(errQ, tt.want) || q != nil {
			t.Errorf("%s: FitQuadratic = %v, %v; want nil, %v", tt.name, q, errQ, tt.want)
		}
		t.Logf("%s: %v", tt.name, errQ)
	}
}

// TestFitNeverNaN: arbitrary positive data (increasing, noisy, spiky,
// huge or tiny times and losses) gives an error or a finite curve.
func TestFitNeverNaN(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for trial := range 16 { // 4 of each kind; FuzzFit explores further
		m := 4 + rng.IntN(40)
		ts := make([]float64, m)
		ys := make([]float64, m)
		tscale := math.Pow(10, float64(rng.IntN(9)-2))
		yscale := math.Pow(10, float64(rng.IntN(9)-4))
		for i := range m {
			ts[i] = tscale * float64(i+rng.IntN(2))
			switch trial % 4 {
			case 0:
				ys[i] = yscale * rng.ExpFloat64()
			case 1:
				ys[i] = yscale * float64(1+i) // increasing
			case 2:
				ys[i] = yscale * (1 + 1e-9*rng.Float64()) // nearly flat
			case 3:
				ys[i] = yscale / float64(1+i*i)
				if i%5 == 0 {
					ys[i] *= 100 // spikes
				}
			}
		}
		for _, model := range []string{"power", "quadratic"} {
			c, err := fitModel(model, ts, ys, FitOptions{})
			if err != nil {
				continue
			}
			if !finite(c.Params()) || math.IsNaN(Residual(c, ts, ys)) {
				t.Errorf("trial %d %s: %v on t=%v y=%v", trial, model, c, ts, ys)
			}
			for _, p := range c.Params() {
				if p < 0 {
					t.Errorf("trial %d %s: negative parameter in %v", trial, model, c)
				}
			}
		}
	}
}

// TestFitWeights: weight-0 samples are ignored; integer weights equal
// repeated samples.
func TestFitWeights(t *testing.T) {
	ts := steps(1, 40, 1)
	truth := Quadratic{[4]float64{1e-3, 0.02, 1, 0.2}}
	ys := Predict(truth, ts)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range ys {
		ys[i] *= 1 + 0.01*rng.NormFloat64()
	}
	w := make([]float64, len(ts))
	var tsub, ysub []float64
	for i := range w {
		if i%3 != 0 {
			w[i] = 1
			tsub, ysub = append(tsub, ts[i]), append(ysub, ys[i])
		}
	}
	a, err := FitQuadratic(ts, ys, FitOptions{Weights: w})
	if err != nil {
		t.Fatal(err)
	}
	b, err := FitQuadratic(tsub, ysub, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if e := relErr(a.Params(), b.Params()); e > 1e-9 {
		t.Errorf("weights 0/1 fit %v; subset fit %v", a, b)
	}
	w2 := slices.Repeat([]float64{2}, len(ts))
	ts2 := append(slices.Clone(ts), ts...)
	ys2 := append(slices.Clone(ys), ys...)
	c, err := FitPower(ts, ys, FitOptions{Weights: w2})
	if err != nil {
		t.Fatal(err)
	}
	d, err := FitPower(ts2, ys2, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r1, r2 := sse(c, ts2, ys2), sse(d, ts2, ys2); math.Abs(r1-r2) > 1e-9*r2 {
		t.Errorf("weight 2 fit SSE %g; duplicated-sample fit SSE %g", r1, r2)
	}
}

// TestFitDeterministic: the same sample gives bit-identical curves (no
// hidden randomness, no map-order dependence).
func TestFitDeterministic(t *testing.T) {
	ts := steps(1, 60, 1)
	rng := rand.New(rand.NewPCG(9, 9))
	ys := Predict(Power{[4]float64{0.1, 0.6, 1, 0.3}}, ts)
	for i := range ys {
		ys[i] *= 1 + 0.02*rng.NormFloat64()
	}
	a, errA := FitPower(ts, ys, FitOptions{})
	b, errB := FitPower(slices.Clone(ts), slices.Clone(ys), FitOptions{})
	if errA != nil || errB != nil || a.Theta != b.Theta {
		t.Errorf("two fits of one sample: %v (%v), %v (%v)", a, errA, b, errB)
	}
}
