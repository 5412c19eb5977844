package curvefit

import (
	"math"
	"testing"
)

type nnlsCase struct {
	Name        string    `json:"name"`
	Group       string    `json:"group"`
	Note        string    `json:"note"`
	M           int       `json:"m"`
	N           int       `json:"n"`
	A           []float64 `json:"a"`
	B           []float64 `json:"b"`
	ScipyX      []float64 `json:"scipy_x"`
	ScipyRnorm  float64   `json:"scipy_rnorm"`
	ScipyError  string    `json:"scipy_error"`
	ScipyOK     bool      `json:"scipy_ok"`
	TrueX       []float64 `json:"true_x"`
	TrueRnorm   float64   `json:"true_rnorm"`
	TrueMethod  string    `json:"true_method"`
	Cond        float64   `json:"cond"`
	CondSupport float64   `json:"cond_support"`
	BNorm       float64   `json:"b_norm"`
	GenX        []float64 `json:"gen_x"`
	XUnique     bool      `json:"x_unique"`
}

func loadNNLS(t testing.TB) []nnlsCase {
	var f struct {
		Cases []nnlsCase `json:"cases"`
	}
	loadJSON(t, "nnls.json", &f)
	return f.Cases
}

// xTol is the tolerance on the normwise relative error of x: 1e-10, or
// the forward-error level 50·κ(A_S)·ε of a backward-stable solve when the
// columns of the optimal support S are ill-conditioned (κ(A_S) > 1e4).
func xTol(condS float64) float64 { return max(1e-10, 50*condS*0x1p-52) }

// rTol bounds |rnorm − ref|: 1e-10 relative, with an absolute floor of
// 1e-12·‖b‖ for exact fits whose residual is rounding noise.
func rTol(ref, bnorm float64) float64 { return 1e-10*ref + 1e-12*bnorm }

// TestNNLSReference compares with the true optimum (computed independently
// by make_refs.py: exhaustive enumeration or a 60-digit re-solve of the
// support, KKT-verified) and with scipy.optimize.nnls 1.10.1, and checks
// the Kuhn–Tucker conditions of every answer.
func TestNNLSReference(t *testing.T) {
	var (
		s                          Solver
		maxXTrue, maxXScipy        float64 // well-conditioned support (κ ≤ 1e4)
		maxXTrueIll                float64 // ill-conditioned: err / (κ ε)
		maxRTrue, maxRScipy        float64 // relative to rTol's relative part
		maxDual, maxCompl          float64
		nTrue, nScipy, nIll, nSkip int
	)
	for _, c := range loadNNLS(t) {
		x := make([]float64, c.N)
		r, err := s.Solve(c.A, c.M, c.N, c.B, x)
		if err != nil {
			t.Errorf("%s: Solve: %v", c.Name, err)
			continue
		}
		feas, dual, compl := kkt(c.A, c.M, c.N, c.B, x)
		if feas > 0 || dual > 1e-12 || compl > 1e-12 {
			t.Errorf("%s: KKT residuals (feas, dual, compl) = %.2g, %.2g, %.2g; want 0, ≤1e-12, ≤1e-12", c.Name, feas, dual, compl)
		}
		maxDual, maxCompl = max(maxDual, dual), max(maxCompl, compl)
		if d := math.Abs(r - c.TrueRnorm); d > rTol(c.TrueRnorm, c.BNorm) {
			t.Errorf("%s: rnorm = %.17g; want %.17g (true optimum, %s)", c.Name, r, c.TrueRnorm, c.TrueMethod)
		} else if c.TrueRnorm > 1e-6*c.BNorm {
			maxRTrue = max(maxRTrue, d/c.TrueRnorm)
		}
		if want := norm2(residual(c.A, c.M, c.N, c.B, x)); math.Abs(r-want) > 1e-14*max(want, c.BNorm) {
			t.Errorf("%s: rnorm = %g; ‖Ax − b‖ = %g", c.Name, r, want)
		}
		if c.XUnique {
			e := relErr(x, c.TrueX)
			if e > xTol(c.CondSupport) {
				t.Errorf("%s: x relative error %.3g vs true optimum; want ≤ %.3g (κ_S = %.3g)\n got %v\nwant %v",
					c.Name, e, xTol(c.CondSupport), c.CondSupport, x, c.TrueX)
			}
			if c.CondSupport <= 1e4 {
				maxXTrue = max(maxXTrue, e)
				nTrue++
			} else {
				maxXTrueIll = max(maxXTrueIll, e/(c.CondSupport*0x1p-52))
				nIll++
			}
		} else {
			nSkip++
		}
		if len(c.GenX) > 0 {
			for j := range x {
				if d := math.Abs(x[j] - c.GenX[j]); d > 1e-10 {
					t.Errorf("%s: x[%d] = %.17g; want %.17g (generating x, scipy test atol 1e-10)", c.Name, j, x[j], c.GenX[j])
				}
			}
		}
		if !c.ScipyOK {
			t.Errorf("%s: scipy 1.10.1 failed on this case (%s); update the test", c.Name, c.ScipyError)
			continue
		}
		nScipy++
		if d := math.Abs(r - c.ScipyRnorm); d > rTol(c.ScipyRnorm, c.BNorm) {
			t.Errorf("%s: rnorm = %.17g; scipy %.17g", c.Name, r, c.ScipyRnorm)
		} else if c.ScipyRnorm > 1e-6*c.BNorm {
			maxRScipy = max(maxRScipy, d/c.ScipyRnorm)
		}
		if c.XUnique {
			e := relErr(x, c.ScipyX)
			if e > xTol(c.CondSupport) {
				t.Errorf("%s: x relative error %.3g vs scipy; want ≤ %.3g", c.Name, e, xTol(c.CondSupport))
			}
			if c.CondSupport <= 1e4 {
				maxXScipy = max(maxXScipy, e)
			}
		}
	}
	t.Logf("well-conditioned supports (%d cases): max rel err x vs true %.2g, vs scipy %.2g", nTrue, maxXTrue, maxXScipy)
	t.Logf("ill-conditioned supports (%d cases, κ_S 1e4..1.6e13): max err x vs true = %.2g·κ_S·ε", nIll, maxXTrueIll)
	t.Logf("rnorm (residual > 1e-6‖b‖): max rel err vs true %.2g, vs scipy %.2g (%d scipy cases)", maxRTrue, maxRScipy, nScipy)
	t.Logf("KKT: max dual %.2g, max complementarity %.2g; %d cases with a non-unique optimum checked by rnorm and KKT only", maxDual, maxCompl, nSkip)
}

func residual(a []float64, m, n int, b, x []float64) []float64 {
	r := make([]float64, m)
	for i := range m {
		r[i] = -b[i]
		for j := range n {
			r[i] += a[i*n+j] * x[j]
		}
	}
	return r
}
