package curvefit

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// naiveNNLS is the deliberately naive reference: it enumerates every
// support S with |S| ≤ m, solves the least-squares problem on A_S with
// gonum's QR, keeps the feasible solutions (x_S ≥ 0) and returns the one
// with the smallest residual. Some optimal solution has linearly
// independent support, so this is the global optimum.
func naiveNNLS(a []float64, m, n int, b []float64) (x []float64, rnorm float64) {
	x = make([]float64, n)
	rnorm = norm2(b)
	bv := mat.NewVecDense(m, slices.Clone(b))
	for mask := 1; mask < 1<<n; mask++ {
		var cols []int
		for j := range n {
			if mask&(1<<j) != 0 {
				cols = append(cols, j)
			}
		}
		k := len(cols)
		if k > m {
			continue
		}
		as := mat.NewDense(m, k, nil)
		for i := range m {
			for c, j := range cols {
				as.Set(i, c, a[i*n+j])
			}
		}
		var qr mat.QR
		qr.Factorize(as)
		var xs mat.VecDense
		if err := qr.SolveVecTo(&xs, false, bv); err != nil {
			continue // singular A_S
		}
		cand := make([]float64, n)
		ok := true
		for c, j := range cols {
			if xs.AtVec(c) < 0 {
				ok = false
			}
			cand[j] = xs.AtVec(c)
		}
		if !ok {
			continue
		}
		if r := norm2(residual(a, m, n, b, cand)); r < rnorm {
			x, rnorm = cand, r
		}
	}
	return x, rnorm
}

// TestNNLSDifferential compares Solve with naiveNNLS on seeded random
// problems, tall, square and wide, Gaussian and nonnegative (many active
// constraints), with duplicated columns (non-unique optimum: residual only).
func TestNNLSDifferential(t *testing.T) {
	rng := rand.New(rand.NewPCG(2024, 6))
	var s Solver
	worstX, worstR := 0.0, 0.0
	for trial := range 600 {
		n := 1 + rng.IntN(6)
		m := 1 + rng.IntN(12)
		a := make([]float64, m*n)
		kind := trial % 3
		for i := range a {
			switch kind {
			case 0:
				a[i] = rng.NormFloat64()
			case 1:
				a[i] = rng.Float64()
			case 2:
				a[i] = math.Round(4*rng.NormFloat64()) / 4 // ties and exact zeros
			}
		}
		dup := n >= 2 && trial%7 == 0
		if dup {
			for i := range m {
				a[i*n+n-1] = a[i*n]
			}
		}
		b := make([]float64, m)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		x := make([]float64, n)
		r, err := s.Solve(a, m, n, b, x)
		if err != nil {
			t.Fatalf("trial %d (%d×%d): %v", trial, m, n, err)
		}
		xn, rn := naiveNNLS(a, m, n, b)
		if d := math.Abs(r - rn); d > 1e-10*rn+1e-13*norm2(b) {
			t.Errorf("trial %d (%d×%d kind %d): rnorm = %.17g; naive %.17g\na=%v\nb=%v\nx=%v naive %v", trial, m, n, kind, r, rn, a, b, x, xn)
		}
		worstR = max(worstR, math.Abs(r-rn)/max(rn, 1e-13*norm2(b)))
		if f, dl, c := kkt(a, m, n, b, x); f > 0 || dl > 1e-13 || c > 1e-13 {
			t.Errorf("trial %d: KKT residuals %.2g %.2g %.2g", trial, f, dl, c)
		}
		// The optimum is unique when A has full column rank (m ≥ n,
		// Gaussian entries, no duplicated column).
		if m >= n && kind != 2 && !dup {
			e := relErr(x, xn)
			worstX = max(worstX, e)
			if e > 1e-9 {
				t.Errorf("trial %d (%d×%d): x = %v; naive %v (rel err %.2g)", trial, m, n, x, xn, e)
			}
		}
	}
	t.Logf("worst relative error vs naive enumeration: x %.2g, rnorm %.2g", worstX, worstR)
}

