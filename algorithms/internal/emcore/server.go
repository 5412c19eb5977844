package emcore

import (
	"fmt"
	"math"
	"slices"

	"github.com/syncmodels/syncmodels/algorithms"
)

// MStep computes θ from the running statistics st (the layout's Delta
// length) into theta (the layout's Params length, zeroed). prev is the
// θ before the step, for a workload that keeps part of it (an empty
// cluster keeps its centroid). It must not keep or modify st or prev.
type MStep func(st, prev, theta []float64)

// Server implements algorithms.Server for incremental EM whose sufficient
// statistics are one dense vector, the sum of every point's latest
// contribution, and whose M-step is a function of those statistics (and
// the previous θ). It keeps the running statistics and θ, and implements
// algorithms.Checkpointer: a checkpoint holds θ, the statistics and Steps.
type Server struct {
	layout algorithms.Layout
	mStep  MStep
	theta  []float64 // replaced, never modified, by Apply and Restore
	s      []float64 // running statistics
	ts     []float64 // scratch for the next statistics
	steps  int
	owner  string // of checkpoints
}

var (
	_ algorithms.Server       = (*Server)(nil)
	_ algorithms.Checkpointer = (*Server)(nil)
)

// serverState is a checkpoint of a Server.
type serverState struct {
	theta, s []float64
	steps    int
}

// NewServer returns a server of the workload pkg with the layout l whose
// parameters start at theta0 (copied; the caller validates it) and whose
// statistics start at zero. Every Apply runs mStep.
func NewServer(pkg string, l algorithms.Layout, theta0 []float64, mStep MStep) *Server {
	return &Server{
		layout: l,
		mStep:  mStep,
		theta:  append([]float64(nil), theta0...),
		s:      make([]float64, l.Delta),
		ts:     make([]float64, l.Delta),
		owner:  fmt.Sprintf("%s server, layout %+v", pkg, l),
	}
}

// Params returns the current θ.
func (s *Server) Params() []float64 { return s.theta }

// Steps returns the number of successful Apply calls with Count > 0.
func (s *Server) Steps() int { return s.steps }

// Apply adds the delta to the running statistics and runs the M-step on
// them. A delta refused by algorithms.CheckApply, or one that would make a
// statistic overflow or give θ a non-finite entry (algorithms.CheckParams),
// leaves the server unchanged. The returned θ is a new slice: earlier
// Params slices stay valid and unchanged.
func (s *Server) Apply(d *algorithms.Delta) error {
	if err := algorithms.CheckApply(s.layout, d); err != nil {
		return err
	}
	if d.Count == 0 {
		return nil
	}
	for i, v := range d.Vec {
		t := s.s[i] + v
		if math.IsInf(t, 0) {
			return &algorithms.NonFiniteError{What: "delta", Index: i, Value: t}
		}
		s.ts[i] = t
	}
	theta := make([]float64, len(s.theta))
	s.mStep(s.ts, s.theta, theta)
	if err := algorithms.CheckParams(s.layout, theta); err != nil {
		return err
	}
	s.s, s.ts = s.ts, s.s
	s.theta = theta
	s.steps++
	return nil
}

// Checkpoint returns a deep copy of θ, the statistics and Steps.
func (s *Server) Checkpoint() algorithms.Checkpoint {
	return algorithms.NewCheckpoint(s.owner, &serverState{theta: slices.Clone(s.theta), s: slices.Clone(s.s), steps: s.steps})
}

// Restore returns the server to the state of a checkpoint of it or of a
// server built identically (see algorithms.Checkpointer). θ is a new
// slice: earlier Params slices stay valid and unchanged.
func (s *Server) Restore(c algorithms.Checkpoint) error {
	st, err := algorithms.CheckpointState[*serverState](c, s.owner)
	if err != nil {
		return err
	}
	s.theta = slices.Clone(st.theta)
	copy(s.s, st.s)
	s.steps = st.steps
	return nil
}

// Stats returns a copy of the running statistics, for tests and
// diagnostics.
func (s *Server) Stats() []float64 { return append([]float64(nil), s.s...) }
