package kmeans

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/internal/emcore"
	"github.com/syncmodels/syncmodels/dataset"
)

// blockRows is the number of data rows passed to one kernel.DotsNT call.
const blockRows = 64

// ErrInconsistent reports a delta that cannot come from the points' latest
// contributions, such as one that would make a cluster count negative.
var ErrInconsistent = errors.New("kmeans: delta inconsistent with the running statistics")

// Config configures K-means.
type Config struct {
	// K is the number of clusters, 1 ≤ K ≤ number of points. Required.
	K int
	// Init is the seeding used by Init: InitFirst, InitRandom or
	// InitKMeansPP. Default ("") InitKMeansPP.
	Init string
	// Float32 stores a float32 copy of the data and runs the E-step in
	// float32 (about half the memory traffic). The model then sees the data
	// rounded to float32. Default false (float64).
	Float32 bool
}

// KMeans is K-means clustering of one data set as incremental EM. It
// implements algorithms.Algorithm. It is immutable after New and safe for
// concurrent use; its Workers and Servers are not.
type KMeans struct {
	data   *dataset.Dense
	x32    []float32 // float32 copy of data.X when Config.Float32
	k, d   int
	init   string
	layout algorithms.Layout
}

var _ algorithms.Algorithm = (*KMeans)(nil)

// New returns K-means over data, which must not be modified while the
// KMeans is in use. It returns an error wrapping algorithms.ErrConfig for an
// invalid configuration or data (wrong shape, non-finite values).
func New(data *dataset.Dense, cfg Config) (*KMeans, error) {
	if err := emcore.CheckData(data, cfg.K, "kmeans"); err != nil {
		return nil, err
	}
	var err error
	if cfg.Init, err = emcore.CheckInit(cfg.Init, "kmeans"); err != nil {
		return nil, err
	}
	km := &KMeans{
		data: data, k: cfg.K, d: data.D, init: cfg.Init,
		layout: algorithms.Layout{Params: cfg.K * data.D, Delta: cfg.K*data.D + cfg.K},
	}
	if cfg.Float32 {
		km.x32 = make([]float32, len(data.X))
		for i, v := range data.X {
			f := float32(v)
			if math.IsInf(float64(f), 0) {
				return nil, fmt.Errorf("kmeans: data row %d column %d = %v overflows float32: %w",
					i/data.D, i%data.D, v, algorithms.ErrConfig)
			}
			km.x32[i] = f
		}
	}
	return km, nil
}

// Name returns "kmeans".
func (km *KMeans) Name() string { return "kmeans" }

// Layout returns θ of K·D centroids and deltas [S (K·D) | C (K)], dense.
func (km *KMeans) Layout() algorithms.Layout { return km.layout }

// NumPoints returns the number of data points.
func (km *KMeans) NumPoints() int { return km.data.N }

// K returns the number of clusters.
func (km *KMeans) K() int { return km.k }

// Init returns K initial centroids chosen by Config.Init (see Seed). With
// Config.Float32 they are rounded to float32 like the data.
func (km *KMeans) Init(rng *rand.Rand) ([]float64, error) {
	c, err := Seed(km.data, km.k, km.init, rng)
	if err != nil {
		return nil, err
	}
	if km.x32 != nil {
		for i, v := range c {
			c[i] = float64(float32(v))
		}
	}
	return c, nil
}

// Minimize returns true: smaller inertia is better.
func (km *KMeans) Minimize() bool { return true }

// Objective returns the inertia, the sum of the partials' sums. θ is not
// used (there is no regularisation term).
func (km *KMeans) Objective(theta []float64, parts ...algorithms.Partial) float64 {
	return algorithms.SumPartials(parts).Sum
}

// NewWorker returns a worker over the points with the given indices, each
// initially unassigned. The indices are copied; a point listed twice counts
// twice. Its algorithms.Checkpointer saves the assignments.
func (km *KMeans) NewWorker(points []int) (algorithms.Worker, error) {
	if err := emcore.CheckPoints(points, km.data.N, "kmeans"); err != nil {
		return nil, err
	}
	w := &worker{
		km:     km,
		points: append([]int(nil), points...),
		assign: make([]int32, len(points)),
		cnorm:  make([]float64, km.k),
		dots:   make([]float64, blockRows*km.k),
		data:   emcore.NewRows(km.data.X, km.d, blockRows),
		owner:  algorithms.ShardOwner(km.Name(), km.layout, points),
	}
	for i := range w.assign {
		w.assign[i] = -1
	}
	if km.x32 != nil {
		w.c32 = make([]float32, km.k*km.d)
		w.cnorm32 = make([]float64, km.k)
		w.dots32 = make([]float32, blockRows*km.k)
		w.data32 = emcore.NewRows(km.x32, km.d, blockRows)
	}
	return w, nil
}

// NewServer returns a server whose parameters start at theta0 (copied) and
// whose statistics S and C start at zero. Its algorithms.Checkpointer saves
// θ, S, C and Steps.
func (km *KMeans) NewServer(theta0 []float64) (algorithms.Server, error) {
	if err := algorithms.CheckParams(km.layout, theta0); err != nil {
		return nil, err
	}
	kd := km.k * km.d
	return &server{
		k: km.k, d: km.d, layout: km.layout,
		theta: append([]float64(nil), theta0...),
		s:     make([]float64, kd), c: make([]float64, km.k),
		ts: make([]float64, kd), tc: make([]float64, km.k),
		owner: fmt.Sprintf("%s server, layout %+v", km.Name(), km.layout),
	}, nil
}
