package knee

import "math"

// polyFit computes least-squares polynomial fits, keeping its buffers
// between calls.
//
// The fit is the orthogonal projection of y onto the polynomials of degree
// ≤ deg in x, the same fitted values as numpy's np.polyfit followed by
// np.poly1d evaluation (what kneed's interp_method="polynomial" does), but
// computed in a well-conditioned way: x is mapped onto [−1, 1], the basis is
// Chebyshev polynomials T_0..T_deg, and the projection is applied with the
// Householder QR factors (Q·Qᵀ·y with Q truncated to deg+1 columns), never
// forming or solving for the coefficients.
type polyFit struct {
	a    []float64 // n×p basis matrix, column-major; Householder vectors after factoring
	beta []float64 // Householder scale factors
}

// fit writes into out (len(x)) the degree-deg least-squares fit of y at x.
// x is strictly increasing and deg < len(x)−1.
func (f *polyFit) fit(x, y []float64, deg int, out []float64) {
	n, p := len(x), deg+1
	// Fit (y − mid)/scale, so that rounding errors are relative to the
	// spread of y, not to an offset the constant term absorbs exactly.
	lo, hi := y[0], y[0]
	for _, v := range y {
		lo, hi = min(lo, v), max(hi, v)
	}
	mid := float64(lo*0.5) + float64(hi*0.5)
	scale := max(hi-mid, mid-lo)
	if !(scale > 0) || math.IsInf(scale, 0) {
		copy(out, y) // constant (or unscalable): its own fit
		return
	}

	f.a = grow(f.a, n*p)
	f.beta = grow(f.beta, p)
	a := f.a
	xm := newUnitMap(x[0], x[n-1])
	for i := range n {
		t := float64(2*xm.at(x[i])) - 1
		a[i] = 1
		if p > 1 {
			a[n+i] = t
		}
		for j := 2; j < p; j++ {
			a[j*n+i] = float64(2*t*a[(j-1)*n+i]) - a[(j-2)*n+i]
		}
	}
	b := out
	for i, v := range y {
		b[i] = (v - mid) / scale
	}

	// Householder QR of a, applying each reflection to b as we go.
	for j := range p {
		v := a[j*n+j : (j+1)*n]
		sigma := math.Sqrt(dot(v, v))
		if sigma == 0 {
			f.beta[j] = 0
			continue
		}
		v[0] += math.Copysign(sigma, v[0])
		f.beta[j] = 1 / (sigma * math.Abs(v[0])) // 2/‖v‖²
		for l := j + 1; l < p; l++ {
			householder(f.beta[j], v, a[l*n+j:(l+1)*n])
		}
		householder(f.beta[j], v, b[j:])
	}
	// Keep the first p components of Qᵀb and map back: b ← Q·[Qᵀb]_p.
	clear(b[p:])
	for j := p - 1; j >= 0; j-- {
		householder(f.beta[j], a[j*n+j:(j+1)*n], b[j:])
	}
	for i := range b {
		b[i] = float64(b[i]*scale) + mid
	}
}

// householder applies I − beta·v·vᵀ to c in place.
func householder(beta float64, v, c []float64) {
	s := beta * dot(v, c)
	for i, vi := range v {
		c[i] -= float64(s * vi)
	}
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += float64(v * b[i])
	}
	return s
}
