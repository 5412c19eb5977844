package gmm

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/internal/emcore"
	"github.com/syncmodels/syncmodels/algorithms/kmeans"
	"github.com/syncmodels/syncmodels/dataset"
)

// blockRows is the number of data rows passed to one kernel call.
const blockRows = 64

// DefaultRegCovar is the default Config.RegCovar, scikit-learn's default.
const DefaultRegCovar = 1e-6

// eps10 is scikit-learn's 10·eps added to every N_k.
const eps10 = 10 * 2.220446049250313e-16

// Config configures a Gaussian mixture.
type Config struct {
	// K is the number of components, 1 ≤ K ≤ number of points. Required.
	K int
	// Init is the seeding of the means used by Init when Theta0 is nil:
	// kmeans.InitFirst, kmeans.InitRandom or kmeans.InitKMeansPP.
	// Default ("") kmeans.InitKMeansPP.
	Init string
	// RegCovar is added to every variance in the M-step and in Init, in
	// squared data units. Default (0) DefaultRegCovar = 1e-6; it must be
	// positive.
	RegCovar float64
	// Theta0, when not nil, is the θ0 that Init returns (copied and
	// validated by New), in the layout of the package documentation.
	Theta0 []float64
}

// GMM is a diagonal Gaussian mixture over one data set, trained by
// incremental EM. It implements algorithms.Algorithm. It is immutable after
// New and safe for concurrent use; its Workers and Servers are not.
type GMM struct {
	data   *dataset.Dense
	k, d   int
	init   string
	reg    float64
	theta0 []float64
	layout algorithms.Layout
}

var _ algorithms.Algorithm = (*GMM)(nil)

// New returns a Gaussian mixture over data, which must not be modified
// while the GMM is in use. It returns an error wrapping algorithms.ErrConfig
// for an invalid configuration or data.
func New(data *dataset.Dense, cfg Config) (*GMM, error) {
	if err := emcore.CheckData(data, cfg.K, "gmm"); err != nil {
		return nil, err
	}
	var err error
	if cfg.Init, err = emcore.CheckInit(cfg.Init, "gmm"); err != nil {
		return nil, err
	}
	if cfg.RegCovar == 0 {
		cfg.RegCovar = DefaultRegCovar
	}
	if !(cfg.RegCovar > 0) || math.IsInf(cfg.RegCovar, 0) {
		return nil, fmt.Errorf("gmm: RegCovar = %v, want > 0: %w", cfg.RegCovar, algorithms.ErrConfig)
	}
	kd := cfg.K * data.D
	g := &GMM{
		data: data, k: cfg.K, d: data.D, init: cfg.Init, reg: cfg.RegCovar,
		layout: algorithms.Layout{Params: cfg.K + 2*kd, Delta: cfg.K + 2*kd},
	}
	if cfg.Theta0 != nil {
		if err := g.checkTheta(cfg.Theta0); err != nil {
			return nil, fmt.Errorf("gmm: Theta0: %w", err)
		}
		g.theta0 = append([]float64(nil), cfg.Theta0...)
	}
	return g, nil
}

// checkTheta validates θ: layout, finite values, weights ≥ 0 summing to 1
// within 1e-8 (scikit-learn's check), variances > 0.
func (g *GMM) checkTheta(theta []float64) error {
	if err := algorithms.CheckParams(g.layout, theta); err != nil {
		return err
	}
	w, _, v := g.split(theta)
	sum := 0.0
	for k, x := range w {
		if x < 0 {
			return fmt.Errorf("gmm: weight %d is %v, want ≥ 0: %w", k, x, algorithms.ErrConfig)
		}
		sum += x
	}
	if !(math.Abs(sum-1) <= 1e-8) {
		return fmt.Errorf("gmm: weights sum to %v, want 1: %w", sum, algorithms.ErrConfig)
	}
	for i, x := range v {
		if !(x > 0) {
			return fmt.Errorf("gmm: variance %d (component %d, feature %d) is %v, want > 0: %w",
				i, i/g.d, i%g.d, x, algorithms.ErrConfig)
		}
	}
	return nil
}

// split returns the weights, means and variances of θ (views).
func (g *GMM) split(theta []float64) (w, mu, v []float64) {
	kd := g.k * g.d
	return theta[:g.k], theta[g.k : g.k+kd], theta[g.k+kd : g.k+2*kd]
}

// Name returns "gmm".
func (g *GMM) Name() string { return "gmm" }

