package logreg

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

// Config configures logistic regression. The zero value is valid: no
// penalty, SGD with learning rate 0.01, θ0 = 0.
type Config struct {
	// Lambda is the L2 coefficient λ ≥ 0 of the penalty λ/2·‖w‖² (the bias
	// is not penalised). Default 0. scikit-learn's C corresponds to
	// λ = 1/(C·n) for n training points.
	Lambda float64
	// Optim configures the server's optimizer (see package optim). The
	// MLLess setting is Adam with ε 1e-9 and the η/√(epoch+1) schedule.
	Optim optim.Config
	// InitStd, when positive, draws every entry of θ0 (weights and bias)
	// from N(0, InitStd²) with the rng given to Init. Default 0: θ0 = 0, as
	// scikit-learn starts.
	InitStd float64
}

func (c *Config) validate() error {
	if !(c.Lambda >= 0) || math.IsInf(c.Lambda, 0) {
		return fmt.Errorf("logreg: lambda %v is not a finite number ≥ 0: %w", c.Lambda, algorithms.ErrConfig)
	}
	if !(c.InitStd >= 0) || math.IsInf(c.InitStd, 0) {
		return fmt.Errorf("logreg: init std %v is not a finite number ≥ 0: %w", c.InitStd, algorithms.ErrConfig)
	}
	return c.Optim.Validate()
}

// LabelError reports a label that is not 0, 1 or −1.
type LabelError struct {
	Row   int
	Label float64
}

func (e *LabelError) Error() string {
	return fmt.Sprintf("logreg: row %d has label %v; want 0 or 1 (or −1, read as 0)", e.Row, e.Label)
}

// labels01 returns the labels as 0/1, mapping −1 to 0.
func labels01(labels []float64, n int) ([]float64, error) {
	if labels == nil {
		return nil, fmt.Errorf("logreg: data set has no labels: %w", algorithms.ErrConfig)
	}
	if len(labels) != n {
		return nil, fmt.Errorf("logreg: %d labels for %d rows: %w", len(labels), n, algorithms.ErrLayout)
	}
	y := make([]float64, n)
	for i, v := range labels {
		switch v {
		case 1:
			y[i] = 1
		case 0, -1:
		default:
			return nil, &LabelError{Row: i, Label: v}
		}
	}
	return y, nil
}

// model is what the dense and the sparse variants share: the labels, the
// configuration and the parameter layout θ = (w_0 … w_{d−1}, b).
type model struct {
	name   string
	n, d   int
	y      []float64
	cfg    Config
	layout algorithms.Layout
}

// checkData validates cfg, filling its defaults, and then data, a
// *dataset.Dense or *dataset.Sparse: NewDense and NewSparse start alike.
func checkData[D interface {
	*dataset.Dense | *dataset.Sparse
	Validate() error
}](cfg *Config, data D) error {
	if err := cfg.validate(); err != nil {
		return err
	}
	if data == nil {
		return fmt.Errorf("logreg: nil data set: %w", algorithms.ErrConfig)
	}
	if err := data.Validate(); err != nil {
		return fmt.Errorf("logreg: %w", err)
	}
	return nil
}

// newModel maps the labels of a validated data set of n rows and d
// features to 0/1 and returns the model of the variant called name, whose
// deltas have block width block (0: dense).
func newModel(name string, cfg Config, n, d int, labels []float64, block int) (model, error) {
	y, err := labels01(labels, n)
	if err != nil {
		return model{}, err
	}
	l := algorithms.Layout{Params: d + 1, Delta: d + 1, Block: block}
	return model{name: name, n: n, d: d, y: y, cfg: cfg, layout: l}, nil
}

func (m *model) Name() string              { return m.name }
func (m *model) Layout() algorithms.Layout { return m.layout }
func (m *model) NumPoints() int            { return m.n }
func (m *model) Minimize() bool            { return true }
func (m *model) Config() Config            { return m.cfg }

// Init returns θ0: zeros, or N(0, InitStd²) draws when InitStd > 0.
func (m *model) Init(rng *rand.Rand) ([]float64, error) {
	theta := make([]float64, m.d+1)
	if m.cfg.InitStd > 0 {
		if rng == nil {
			return nil, fmt.Errorf("logreg: Init with InitStd %v needs an rng: %w", m.cfg.InitStd, algorithms.ErrConfig)
		}
		for i := range theta {
			theta[i] = m.cfg.InitStd * fpdet.NormFloat64(rng)
		}
	}
	return theta, nil
}

