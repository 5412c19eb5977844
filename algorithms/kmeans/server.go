package kmeans

import (
	"fmt"
	"math"
	"slices"

	"github.com/syncmodels/syncmodels/algorithms"
)

// server keeps the running statistics S (K×D) and C (K) and the centroids.
// A checkpoint holds the centroids, S, C and Steps.
type server struct {
	k, d   int
	layout algorithms.Layout
	theta  []float64 // current centroids; replaced, never modified, by Apply and Restore
	s, c   []float64 // running statistics
	ts, tc []float64 // scratch for the next statistics
	steps  int
	owner  string // of checkpoints
}

// serverState is a checkpoint of a server.
type serverState struct {
	theta, s, c []float64
	steps       int
}

func (s *server) Checkpoint() algorithms.Checkpoint {
	return algorithms.NewCheckpoint(s.owner, &serverState{
		theta: slices.Clone(s.theta), s: slices.Clone(s.s), c: slices.Clone(s.c), steps: s.steps,
	})
}

// Restore installs a copy of the checkpoint's centroids as a new slice:
// earlier Params slices stay valid and unchanged.
func (s *server) Restore(c algorithms.Checkpoint) error {
	st, err := algorithms.CheckpointState[*serverState](c, s.owner)
	if err != nil {
		return err
	}
	s.theta = slices.Clone(st.theta)
	copy(s.s, st.s)
	copy(s.c, st.c)
	s.steps = st.steps
	return nil
}

func (s *server) Params() []float64 { return s.theta }

func (s *server) Steps() int { return s.steps }

// Apply adds the delta to S and C and recomputes every centroid as S_j/C_j;
// a cluster with C_j = 0 keeps its centroid. Besides the layout and
// finiteness checks of algorithms.CheckApply it refuses a delta that would
// make a count negative (a delta applied twice, or one from a worker whose
// state was discarded) or a statistic overflow; a refused delta leaves the
// server unchanged. The returned θ is a new slice: earlier Params slices
// stay valid and unchanged.
func (s *server) Apply(d *algorithms.Delta) error {
	if err := algorithms.CheckApply(s.layout, d); err != nil {
		return err
	}
	if d.Count == 0 {
		return nil
	}
	kd := s.k * s.d
	ds, dc := d.Vec[:kd], d.Vec[kd:]
	for j := range s.tc {
		v := s.c[j] + dc[j]
		if v < -0.5 {
			return fmt.Errorf("kmeans: cluster %d count would become %v: %w", j, v, ErrInconsistent)
		}
		s.tc[j] = max(v, 0)
	}
	for i := range s.ts {
		v := s.s[i] + ds[i]
		if math.IsInf(v, 0) {
			return &algorithms.NonFiniteError{What: "delta", Index: i, Value: v}
		}
		s.ts[i] = v
	}
	theta := make([]float64, kd)
	for j := 0; j < s.k; j++ {
		lo, hi := j*s.d, (j+1)*s.d
		if s.tc[j] == 0 {
			copy(theta[lo:hi], s.theta[lo:hi])
			continue
		}
		cj := s.tc[j]
		for i := lo; i < hi; i++ {
			theta[i] = s.ts[i] / cj
		}
	}
	s.s, s.ts = s.ts, s.s
	s.c, s.tc = s.tc, s.c
	s.theta = theta
	s.steps++
	return nil
}

// Stats returns copies of the running statistics S (K×D) and C (K). It is
// for tests and diagnostics; the server implementations of this package
// satisfy interface{ Stats() (S, C []float64) }.
func (s *server) Stats() (S, C []float64) {
	return append([]float64(nil), s.s...), append([]float64(nil), s.c...)
}
