package pmf

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

// Defaults, after MLLess (§6.1, Table 1, and its public code).
const (
	DefaultRank    = 20
	DefaultInitStd = 0.1
)

// DefaultOptim is the optimizer a zero Config.Optim stands for: SGD with
// Nesterov momentum 0.8, as MLLess trains PMF, with learning rate 3.
//
// The step is taken on the mean gradient over the batch (sum / Count), so a
// row with k ratings in a batch of B moves by about LR·k/B times its
// per-rating gradient. Rare rows (most users) therefore want a large LR,
// while the most popular rows bound it: momentum μ multiplies the step by
// up to 1/(1−μ), and the iteration is stable only while roughly
// LR·p·‖U_u‖²/(1−μ) < 2 for the largest share p of a batch's ratings that
// falls on one row. LR 3 is stable for Zipf(1) item popularity over 1000
// items (p ≈ 13%); on MovieLens (p < 1%) larger rates converge faster.
// MLLess itself used LR 8 on the gradient of e² (16 on ours) with
// B = 12,000. Lazy Adam (optim.Adam, LR ≈ 0.01) adapts per entry and is
// far less sensitive to the popularity skew.
var DefaultOptim = optim.Config{Method: optim.Nesterov, Momentum: 0.8, LR: 3}

// Config configures PMF. The zero value is valid: rank 20, no penalty,
// init N(0, 0.1²), Nesterov momentum 0.8 with learning rate 3.
type Config struct {
	// Rank is the number r of latent factors. Default 20 (MLLess: 20).
	Rank int
	// Lambda is the L2 coefficient λ ≥ 0 of each rating's penalty
	// λ/2·(‖U_u‖² + ‖M_m‖²). Default 0.
	Lambda float64
	// InitStd is the standard deviation of the N(0, InitStd²) draws of θ0.
	// Default 0.1 (MLLess).
	InitStd float64
	// Optim configures the server's optimizer. The zero value means
	// DefaultOptim; a non-zero value is used as given (see optim.Config
	// for its own defaults).
	Optim optim.Config
}

func (c *Config) validate() error {
	if c.Rank == 0 {
		c.Rank = DefaultRank
	}
	if c.InitStd == 0 {
		c.InitStd = DefaultInitStd
	}
	if c.Optim == (optim.Config{}) {
		c.Optim = DefaultOptim
	}
	switch {
	case c.Rank < 0:
		return fmt.Errorf("pmf: rank %d < 1: %w", c.Rank, algorithms.ErrConfig)
	case !(c.Lambda >= 0) || math.IsInf(c.Lambda, 0):
		return fmt.Errorf("pmf: lambda %v is not a finite number ≥ 0: %w", c.Lambda, algorithms.ErrConfig)
	case !(c.InitStd > 0) || math.IsInf(c.InitStd, 0):
		return fmt.Errorf("pmf: init std %v is not a positive finite number: %w", c.InitStd, algorithms.ErrConfig)
	}
	return c.Optim.Validate()
}

// PMF is probabilistic matrix factorisation R ≈ U·Mᵀ of a ratings matrix,
// trained by gradient descent. It implements algorithms.Algorithm; the data
// points are the ratings.
//
// θ holds U (NumUsers × r, row-major) followed by M (NumItems × r); block
// b < NumUsers is user row b and block NumUsers + m is item row m. Deltas
// are sparse with block width r.
type PMF struct {
	data   *dataset.Ratings
	cfg    Config
	layout algorithms.Layout
	users  int // offset of M in θ is users·r
}

var _ algorithms.Algorithm = (*PMF)(nil)

// New binds PMF to a ratings set. data is not copied and must not change
// while the algorithm is in use.
func New(data *dataset.Ratings, cfg Config) (*PMF, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if data == nil {
		return nil, fmt.Errorf("pmf: nil ratings: %w", algorithms.ErrConfig)
	}
	if err := data.Validate(); err != nil {
		return nil, fmt.Errorf("pmf: %w", err)
	}
	for k, v := range data.Value {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("pmf: rating %d (user %d, item %d) is %v: %w", k, data.User[k], data.Item[k], v, algorithms.ErrConfig)
		}
	}
	n := (data.NumUsers + data.NumItems) * cfg.Rank
	return &PMF{
		data:   data,
		cfg:    cfg,
		layout: algorithms.Layout{Params: n, Delta: n, Block: cfg.Rank},
		users:  data.NumUsers,
	}, nil
}

// Name returns "pmf".
func (p *PMF) Name() string { return "pmf" }

// Layout returns the layout: θ and deltas of (NumUsers+NumItems)·r entries,
// sparse blocks of width r.
func (p *PMF) Layout() algorithms.Layout { return p.layout }