// NewServer returns a server that takes an optimizer step with the mean
// log-loss gradient of each merged delta plus λw. For the sparse variant
// the step is lazy (optim.Server): only touched features and the bias
// move, and λw is added on touched features only.
func (m *model) NewServer(theta0 []float64) (algorithms.Server, error) {
	d, lambda := m.d, m.cfg.Lambda
	return optim.NewAlgorithmServer(theta0, optim.ServerConfig{
		Name:   m.name,
		Layout: m.layout,
		Points: m.n,
		Optim:  m.cfg.Optim,
		Gradient: func(grad, sum, theta []float64, count, lo, hi int) {
			inv := 1 / float64(count)
			for i := lo; i < hi; i++ {
				grad[i] = sum[i] * inv
			}
			if lambda != 0 {
				for i := lo; i < min(hi, d); i++ {
					grad[i] += float64(lambda * theta[i])
				}
			}
		},
	})
}

// Objective returns the mean log-loss of the partials plus λ/2·‖w‖²; NaN
// when the partials hold no point.
func (m *model) Objective(theta []float64, parts ...algorithms.Partial) float64 {
	p := algorithms.SumPartials(parts)
	if p.N == 0 {
		return math.NaN()
	}
	w := theta[:m.d]
	return p.Sum/p.N + float64(m.cfg.Lambda/2*kernel.Dot(w, w))
}

func (m *model) checkPoints(points []int) error {
	for k, i := range points {
		if i < 0 || i >= m.n {
			return fmt.Errorf("logreg: shard entry %d is point %d, outside [0,%d): %w", k, i, m.n, algorithms.ErrLayout)
		}
	}
	return nil
}

// stateless returns the algorithms.Checkpointer of a worker over points:
// workers have no per-point state.
func (m *model) stateless(points []int) algorithms.Stateless {
	return algorithms.NewStateless(algorithms.ShardOwner(m.name, m.layout, points))
}

// sigmoid returns 1/(1+e^−z) without overflow.
func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + fpdet.Exp(-z))
	}
	e := fpdet.Exp(z)
	return e / (1 + e)
}

// logLoss returns −y·log σ(z) − (1−y)·log(1−σ(z)) = log(1+e^z) − y·z for
// y ∈ {0, 1}, computed as max(z, 0) + log1p(e^−|z|) − y·z.
func logLoss(z, y float64) float64 {
	return max(z, 0) + fpdet.Log1p(fpdet.Exp(-math.Abs(z))) - float64(y*z)
}

// Prob returns P(y = 1 | x) = σ(w·x + b) under θ = (w, b), for a dense
// feature vector x of length len(θ)−1.
func Prob(theta, x []float64) float64 {
	d := len(theta) - 1
	return sigmoid(kernel.Dot(x[:d], theta[:d]) + theta[d])
}

// Dense is binary logistic regression on a dense data set. It implements
// algorithms.Algorithm with a dense delta of length d+1.
type Dense struct {
	model
	data *dataset.Dense
}

var _ algorithms.Algorithm = (*Dense)(nil)

// NewDense binds logistic regression to data, whose labels must be 0 or 1
// (−1 is read as 0). Features must be finite. data is not copied and must
// not change while the algorithm is in use.
func NewDense(data *dataset.Dense, cfg Config) (*Dense, error) {
	if err := checkData(&cfg, data); err != nil {
		return nil, err
	}
	for k, v := range data.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("logreg: row %d feature %d is %v: %w", k/data.D, k%data.D, v, algorithms.ErrConfig)
		}
	}
	m, err := newModel("logreg", cfg, data.N, data.D, data.Labels, 0)
	if err != nil {
		return nil, err
	}
	return &Dense{model: m, data: data}, nil
}

// NewWorker returns a worker over the given rows. It has no per-point
// state; its algorithms.Checkpointer only checks identity.
func (m *Dense) NewWorker(points []int) (algorithms.Worker, error) {
	if err := m.checkPoints(points); err != nil {
		return nil, err
	}
	return &denseWorker{m: m, points: points, Stateless: m.stateless(points)}, nil
}

type denseWorker struct {
	m      *Dense
	points []int
	theta  []float64
	algorithms.Stateless
}

func (w *denseWorker) Len() int                  { return len(w.points) }
func (w *denseWorker) SetParams(theta []float64) { w.theta = theta }

