package optim

import (
	"fmt"
	"slices"

	"github.com/syncmodels/syncmodels/algorithms"
)

// ServerConfig configures a Server.
type ServerConfig struct {
	// Name is the workload's name ("logreg", "pmf", …). A checkpoint
	// records it, so that the server of another workload with the same
	// layout and optimizer refuses it. Optional.
	Name string
	// Layout is the workload's layout. Params must equal Delta: a delta is
	// a gradient sum over the parameters.
	Layout algorithms.Layout
	// Points is the number of data points in one epoch (the bound data
	// set's size). The server divides the running number of processed
	// points by it to get the epoch the learning-rate schedule uses.
	// Required (> 0) for the InvSqrtEpoch schedule; otherwise ignored.
	Points int
	// Optim configures the optimizer.
	Optim Config
	// Gradient, if set, writes the gradient entries grad[lo:hi] from the
	// delta's sums sum[lo:hi], its count and the current θ. nil means the
	// mean gradient grad[i] = sum[i]/count. Workloads use it to add a
	// penalty's gradient (logistic regression adds λw) or to scale blocks
	// differently (NMF). It must read and write only [lo, hi).
	Gradient func(grad, sum, theta []float64, count, lo, hi int)
	// Project, if set, maps θ[lo:hi] back into the feasible set after a
	// step (NMF clamps at zero). It must touch only [lo, hi).
	Project func(theta []float64, lo, hi int)
}

// Server is the algorithms.Server of the gradient-descent workloads: it
// owns θ and an Optimizer, and Apply takes one optimizer step with the
// gradient of a merged delta (by default its mean, sum/Count).
//
// For a sparse layout (Block > 0) Apply is lazy: it computes the gradient,
// steps (Optimizer.StepBlocks) and projects only on the delta's live
// blocks; every other entry of θ and of the optimizer state is left as it
// was. For a dense layout every entry steps.
//
// The epoch for the learning-rate schedule is the number of points applied
// before this delta divided by ServerConfig.Points, so with full-batch
// updates step t (0-based) runs in epoch t.
//
// Server implements algorithms.Checkpointer: a checkpoint holds θ, the
// optimizer's state (every entry of its buffers, touched or not), Steps and
// Points. It is refused by a server with another name, layout, Points or
// optimizer configuration. Restore, like Apply, changes θ in place.
type Server struct {
	cfg    ServerConfig
	theta  []float64
	grad   []float64
	opt    Optimizer
	steps  int
	points int
	spans  [][2]int
	owner  string // of checkpoints
}

// serverState is a checkpoint of a Server.
type serverState struct {
	theta         []float64
	opt           algorithms.Checkpoint
	steps, points int
}

// NewServer returns a Server starting from a copy of theta0.
func NewServer(theta0 []float64, cfg ServerConfig) (*Server, error) {
	l := cfg.Layout
	if l.Params != l.Delta || l.Block < 0 {
		return nil, fmt.Errorf("optim: server layout %+v needs Params == Delta and Block ≥ 0: %w", l, algorithms.ErrConfig)
	}
	if err := algorithms.CheckParams(l, theta0); err != nil {
		return nil, err
	}
	if cfg.Optim.Schedule == InvSqrtEpoch && cfg.Points <= 0 {
		return nil, fmt.Errorf("optim: schedule %v needs Points > 0, have %d: %w", cfg.Optim.Schedule, cfg.Points, algorithms.ErrConfig)
	}
	opt, err := New(cfg.Optim, l.Params)
	if err != nil {
		return nil, err
	}
	cfg.Optim = opt.Config()
	return &Server{
		cfg:   cfg,
		theta: slices.Clone(theta0),
		grad:  make([]float64, l.Params),
		opt:   opt,
		owner: fmt.Sprintf("optim server %q, layout %+v, %d points per epoch, %+v",
			cfg.Name, l, cfg.Points, cfg.Optim),
	}, nil
}

