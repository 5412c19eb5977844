package kmeans

import (
	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/internal/emcore"
	"github.com/syncmodels/syncmodels/internal/kernel"
)

// worker holds a shard's points and each point's current cluster.
type worker struct {
	km     *KMeans
	points []int
	assign []int32 // current cluster of each local point, -1 before its first visit

	theta   []float64 // centroids from SetParams (not owned)
	cnorm   []float64 // ‖c_j‖² of θ
	cnorm32 []float64 // ‖c_j‖² of the float32-rounded centroids (Float32 mode)
	c32     []float32 // float32 centroids (Float32 mode)
	dots    []float64 // blockRows×K scratch
	dots32  []float32
	buf     []float64 // rows converted from float32 (Float32 mode)

	data   emcore.Rows[float64] // the data, for gathering rows
	data32 emcore.Rows[float32] // the float32 data (Float32 mode)
	owner  string               // of checkpoints
}

func (w *worker) Len() int { return len(w.points) }

// Checkpoint returns a copy of the assignments.
func (w *worker) Checkpoint() algorithms.Checkpoint { return emcore.Checkpoint(w.owner, w.assign) }

// Restore restores the assignments of a checkpoint.
func (w *worker) Restore(c algorithms.Checkpoint) error { return emcore.Restore(c, w.owner, w.assign) }

// SetParams installs centroids θ (K×D) and precomputes ‖c_j‖².
func (w *worker) SetParams(theta []float64) {
	km := w.km
	emcore.CheckSetParams("kmeans", theta, km.layout.Params)
	w.theta = theta
	d := km.d
	for j := range w.cnorm {
		c := theta[j*d : (j+1)*d]
		w.cnorm[j] = kernel.Dot(c, c)
	}
	if w.c32 != nil {
		for i, v := range theta {
			w.c32[i] = float32(v)
		}
		for j := range w.cnorm32 {
			s := 0.0
			for _, v := range w.c32[j*d : (j+1)*d] {
				s += float64(float64(v) * float64(v))
			}
			w.cnorm32[j] = s
		}
	}
}

func (w *worker) check(lo, hi int, d *algorithms.Delta) {
	emcore.CheckProcess("kmeans", w.theta != nil, lo, hi, len(w.points), d, w.km.layout.Delta)
}

// Process assigns local points lo..hi-1 to their nearest centroids and adds
// the change of statistics of the points whose cluster changed to d.
func (w *worker) Process(lo, hi int, d *algorithms.Delta) {
	w.check(lo, hi, d)
	km := w.km
	k, dim := km.k, km.d
	s, c := d.Vec[:k*dim], d.Vec[k*dim:]
	for b := lo; b < hi; b += blockRows {
		n := min(blockRows, hi-b)
		if km.x32 != nil {
			xs := w.rows32(b, n)
			kernel.DotsNT32(xs, n, w.c32, k, dim, w.dots32)
			for i := 0; i < n; i++ {
				j := argmin32(w.cnorm32, w.dots32[i*k:(i+1)*k])
				old := w.assign[b+i]
				if int(old) == j {
					continue
				}
				x := xs[i*dim : (i+1)*dim]
				kernel.AddTo64(x, s[j*dim:(j+1)*dim])
				c[j]++
				if old >= 0 {
					kernel.AxpyTo64(-1, x, s[int(old)*dim:(int(old)+1)*dim])
					c[old]--
				}
				w.assign[b+i] = int32(j)
			}
			continue
		}
		xs := w.rows(b, n)
		kernel.DotsNT(xs, n, w.theta, k, dim, w.dots)
		for i := 0; i < n; i++ {
			j := argmin(w.cnorm, w.dots[i*k:(i+1)*k])
			old := w.assign[b+i]
			if int(old) == j {
				continue
			}
			x := xs[i*dim : (i+1)*dim]
			kernel.Axpy(1, x, s[j*dim:(j+1)*dim])
			c[j]++
			if old >= 0 {
				kernel.Axpy(-1, x, s[int(old)*dim:(int(old)+1)*dim])
				c[old]--
			}
			w.assign[b+i] = int32(j)
		}
	}
	d.Count += hi - lo
}

// argmin returns the j minimising ‖c_j‖² − 2·dots[j], the lowest on ties.
func argmin(cnorm, dots []float64) int {
	best, bv := 0, cnorm[0]-float64(2*dots[0])
	for j := 1; j < len(cnorm); j++ {
		if v := cnorm[j] - float64(2*dots[j]); v < bv {
			best, bv = j, v
		}
	}
	return best
}

func argmin32(cnorm []float64, dots []float32) int {
	best, bv := 0, cnorm[0]-float64(2*float64(dots[0]))
	for j := 1; j < len(cnorm); j++ {
		if v := cnorm[j] - float64(2*float64(dots[j])); v < bv {
			best, bv = j, v
		}
	}
	return best
}

// Evaluate returns the shard's inertia Σ min_j ‖x − c_j‖², each distance a
// sum of squared differences. The expansion only preselects the clusters
// within rounding distance of the nearest; their exact distances decide.
func (w *worker) Evaluate() algorithms.Partial {
	w.check(0, 0, nil)
	km := w.km
	k, dim := km.k, km.d
	cmax := 0.0
	for _, v := range w.cnorm {
		cmax = max(cmax, v)
	}
	var total float64
	for b := 0; b < len(w.points); b += blockRows {
		n := min(blockRows, len(w.points)-b)
		var xs []float64
		if km.x32 != nil {
			xs = w.rowsFrom32(b, n)
		} else {
			xs = w.rows(b, n)
		}
		kernel.DotsNT(xs, n, w.theta, k, dim, w.dots)
		for i := 0; i < n; i++ {
			x := xs[i*dim : (i+1)*dim]
			dots := w.dots[i*k : (i+1)*k]
			j0 := argmin(w.cnorm, dots)
			best := kernel.SqDist(x, w.theta[j0*dim:(j0+1)*dim])
			// The expansion's error is far below 1e-9·(‖x‖²+max‖c‖²).
			band := w.cnorm[j0] - float64(2*dots[j0]) + float64(2e-9*(kernel.Dot(x, x)+cmax))
			for j := range dots {
				if j != j0 && w.cnorm[j]-float64(2*dots[j]) <= band {
					best = min(best, kernel.SqDist(x, w.theta[j*dim:(j+1)*dim]))
				}
			}
			total += best
		}
	}
	return algorithms.Partial{Sum: total, N: float64(len(w.points))}
}

// Assignments returns a copy of each local point's current cluster (-1 for
// points not yet processed). It is for tests and diagnostics; the workers
// of this package satisfy interface{ Assignments() []int32 }.
func (w *worker) Assignments() []int32 { return append([]int32(nil), w.assign...) }

// rows returns local points lo..lo+n-1 as an n×D row-major slice (see
// emcore.Rows.Block).
func (w *worker) rows(lo, n int) []float64 { return w.data.Block(w.points[lo : lo+n]) }

// rows32 returns the float32 rows (Float32 mode).
func (w *worker) rows32(lo, n int) []float32 { return w.data32.Block(w.points[lo : lo+n]) }

// rowsFrom32 returns the float32 rows converted to float64.
func (w *worker) rowsFrom32(lo, n int) []float64 {
	dim, X := w.km.d, w.km.x32
	if w.buf == nil {
		w.buf = make([]float64, blockRows*dim)
	}
	for i, p := range w.points[lo : lo+n] {
		dst := w.buf[i*dim : (i+1)*dim]
		for t, v := range X[p*dim : (p+1)*dim] {
			dst[t] = float64(v)
		}
	}
	return w.buf[:n*dim]
}
