package gdtest

import (
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
)

// Trainer is a minimal BSP driver: k workers over contiguous shards
// (Shards). Each Step every worker processes its next batch of points under
// the current θ into its own delta, the deltas merge in shard order and the
// server applies the merge.
type Trainer struct {
	Alg     algorithms.Algorithm
	Server  algorithms.Server
	Workers []algorithms.Worker

	cursor []int
	deltas []*algorithms.Delta
	merged *algorithms.Delta
}

// NewTrainer returns a Trainer of alg with k workers and a server started
// from theta0, failing t on any error.
func NewTrainer(t testing.TB, alg algorithms.Algorithm, theta0 []float64, k int) *Trainer {
	t.Helper()
	srv, err := alg.NewServer(theta0)
	if err != nil {
		t.Fatal(err)
	}
	tr := &Trainer{Alg: alg, Server: srv, cursor: make([]int, k), merged: algorithms.NewDelta(alg.Layout())}
	for _, p := range Shards(alg.NumPoints(), k) {
		w, err := alg.NewWorker(p)
		if err != nil {
			t.Fatal(err)
		}
		tr.Workers = append(tr.Workers, w)
		tr.deltas = append(tr.deltas, algorithms.NewDelta(alg.Layout()))
	}
	return tr
}

// Params returns the server's current θ (owned by the server).
func (tr *Trainer) Params() []float64 { return tr.Server.Params() }

// Step runs one BSP step. With batch 0 every worker processes its whole
// shard; otherwise it processes the next batch points from its cursor,
// stopping at the shard's end and wrapping to its start on the next step.
func (tr *Trainer) Step(t testing.TB, batch int) {
	t.Helper()
	tr.merged.Reset()
	for i, w := range tr.Workers {
		w.SetParams(tr.Server.Params())
		d := tr.deltas[i]
		d.Reset()
		lo, hi := 0, w.Len()
		if batch > 0 {
			lo = tr.cursor[i]
			hi = min(lo+batch, w.Len())
			tr.cursor[i] = hi % w.Len()
		}
		w.Process(lo, hi, d)
		if err := tr.merged.Merge(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.Server.Apply(tr.merged); err != nil {
		t.Fatal(err)
	}
}

// Objective returns the objective under the current θ, from every worker's
// partial in shard order.
func (tr *Trainer) Objective() float64 {
	parts := make([]algorithms.Partial, len(tr.Workers))
	for i, w := range tr.Workers {
		w.SetParams(tr.Server.Params())
		parts[i] = w.Evaluate()
	}
	return tr.Alg.Objective(tr.Server.Params(), parts...)
}

// Run takes steps Steps of batch points per worker (see Step) and returns
// tr.
func (tr *Trainer) Run(t testing.TB, steps, batch int) *Trainer {
	t.Helper()
	for range steps {
		tr.Step(t, batch)
	}
	return tr
}
