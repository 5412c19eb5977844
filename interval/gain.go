package interval

import (
	"fmt"
	"math"
	"time"
)

// Line is a stage's quality function g(η) = A·η + B (FSP §3.3): the
// objective's progress per second of valid (computing) time when barriers
// are η apart, η in seconds. B is in objective units per second, A in
// objective units per second². Progress is the decrease of a minimized
// objective, the increase of a maximized one.
type Line struct {
	A, B float64
}

// At returns g(η).
func (l Line) At(eta time.Duration) float64 { return float64(l.A*eta.Seconds()) + l.B }

// String reads like "g(η) = -20·η + 10".
func (l Line) String() string { return fmt.Sprintf("g(η) = %.4g·η + %.4g", l.A, l.B) }

// fitLine returns the line through (x1, y1) and (x2, y2), x1 ≠ x2, in
// seconds. It may be non-finite (Optimum then reports !ok).
func fitLine(x1, y1, x2, y2 float64) Line {
	a := (y2 - y1) / (x2 - x1)
	return Line{A: a, B: y1 - float64(a*x1)}
}

// Gain is Eq. (7) of FSP §3.3: the progress expected over a stage lasting
// T at interval η when each barrier costs φ,
//
//	gain(η) = (T − φ·T/(η + φ))·g(η),
//
// the valid time (T less the cost of its T/(η+φ) barriers) times the
// progress per unit of valid time. For a finite l it is NaN only for η = φ = 0.
func Gain(l Line, eta, phi, T time.Duration) float64 {
	return float64(T.Seconds() * rate(l, eta.Seconds(), phi.Seconds()))
}

// rate is gain/T: the progress per second of elapsed time at interval η
// (seconds), η·g(η)/(η+φ).
func rate(l Line, eta, phi float64) float64 {
	return float64(eta / (eta + phi) * (float64(l.A*eta) + l.B))
}

// Optimum returns η* in [lo, hi] maximizing Eq. (7) for the quality
// function l and barrier cost φ. For a stage of fixed length T > 0, T is a
// positive factor of gain(η) = T·η·g(η)/(η+φ), so η* does not depend on T.
// The maximum is at lo, at hi, or where the derivative vanishes,
//
//	A·η² + 2·A·φ·η + B·φ = 0,  η = −φ + √(φ² − B·φ/A),
//
// which is the interior maximum when A < 0 < B (a quality that falls as
// barriers move apart: the classic trade-off) and a minimum when B < 0 < A.
// Optimum evaluates the candidates in closed form, so any line works:
// increasing, decreasing, flat, negative. Ties go to the larger interval
// (fewer barriers). ok is false — and η* is lo — when no η in [lo, hi] is
// predicted to make progress (the best gain is ≤ 0) or the line is not
// finite; the caller then needs a fallback. Optimum panics if lo ≤ 0,
// hi < lo or φ < 0.
func Optimum(l Line, phi, lo, hi time.Duration) (eta time.Duration, ok bool) {
	if lo <= 0 || hi < lo || phi < 0 {
		panic(fmt.Sprintf("interval: Optimum(φ = %v, lo = %v, hi = %v): need 0 < lo ≤ hi and φ ≥ 0", phi, lo, hi))
	}
	if !finite(l.A) || !finite(l.B) {
		return lo, false
	}
	p, a, b := phi.Seconds(), l.A, l.B
	cand := [3]float64{lo.Seconds(), 0, hi.Seconds()}
	n := 1
	if a != 0 && p > 0 {
		// The positive root of A·η² + 2Aφη + Bφ, in the form without
		// cancellation: −φ + s = (s² − φ²)/(s + φ) with s² = φ² − Bφ/A.
		if q := -b * p / a; finite(q) && float64(p*p)+q >= 0 {
			if r := q / (p + math.Sqrt(float64(p*p)+q)); r > cand[0] && r < cand[2] {
				cand[n] = r
				n++
			}
		}
	}
	cand[n] = cand[2]
	n++
	best, bestRate := lo, math.Inf(-1)
	for _, c := range cand[:n] {
		d := duration(c, lo, hi)
		if r := rate(l, d.Seconds(), p); finite(r) && r >= bestRate {
			best, bestRate = d, r
		}
	}
	if !(bestRate > 0) {
		return lo, false
	}
	return best, true
}
