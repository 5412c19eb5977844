package harness

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
)

// Stop holds the convergence criteria of Flegel (FSP paper §5.3). A run
// ends at Duration or when the first criterion set here is met; Result.
// StoppedBy says which.
type Stop struct {
	// MaxIterations ends the run after this many server versions (applies).
	// 0: no limit.
	MaxIterations int
	// AtTarget ends the run at the first check whose objective reaches
	// Experiment.Target (which must be set).
	AtTarget bool
	// ErrorBound ends the run at the first check whose objective differs
	// from the previous check's by at most ErrorBound × |previous|. 0: off.
	ErrorBound float64
	// Check is the interval between termination checks, decoupled from
	// the barrier interval (§5.3: an FSP round can be so short that two
	// consecutive iterations barely differ). Default: the time the slowest
	// worker takes for a full pass over its shard under the cost model,
	// the paper's choice (Duration/20 on the Real clock).
	Check time.Duration
}

func (s *Stop) active() bool { return s.AtTarget || s.ErrorBound > 0 }

func (s *Stop) validate(e *Experiment) error {
	switch {
	case s.MaxIterations < 0:
		return fmt.Errorf("harness: max iterations %d < 0: %w", s.MaxIterations, ErrConfig)
	case s.ErrorBound < 0 || math.IsNaN(s.ErrorBound) || math.IsInf(s.ErrorBound, 0):
		return fmt.Errorf("harness: error bound %v: %w", s.ErrorBound, ErrConfig)
	case s.Check < 0:
		return fmt.Errorf("harness: check interval %v < 0: %w", s.Check, ErrConfig)
	case s.AtTarget && !e.HasTarget:
		return fmt.Errorf("harness: stop at target without a target: %w", ErrConfig)
	}
	return nil
}

// sampler computes the objective on a fixed seeded sample of the data:
// what the tuners and the termination checks see, without a pass.
type sampler struct {
	alg algorithms.Algorithm
	w   algorithms.Worker
}

func newSampler(e *Experiment) (*sampler, error) {
	n := e.Algorithm.NumPoints()
	k := min(n, e.ControlSample)
	pts := rand.New(rand.NewPCG(e.Seed, 0x7e57)).Perm(n)[:k]
	slices.Sort(pts)
	w, err := e.Algorithm.NewWorker(pts)
	if err != nil {
		return nil, err
	}
	return &sampler{alg: e.Algorithm, w: w}, nil
}

func (s *sampler) objective(theta []float64) float64 {
	s.w.SetParams(theta)
	return s.alg.Objective(theta, s.w.Evaluate())
}

// stopper applies the Stop criteria for a runtime.
type stopper struct {
	cfg      Stop
	target   float64
	minimize bool
	sample   *sampler
	prev     float64
	checked  bool
	reason   string
}

func newStopper(e *Experiment, st *setupState) *stopper {
	return &stopper{cfg: e.Stop, target: e.Target, minimize: e.Algorithm.Minimize(), sample: st.sample, reason: "duration"}
}

// checkInterval is Check, or the slowest worker's full pass.
func (s *stopper) checkInterval(e *Experiment, st *setupState) time.Duration {
	if s.cfg.Check > 0 || !s.cfg.active() {
		return s.cfg.Check
	}
	if e.Clock == Real {
		return e.Duration / 20
	}
	var slowest time.Duration
	for _, sh := range st.shards {
		p := e.pace(sh)
		p.done = 0
		slowest = max(slowest, p.end(sh.n))
	}
	return max(slowest, time.Microsecond)
}

// applied reports whether the version count ends the run.
func (s *stopper) applied(v consistency.Version) bool {
	if s.cfg.MaxIterations > 0 && int(v) >= s.cfg.MaxIterations {
		s.reason = "max-iterations"
		return true
	}
	return false
}

// check runs a termination check on θ and reports whether the run ends.
func (s *stopper) check(theta []float64) bool {
	f := s.sample.objective(theta)
	switch {
	case s.cfg.AtTarget && (s.minimize && f <= s.target || !s.minimize && f >= s.target):
		s.reason = "target"
		return true
	case s.cfg.ErrorBound > 0 && s.checked && math.Abs(f-s.prev) <= s.cfg.ErrorBound*math.Abs(s.prev):
		s.reason = "error-bound"
		return true
	}
	s.prev, s.checked = f, true
	return false
}
