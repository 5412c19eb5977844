package nmf

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/internal/fpdet"
	"github.com/syncmodels/syncmodels/internal/kernel"
)

// DefaultRank is the rank a zero Config.Rank stands for.
const DefaultRank = 10

// Config configures NMF. The zero value is valid: rank 10, SGD with
// learning rate 0.01, H's gradient unscaled.
type Config struct {
	// Rank is the number r of factors. Default 10.
	Rank int
	// Optim configures the server's optimizer (see package optim; its
	// defaults apply). For W rows the step is per point (see the package
	// documentation), so plain SGD is stable for LR < 2/λ_max(H·Hᵀ).
	Optim optim.Config
	// HScale multiplies H's mean gradient before the optimizer step. With
	// SGD or momentum it is the ratio of H's learning rate to W's (H's
	// gradient is a mean over the batch, W's is one point's, so H usually
	// wants a larger rate); Adam is invariant to it. Default 1.
	HScale float64
}

func (c *Config) validate() error {
	if c.Rank == 0 {
		c.Rank = DefaultRank
	}
	if c.HScale == 0 {
		c.HScale = 1
	}
	switch {
	case c.Rank < 0:
		return fmt.Errorf("nmf: rank %d < 1: %w", c.Rank, algorithms.ErrConfig)
	case !(c.HScale > 0) || math.IsInf(c.HScale, 0):
		return fmt.Errorf("nmf: H scale %v is not a positive finite number: %w", c.HScale, algorithms.ErrConfig)
	}
	return c.Optim.Validate()
}

// NMF is non-negative matrix factorisation X ≈ W·H of a dense non-negative
// n×d data set, trained by data-parallel projected gradient descent. It
// implements algorithms.Algorithm; the data points are the rows of X.
//
// θ holds W (n × r, row-major; row i belongs to data point i) followed by
// H (r × d, row-major). Deltas are sparse with block width r: block i < n
// is row i of W; blocks n … n+d−1 cover H (r consecutive entries of H's
// row-major storage each) and are all touched by every point.
type NMF struct {
	data   *dataset.Dense
	cfg    Config
	layout algorithms.Layout
	nw     int // n·r, where H starts in θ
}

var _ algorithms.Algorithm = (*NMF)(nil)

// New binds NMF to a non-negative dense data set (labels are ignored).
// data is not copied and must not change while the algorithm is in use.
func New(data *dataset.Dense, cfg Config) (*NMF, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if data == nil {
		return nil, fmt.Errorf("nmf: nil data set: %w", algorithms.ErrConfig)
	}
	if err := data.Validate(); err != nil {
		return nil, fmt.Errorf("nmf: %w", err)
	}
	if data.D == 0 {
		return nil, fmt.Errorf("nmf: data set has no columns: %w", algorithms.ErrConfig)
	}
	for k, v := range data.X {
		if !(v >= 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("nmf: row %d column %d is %v, want a finite value ≥ 0: %w", k/data.D, k%data.D, v, algorithms.ErrConfig)
		}
	}
	r := cfg.Rank
	nw := data.N * r
	n := nw + r*data.D
	return &NMF{data: data, cfg: cfg, nw: nw, layout: algorithms.Layout{Params: n, Delta: n, Block: r}}, nil
}

// Name returns "nmf".
func (a *NMF) Name() string { return "nmf" }

// Layout returns the layout: n·r + r·d entries, sparse blocks of width r.
func (a *NMF) Layout() algorithms.Layout { return a.layout }

// NumPoints returns the number of rows of X.
func (a *NMF) NumPoints() int { return a.data.N }

// Minimize returns true.
func (a *NMF) Minimize() bool { return true }

// Config returns the configuration with defaults filled in.
func (a *NMF) Config() Config { return a.cfg }

// W returns the n×r factor W inside θ (a view).
func (a *NMF) W(theta []float64) []float64 { return theta[:a.nw] }

// H returns the r×d factor H inside θ (a view).
func (a *NMF) H(theta []float64) []float64 { return theta[a.nw:] }

// Init draws θ0 as scikit-learn's NMF(init='random') does: every entry of
// W and H is √(mean(X)/r)·|N(0, 1)|, W first.
func (a *NMF) Init(rng *rand.Rand) ([]float64, error) {
	if rng == nil {
		return nil, fmt.Errorf("nmf: Init needs an rng: %w", algorithms.ErrConfig)
	}
	mean := 0.0
	for _, v := range a.data.X {
		mean += v
	}
	if len(a.data.X) > 0 {
		mean /= float64(len(a.data.X))
	}
	scale := math.Sqrt(mean / float64(a.cfg.Rank))
	theta := make([]float64, a.layout.Params)
	for i := range theta {
		theta[i] = scale * math.Abs(fpdet.NormFloat64(rng))
	}
	return theta, nil
}

