package fcm

import (
	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/internal/emcore"
	"github.com/syncmodels/syncmodels/internal/fpdet"
	"github.com/syncmodels/syncmodels/internal/kernel"
)

// nearZero is the relative size below which an expanded squared distance is
// recomputed as a sum of squared differences.
const nearZero = 1e-3

// worker holds a shard's points and their last weights u^m.
type worker struct {
	f      *FCM
	points []int
	um     []float64 // n×K weights u_ij^m, zero before a point's first visit

	theta []float64 // centroids from SetParams (not owned)
	cnorm []float64 // ‖c_j‖²
	dots  []float64 // blockRows×K scratch
	d2    []float64 // K scratch: squared distances of one point
	u     []float64 // K scratch: memberships of one point

	data  emcore.Rows[float64] // the data, for gathering rows
	owner string               // of checkpoints
}

func (w *worker) Len() int { return len(w.points) }

// Checkpoint returns a copy of the weights u^m.
func (w *worker) Checkpoint() algorithms.Checkpoint { return emcore.Checkpoint(w.owner, w.um) }

// Restore restores the weights u^m of a checkpoint.
func (w *worker) Restore(c algorithms.Checkpoint) error { return emcore.Restore(c, w.owner, w.um) }

// SetParams installs the centroids θ (K×D) and precomputes ‖c_j‖².
func (w *worker) SetParams(theta []float64) {
	f := w.f
	emcore.CheckSetParams("fcm", theta, f.layout.Params)
	w.theta = theta
	for j := range w.cnorm {
		c := theta[j*f.d : (j+1)*f.d]
		w.cnorm[j] = kernel.Dot(c, c)
	}
}

func (w *worker) check(lo, hi int, d *algorithms.Delta) {
	emcore.CheckProcess("fcm", w.theta != nil, lo, hi, len(w.points), d, w.f.layout.Delta)
}

// memberships sets u from the squared distances d2 (see the package
// documentation).
func (f *FCM) memberships(d2, u []float64) {
	zeros := 0
	dmin := d2[0]
	for _, v := range d2 {
		if v == 0 {
			zeros++
		}
		dmin = min(dmin, v)
	}
	if zeros > 0 {
		for j, v := range d2 {
			u[j] = 0
			if v == 0 {
				u[j] = 1 / float64(zeros)
			}
		}
		return
	}
	s := 0.0
	for j, v := range d2 {
		r := dmin / v
		if f.p != 1 {
			r = fpdet.Pow(r, f.p)
		}
		u[j] = r
		s += r
	}
	for j := range u {
		u[j] /= s
	}
}

// pow returns u^m.
func (f *FCM) pow(u float64) float64 {
	if f.m == 2 {
		return float64(u * u)
	}
	return fpdet.Pow(u, f.m)
}

// Process recomputes the memberships of local points lo..hi-1 under the
// current centroids and adds the change of [S | W] to d.
func (w *worker) Process(lo, hi int, d *algorithms.Delta) {
	w.check(lo, hi, d)
	f := w.f
	k, dim := f.k, f.d
	S, W := d.Vec[:k*dim], d.Vec[k*dim:]
	for b := lo; b < hi; b += blockRows {
		n := min(blockRows, hi-b)
		xs := w.rows(b, n)
		kernel.DotsNT(xs, n, w.theta, k, dim, w.dots)
		for i := 0; i < n; i++ {
			x := xs[i*dim : (i+1)*dim]
			xx := kernel.Dot(x, x)
			for j, dot := range w.dots[i*k : (i+1)*k] {
				v := xx - float64(2*dot) + w.cnorm[j]
				if v <= nearZero*(xx+w.cnorm[j]) {
					v = kernel.SqDist(x, w.theta[j*dim:(j+1)*dim])
				}
				w.d2[j] = v
			}
			f.memberships(w.d2, w.u)
			old := w.um[(b+i)*k : (b+i+1)*k]
			for j, u := range w.u {
				um := f.pow(u)
				delta := um - old[j]
				if delta == 0 {
					continue
				}
				old[j] = um
				W[j] += delta
				kernel.Axpy(delta, x, S[j*dim:(j+1)*dim])
			}
		}
	}
	d.Count += hi - lo
}

// Evaluate returns the shard's J = Σ_i Σ_j u_ij^m·‖x_i − c_j‖² under the
// current centroids, with distances as sums of squared differences.
func (w *worker) Evaluate() algorithms.Partial {
	w.check(0, 0, nil)
	f := w.f
	k, dim := f.k, f.d
	total := 0.0
	for b := 0; b < len(w.points); b += blockRows {
		n := min(blockRows, len(w.points)-b)
		xs := w.rows(b, n)
		for i := 0; i < n; i++ {
			x := xs[i*dim : (i+1)*dim]
			for j := 0; j < k; j++ {
				w.d2[j] = kernel.SqDist(x, w.theta[j*dim:(j+1)*dim])
			}
			f.memberships(w.d2, w.u)
			for j, u := range w.u {
				if u != 0 {
					total += float64(f.pow(u) * w.d2[j])
				}
			}
		}
	}
	return algorithms.Partial{Sum: total, N: float64(len(w.points))}
}

// Weights returns a copy of the local points' last weights u^m (n×K), for
// tests and diagnostics.
func (w *worker) Weights() []float64 { return append([]float64(nil), w.um...) }

// rows returns local points lo..lo+n-1 as an n×D row-major slice (see
// emcore.Rows.Block).
func (w *worker) rows(lo, n int) []float64 { return w.data.Block(w.points[lo : lo+n]) }
