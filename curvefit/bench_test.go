package curvefit

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// benchProblem returns a seeded m×n problem b = A·x₀ + noise with x₀ having
// zeros, so some constraints are active at the optimum.
func benchProblem(m, n int, seed uint64) (a, b []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	a = make([]float64, m*n)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	x0 := make([]float64, n)
	for j := range x0 {
		if j%3 != 1 {
			x0[j] = rng.ExpFloat64()
		}
	}
	b = make([]float64, m)
	for i := range b {
		b[i] = 0.3 * rng.NormFloat64()
		for j := range n {
			b[i] += a[i*n+j] * x0[j]
		}
	}
	return a, b
}

// BenchmarkSolverScipyProblem times the 200×4 problem that make_refs.py
// timed scipy.optimize.nnls on (bench_200x4 in nnls.json) and reports the
// speed-up over scipy's recorded time (timing.json).
func BenchmarkSolverScipyProblem(b *testing.B) {
	var c nnlsCase
	for _, cc := range loadNNLS(b) {
		if cc.Name == "bench_200x4" {
			c = cc
		}
	}
	var timing struct {
		US float64 `json:"scipy_nnls_200x4_us"`
	}
	loadJSON(b, "timing.json", &timing)
	x := make([]float64, c.N)
	var s Solver
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Solve(c.A, c.M, c.N, c.B, x); err != nil {
			b.Fatal(err)
		}
	}
	nsPerOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(timing.US*1e3/nsPerOp, "x-faster-than-scipy")
}

func BenchmarkSolver(b *testing.B) {
	for _, sz := range []struct{ m, n int }{{200, 4}, {50, 10}, {1000, 4}, {100, 30}} {
		b.Run(fmt.Sprintf("%dx%d", sz.m, sz.n), func(b *testing.B) {
			a, rhs := benchProblem(sz.m, sz.n, 7)
			x := make([]float64, sz.n)
			var s Solver
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Solve(a, sz.m, sz.n, rhs, x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNNLS is the convenience form (allocates its workspace per call).
func BenchmarkNNLS(b *testing.B) {
	a, rhs := benchProblem(200, 4, 7)
	A := mat.NewDense(200, 4, a)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := NNLS(A, rhs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNNLSNaive is the deliberately naive baseline: enumerate every
// support and solve each least-squares problem with gonum's QR.
func BenchmarkNNLSNaive(b *testing.B) {
	a, rhs := benchProblem(200, 4, 7)
	for b.Loop() {
		naiveNNLS(a, 200, 4, rhs)
	}
}

func BenchmarkFit(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, m := range []int{50, 200} {
		t := make([]float64, m)
		yq := make([]float64, m)
		yp := make([]float64, m)
		q := Quadratic{[4]float64{1e-4, 0.01, 2, 0.3}}
		p := Power{[4]float64{0.05, 0.8, 1, 0.2}}
		for i := range t {
			t[i] = float64(i + 1)
			yq[i] = q.Eval(t[i]) * (1 + 0.01*rng.NormFloat64())
			yp[i] = p.Eval(t[i]) * (1 + 0.01*rng.NormFloat64())
		}
		b.Run(fmt.Sprintf("quadratic/m=%d", m), func(b *testing.B) {
			for b.Loop() {
				if _, err := FitQuadratic(t, yq, FitOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("power/m=%d", m), func(b *testing.B) {
			for b.Loop() {
				if _, err := FitPower(t, yp, FitOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEWMA(b *testing.B) {
	y := make([]float64, 1000)
	for i := range y {
		y[i] = 1 / float64(i+1)
	}
	b.ReportAllocs()
	for b.Loop() {
		EWMA(y, 20)
	}
}