// NewAlgorithmServer is NewServer for a workload's
// algorithms.Algorithm.NewServer: it returns the Server as an
// algorithms.Server, and on error a nil interface rather than one holding a
// nil *Server.
func NewAlgorithmServer(theta0 []float64, cfg ServerConfig) (algorithms.Server, error) {
	s, err := NewServer(theta0, cfg)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Params returns θ. The slice is owned by the server and changes in place
// on the next successful Apply.
func (s *Server) Params() []float64 { return s.theta }

// Steps returns the number of successful Apply calls with Count > 0.
func (s *Server) Steps() int { return s.steps }

// Points returns the total Count of the deltas applied.
func (s *Server) Points() int { return s.points }

// Epoch returns the epoch the next step runs in (0 when the schedule is
// Constant and Points was not given).
func (s *Server) Epoch() int {
	if s.cfg.Points <= 0 {
		return 0
	}
	return s.points / s.cfg.Points
}

// Optimizer returns the configuration of the server's optimizer, defaults
// filled in.
func (s *Server) Optimizer() Config { return s.cfg.Optim }

// SetParams replaces θ with a copy of theta and sets the number of points
// applied so far (hence the epoch of the learning-rate schedule) to
// points, keeping the optimizer's state — step count, momentum, Adam
// moments — and Steps. It serves a runtime in which every worker keeps a
// model replica and its own optimizer (MLLess §3, ISP §4.1): before each
// local step the worker installs its replica, which other workers' updates
// changed, and the global number of points processed, which MLLess's
// workers use as the epoch. A θ of the wrong length or with a non-finite
// entry, or a negative points, is refused and changes nothing.
func (s *Server) SetParams(theta []float64, points int) error {
	if err := algorithms.CheckParams(s.cfg.Layout, theta); err != nil {
		return err
	}
	if points < 0 {
		return fmt.Errorf("optim: SetParams with %d points: %w", points, algorithms.ErrConfig)
	}
	copy(s.theta, theta)
	s.points = points
	return nil
}

// Checkpoint returns a deep copy of θ, the optimizer state, Steps and
// Points (see algorithms.Checkpointer).
func (s *Server) Checkpoint() algorithms.Checkpoint {
	return algorithms.NewCheckpoint(s.owner, &serverState{
		theta: slices.Clone(s.theta), opt: s.opt.Checkpoint(), steps: s.steps, points: s.points,
	})
}

// Restore returns the server to the state of a checkpoint of it or of a
// server built identically; see algorithms.Checkpointer.
func (s *Server) Restore(c algorithms.Checkpoint) error {
	st, err := algorithms.CheckpointState[*serverState](c, s.owner)
	if err != nil {
		return err
	}
	if err := s.opt.Restore(st.opt); err != nil {
		return err
	}
	copy(s.theta, st.theta)
	s.steps, s.points = st.steps, st.points
	return nil
}

// Apply takes one optimizer step with the gradient of d. A delta with the
// wrong layout or a non-finite live entry is refused with an error and
// leaves the server unchanged; a delta with Count 0 is a no-op.
func (s *Server) Apply(d *algorithms.Delta) error {
	if err := algorithms.CheckApply(s.cfg.Layout, d); err != nil {
		return err
	}
	if d.Count == 0 {
		return nil
	}
	s.opt.SetEpoch(s.Epoch())
	spans := s.liveSpans(d)
	for _, sp := range spans {
		s.gradient(d, sp[0], sp[1])
	}
	if d.Sparse() {
		s.opt.StepBlocks(s.theta, s.grad, d.Blocks(), d.BlockWidth())
	} else {
		s.opt.Step(s.theta, s.grad)
	}
	if s.cfg.Project != nil {
		for _, sp := range spans {
			s.cfg.Project(s.theta, sp[0], sp[1])
		}
	}
	s.steps++
	s.points += d.Count
	return nil
}

func (s *Server) gradient(d *algorithms.Delta, lo, hi int) {
	if s.cfg.Gradient != nil {
		s.cfg.Gradient(s.grad, d.Vec, s.theta, d.Count, lo, hi)
		return
	}
	inv := 1 / float64(d.Count)
	g, v := s.grad[lo:hi], d.Vec[lo:hi]
	for i := range g {
		g[i] = v[i] * inv
	}
}

// liveSpans returns the index ranges of d's live entries, maximal runs of
// consecutive blocks merged.
func (s *Server) liveSpans(d *algorithms.Delta) [][2]int {
	s.spans = s.spans[:0]
	if !d.Sparse() {
		return append(s.spans, [2]int{0, len(d.Vec)})
	}
	w := d.BlockWidth()
	bs := d.Blocks()
	for i := 0; i < len(bs); {
		j := i + 1
		for j < len(bs) && bs[j] == bs[j-1]+1 {
			j++
		}
		s.spans = append(s.spans, [2]int{int(bs[i]) * w, min((int(bs[j-1])+1)*w, len(d.Vec))})
		i = j
	}
	return s.spans
}