// NumPoints returns the number of ratings.
func (p *PMF) NumPoints() int { return p.data.Len() }

// Minimize returns true: the objective is an RMSE.
func (p *PMF) Minimize() bool { return true }

// Config returns the configuration with defaults filled in.
func (p *PMF) Config() Config { return p.cfg }

// Init draws every entry of U and M from N(0, InitStd²), U first.
func (p *PMF) Init(rng *rand.Rand) ([]float64, error) {
	if rng == nil {
		return nil, fmt.Errorf("pmf: Init needs an rng: %w", algorithms.ErrConfig)
	}
	theta := make([]float64, p.layout.Params)
	for i := range theta {
		theta[i] = p.cfg.InitStd * fpdet.NormFloat64(rng)
	}
	return theta, nil
}

// NewServer returns a server that steps the touched rows only, with the
// mean gradient of the merged delta (sum over its ratings / Count).
func (p *PMF) NewServer(theta0 []float64) (algorithms.Server, error) {
	return optim.NewAlgorithmServer(theta0, optim.ServerConfig{Name: p.Name(), Layout: p.layout, Points: p.data.Len(), Optim: p.cfg.Optim})
}

// Objective returns the RMSE √(Σe²/N) of the partials (the penalty is not
// included); NaN when they hold no rating.
func (p *PMF) Objective(theta []float64, parts ...algorithms.Partial) float64 {
	s := algorithms.SumPartials(parts)
	if s.N == 0 {
		return math.NaN()
	}
	return math.Sqrt(s.Sum / s.N)
}

// Predict returns U_u·M_m under θ.
func (p *PMF) Predict(theta []float64, user, item int) float64 {
	r := p.cfg.Rank
	return kernel.Dot(theta[user*r:(user+1)*r], theta[(p.users+item)*r:(p.users+item+1)*r])
}

// NewWorker returns a worker over the ratings with the given indices. It has
// no per-point state; its algorithms.Checkpointer only checks identity.
func (p *PMF) NewWorker(points []int) (algorithms.Worker, error) {
	n := p.data.Len()
	for k, i := range points {
		if i < 0 || i >= n {
			return nil, fmt.Errorf("pmf: shard entry %d is rating %d, outside [0,%d): %w", k, i, n, algorithms.ErrLayout)
		}
	}
	return &worker{
		p: p, points: points,
		Stateless: algorithms.NewStateless(algorithms.ShardOwner(p.Name(), p.layout, points)),
	}, nil
}

type worker struct {
	p      *PMF
	points []int
	theta  []float64
	algorithms.Stateless
}

func (w *worker) Len() int                  { return len(w.points) }
func (w *worker) SetParams(theta []float64) { w.theta = theta }

// Process adds, for each rating (u, m, v) with e = v − U_u·M_m, the
// gradient of ½e² + λ/2(‖U_u‖² + ‖M_m‖²): −e·M_m + λU_u to row u of U and
// −e·U_u + λM_m to row m of M, and touches those two blocks.
func (w *worker) Process(lo, hi int, d *algorithms.Delta) {
	p := w.p
	r, off, lam := p.cfg.Rank, p.users*p.cfg.Rank, p.cfg.Lambda
	users, items, vals := p.data.User, p.data.Item, p.data.Value
	th, g := w.theta, d.Vec
	for _, k := range w.points[lo:hi] {
		u, m := int(users[k]), int(items[k])
		uo, mo := u*r, off+m*r
		uu, mm := th[uo:uo+r], th[mo:mo+r]
		gu, gm := g[uo:uo+r], g[mo:mo+r]
		e := vals[k] - kernel.Dot(uu, mm)
		mm, gu, gm = mm[:len(uu)], gu[:len(uu)], gm[:len(uu)]
		for j, x := range uu {
			y := mm[j]
			gu[j] += float64(-e*y) + float64(lam*x)
			gm[j] += float64(-e*x) + float64(lam*y)
		}
		d.Touch(u)
		d.Touch(p.users + m)
	}
	d.Count += hi - lo
}

// Evaluate returns Σe² over the shard's ratings and their number.
func (w *worker) Evaluate() algorithms.Partial {
	p := w.p
	r, off := p.cfg.Rank, p.users*p.cfg.Rank
	s := 0.0
	for _, k := range w.points {
		uo, mo := int(p.data.User[k])*r, off+int(p.data.Item[k])*r
		e := p.data.Value[k] - kernel.Dot(w.theta[uo:uo+r], w.theta[mo:mo+r])
		s += float64(e * e)
	}
	return algorithms.Partial{Sum: s, N: float64(len(w.points))}
}
