package gmm

import (
	"math"

	"github.com/syncmodels/syncmodels/algorithms"
)

// server keeps the running statistics [N | S1 | S2] and θ.
type server struct {
	g     *GMM
	theta []float64 // replaced, never modified, by Apply
	s     []float64 // running statistics
	ts    []float64 // scratch for the next statistics
	steps int
}

func (s *server) Params() []float64 { return s.theta }

func (s *server) Steps() int { return s.steps }

// Apply adds the delta to the running statistics and runs scikit-learn's
// diagonal M-step on them. A delta refused by algorithms.CheckApply, or one
// that would make a statistic or parameter overflow, leaves the server
// unchanged. The returned θ is a new slice: earlier Params slices stay
// valid and unchanged.
func (s *server) Apply(d *algorithms.Delta) error {
	if err := algorithms.CheckApply(s.g.layout, d); err != nil {
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
	mStep(s.g, s.ts, theta)
	if err := algorithms.CheckParams(s.g.layout, theta); err != nil {
		return err
	}
	s.s, s.ts = s.ts, s.s
	s.theta = theta
	s.steps++
	return nil
}

// mStep sets theta from the statistics st = [N | S1 | S2], in scikit-learn's
// order of operations (sklearn/mixture/_gaussian_mixture.py,
// _estimate_gaussian_parameters and _estimate_gaussian_covariances_diag).
func mStep(g *GMM, st, theta []float64) {
	k, d := g.k, g.d
	N, S1, S2 := g.split(st)
	w, mu, v := g.split(theta)
	total := 0.0
	for j := 0; j < k; j++ {
		nk := max(N[j], 0) + eps10
		w[j] = nk
		total += nk
		for t := j * d; t < (j+1)*d; t++ {
			s1 := S1[t]
			m := s1 / nk
			x := S2[t]/nk - 2*(m*s1/nk) + m*m + g.reg
			if !(x > 0) {
				x = g.reg
			}
			mu[t], v[t] = m, x
		}
	}
	for j := range w {
		w[j] /= total
	}
}

// Stats returns a copy of the running statistics [N | S1 | S2], for tests
// and diagnostics.
func (s *server) Stats() []float64 { return append([]float64(nil), s.s...) }
