package fcm

import (
	"math"

	"github.com/syncmodels/syncmodels/algorithms"
)

// server keeps the running statistics [S | W] and the centroids.
type server struct {
	f     *FCM
	theta []float64 // replaced, never modified, by Apply
	s     []float64 // running statistics
	ts    []float64 // scratch for the next statistics
	steps int
}

func (s *server) Params() []float64 { return s.theta }

func (s *server) Steps() int { return s.steps }

// Apply adds the delta to S and W and sets every centroid to S_j/W_j; a
// cluster with W_j ≤ 0 keeps its centroid. A delta refused by
// algorithms.CheckApply, or one that would make a statistic or centroid
// overflow, leaves the server unchanged. The returned θ is a new slice:
// earlier Params slices stay valid and unchanged.
func (s *server) Apply(d *algorithms.Delta) error {
	if err := algorithms.CheckApply(s.f.layout, d); err != nil {
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
	k, dim := s.f.k, s.f.d
	S, W := s.ts[:k*dim], s.ts[k*dim:]
	theta := make([]float64, k*dim)
	for j := 0; j < k; j++ {
		lo, hi := j*dim, (j+1)*dim
		if !(W[j] > 0) {
			copy(theta[lo:hi], s.theta[lo:hi])
			continue
		}
		for t := lo; t < hi; t++ {
			theta[t] = S[t] / W[j]
		}
	}
	if err := algorithms.CheckParams(s.f.layout, theta); err != nil {
		return err
	}
	s.s, s.ts = s.ts, s.s
	s.theta = theta
	s.steps++
	return nil
}

// Stats returns a copy of the running statistics [S | W], for tests and
// diagnostics.
func (s *server) Stats() []float64 { return append([]float64(nil), s.s...) }
