package curvefit

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/syncmodels/syncmodels/internal/fpdet"
)

// NNLS solves min ‖Ax − b‖₂ subject to x ≥ 0 by the Lawson–Hanson active
// set method (see Solver) and returns x and rnorm = ‖Ax − b‖₂.
//
// Errors: ErrEmpty for an empty matrix, ErrLength when len(b) is not the
// number of rows of a, an *InputError wrapping ErrNonFinite for a NaN or Inf
// entry, ErrOverflow when the solution is not representable, and ErrMaxIter
// (wrapped) when the iteration limit of a zero Solver is reached; in that last case x is the last feasible iterate and rnorm its
// residual, otherwise x is nil. a and b are not modified.
func NNLS(a *mat.Dense, b []float64) (x []float64, rnorm float64, err error) {
	if a == nil || a.IsEmpty() {
		return nil, 0, fmt.Errorf("%w: matrix a has no elements", ErrEmpty)
	}
	m, n := a.Dims()
	raw := a.RawMatrix()
	data := raw.Data
	if raw.Stride == n {
		data = data[:m*n]
	} else {
		data = make([]float64, m*n)
		for i := range m {
			copy(data[i*n:(i+1)*n], raw.Data[i*raw.Stride:i*raw.Stride+n])
		}
	}
	var s Solver
	x = make([]float64, n)
	rnorm, err = s.Solve(data, m, n, b, x)
	if err != nil && !errors.Is(err, ErrMaxIter) {
		return nil, 0, err
	}
	return x, rnorm, err
}

// Solver solves non-negative least-squares problems
//
//	minimize ‖Ax − b‖₂ subject to x ≥ 0
//
// with the active set algorithm NNLS of Lawson & Hanson (Solving Least
// Squares Problems, 1974/1995, chapter 23). The unconstrained subproblems on
// the passive set are never formed as normal equations: the passive columns
// are kept in upper-triangular form QᵀA by Householder reflections (one per
// column entering the set) and Givens rotations (restoring the triangle when
// a column leaves), applied in place to a column-major copy of A and to b.
//
// For a tall A (m > n) Solve first reduces [A b] to [R c] by one Householder
// QR and runs the iteration on the n×n triangle R. Lawson–Hanson is
// invariant under left orthogonal transformations of (A, b), so this is the
// same algorithm on the same problem (‖Ax − b‖² = ‖Rx − c‖² + ‖c₂‖² for
// every x), with O(n²) instead of O(mn) work per iteration.
//
// Columns of A, and b, whose largest magnitude lies outside [2⁻⁴⁰⁰, 2⁴⁰⁰]
// are first scaled by exact powers of two (undone on x and rnorm), so the
// result does not depend on the units of the data (scipy gh-21630).
//
// The zero value is ready to use; a Solver reuses its workspace, so repeated
// solves of the same or smaller size do not allocate. A Solver must not be
// used by several goroutines at once.
type Solver struct {
	// MaxIter caps the number of least-squares subproblems solved (the
	// inner-loop iterations of Lawson & Hanson). Zero means the default,
	// max(3n, 30); Lawson & Hanson and scipy use 3n.
	MaxIter int

	a     []float64 // column-major copy of [A b]: column j is a[j*m:(j+1)*m], b is column n
	cn    []float64 // squared norm of each column of [A b]
	d     []float64 // d[k] = ‖pivot column below k‖², d[j>k] = its dots with column j
	exp   []int     // power-of-two scaling exponent of each column of [A b]
	r     []float64 // n×n column-major R of the preliminary QR (m > n)
	rb    []float64 // c, the first n entries of Qᵀb (m > n)
	r2    []float64 // working copies of r and rb for the active-set loop
	rb2   []float64
	z     []float64 // passive-set solution of the triangular system
	w     []float64 // dual vector Aᵀ(b − Ax) on the zero set
	index []int     // index[:nsetp] passive set P, index[nsetp:] zero set Z
	iter  int
}

// Iterations returns the number of least-squares subproblems the last Solve
// solved.
func (s *Solver) Iterations() int { return s.iter }