// Process adds Σ (σ(w·x_i + b) − y_i)·(x_i, 1) over the points to d.
func (w *denseWorker) Process(lo, hi int, d *algorithms.Delta) {
	D, X, y := w.m.d, w.m.data.X, w.m.y
	wt, b := w.theta[:D], w.theta[D]
	g := d.Vec[:D]
	// The bias sum continues d's, point by point, like the weights:
	// splitting lo..hi across calls gives the same bits.
	gb := d.Vec[D]
	for _, i := range w.points[lo:hi] {
		x := X[i*D : (i+1)*D]
		r := sigmoid(kernel.Dot(x, wt)+b) - y[i]
		kernel.Axpy(r, x, g)
		gb += r
	}
	d.Vec[D] = gb
	d.Count += hi - lo
}

// Evaluate returns the summed log-loss of the shard.
func (w *denseWorker) Evaluate() algorithms.Partial {
	D, X, y := w.m.d, w.m.data.X, w.m.y
	wt, b := w.theta[:D], w.theta[D]
	s := 0.0
	for _, i := range w.points {
		s += logLoss(kernel.Dot(X[i*D:(i+1)*D], wt)+b, y[i])
	}
	return algorithms.Partial{Sum: s, N: float64(len(w.points))}
}

// Sparse is binary logistic regression on a sparse (CSR) data set, such as
// hashed categorical features. Its deltas are sparse with block width 1:
// a worker touches the features present in its points, and the bias.
type Sparse struct {
	model
	data *dataset.Sparse
}

var _ algorithms.Algorithm = (*Sparse)(nil)

// NewSparse binds logistic regression to a CSR data set, whose labels must
// be 0 or 1 (−1 is read as 0). Values must be finite. data is not copied
// and must not change while the algorithm is in use.
func NewSparse(data *dataset.Sparse, cfg Config) (*Sparse, error) {
	if err := checkData(&cfg, data); err != nil {
		return nil, err
	}
	for i := range data.N {
		for p := data.Indptr[i]; p < data.Indptr[i+1]; p++ {
			if v := data.Values[p]; math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("logreg: row %d feature %d is %v: %w", i, data.Indices[p], v, algorithms.ErrConfig)
			}
		}
	}
	m, err := newModel("logreg-sparse", cfg, data.N, data.D, data.Labels, 1)
	if err != nil {
		return nil, err
	}
	return &Sparse{model: m, data: data}, nil
}

// NewWorker returns a worker over the given rows. It has no per-point
// state; its algorithms.Checkpointer only checks identity.
func (m *Sparse) NewWorker(points []int) (algorithms.Worker, error) {
	if err := m.checkPoints(points); err != nil {
		return nil, err
	}
	return &sparseWorker{m: m, points: points, Stateless: m.stateless(points)}, nil
}

type sparseWorker struct {
	m      *Sparse
	points []int
	theta  []float64
	algorithms.Stateless
}

func (w *sparseWorker) Len() int                  { return len(w.points) }
func (w *sparseWorker) SetParams(theta []float64) { w.theta = theta }

func (w *sparseWorker) margin(i int) float64 {
	s := w.m.data
	lo, hi := s.Indptr[i], s.Indptr[i+1]
	idx, val := s.Indices[lo:hi], s.Values[lo:hi]
	z := 0.0
	for k, j := range idx {
		z += float64(val[k] * w.theta[j])
	}
	return z + w.theta[w.m.d]
}

// Process adds the log-loss gradients of the points to d and touches the
// features they contain and the bias.
func (w *sparseWorker) Process(lo, hi int, d *algorithms.Delta) {
	if hi <= lo {
		return
	}
	s, y, D := w.m.data, w.m.y, w.m.d
	g := d.Vec
	gb := g[D] // continued point by point: split-invariant, as the weights
	for _, i := range w.points[lo:hi] {
		r := sigmoid(w.margin(i)) - y[i]
		a, b := s.Indptr[i], s.Indptr[i+1]
		val := s.Values[a:b]
		for k, j := range s.Indices[a:b] {
			g[j] += float64(r * val[k])
			d.Touch(int(j))
		}
		gb += r
	}
	g[D] = gb
	d.Touch(D)
	d.Count += hi - lo
}

// Evaluate returns the summed log-loss of the shard.
func (w *sparseWorker) Evaluate() algorithms.Partial {
	s := 0.0
	for _, i := range w.points {
		s += logLoss(w.margin(i), w.m.y[i])
	}
	return algorithms.Partial{Sum: s, N: float64(len(w.points))}
}