// NewServer returns the projected-gradient server: W rows step with their
// point's gradient (the delta's sum, not divided by Count), H with the mean
// gradient times HScale; then every stepped entry is clamped at 0. Only
// live blocks step.
func (a *NMF) NewServer(theta0 []float64) (algorithms.Server, error) {
	if err := algorithms.CheckParams(a.layout, theta0); err != nil {
		return nil, err
	}
	for i, v := range theta0 {
		if v < 0 {
			return nil, fmt.Errorf("nmf: θ0[%d] = %v is negative: %w", i, v, algorithms.ErrConfig)
		}
	}
	nw, hs := a.nw, a.cfg.HScale
	return optim.NewAlgorithmServer(theta0, optim.ServerConfig{
		Name:   a.Name(),
		Layout: a.layout,
		Points: a.data.N,
		Optim:  a.cfg.Optim,
		Gradient: func(grad, sum, theta []float64, count, lo, hi int) {
			mid := max(lo, min(hi, nw))
			copy(grad[lo:mid], sum[lo:mid])
			f := hs / float64(count)
			for i := mid; i < hi; i++ {
				grad[i] = sum[i] * f
			}
		},
		Project: func(theta []float64, lo, hi int) {
			t := theta[lo:hi]
			for i, v := range t {
				if v < 0 {
					t[i] = 0
				}
			}
		},
	})
}

// Objective returns ½‖X − W·H‖²_F / n over the rows evaluated (the mean
// over rows of ½‖x_i − W_i·H‖²); NaN when the partials hold no row. The
// per-entry RMSE is √(2·f/d).
func (a *NMF) Objective(theta []float64, parts ...algorithms.Partial) float64 {
	s := algorithms.SumPartials(parts)
	if s.N == 0 {
		return math.NaN()
	}
	return s.Sum / s.N
}

// NewWorker returns a worker over the rows with the given indices. It has no
// per-point state; its algorithms.Checkpointer only checks identity.
func (a *NMF) NewWorker(points []int) (algorithms.Worker, error) {
	for k, i := range points {
		if i < 0 || i >= a.data.N {
			return nil, fmt.Errorf("nmf: shard entry %d is row %d, outside [0,%d): %w", k, i, a.data.N, algorithms.ErrLayout)
		}
	}
	return &worker{
		a: a, points: points, e: make([]float64, a.data.D),
		Stateless: algorithms.NewStateless(algorithms.ShardOwner(a.Name(), a.layout, points)),
	}, nil
}

type worker struct {
	a      *NMF
	points []int
	theta  []float64
	e      []float64 // scratch: W_i·H − x_i
	algorithms.Stateless
}

func (w *worker) Len() int                  { return len(w.points) }
func (w *worker) SetParams(theta []float64) { w.theta = theta }

// residual sets w.e = W_i·H − x_i and returns ½‖w.e‖².
func (w *worker) residual(i int) float64 {
	a := w.a
	r, D := a.cfg.Rank, a.data.D
	e, x := w.e, a.data.X[i*D:(i+1)*D]
	for j, v := range x {
		e[j] = -v
	}
	H := w.theta[a.nw:]
	for k, wk := range w.theta[i*r : (i+1)*r] {
		kernel.Axpy(wk, H[k*D:(k+1)*D], e)
	}
	return float64(0.5 * kernel.Dot(e, e))
}

// Process adds, for each row i with residual e = W_i·H − x_i, the gradient
// of ½‖e‖²: e·Hᵀ to row i of W and W_iᵀ·e to H; it touches W's row i and
// all of H.
func (w *worker) Process(lo, hi int, d *algorithms.Delta) {
	if hi <= lo {
		return
	}
	a := w.a
	r, D := a.cfg.Rank, a.data.D
	H := w.theta[a.nw:]
	gH := d.Vec[a.nw:]
	e := w.e
	for _, i := range w.points[lo:hi] {
		w.residual(i)
		wi := w.theta[i*r : (i+1)*r]
		gw := d.Vec[i*r : (i+1)*r]
		for k, wk := range wi {
			hk := H[k*D : (k+1)*D]
			gw[k] += kernel.Dot(e, hk)
			kernel.Axpy(wk, e, gH[k*D:(k+1)*D])
		}
		d.Touch(i)
	}
	for b := a.data.N; b < a.data.N+D; b++ {
		d.Touch(b)
	}
	d.Count += hi - lo
}

// Evaluate returns Σ ½‖x_i − W_i·H‖² over the shard and its row count.
func (w *worker) Evaluate() algorithms.Partial {
	s := 0.0
	for _, i := range w.points {
		s += w.residual(i)
	}
	return algorithms.Partial{Sum: s, N: float64(len(w.points))}
}