// Solve solves min ‖Ax − b‖₂ subject to x ≥ 0 for the m×n matrix whose
// row-major elements are a (a[i*n+j] = A_ij), writes the solution into x
// (len n) and returns rnorm = ‖Ax − b‖₂ of that x. a and b are not
// modified.
//
// Errors: ErrEmpty if m or n is 0, ErrLength (wrapped) for a length
// mismatch, *InputError (ErrNonFinite) for a NaN or Inf in a or b,
// ErrOverflow (wrapped) when the solution is not representable in float64,
// and ErrMaxIter (wrapped) when MaxIter is reached, in which case x holds
// the last feasible iterate and rnorm its residual.
func (s *Solver) Solve(a []float64, m, n int, b, x []float64) (rnorm float64, err error) {
	s.iter = 0
	if m <= 0 || n <= 0 {
		return 0, fmt.Errorf("%w: A is %d×%d", ErrEmpty, m, n)
	}
	if len(a) != m*n {
		return 0, fmt.Errorf("%w: len(a) = %d, want m·n = %d·%d", ErrLength, len(a), m, n)
	}
	if len(b) != m {
		return 0, fmt.Errorf("%w: len(b) = %d, want m = %d", ErrLength, len(b), m)
	}
	if len(x) != n {
		return 0, fmt.Errorf("%w: len(x) = %d, want n = %d", ErrLength, len(x), n)
	}
	s.grow(m, n)
	// Copy [A b] column-major, accumulating each column's squared norm and,
	// for the first Householder step, the dot products of column 0 with the
	// others. A NaN or Inf makes its column's norm NaN or Inf; a norm
	// outside [2⁻⁸⁰⁰, 2⁸⁰⁰] also sends us to the careful path.
	cn := s.cn
	transposeNorms(s.a, a, m, n, cn, s.d)
	wb := s.a[n*m : n*m+m]
	copy(wb, b)
	cn[n], s.d[n] = dot(wb, wb), 0
	if m > n {
		s.d[n] = dot(s.a[1:m], wb[1:])
	}
	scaled := false
	for j, v := range cn {
		// A zero norm is either a zero column or squares that underflowed.
		if !(v >= 0x1p-800 && v <= 0x1p800) && (v != 0 || slices.ContainsFunc(s.a[j*m:j*m+m], nonzero)) {
			if err := findNonFinite("a", a); err != nil {
				return 0, err
			}
			if err := findNonFinite("b", b); err != nil {
				return 0, err
			}
			scaled = s.rescale(m, n)
			break
		}
	}
	maxIter := s.MaxIter
	if maxIter <= 0 {
		maxIter = max(3*n, 30)
	}
	if m > n {
		c2 := s.reduce(m, n)
		copy(s.r2, s.r)
		copy(s.rb2, s.rb)
		err = s.run(s.r2, s.rb2, n, n, x, maxIter)
		// ‖Ax − b‖² = ‖Rx − c‖² + ‖c₂‖² holds for every x.
		rx := s.z
		for i := range rx {
			rx[i] = -s.rb[i]
		}
		for j, xj := range x {
			if xj != 0 {
				axpy(xj, s.r[j*n:j*n+j+1], rx)
			}
		}
		rnorm = fpdet.Hypot(nrm2(rx), c2)
		if scaled {
			rnorm = s.unscale(x, rnorm)
		}
	} else {
		err = s.run(s.a[:m*n], wb, m, n, x, maxIter)
		if scaled {
			s.unscale(x, 0)
		}
		rnorm = residualNorm(a, m, n, b, x)
	}
	if !finite(x) || math.IsNaN(rnorm) {
		return math.NaN(), fmt.Errorf("%w (x = %v)", ErrOverflow, x)
	}
	return rnorm, err
}

// Columns whose largest magnitude lies outside [scaleLo, scaleHi] are
// rescaled by a power of two before solving, keeping every product and sum
// of squares in the QR far from overflow and underflow.
const (
	scaleLo = 0x1p-400
	scaleHi = 0x1p400
)

// rescale multiplies each column j of the workspace (b is column n) whose
// largest magnitude lies outside [scaleLo, scaleHi] by 2^exp[j], bringing
// that magnitude into [1/2, 1), and recomputes the first step's norms and
// dot products. It reports whether any column was scaled.
func (s *Solver) rescale(m, n int) (scaled bool) {
	for j := range s.exp {
		s.exp[j] = 0
		col := s.a[j*m : j*m+m]
		v := 0.0
		for _, x := range col {
			v = max(v, math.Abs(x))
		}
		if v == 0 || (v >= scaleLo && v <= scaleHi) {
			continue
		}
		scaled = true
		_, e := math.Frexp(v)
		s.exp[j] = -e
		for e := -e; e != 0; {
			step := max(-600, min(600, e)) // 2^step is a normal number
			f := math.Ldexp(1, step)
			for i := range col {
				col[i] *= f
			}
			e -= step
		}
	}
	c0 := s.a[:m]
	s.d[0] = dot(c0, c0)
	for j := 1; j <= n; j++ {
		s.d[j] = dot(c0[1:], s.a[j*m+1:j*m+m])
	}
	return scaled
}

