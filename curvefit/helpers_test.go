package curvefit

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// loadJSON reads testdata/curvefit/name (written by make_refs.py).
func loadJSON(t testing.TB, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "curvefit", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// relErr returns max_i |got_i − want_i| / max_i |want_i| (normwise, ∞-norm),
// or the absolute error when want is zero.
func relErr(got, want []float64) float64 {
	scale, e := 0.0, 0.0
	for i := range want {
		scale = max(scale, math.Abs(want[i]))
		e = max(e, math.Abs(got[i]-want[i]))
	}
	if scale == 0 {
		return e
	}
	return e / scale
}

func norm2(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// kkt returns the scaled Karush–Kuhn–Tucker residuals of x for
// min ‖Ax − b‖ s.t. x ≥ 0 (row-major a): primal infeasibility max(−x)/‖x‖∞,
// dual infeasibility max(−g)/scale and complementarity max|x_i g_i|/(‖x‖∞
// scale), with g = Aᵀ(Ax − b) and scale = ‖A‖_F(‖A‖_F‖x‖₂ + ‖b‖₂).
func kkt(a []float64, m, n int, b, x []float64) (feas, dual, compl float64) {
	r := make([]float64, m)
	for i := range m {
		r[i] = -b[i]
		for j := range n {
			r[i] += a[i*n+j] * x[j]
		}
	}
	g := make([]float64, n)
	for i := range m {
		for j := range n {
			g[j] += a[i*n+j] * r[i]
		}
	}
	xs := 0.0
	for _, v := range x {
		xs = max(xs, math.Abs(v))
	}
	an := norm2(a)
	scale := an * (an*norm2(x) + norm2(b))
	if scale == 0 {
		scale = 1
	}
	if xs == 0 {
		xs = 1
	}
	for j := range n {
		feas = max(feas, -x[j]/xs)
		dual = max(dual, -g[j]/scale)
		compl = max(compl, math.Abs(x[j]*g[j])/(xs*scale))
	}
	return feas, dual, compl
}
