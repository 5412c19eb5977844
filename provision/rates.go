package provision

import "math"

// UniformRates returns n per-worker arrival rates that stand for n
// independent draws from U(lo, hi), the heterogeneous setting of the DOLL
// paper's §V-B (λ_{A,n} ~ U(1, 250)), without drawing: the expected order
// statistics lo + (hi − lo)·i/(n + 1), i = 1..n, in increasing order. Their
// sum is n·(lo + hi)/2, the expected total rate, so θ0 is J·K·b over the
// expected Σ_n λ_{A,n}. It is a planning input for rates not yet known: a
// typical draw, not the average over draws of the optimum (a particular
// draw's rates go in Problem.Lambdas as they are).
//
// n must be ≥ 1 and 0 ≤ lo ≤ hi with hi > 0, both finite; every rate
// returned is then > 0.
func UniformRates(n int, lo, hi float64) ([]float64, error) {
	switch {
	case n < 1:
		return nil, invalid("n", "%d, want ≥ 1", n)
	case !(lo >= 0) || math.IsInf(lo, 0):
		return nil, invalid("lo", "%v, want a finite rate ≥ 0", lo)
	case !(hi > 0) || math.IsInf(hi, 0) || hi < lo:
		return nil, invalid("hi", "%v, want a finite rate > 0 and ≥ lo = %v", hi, lo)
	}
	rates := make([]float64, n)
	for i := range rates {
		rates[i] = lo + (hi-lo)*float64(i+1)/float64(n+1)
	}
	return rates, nil
}
