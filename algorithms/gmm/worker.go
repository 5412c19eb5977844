package gmm

import (
	"math"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/internal/emcore"
	"github.com/syncmodels/syncmodels/internal/fpdet"
	"github.com/syncmodels/syncmodels/internal/kernel"
)

// log2Pi is log(2π).
var log2Pi = fpdet.Log(2 * math.Pi)

// worker holds a shard's points and their last responsibilities.
type worker struct {
	g      *GMM
	points []int
	resp   []float64 // n×K, zero before a point's first visit

	set   bool
	prec  []float64 // K×D precisions P = (1/√σ²)², as scikit-learn computes them
	b     []float64 // K×D, −2·μ·P
	konst []float64 // K, −½(D·log 2π + Σ_t μ²P) + Σ_t log(1/√σ²) + log π
	out   []float64 // blockRows×K scratch
	lp    []float64 // K scratch: weighted log-probabilities of one point
	sq    []float64 // D scratch: x²

	data  emcore.Rows[float64] // the data, for gathering rows
	owner string               // of checkpoints
}

func (w *worker) Len() int { return len(w.points) }

// Checkpoint returns a copy of the responsibilities.
func (w *worker) Checkpoint() algorithms.Checkpoint { return emcore.Checkpoint(w.owner, w.resp) }

// Restore restores the responsibilities of a checkpoint.
func (w *worker) Restore(c algorithms.Checkpoint) error { return emcore.Restore(c, w.owner, w.resp) }

// SetParams installs θ and precomputes the precisions and per-component
// constants of the log-densities.
func (w *worker) SetParams(theta []float64) {
	g := w.g
	emcore.CheckSetParams("gmm", theta, g.layout.Params)
	pi, mu, v := g.split(theta)
	d := g.d
	for j := 0; j < g.k; j++ {
		mpp, logdet := 0.0, 0.0
		for t := j * d; t < (j+1)*d; t++ {
			pc := 1 / math.Sqrt(v[t])
			p := pc * pc
			w.prec[t] = p
			w.b[t] = -2 * mu[t] * p
			mpp += float64(mu[t] * mu[t] * p)
			logdet += fpdet.Log(pc)
		}
		w.konst[j] = float64(-0.5*(float64(float64(d)*log2Pi)+mpp)) + logdet + fpdet.Log(pi[j])
	}
	w.set = true
}

func (w *worker) check(lo, hi int, d *algorithms.Delta) {
	emcore.CheckProcess("gmm", w.set, lo, hi, len(w.points), d, w.g.layout.Delta)
}

// logProbs computes, for rows xs (n×D), the weighted log-probabilities
// log π_k + log N(x | μ_k, σ²_k) into w.out (n×K).
func (w *worker) logProbs(xs []float64, n int) {
	k := w.g.k
	kernel.DotsNT2(xs, n, w.prec, w.b, k, w.g.d, w.out)
	for i := 0; i < n; i++ {
		o := w.out[i*k : (i+1)*k]
		for j := range o {
			o[j] = w.konst[j] - float64(0.5*o[j])
		}
	}
}

// logSumExp returns log Σ exp(v_j), computed as scipy does.
func logSumExp(v []float64) float64 {
	m := v[0]
	for _, x := range v[1:] {
		m = max(m, x)
	}
	if math.IsInf(m, -1) {
		return m
	}
	s := 0.0
	for _, x := range v {
		s += fpdet.Exp(x - m)
	}
	return fpdet.Log(s) + m
}

// Process recomputes the responsibilities of local points lo..hi-1 under the
// current θ and adds the change of [N | S1 | S2] to d.
func (w *worker) Process(lo, hi int, d *algorithms.Delta) {
	w.check(lo, hi, d)
	g := w.g
	k, dim := g.k, g.d
	N, S1, S2 := g.split(d.Vec)
	for b := lo; b < hi; b += blockRows {
		n := min(blockRows, hi-b)
		xs := w.rows(b, n)
		w.logProbs(xs, n)
		for i := 0; i < n; i++ {
			o := w.out[i*k : (i+1)*k]
			lse := logSumExp(o)
			r := w.resp[(b+i)*k : (b+i+1)*k]
			x := xs[i*dim : (i+1)*dim]
			squared := false
			for j, v := range o {
				rn := fpdet.Exp(v - lse)
				delta := rn - r[j]
				if delta == 0 {
					continue
				}
				r[j] = rn
				if !squared {
					for t, xv := range x {
						w.sq[t] = xv * xv
					}
					squared = true
				}
				N[j] += delta
				kernel.Axpy(delta, x, S1[j*dim:(j+1)*dim])
				kernel.Axpy(delta, w.sq, S2[j*dim:(j+1)*dim])
			}
		}
	}
	d.Count += hi - lo
}

// Evaluate returns the shard's Σ_i log p(x_i | θ) and its number of points.
func (w *worker) Evaluate() algorithms.Partial {
	w.check(0, 0, nil)
	k := w.g.k
	total := 0.0
	for b := 0; b < len(w.points); b += blockRows {
		n := min(blockRows, len(w.points)-b)
		w.logProbs(w.rows(b, n), n)
		for i := 0; i < n; i++ {
			total += logSumExp(w.out[i*k : (i+1)*k])
		}
	}
	return algorithms.Partial{Sum: total, N: float64(len(w.points))}
}

// Responsibilities returns a copy of the local points' last
// responsibilities (n×K), for tests and diagnostics.
func (w *worker) Responsibilities() []float64 { return append([]float64(nil), w.resp...) }

// rows returns local points lo..lo+n-1 as an n×D row-major slice (see
// emcore.Rows.Block).
func (w *worker) rows(lo, n int) []float64 { return w.data.Block(w.points[lo : lo+n]) }