// Layout returns θ = [π (K) | μ (K·D) | σ² (K·D)] and deltas
// [N (K) | S1 (K·D) | S2 (K·D)], dense.
func (g *GMM) Layout() algorithms.Layout { return g.layout }

// NumPoints returns the number of data points.
func (g *GMM) NumPoints() int { return g.data.N }

// K returns the number of components.
func (g *GMM) K() int { return g.k }

// Minimize returns false: a larger log-likelihood is better.
func (g *GMM) Minimize() bool { return false }

// Objective returns the mean log-likelihood Σ Sum / Σ N of the partials
// (NaN when they hold no points). θ is not used.
func (g *GMM) Objective(theta []float64, parts ...algorithms.Partial) float64 {
	p := algorithms.SumPartials(parts)
	if p.N == 0 {
		return math.NaN()
	}
	return p.Sum / p.N
}

// Init returns Config.Theta0 (a copy) if set; otherwise weights 1/K, means
// seeded by Config.Init (see kmeans.Seed) and variances Var(x_t) + RegCovar
// for every component, Var being the population variance of feature t.
func (g *GMM) Init(rng *rand.Rand) ([]float64, error) {
	if g.theta0 != nil {
		return append([]float64(nil), g.theta0...), nil
	}
	mu, err := kmeans.Seed(g.data, g.k, g.init, rng)
	if err != nil {
		return nil, fmt.Errorf("gmm: %w", err)
	}
	theta := make([]float64, g.layout.Params)
	w, m, v := g.split(theta)
	for k := range w {
		w[k] = 1 / float64(g.k)
	}
	copy(m, mu)
	fv := FeatureVariance(g.data)
	for k := 0; k < g.k; k++ {
		for t, x := range fv {
			v[k*g.d+t] = x + g.reg
		}
	}
	return theta, nil
}

// FeatureVariance returns the population variance (1/N)·Σ_i (x_it − mean_t)²
// of every feature t, computed in two passes.
func FeatureVariance(data *dataset.Dense) []float64 {
	d := data.D
	mean := make([]float64, d)
	for i := 0; i < data.N; i++ {
		for t, x := range data.Row(i) {
			mean[t] += x
		}
	}
	for t := range mean {
		mean[t] /= float64(data.N)
	}
	v := make([]float64, d)
	for i := 0; i < data.N; i++ {
		for t, x := range data.Row(i) {
			e := x - mean[t]
			v[t] += float64(e * e)
		}
	}
	for t := range v {
		v[t] /= float64(data.N)
	}
	return v
}

// NewWorker returns a worker over the points with the given indices, each
// with zero responsibilities. The indices are copied; a point listed twice
// counts twice. Its algorithms.Checkpointer saves the responsibilities.
func (g *GMM) NewWorker(points []int) (algorithms.Worker, error) {
	if err := emcore.CheckPoints(points, g.data.N, "gmm"); err != nil {
		return nil, err
	}
	kd := g.k * g.d
	return &worker{
		g:      g,
		points: append([]int(nil), points...),
		resp:   make([]float64, len(points)*g.k),
		prec:   make([]float64, kd),
		b:      make([]float64, kd),
		konst:  make([]float64, g.k),
		out:    make([]float64, blockRows*g.k),
		lp:     make([]float64, g.k),
		sq:     make([]float64, g.d),
		data:   emcore.NewRows(g.data.X, g.d, blockRows),
		owner:  algorithms.ShardOwner(g.Name(), g.layout, points),
	}, nil
}

// NewServer returns a server whose parameters start at theta0 (copied) and
// whose statistics [N | S1 | S2] start at zero. θ0 must have the layout of
// the package documentation, finite values, weights ≥ 0 summing to 1
// (within 1e-8) and positive variances; Config.Theta0 is checked the same
// way. Apply adds the delta to the running statistics and runs
// scikit-learn's diagonal M-step on them; a delta refused by
// algorithms.CheckApply, or one that would make a statistic or parameter
// overflow, leaves the server unchanged. The server satisfies
// interface{ Stats() []float64 } (a copy of the statistics, for tests and
// diagnostics); its algorithms.Checkpointer saves θ, the statistics and
// Steps.
func (g *GMM) NewServer(theta0 []float64) (algorithms.Server, error) {
	if err := g.checkTheta(theta0); err != nil {
		return nil, err
	}
	return emcore.NewServer("gmm", g.layout, theta0, g.mStep), nil
}