// TestNNLSScaleInvariance checks that the answer does not depend on the
// units of the data (scipy gh-21630 returned x = 0 for A ~ 1e-21), down to
// and beyond the squares' underflow range, where Solve rescales columns by
// powers of two.
func TestNNLSScaleInvariance(t *testing.T) {
	a, b := benchProblem(40, 5, 11)
	x0 := make([]float64, 5)
	r0, err := new(Solver).Solve(a, 40, 5, b, x0)
	if err != nil {
		t.Fatal(err)
	}
	var s Solver
	for _, sc := range []struct{ sa, sb float64 }{
		{1e-21, 1e-8}, {1e-160, 1e-160}, {1e-200, 1e-150}, {1e-300, 1e-300},
		{1e150, 1e150}, {1e250, 1e200}, {1e300, 1e300}, {2, 1e-300}, {1e-300, 1},
	} {
		as := make([]float64, len(a))
		for i := range a {
			as[i] = a[i] * sc.sa
		}
		bs := make([]float64, len(b))
		for i := range b {
			bs[i] = b[i] * sc.sb
		}
		x := make([]float64, 5)
		r, err := s.Solve(as, 40, 5, bs, x)
		if err != nil {
			t.Fatalf("scale %g, %g: %v", sc.sa, sc.sb, err)
		}
		want := make([]float64, 5)
		for j := range want {
			want[j] = x0[j] * (sc.sb / sc.sa)
		}
		if e := relErr(x, want); e > 1e-13 {
			t.Errorf("A·%g, b·%g: x = %v; want %v (rel err %.2g)", sc.sa, sc.sb, x, want, e)
		}
		if e := math.Abs(r-r0*sc.sb) / (r0 * sc.sb); e > 1e-13 {
			t.Errorf("A·%g, b·%g: rnorm = %g; want %g", sc.sa, sc.sb, r, r0*sc.sb)
		}
	}
	// Columns of wildly different magnitudes: x_j scales inversely.
	colScale := []float64{1e-300, 1, 1e300, 1e-170, 1e170}
	as := slices.Clone(a)
	for i := range 40 {
		for j := range 5 {
			as[i*5+j] *= colScale[j]
		}
	}
	x := make([]float64, 5)
	if _, err := s.Solve(as, 40, 5, b, x); err != nil {
		t.Fatal(err)
	}
	for j := range x {
		if got, want := x[j]*colScale[j], x0[j]; math.Abs(got-want) > 1e-13*max(math.Abs(want), 1e-300) && !(want == 0 && got == 0) {
			t.Errorf("column scales %v: x[%d]·scale = %g; want %g", colScale, j, got, want)
		}
	}
}

func TestNNLSErrors(t *testing.T) {
	a, b := benchProblem(6, 3, 1)
	x := make([]float64, 3)
	var s Solver
	tests := []struct {
		name    string
		a       []float64
		m, n    int
		b, x    []float64
		want    error
		wantIdx int
	}{
		{"m=0", nil, 0, 3, nil, x, ErrEmpty, -1},
		{"n=0", nil, 6, 0, b, nil, ErrEmpty, -1},
		{"short a", a[:17], 6, 3, b, x, ErrLength, -1},
		{"short b", a, 6, 3, b[:5], x, ErrLength, -1},
		{"long x", a, 6, 3, b, make([]float64, 4), ErrLength, -1},
		{"NaN in a", with(a, 7, math.NaN()), 6, 3, b, x, ErrNonFinite, 7},
		{"+Inf in a", with(a, 17, math.Inf(1)), 6, 3, b, x, ErrNonFinite, 17},
		{"-Inf in b", a, 6, 3, with(b, 2, math.Inf(-1)), x, ErrNonFinite, 2},
		{"NaN in b, wide", a[:6], 2, 3, with(b[:2], 1, math.NaN()), x, ErrNonFinite, 1},
	}
	for _, tt := range tests {
		_, err := s.Solve(tt.a, tt.m, tt.n, tt.b, tt.x)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: Solve error = %v; want %v", tt.name, err, tt.want)
			continue
		}
		var ie *InputError
		if tt.wantIdx >= 0 && (!errors.As(err, &ie) || ie.Index != tt.wantIdx) {
			t.Errorf("%s: error %v; want an *InputError at index %d", tt.name, err, tt.wantIdx)
		}
		t.Logf("%s: %v", tt.name, err)
	}
	if _, err := s.Solve([]float64{1e-310}, 1, 1, []float64{1e5}, x[:1]); !errors.Is(err, ErrOverflow) {
		t.Errorf("x = 1e5/1e-310: error = %v; want ErrOverflow", err)
	}
	// A good solve after bad input still works (no state was corrupted).
	if _, err := s.Solve(a, 6, 3, b, x); err != nil {
		t.Errorf("Solve after errors: %v", err)
	}

	if _, _, err := NNLS(&mat.Dense{}, nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("NNLS(empty) error = %v; want ErrEmpty", err)
	}
	if _, _, err := NNLS(nil, nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("NNLS(nil) error = %v; want ErrEmpty", err)
	}
	if x, _, err := NNLS(mat.NewDense(6, 3, a), b[:4]); !errors.Is(err, ErrLength) || x != nil {
		t.Errorf("NNLS(6×3, len 4) = %v, %v; want nil, ErrLength", x, err)
	}
}

func with(v []float64, i int, x float64) []float64 {
	v = slices.Clone(v)
	v[i] = x
	return v
}

