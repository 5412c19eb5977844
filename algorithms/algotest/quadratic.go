package algotest

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/syncmodels/syncmodels/algorithms"
)

// Quadratic is a minimal exact gradient-descent workload for testing
// runtimes: data points x_i ∈ R^D, objective f(θ) = (1/n) Σ ½‖θ − x_i‖²,
// delta = Σ (θ − x_i) over processed points, server step θ ← θ − LR·mean.
// With LR = 1 one full-batch step lands exactly on the mean of the points.
//
// With dyadic-rational data (see Dyadic) every sum is exact in float64, so a
// runtime's result can be compared with == whatever the order of merges.
type Quadratic struct {
	X  [][]float64
	LR float64
}

// Dyadic returns n points in R^d whose coordinates are small multiples of
// 1/8, drawn from rng: sums of up to 2^40 of them are exact in float64.
func Dyadic(rng *rand.Rand, n, d int) [][]float64 {
	x := make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, d)
		for j := range x[i] {
			x[i][j] = float64(rng.IntN(257)-128) / 8
		}
	}
	return x
}

// Name implements algorithms.Algorithm.
func (q *Quadratic) Name() string { return "quadratic" }

// Layout implements algorithms.Algorithm.
func (q *Quadratic) Layout() algorithms.Layout {
	return algorithms.Layout{Params: len(q.X[0]), Delta: len(q.X[0])}
}

// NumPoints implements algorithms.Algorithm.
func (q *Quadratic) NumPoints() int { return len(q.X) }

// Init returns the zero vector.
func (q *Quadratic) Init(*rand.Rand) ([]float64, error) { return make([]float64, len(q.X[0])), nil }

// NewWorker implements algorithms.Algorithm.
func (q *Quadratic) NewWorker(points []int) (algorithms.Worker, error) {
	for _, p := range points {
		if p < 0 || p >= len(q.X) {
			return nil, fmt.Errorf("quadratic: point %d out of range [0,%d)", p, len(q.X))
		}
	}
	return &quadWorker{q: q, pts: points, Stateless: algorithms.NewStateless(algorithms.ShardOwner(q.Name(), q.Layout(), points))}, nil
}

// NewServer implements algorithms.Algorithm.
func (q *Quadratic) NewServer(theta0 []float64) (algorithms.Server, error) {
	if err := algorithms.CheckParams(q.Layout(), theta0); err != nil {
		return nil, err
	}
	lr := q.LR
	if lr == 0 {
		lr = 1
	}
	return &quadServer{
		l: q.Layout(), theta: slices.Clone(theta0), lr: lr,
		owner: fmt.Sprintf("%s server, layout %+v, lr %v", q.Name(), q.Layout(), lr),
	}, nil
}

// Objective implements algorithms.Algorithm.
func (q *Quadratic) Objective(_ []float64, parts ...algorithms.Partial) float64 {
	s := algorithms.SumPartials(parts)
	return s.Sum / s.N
}

// Minimize implements algorithms.Algorithm.
func (q *Quadratic) Minimize() bool { return true }

type quadWorker struct {
	q     *Quadratic
	pts   []int
	theta []float64
	algorithms.Stateless
}

func (w *quadWorker) Len() int                  { return len(w.pts) }
func (w *quadWorker) SetParams(theta []float64) { w.theta = theta }
func (w *quadWorker) Process(lo, hi int, d *algorithms.Delta) {
	for _, p := range w.pts[lo:hi] {
		for j, x := range w.q.X[p] {
			d.Vec[j] += w.theta[j] - x
		}
	}
	d.Count += hi - lo
}
func (w *quadWorker) Evaluate() algorithms.Partial {
	var s float64
	for _, p := range w.pts {
		for j, x := range w.q.X[p] {
			e := w.theta[j] - x
			s += float64(e * e / 2)
		}
	}
	return algorithms.Partial{Sum: s, N: float64(len(w.pts))}
}

type quadServer struct {
	l     algorithms.Layout
	theta []float64
	lr    float64
	steps int
	owner string // of checkpoints
}

// quadState is a checkpoint of a quadServer.
type quadState struct {
	theta []float64
	steps int
}

func (s *quadServer) Checkpoint() algorithms.Checkpoint {
	return algorithms.NewCheckpoint(s.owner, &quadState{theta: slices.Clone(s.theta), steps: s.steps})
}
func (s *quadServer) Restore(c algorithms.Checkpoint) error {
	st, err := algorithms.CheckpointState[*quadState](c, s.owner)
	if err != nil {
		return err
	}
	copy(s.theta, st.theta)
	s.steps = st.steps
	return nil
}

func (s *quadServer) Params() []float64 { return s.theta }
func (s *quadServer) Steps() int        { return s.steps }
func (s *quadServer) Apply(d *algorithms.Delta) error {
	if err := algorithms.CheckApply(s.l, d); err != nil {
		return err
	}
	if d.Count == 0 {
		return nil
	}
	scale := s.lr / float64(d.Count)
	for j, g := range d.Vec {
		s.theta[j] -= float64(scale * g)
	}
	s.steps++
	return nil
}