// unscale maps the solution x′ and residual of the scaled problem
// A·2^E x′ ≈ b·2^e_b back: x_j = x′_j·2^(E_j − e_b), rnorm = rnorm′·2^−e_b.
func (s *Solver) unscale(x []float64, rnorm float64) float64 {
	eb := s.exp[len(x)]
	for j := range x {
		x[j] = math.Ldexp(x[j], s.exp[j]-eb)
	}
	return math.Ldexp(rnorm, -eb)
}

// reduce computes the Householder QR of the workspace [A b] (m > n):
// R and c, the first n entries of Qᵀb, go to s.r (column-major n×n) and
// s.rb; it returns ‖c₂‖, the norm of the remaining m − n entries of Qᵀb.
//
// Each step makes one pass over the rows below the pivot that applies the
// reflection to the columns on its right and, on the way, accumulates the
// next pivot column's squared norm and its dot products with the columns
// after it (s.d), which define the next reflection. The first step's
// quantities come from the transposition pass.
func (s *Solver) reduce(m, n int) (c2 float64) {
	W, d := s.a, s.d
	for k := range n {
		v := W[k*m : k*m+m]
		up := houseFromNorm(v, k, d[k])
		vt := v[k+1:]
		f := func(j int) float64 {
			if up == 0 {
				return 0 // zero column: the reflection is the identity
			}
			c := W[j*m+k : j*m+m]
			// (sm/up)/v[k], not sm/(up·v[k]): the product underflows for
			// a pivot column of norm ~1e-160.
			fj := (float64(c[0]*up) + d[j]) / up / v[k]
			c[0] += float64(fj * up)
			return fj
		}
		// The pivot of the next step, column k+1, leads the first group.
		p := W[(k+1)*m+k+1 : (k+2)*m]
		switch nt := n - k; {
		case nt == 1:
			d[k+1] = fused1(f(k+1), vt, p)
		case nt == 2:
			d[k+1], d[k+2] = fused2(f(k+1), f(k+2), vt, p, W[(k+2)*m+k+1:(k+3)*m])
		case nt == 3:
			d[k+1], d[k+2], d[k+3] = fused3(f(k+1), f(k+2), f(k+3), vt, p,
				W[(k+2)*m+k+1:(k+3)*m], W[(k+3)*m+k+1:(k+4)*m])
		default:
			d[k+1], d[k+2], d[k+3], d[k+4] = fused4(f(k+1), f(k+2), f(k+3), f(k+4), vt, p,
				W[(k+2)*m+k+1:(k+3)*m], W[(k+3)*m+k+1:(k+4)*m], W[(k+4)*m+k+1:(k+5)*m])
			// Further columns: apply the reflection, then take their dot
			// products with the (now updated) next pivot.
			for j := k + 5; j <= n; j++ {
				c := W[j*m+k+1 : j*m+m]
				axpy(f(j), vt, c)
				d[j] = dot(p[1:], c[1:])
			}
		}
	}
	r := s.r
	for j := range n {
		rc := r[j*n : j*n+n]
		copy(rc[:j+1], W[j*m:j*m+j+1])
		clear(rc[j+1:])
	}
	copy(s.rb, W[n*m:n*m+n])
	return math.Sqrt(d[n])
}

func (s *Solver) grow(m, n int) {
	if cap(s.a) < m*(n+1) {
		s.a = make([]float64, m*(n+1))
	}
	s.a = s.a[:m*(n+1)]
	if cap(s.r) < n*n {
		s.r = make([]float64, n*n)
		s.r2 = make([]float64, n*n)
	}
	s.r, s.r2 = s.r[:n*n], s.r2[:n*n]
	if cap(s.cn) < n+1 {
		s.cn = make([]float64, n+1)
		s.d = make([]float64, n+1)
		s.exp = make([]int, n+1)
		s.rb = make([]float64, n)
		s.rb2 = make([]float64, n)
		s.z = make([]float64, n)
		s.w = make([]float64, n)
		s.index = make([]int, n)
	}
	s.cn, s.d, s.exp = s.cn[:n+1], s.d[:n+1], s.exp[:n+1]
	s.rb, s.rb2, s.z, s.w, s.index = s.rb[:n], s.rb2[:n], s.z[:n], s.w[:n], s.index[:n]
}

