package curvefit

import (
	"fmt"
	"math"

	"github.com/syncmodels/syncmodels/internal/fpdet"
)

// Curve is a learning curve: the expected loss after t ≥ 0 training steps.
type Curve interface {
	// Eval returns the loss predicted at step t.
	Eval(t float64) float64
	// Params returns a copy of the curve's coefficients θ0…θ3.
	Params() []float64
}

// Power is the reference learning curve of MLLess Eq. 2,
//
//	L(t) = 1/(θ0·t^θ1 + θ2) + θ3,  θ ≥ 0,
//
// fitted on the losses of the fast-convergence region (an SGD-like
// O(1/√t + 1/t) decay). For θ ≥ 0 it is non-increasing in t ≥ 0 and tends
// to θ3 when θ0 > 0 and θ1 > 0.
type Power struct {
	Theta [4]float64
}

// Eval returns L(t); +Inf where the denominator is 0.
func (p Power) Eval(t float64) float64 {
	return 1/(float64(p.Theta[0]*fpdet.Pow(t, p.Theta[1]))+p.Theta[2]) + p.Theta[3]
}

// Params returns [θ0, θ1, θ2, θ3].
func (p Power) Params() []float64 { return p.Theta[:] }

func (p Power) String() string {
	return fmt.Sprintf("L(t) = 1/(%.6g·t^%.6g + %.6g) + %.6g", p.Theta[0], p.Theta[1], p.Theta[2], p.Theta[3])
}

// TimeToLoss returns the first step t ≥ 0 at which L(t) ≤ target, and
// ok = false (t = +Inf) when the curve never gets there: target ≤ θ3 (the
// asymptote is never reached) or the curve is flat above the target.
func (p Power) TimeToLoss(target float64) (t float64, ok bool) {
	th := p.Theta
	if math.IsNaN(target) {
		return math.Inf(1), false
	}
	if p.Eval(0) <= target {
		return 0, true
	}
	if target <= th[3] || th[0] == 0 || th[1] == 0 {
		return math.Inf(1), false
	}
	// θ0·t^θ1 = 1/(target − θ3) − θ2 > 0 since L(0) > target.
	t = fpdet.Pow((1/(target-th[3])-th[2])/th[0], 1/th[1])
	if math.IsInf(t, 0) || math.IsNaN(t) {
		return math.Inf(1), false
	}
	return t, true
}

// Quadratic is the slow-convergence learning curve of MLLess Eq. 3 (after
// SLAQ, Zhang et al. 2017),
//
//	ℓ(t) = 1/(θ0·t² + θ1·t + θ2) + θ3,  θ ≥ 0,
//
// fitted on the losses since the last worker removal. For θ ≥ 0 it is
// non-increasing in t ≥ 0.
type Quadratic struct {
	Theta [4]float64
}

// Eval returns ℓ(t); +Inf where the denominator is 0.
func (q Quadratic) Eval(t float64) float64 {
	return 1/(float64((float64(q.Theta[0]*t)+q.Theta[1])*t)+q.Theta[2]) + q.Theta[3]
}

// Params returns [θ0, θ1, θ2, θ3].
func (q Quadratic) Params() []float64 { return q.Theta[:] }

func (q Quadratic) String() string {
	return fmt.Sprintf("ℓ(t) = 1/(%.6g·t² + %.6g·t + %.6g) + %.6g", q.Theta[0], q.Theta[1], q.Theta[2], q.Theta[3])
}

// TimeToLoss returns the first step t ≥ 0 at which ℓ(t) ≤ target, and
// ok = false (t = +Inf) when the curve never gets there.
func (q Quadratic) TimeToLoss(target float64) (t float64, ok bool) {
	th := q.Theta
	if math.IsNaN(target) {
		return math.Inf(1), false
	}
	if q.Eval(0) <= target {
		return 0, true
	}
	if target <= th[3] || (th[0] == 0 && th[1] == 0) {
		return math.Inf(1), false
	}
	// Solve θ0·t² + θ1·t + c = 0 with c = θ2 − 1/(target − θ3) < 0 (since
	// ℓ(0) > target): the positive root, in the cancellation-free form.
	c := th[2] - 1/(target-th[3])
	if th[0] == 0 {
		t = -c / th[1]
	} else {
		qq := -0.5 * (th[1] + math.Sqrt(float64(th[1]*th[1])-float64(4*th[0]*c)))
		t = c / qq
	}
	if math.IsInf(t, 0) || math.IsNaN(t) {
		return math.Inf(1), false
	}
	return t, true
}

// Predict returns c.Eval(t[i]) for every t[i].
func Predict(c Curve, t []float64) []float64 {
	out := make([]float64, len(t))
	for i, ti := range t {
		out[i] = c.Eval(ti)
	}
	return out
}

// Residual returns ‖y − c(t)‖₂, the root of the sum of squared errors of
// the curve on the samples (t[i], y[i]). It panics if len(t) != len(y).
func Residual(c Curve, t, y []float64) float64 {
	if len(t) != len(y) {
		panic(fmt.Sprintf("curvefit: Residual: len(t) = %d, len(y) = %d", len(t), len(y)))
	}
	r := make([]float64, len(y))
	for i := range y {
		r[i] = y[i] - c.Eval(t[i])
	}
	return nrm2(r)
}
