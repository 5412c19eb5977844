package fcm

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/internal/emcore"
	"github.com/syncmodels/syncmodels/algorithms/kmeans"
	"github.com/syncmodels/syncmodels/dataset"
)

// blockRows is the number of data rows passed to one kernel.DotsNT call.
const blockRows = 64

// DefaultM is the default fuzzifier.
const DefaultM = 2.0

// Config configures fuzzy c-means.
type Config struct {
	// K is the number of clusters, 1 ≤ K ≤ number of points. Required.
	K int
	// M is the fuzzifier m > 1 (m → 1 approaches K-means; larger is
	// fuzzier). Default (0) DefaultM = 2.
	M float64
	// Init is the seeding used by Init: kmeans.InitFirst, kmeans.InitRandom
	// or kmeans.InitKMeansPP. Default ("") kmeans.InitKMeansPP.
	Init string
}

// FCM is fuzzy c-means over one data set as incremental EM. It implements
// algorithms.Algorithm. It is immutable after New and safe for concurrent
// use; its Workers and Servers are not.
type FCM struct {
	data   *dataset.Dense
	k, d   int
	m      float64
	p      float64 // 1/(m−1)
	init   string
	layout algorithms.Layout
}

var _ algorithms.Algorithm = (*FCM)(nil)

// New returns fuzzy c-means over data, which must not be modified while the
// FCM is in use. It returns an error wrapping algorithms.ErrConfig for an
// invalid configuration or data.
func New(data *dataset.Dense, cfg Config) (*FCM, error) {
	if err := emcore.CheckData(data, cfg.K, "fcm"); err != nil {
		return nil, err
	}
	if cfg.M == 0 {
		cfg.M = DefaultM
	}
	if !(cfg.M > 1) || math.IsInf(cfg.M, 0) {
		return nil, fmt.Errorf("fcm: fuzzifier M = %v, want 1 < M < ∞: %w", cfg.M, algorithms.ErrConfig)
	}
	var err error
	if cfg.Init, err = emcore.CheckInit(cfg.Init, "fcm"); err != nil {
		return nil, err
	}
	kd := cfg.K * data.D
	return &FCM{
		data: data, k: cfg.K, d: data.D, m: cfg.M, p: 1 / (cfg.M - 1), init: cfg.Init,
		layout: algorithms.Layout{Params: kd, Delta: kd + cfg.K},
	}, nil
}

// Name returns "fcm".
func (f *FCM) Name() string { return "fcm" }

// Layout returns θ of K·D centroids and deltas [S (K·D) | W (K)], dense.
func (f *FCM) Layout() algorithms.Layout { return f.layout }

// NumPoints returns the number of data points.
func (f *FCM) NumPoints() int { return f.data.N }

// K returns the number of clusters.
func (f *FCM) K() int { return f.k }

// Minimize returns true: a smaller J is better.
func (f *FCM) Minimize() bool { return true }

// Objective returns J, the sum of the partials' sums. θ is not used.
func (f *FCM) Objective(theta []float64, parts ...algorithms.Partial) float64 {
	return algorithms.SumPartials(parts).Sum
}

// Init returns K centroids seeded by Config.Init (see kmeans.Seed).
func (f *FCM) Init(rng *rand.Rand) ([]float64, error) {
	c, err := kmeans.Seed(f.data, f.k, f.init, rng)
	if err != nil {
		return nil, fmt.Errorf("fcm: %w", err)
	}
	return c, nil
}

// NewWorker returns a worker over the points with the given indices, each
// with zero memberships. The indices are copied; a point listed twice
// counts twice. Its algorithms.Checkpointer saves the weights u^m.
func (f *FCM) NewWorker(points []int) (algorithms.Worker, error) {
	if err := emcore.CheckPoints(points, f.data.N, "fcm"); err != nil {
		return nil, err
	}
	return &worker{
		f:      f,
		points: append([]int(nil), points...),
		um:     make([]float64, len(points)*f.k),
		cnorm:  make([]float64, f.k),
		dots:   make([]float64, blockRows*f.k),
		d2:     make([]float64, f.k),
		u:      make([]float64, f.k),
		data:   emcore.NewRows(f.data.X, f.d, blockRows),
		owner:  algorithms.ShardOwner(f.Name(), f.layout, points),
	}, nil
}

// NewServer returns a server whose centroids start at theta0 (copied) and
// whose statistics [S | W] start at zero. Apply adds the delta to S and W
// and sets every centroid to S_j/W_j; a cluster with W_j ≤ 0 keeps its
// centroid. A delta refused by algorithms.CheckApply, or one that would
// make a statistic or centroid overflow, leaves the server unchanged. The
// server satisfies interface{ Stats() []float64 } (a copy of the
// statistics, for tests and diagnostics); its algorithms.Checkpointer saves
// θ, the statistics and Steps.
func (f *FCM) NewServer(theta0 []float64) (algorithms.Server, error) {
	if err := algorithms.CheckParams(f.layout, theta0); err != nil {
		return nil, err
	}
	return emcore.NewServer("fcm", f.layout, theta0, f.mStep), nil
}