// factor is Lawson & Hanson's column independence threshold: a candidate
// column is accepted only if its new diagonal element, times factor, still
// changes the norm of the part already in the triangle.
const factor = 0.01

// run is Lawson & Hanson's NNLS on the column-major m×n matrix A and b,
// both overwritten. P = index[:nsetp], Z = index[nsetp:]; rows [:nsetp] of
// the transformed system hold the triangular factor of the passive columns.
func (s *Solver) run(A, b []float64, m, n int, x []float64, maxIter int) error {
	z, w, index := s.z, s.w, s.index
	for j := range n {
		x[j] = 0
		index[j] = j
	}
	nsetp := 0
	for {
		// Main loop: stop when Z is empty or the triangle is full.
		if nsetp >= n || nsetp >= m {
			return nil
		}
		// Dual vector w = Aᵀ(b − Ax) on Z, from the transformed system:
		// only rows nsetp.. of Qᵀb are nonzero residual.
		bt := b[nsetp:m]
		for _, j := range index[nsetp:] {
			w[j] = dot(A[j*m+nsetp:j*m+m], bt)
		}
		// Find the column of Z with the largest positive dual that is
		// independent of P and would enter with a positive value.
		var (
			izmax int
			j     int
			up    float64
			hs    float64 // Householder coefficient of Qᵀb for column j
		)
		for {
			wmax := 0.0
			izmax = -1
			for iz := nsetp; iz < n; iz++ {
				if jj := index[iz]; w[jj] > wmax {
					wmax, izmax = w[jj], iz
				}
			}
			if izmax < 0 {
				return nil // w ≤ 0 on Z: Kuhn–Tucker conditions hold
			}
			j = index[izmax]
			col := A[j*m : j*m+m]
			asave := col[nsetp]
			up = houseGen(col, nsetp)
			unorm := 0.0
			for _, v := range col[:nsetp] {
				unorm += float64(v * v)
			}
			unorm = math.Sqrt(unorm)
			if unorm+float64(math.Abs(col[nsetp])*factor)-unorm > 0 {
				// Column j is sufficiently independent. Its proposed
				// value is the first transformed entry of b over the new
				// diagonal.
				hs = houseCoef(col, nsetp, up, b)
				if ztest := (b[nsetp] + float64(hs*up)) / col[nsetp]; ztest > 0 {
					break
				}
			}
			col[nsetp] = asave
			w[j] = 0
		}
		// Move j from Z to P: apply the reflection to b and to the other
		// columns of Z, and zero column j below its diagonal.
		col := A[j*m : j*m+m]
		houseApplyCoef(col, nsetp, up, hs, b)
		index[izmax] = index[nsetp]
		index[nsetp] = j
		p := nsetp
		nsetp++
		for _, jj := range index[nsetp:] {
			houseApply(col, p, up, A[jj*m:jj*m+m])
		}
		for i := p + 1; i < m; i++ {
			col[i] = 0
		}
		w[j] = 0
		copy(z[:nsetp], b[:nsetp])
		solveTri(A, m, index[:nsetp], z)

		// Inner loop: step towards z until it is feasible, dropping the
		// variables that hit zero.
		for {
			s.iter++
			if s.iter > maxIter {
				return fmt.Errorf("%w (MaxIter = %d)", ErrMaxIter, maxIter)
			}
			alpha, jj := 2.0, -1
			for ip, l := range index[:nsetp] {
				if z[ip] <= 0 {
					if t := -x[l] / (z[ip] - x[l]); alpha > t {
						alpha, jj = t, ip
					}
				}
			}
			if jj < 0 {
				break // z > 0: accept it
			}
			for ip, l := range index[:nsetp] {
				x[l] += float64(alpha * (z[ip] - x[l]))
			}
			// Move index[jj], and every other passive variable that is no
			// longer positive, from P to Z, restoring the triangle with
			// Givens rotations.
			i := index[jj]
			for {
				x[i] = 0
				for k := jj + 1; k < nsetp; k++ {
					ii := index[k]
					index[k-1] = ii
					c, sn, sig := givens(A[ii*m+k-1], A[ii*m+k])
					A[ii*m+k-1], A[ii*m+k] = sig, 0
					for l := range n {
						if l != ii {
							u, v := A[l*m+k-1], A[l*m+k]
							A[l*m+k-1], A[l*m+k] = float64(c*u)+float64(sn*v), float64(-sn*u)+float64(c*v)
						}
					}
					u, v := b[k-1], b[k]
					b[k-1], b[k] = float64(c*u)+float64(sn*v), float64(-sn*u)+float64(c*v)
				}
				nsetp--
				index[nsetp] = i
				jj = -1
				for k, l := range index[:nsetp] {
					if x[l] <= 0 {
						jj = k
						break
					}
				}
				if jj < 0 {
					break
				}
				i = index[jj]
			}
			copy(z[:nsetp], b[:nsetp])
			solveTri(A, m, index[:nsetp], z)
		}
		for ip, l := range index[:nsetp] {
			x[l] = z[ip]
		}
	}
}