// TestNNLSMaxIter: the iteration cap returns ErrMaxIter with a feasible
// iterate and its true residual.
func TestNNLSMaxIter(t *testing.T) {
	a, b := benchProblem(30, 8, 3)
	s := Solver{MaxIter: 1}
	x := make([]float64, 8)
	r, err := s.Solve(a, 30, 8, b, x)
	if !errors.Is(err, ErrMaxIter) {
		t.Fatalf("MaxIter 1: error = %v; want ErrMaxIter", err)
	}
	t.Log(err)
	for j, v := range x {
		if v < 0 || math.IsNaN(v) {
			t.Errorf("x[%d] = %g; want a feasible iterate", j, v)
		}
	}
	if want := norm2(residual(a, 30, 8, b, x)); math.Abs(r-want) > 1e-12*want {
		t.Errorf("rnorm = %g; ‖Ax − b‖ = %g", r, want)
	}
	s.MaxIter = 0
	if _, err := s.Solve(a, 30, 8, b, x); err != nil {
		t.Errorf("default MaxIter: %v", err)
	}
	if s.Iterations() <= 1 {
		t.Errorf("Iterations() = %d; want > 1 for this problem", s.Iterations())
	}
}

// TestNNLSMatchesSolver: NNLS (gonum matrix, including a strided view)
// returns exactly what a fresh Solver returns, and a reused Solver gives
// bit-identical results across sizes.
func TestNNLSMatchesSolver(t *testing.T) {
	var reused Solver
	for _, sz := range []struct{ m, n int }{{200, 4}, {3, 7}, {50, 10}, {1, 1}, {200, 4}, {12, 12}} {
		a, b := benchProblem(sz.m, sz.n, uint64(sz.m*100+sz.n))
		want := make([]float64, sz.n)
		rw, err := new(Solver).Solve(a, sz.m, sz.n, b, want)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float64, sz.n)
		rg, err := reused.Solve(a, sz.m, sz.n, b, got)
		if err != nil || rg != rw || !slices.Equal(got, want) {
			t.Errorf("%d×%d: reused Solver = %v, %v, %v; fresh %v, %v", sz.m, sz.n, got, rg, err, want, rw)
		}
		x, r, err := NNLS(mat.NewDense(sz.m, sz.n, slices.Clone(a)), b)
		if err != nil || r != rw || !slices.Equal(x, want) {
			t.Errorf("%d×%d: NNLS = %v, %v, %v; Solver %v, %v", sz.m, sz.n, x, r, err, want, rw)
		}
		// A view into a wider matrix (stride > n).
		big := mat.NewDense(sz.m+1, sz.n+2, nil)
		view := big.Slice(1, sz.m+1, 2, sz.n+2).(*mat.Dense)
		view.Copy(mat.NewDense(sz.m, sz.n, a))
		x, r, err = NNLS(view, b)
		if err != nil || r != rw || !slices.Equal(x, want) {
			t.Errorf("%d×%d view: NNLS = %v, %v, %v; Solver %v, %v", sz.m, sz.n, x, r, err, want, rw)
		}
	}
}

func TestSolverNoAllocs(t *testing.T) {
	a, b := benchProblem(200, 4, 7)
	x := make([]float64, 4)
	var s Solver
	if _, err := s.Solve(a, 200, 4, b, x); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(50, func() { _, _ = s.Solve(a, 200, 4, b, x) }); n != 0 {
		t.Errorf("Solve allocates %v times per call; want 0", n)
	}
}

// TestNNLSSpecialCases: hand-checkable problems.
func TestNNLSSpecialCases(t *testing.T) {
	tests := []struct {
		name  string
		m, n  int
		a, b  []float64
		x     []float64
		rnorm float64
	}{
		// scipy docs examples.
		{"docs", 3, 2, []float64{1, 0, 1, 0, 0, 1}, []float64{2, 1, 1}, []float64{1.5, 1}, math.Sqrt(0.5)},
		{"negative b", 3, 2, []float64{1, 0, 1, 0, 0, 1}, []float64{-1, -1, -1}, []float64{0, 0}, math.Sqrt(3)},
		// scipy gh-25389 (1.15.3 returned x = [0.824, 0.394], rnorm = 0):
		// unconstrained solution [−1, 3], optimum [0, 1.6], residual √0.2.
		{"gh25389", 2, 2, []float64{1, 1, 3, 2}, []float64{2, 3}, []float64{0, 1.6}, math.Sqrt(0.2)},
		{"zero A", 2, 2, []float64{0, 0, 0, 0}, []float64{1, -2}, []float64{0, 0}, math.Sqrt(5)},
		{"zero b", 2, 2, []float64{1, 2, 3, 4}, []float64{0, 0}, []float64{0, 0}, 0},
		{"1×1 positive", 1, 1, []float64{2}, []float64{3}, []float64{1.5}, 0},
		{"1×1 negative", 1, 1, []float64{2}, []float64{-3}, []float64{0}, 3},
		{"wide exact", 1, 3, []float64{1, 2, -1}, []float64{4}, []float64{0, 2, 0}, 0},
	}
	for _, tt := range tests {
		x := make([]float64, tt.n)
		r, err := new(Solver).Solve(tt.a, tt.m, tt.n, tt.b, x)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if relErr(x, tt.x) > 1e-15 || math.Abs(r-tt.rnorm) > 1e-15 {
			t.Errorf("%s: NNLS = %v, %.17g; want %v, %.17g", tt.name, x, r, tt.x, tt.rnorm)
		}
	}
}
