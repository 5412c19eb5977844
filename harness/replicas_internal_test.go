package harness

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/logreg"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/dataset"
)

func ledgerLR(t *testing.T) algorithms.Algorithm {
	t.Helper()
	data, _ := dataset.Logistic(rand.New(rand.NewPCG(5, 5)), 16000, 20)
	alg, err := logreg.NewDense(data, logreg.Config{Optim: optim.Config{Method: optim.Adam, LR: 0.01}})
	if err != nil {
		t.Fatal(err)
	}
	return alg
}

// The ledger of a Replicas run (MLLess's design, no filter): the global
// state is θ0 plus every change the workers produced, to rounding, minus
// each worker's last change when the run ended before it was applied (at
// most one commit per worker is outstanding). SSP with stragglers, so
// commits of different clocks interleave.
func TestReplicasLedger(t *testing.T) {
	alg := ledgerLR(t)
	outstandingRuns := 0
	for _, spec := range []string{"bsp", "ssp:3", "asp"} {
		e := Experiment{Algorithm: alg, Sync: consistency.MustParse(spec), Replicas: true, Workers: 8, Batch: 50, Seed: 2,
			Stragglers: Stragglers{Kind: Natural, Count: 2, Slowdown: 3}, Duration: 202 * time.Millisecond,
			// Slow links and an end at which commits are in flight (the
			// workers' cycles are regular, so this is a choice of instant).
			Cost: CostModel{Latency: 1500 * time.Microsecond}}
		if err := e.validate(); err != nil {
			t.Fatal(err)
		}
		st, err := setup(&e)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := simulate(context.Background(), &e, st); err != nil {
			t.Fatal(err)
		}
		if err := consistency.Check(st.coord.rec.Trace()); err != nil {
			t.Fatal(err)
		}
		applied := map[consistency.DeltaID]bool{}
		for _, r := range st.coord.rec.Trace().Records {
			if r.Kind == consistency.RecApply {
				for _, id := range r.Deltas {
					applied[id] = true
				}
			}
		}
		total := make([]float64, len(st.theta0))
		outstanding := 0
		for i, w := range st.isp.workers {
			for j, v := range w.total {
				total[j] += v
			}
			if last := st.coord.rec.LastSent(consistency.WorkerID(i)); last > 0 && !applied[consistency.DeltaID{Worker: consistency.WorkerID(i), Seq: last}] {
				outstanding++
				for j, v := range w.u.Vec {
					total[j] -= v
				}
			}
		}
		var gap, scale float64
		for j, th := range st.coord.params {
			gap = max(gap, math.Abs(th-st.theta0[j]-total[j]))
			scale = max(scale, math.Abs(total[j]))
		}
		t.Logf("%s: %d versions, %d commits outstanding at the end, ledger gap %.3g (largest change %.3g)", spec, st.coord.model.Version(), outstanding, gap, scale)
		if !(scale > 0) || gap > 1e-12*max(scale, 1) {
			t.Fatalf("%s: ledger gap %g", spec, gap)
		}
		if slices.Equal(st.coord.params, st.theta0) {
			t.Fatalf("%s: θ did not move", spec)
		}
		if outstanding > 0 {
			outstandingRuns++
		}
	}
	if outstandingRuns == 0 {
		t.Fatal("no run ended with a commit in flight: the test does not exercise that case")
	}
}