// solveTri solves the upper-triangular system R z = z in place, where
// column k of R is column p[k] of the column-major m-row matrix A.
func solveTri(A []float64, m int, p []int, z []float64) {
	for ip := len(p) - 1; ip >= 0; ip-- {
		col := A[p[ip]*m : p[ip]*m+ip+1]
		z[ip] /= col[ip]
		zi := z[ip]
		for i := range ip {
			z[i] -= float64(col[i] * zi)
		}
	}
}

// houseGen constructs the Householder reflection that zeroes u[p+1:] into
// u[p] (Lawson & Hanson's H12, mode 1). It overwrites u[p] with the new
// diagonal and returns up, which with u[p+1:] defines the reflection.
// A zero vector leaves u unchanged and returns 0.
func houseGen(u []float64, p int) (up float64) {
	v := u[p:]
	sm := dot(v, v)
	var cl float64
	if sm > 0x1p-900 && sm < 0x1p900 {
		cl = math.Sqrt(sm)
	} else {
		// Near underflow or overflow: Lawson & Hanson's scaled norm.
		for _, vi := range v {
			cl = max(cl, math.Abs(vi))
		}
		if cl <= 0 {
			return 0
		}
		clinv := 1 / cl
		sm = 0
		for _, vi := range v {
			t := vi * clinv
			sm += float64(t * t)
		}
		cl = float64(cl * math.Sqrt(sm))
	}
	if u[p] > 0 {
		cl = -cl
	}
	up = u[p] - cl
	u[p] = cl
	return up
}

// houseFromNorm is houseGen given sm = Σ_{i≥p} u[i]² (accumulated by the
// caller); it recomputes the norm with scaling when sm is near underflow.
func houseFromNorm(u []float64, p int, sm float64) (up float64) {
	if !(sm > 0x1p-900 && sm < 0x1p900) {
		return houseGen(u, p)
	}
	cl := math.Sqrt(sm)
	if u[p] > 0 {
		cl = -cl
	}
	up = u[p] - cl
	u[p] = cl
	return up
}

// houseCoef returns the coefficient with which the reflection (u, p, up)
// updates c: c ← c + coef·(up at p, u[p+1:] below). It is 0 when the
// reflection is the identity.
func houseCoef(u []float64, p int, up float64, c []float64) float64 {
	if up == 0 || u[p] == 0 {
		return 0
	}
	// up and u[p] have opposite signs (houseGen); dividing twice avoids
	// the underflow of up·u[p] for tiny vectors.
	sm := float64(c[p]*up) + dot(c[p+1:len(u)], u[p+1:])
	return sm / up / u[p]
}

// houseApplyCoef applies c ← c + coef·v for the reflection vector v.
func houseApplyCoef(u []float64, p int, up, coef float64, c []float64) {
	if coef == 0 {
		return
	}
	c[p] += float64(coef * up)
	axpy(coef, u[p+1:], c[p+1:len(u)])
}

// houseApply applies the reflection (u, p, up) to c (H12, mode 2).
func houseApply(u []float64, p int, up float64, c []float64) {
	houseApplyCoef(u, p, up, houseCoef(u, p, up, c), c)
}

