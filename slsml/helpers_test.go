package slsml

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/logreg"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/latency"
)

// newLogreg returns dense logistic regression on n synthetic points of d
// features, trained with Adam (coordinate-wise, so each reducer's slice
// evolves as in one server).
func newLogreg(t testing.TB, n, d int) algorithms.Algorithm {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	data, _ := dataset.Logistic(rng, n, d)
	alg, err := logreg.NewDense(data, logreg.Config{
		Lambda: 1e-3,
		Optim:  optim.Config{Method: optim.Adam, LR: 0.05, Epsilon: 1e-9},
	})
	if err != nil {
		t.Fatal(err)
	}
	return alg
}

// memStore opens a fresh in-process store.
func memStore(t testing.TB) (*exchange.Memory, exchange.Store) {
	t.Helper()
	m := exchange.NewMemory()
	s, err := m.Open("slsml-test", exchange.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// tails is a store latency with frequent stragglers: one request in 50
// takes seconds.
func tails() latency.Dist {
	return latency.Dist{Median: 5 * time.Millisecond, Sigma: 0.5, P: 0.02, Scale: 2 * time.Second, Alpha: 1.5, Max: 60 * time.Second}
}

// smallConfig is a run of 8 workers and 3 reducers with stragglers.
func smallConfig() Config {
	return Config{Workers: 8, Reducers: 3, Iterations: 6, Batch: 20, Quorum: 0.75, Seed: 1,
		Timing: Timing{Store: tails()}}
}

func runOK(t *testing.T, s exchange.Store, alg algorithms.Algorithm, cfg Config) *Result {
	t.Helper()
	res, err := runFaulty(t, s, alg, cfg, faults{})
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	return res
}
