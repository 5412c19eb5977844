package algorithms_test

import (
	"errors"
	"math"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/filter"
)

// TestErrNonFinite: a NaN or ±Inf refused by the package's checks, by a
// server and by a filter matches algorithms.ErrNonFinite with errors.Is,
// and is still an *algorithms.NonFiniteError for errors.As.
func TestErrNonFinite(t *testing.T) {
	l := algorithms.Layout{Params: 3, Delta: 3}
	d := algorithms.NewDelta(l)
	d.Vec[1] = math.NaN()
	d.Count = 1

	s, err := optim.NewServer([]float64{1, 2, 3}, optim.ServerConfig{Layout: l})
	if err != nil {
		t.Fatal(err)
	}
	f, err := filter.NewTopKVec(filter.TopKVecConfig{Len: 3, K: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, stepErr := f.Step(nil, []float64{0, 0, math.Inf(1)})
	for _, c := range []struct {
		name  string
		err   error
		index int
	}{
		{"CheckApply", algorithms.CheckApply(l, d), 1},
		{"CheckParams", algorithms.CheckParams(l, []float64{0, 0, math.Inf(-1)}), 2},
		{"optim.Server.Apply", s.Apply(d), 1},
		{"filter.TopKVec.Step", stepErr, 2},
	} {
		var nf *algorithms.NonFiniteError
		if !errors.Is(c.err, algorithms.ErrNonFinite) || !errors.As(c.err, &nf) || nf.Index != c.index {
			t.Errorf("%s: error %v; want a *NonFiniteError at index %d matching ErrNonFinite", c.name, c.err, c.index)
		}
		if errors.Is(c.err, algorithms.ErrLayout) {
			t.Errorf("%s: error %v matches ErrLayout; want only ErrNonFinite", c.name, c.err)
		}
	}
	if err := algorithms.CheckParams(l, []float64{0, 0}); errors.Is(err, algorithms.ErrNonFinite) {
		t.Errorf("CheckParams(len 2) = %v; matches ErrNonFinite, want ErrLayout only", err)
	}
}