// givens returns the rotation (c, s) with c·a + s·b = sig, −s·a + c·b = 0
// (Lawson & Hanson's G1).
func givens(a, b float64) (c, s, sig float64) {
	switch {
	case math.Abs(a) > math.Abs(b):
		xr := b / a
		yr := math.Sqrt(1 + float64(xr*xr))
		c = math.Copysign(1/yr, a)
		return c, float64(c * xr), float64(math.Abs(a) * yr)
	case b != 0:
		xr := a / b
		yr := math.Sqrt(1 + float64(xr*xr))
		s = math.Copysign(1/yr, b)
		return float64(s * xr), s, float64(math.Abs(b) * yr)
	default:
		return 0, 1, 0
	}
}

// dot returns Σ x[i]·y[i] for len(x) == len(y).
func dot(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += float64(x[i] * y[i])
		s1 += float64(x[i+1] * y[i+1])
		s2 += float64(x[i+2] * y[i+2])
		s3 += float64(x[i+3] * y[i+3])
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i] * y[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// axpy computes y += alpha·x for len(x) == len(y).
func axpy(alpha float64, x, y []float64) {
	y = y[:len(x)]
	i := 0
	for ; i+4 <= len(x); i += 4 {
		y[i] += float64(alpha * x[i])
		y[i+1] += float64(alpha * x[i+1])
		y[i+2] += float64(alpha * x[i+2])
		y[i+3] += float64(alpha * x[i+3])
	}
	for ; i < len(x); i++ {
		y[i] += float64(alpha * x[i])
	}
}

// residualNorm returns ‖Ax − b‖₂ for the row-major m×n matrix a, skipping
// the zero columns of x and guarding against overflow and underflow.
func residualNorm(a []float64, m, n int, b, x []float64) float64 {
	var ss, scale float64
	for i := range m {
		row := a[i*n : i*n+n]
		r := -b[i]
		for j, xj := range x {
			if xj != 0 {
				r += float64(row[j] * xj)
			}
		}
		ss += float64(r * r)
		scale = max(scale, math.Abs(r))
	}
	if scale == 0 {
		return 0
	}
	if !math.IsInf(ss, 0) && ss > 1e-280 {
		return math.Sqrt(ss)
	}
	// Rescaled second pass for residuals near the overflow or underflow
	// thresholds.
	inv := 1 / scale
	ss = 0
	for i := range m {
		row := a[i*n : i*n+n]
		r := -b[i]
		for j, xj := range x {
			if xj != 0 {
				r += float64(row[j] * xj)
			}
		}
		r *= inv
		ss += float64(r * r)
	}
	return float64(scale * math.Sqrt(ss))
}

func nonzero(v float64) bool { return v != 0 }

// findNonFinite returns an *InputError for the first NaN or ±Inf in v.
func findNonFinite(name string, v []float64) error {
	for i, x := range v {
		if x-x != 0 {
			return &InputError{Input: name, Index: i, Value: x, Err: ErrNonFinite}
		}
	}
	return nil
}

// transposeNorms writes the row-major m×n src into dst column-major, the
// squared norm of each column into cn[:n] and, for the first Householder
// step, d[0] = cn[0] and d[j] = Σ_{i≥1} src[i][0]·src[i][j] for j ≥ 1.
func transposeNorms(dst, src []float64, m, n int, cn, d []float64) {
	j := 0
	for ; j+4 <= n; j += 4 {
		c0 := dst[j*m : j*m+m]
		c1 := dst[(j+1)*m : (j+1)*m+m][:len(c0)]
		c2 := dst[(j+2)*m : (j+2)*m+m][:len(c0)]
		c3 := dst[(j+3)*m : (j+3)*m+m][:len(c0)]
		row := src[j : j+4]
		v0, v1, v2, v3 := row[0], row[1], row[2], row[3]
		c0[0], c1[0], c2[0], c3[0] = v0, v1, v2, v3
		n0, n1, n2, n3 := v0*v0, v1*v1, v2*v2, v3*v3
		var d0, d1, d2, d3 float64
		for i := 1; i < len(c0); i++ {
			row := src[i*n+j : i*n+j+4]
			v0, v1, v2, v3 := row[0], row[1], row[2], row[3]
			c0[i], c1[i], c2[i], c3[i] = v0, v1, v2, v3
			n0 += float64(v0 * v0)
			n1 += float64(v1 * v1)
			n2 += float64(v2 * v2)
			n3 += float64(v3 * v3)
			p := src[i*n]
			d0 += float64(p * v0)
			d1 += float64(p * v1)
			d2 += float64(p * v2)
			d3 += float64(p * v3)
		}
		cn[j], cn[j+1], cn[j+2], cn[j+3] = n0, n1, n2, n3
		d[j], d[j+1], d[j+2], d[j+3] = d0, d1, d2, d3
	}
	for ; j < n; j++ {
		col := dst[j*m : j*m+m]
		col[0] = src[j]
		n0, d0 := src[j]*src[j], 0.0
		for i := 1; i < len(col); i++ {
			v := src[i*n+j]
			col[i] = v
			n0 += float64(v * v)
			d0 += float64(src[i*n] * v)
		}
		cn[j], d[j] = n0, d0
	}
	d[0] = cn[0]
}

// fused1..fused4 apply one Householder step to the columns p, c1, c2, c3
// (rows below the pivot: p += f0·v, c_t += f_t·v) and return the next
// step's quantities: ‖p‖² over all rows and the dot products of p with c_t
// over the rows after the first.
func fused1(f0 float64, v, p []float64) (nrm float64) {
	p = p[:len(v)]
	for i, vi := range v {
		pi := p[i] + float64(f0*vi)
		p[i] = pi
		nrm += float64(pi * pi)
	}
	return nrm
}

func fused2(f0, f1 float64, v, p, c1 []float64) (nrm, d1 float64) {
	n := len(v)
	if n == 0 {
		return 0, 0
	}
	p, c1 = p[:n], c1[:n]
	p[0] += float64(f0 * v[0])
	c1[0] += float64(f1 * v[0])
	nrm = float64(p[0] * p[0])
	for i := 1; i < n; i++ {
		vi := v[i]
		pi := p[i] + float64(f0*vi)
		x1 := c1[i] + float64(f1*vi)
		p[i], c1[i] = pi, x1
		nrm += float64(pi * pi)
		d1 += float64(pi * x1)
	}
	return nrm, d1
}

func fused3(f0, f1, f2 float64, v, p, c1, c2 []float64) (nrm, d1, d2 float64) {
	n := len(v)
	if n == 0 {
		return 0, 0, 0
	}
	p, c1, c2 = p[:n], c1[:n], c2[:n]
	p[0] += float64(f0 * v[0])
	c1[0] += float64(f1 * v[0])
	c2[0] += float64(f2 * v[0])
	nrm = float64(p[0] * p[0])
	for i := 1; i < n; i++ {
		vi := v[i]
		pi := p[i] + float64(f0*vi)
		x1 := c1[i] + float64(f1*vi)
		x2 := c2[i] + float64(f2*vi)
		p[i], c1[i], c2[i] = pi, x1, x2
		nrm += float64(pi * pi)
		d1 += float64(pi * x1)
		d2 += float64(pi * x2)
	}
	return nrm, d1, d2
}

func fused4(f0, f1, f2, f3 float64, v, p, c1, c2, c3 []float64) (nrm, d1, d2, d3 float64) {
	n := len(v)
	if n == 0 {
		return 0, 0, 0, 0
	}
	p, c1, c2, c3 = p[:n], c1[:n], c2[:n], c3[:n]
	p[0] += float64(f0 * v[0])
	c1[0] += float64(f1 * v[0])
	c2[0] += float64(f2 * v[0])
	c3[0] += float64(f3 * v[0])
	nrm = float64(p[0] * p[0])
	for i := 1; i < n; i++ {
		vi := v[i]
		pi := p[i] + float64(f0*vi)
		x1 := c1[i] + float64(f1*vi)
		x2 := c2[i] + float64(f2*vi)
		x3 := c3[i] + float64(f3*vi)
		p[i], c1[i], c2[i], c3[i] = pi, x1, x2, x3
		nrm += float64(pi * pi)
		d1 += float64(pi * x1)
		d2 += float64(pi * x2)
		d3 += float64(pi * x3)
	}
	return nrm, d1, d2, d3
}

// nrm2 returns ‖v‖₂ without overflow or harmful underflow.
func nrm2(v []float64) float64 {
	ss := dot(v, v)
	if ss > 0x1p-900 && ss < 0x1p900 {
		return math.Sqrt(ss)
	}
	scale := 0.0
	for _, x := range v {
		scale = max(scale, math.Abs(x))
	}
	if scale == 0 || math.IsInf(scale, 0) {
		return scale
	}
	inv := 1 / scale
	ss = 0
	for _, x := range v {
		t := x * inv
		ss += float64(t * t)
	}
	return float64(scale * math.Sqrt(ss))
}
