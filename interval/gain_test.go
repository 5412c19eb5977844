package interval

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// analytic is the interior maximum of Eq. (7) for A < 0 < B:
// η* = −φ + √(φ² − B·φ/A), in seconds.
func analytic(l Line, phi float64) float64 {
	return -phi + math.Sqrt(phi*phi-l.B*phi/l.A)
}

func TestOptimumClosedForm(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		l        Line
		phi      time.Duration
		lo, hi   time.Duration
		wantSecs float64 // 0: analytic
	}{
		{l: Line{A: -20, B: 10}, phi: 50 * ms, lo: ms, hi: 10 * time.Second},                 // 115.83 ms
		{l: Line{A: -2, B: 3}, phi: 50 * ms, lo: ms, hi: 10 * time.Second},                   // 228.4 ms
		{l: Line{A: -1e-3, B: 1e-3}, phi: 2 * ms, lo: ms, hi: time.Hour},                     // tiny slopes
		{l: Line{A: -1e6, B: 5}, phi: 10 * time.Microsecond, lo: 1, hi: time.Second},         // tiny η*
		{l: Line{A: -20, B: 10}, phi: 50 * ms, lo: 200 * ms, hi: time.Second, wantSecs: 0.2}, // clamped to lo
		{l: Line{A: -0.01, B: 10}, phi: 50 * ms, lo: ms, hi: 2 * time.Second, wantSecs: 2},   // clamped to hi
	} {
		got, ok := Optimum(c.l, c.phi, c.lo, c.hi)
		want := c.wantSecs
		if want == 0 {
			want = analytic(c.l, c.phi.Seconds())
		}
		if !ok || math.Abs(got.Seconds()-want) > 1e-9+1e-6*want {
			t.Errorf("Optimum(%v, φ=%v, [%v, %v]) = %v, %v; want %.9fs, true", c.l, c.phi, c.lo, c.hi, got, ok, want)
		}
	}
}

func TestOptimumDegenerate(t *testing.T) {
	ms := time.Millisecond
	lo, hi := 10*ms, 4*time.Second
	for _, c := range []struct {
		name   string
		l      Line
		phi    time.Duration
		want   time.Duration
		wantOK bool
	}{
		{"flat positive: fewer barriers win", Line{A: 0, B: 5}, 50 * ms, hi, true},
		{"flat positive, free barriers: tie goes long", Line{A: 0, B: 5}, 0, hi, true},
		{"flat zero", Line{A: 0, B: 0}, 50 * ms, lo, false},
		{"decreasing, negative everywhere", Line{A: -1, B: -1}, 50 * ms, lo, false},
		{"decreasing, positive only below lo", Line{A: -100, B: 0.5}, 50 * ms, lo, false},
		{"increasing", Line{A: 2, B: 1}, 50 * ms, hi, true},
		{"increasing from negative: the interior point is a minimum", Line{A: 10, B: -1}, 50 * ms, hi, true},
		{"free barriers, decreasing quality: sync as often as allowed", Line{A: -20, B: 10}, 0, lo, true},
		{"NaN slope", Line{A: math.NaN(), B: 1}, 50 * ms, lo, false},
		{"infinite intercept", Line{A: -1, B: math.Inf(1)}, 50 * ms, lo, false},
		{"huge values do not overflow", Line{A: -math.MaxFloat64, B: math.MaxFloat64}, 50 * ms, 179128785, true}, // −φ + √(φ² + φ)
	} {
		got, ok := Optimum(c.l, c.phi, lo, hi)
		if got != c.want || ok != c.wantOK {
			t.Errorf("%s: Optimum(%v, φ=%v) = %v, %v; want %v, %v", c.name, c.l, c.phi, got, ok, c.want, c.wantOK)
		}
	}
}

// TestOptimumBruteForce checks Optimum against a naive grid search over
// random lines of every sign, barrier costs and bounds.
func TestOptimumBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 2000 {
		l := Line{A: rng.NormFloat64() * math.Pow(10, rng.Float64()*4-2), B: rng.NormFloat64() * math.Pow(10, rng.Float64()*4-2)}
		phi := time.Duration(rng.Float64() * float64(200*time.Millisecond))
		lo := time.Duration(1 + rng.Int64N(int64(100*time.Millisecond)))
		hi := lo + time.Duration(rng.Int64N(int64(5*time.Second)))
		got, ok := Optimum(l, phi, lo, hi)
		if got < lo || got > hi {
			t.Fatalf("#%d: Optimum(%v, φ=%v, [%v, %v]) = %v: out of bounds", i, l, phi, lo, hi, got)
		}
		best := math.Inf(-1)
		const n = 4000
		for k := range n + 1 {
			eta := lo.Seconds() + (hi-lo).Seconds()*float64(k)/n
			best = max(best, rate(l, eta, phi.Seconds()))
		}
		r := rate(l, got.Seconds(), phi.Seconds())
		if ok != (best > 0) {
			t.Fatalf("#%d: Optimum(%v, φ=%v, [%v, %v]) ok = %v; grid best rate %g", i, l, phi, lo, hi, ok, best)
		}
		if ok && r < best-1e-9*math.Abs(best) {
			t.Fatalf("#%d: Optimum(%v, φ=%v, [%v, %v]) = %v with rate %g; grid finds %g", i, l, phi, lo, hi, got, r, best)
		}
	}
}

func TestGain(t *testing.T) {
	l := Line{A: -20, B: 10}
	// T = 10 s, η = 100 ms, φ = 50 ms: valid time 10 − 0.05·10/0.15 = 6.667 s,
	// g = 8/s: gain 53.33.
	got := Gain(l, 100*time.Millisecond, 50*time.Millisecond, 10*time.Second)
	if want := (10 - 0.05*10/0.15) * 8; math.Abs(got-want) > 1e-9 {
		t.Errorf("Gain = %v; want %v", got, want)
	}
	if got := l.At(250 * time.Millisecond); got != 5 {
		t.Errorf("%v at 250ms = %v; want 5", l, got)
	}
	if got := Gain(l, 100*time.Millisecond, 0, 10*time.Second); math.Abs(got-80) > 1e-9 {
		t.Errorf("Gain with φ = 0 = %v; want 80", got)
	}
}

func TestOptimumPanicsOnBadBounds(t *testing.T) {
	for _, c := range [][3]time.Duration{{0, 0, time.Second}, {0, time.Second, time.Millisecond}, {-1, time.Millisecond, time.Second}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Optimum(φ=%v, lo=%v, hi=%v) did not panic", c[0], c[1], c[2])
				}
			}()
			Optimum(Line{A: -1, B: 1}, c[0], c[1], c[2])
		}()
	}
}
