package harness_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/algotest"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/preempt"
)

// ledgerOracle recomputes a run's final θ from its ledger alone: for
// every apply in the trace, in order, each delta it names is recomputed
// from scratch — its worker's whole shard processed under θ of the
// version the trace says the delta was computed on — merged in the
// apply's order, and applied by a fresh server. Workers compute full
// passes (Batch 0) of a stateless workload, so a delta depends on its
// worker and version only.
func ledgerOracle(t *testing.T, alg algorithms.Algorithm, e harness.Experiment, tr *consistency.Trace) []float64 {
	t.Helper()
	parts, err := dataset.Shard(alg.NumPoints(), e.Workers, nil)
	if err != nil {
		t.Fatal(err)
	}
	theta0, err := alg.Init(rand.New(rand.NewPCG(e.Seed, 0x5eed)))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := alg.NewServer(theta0)
	if err != nil {
		t.Fatal(err)
	}
	versions := [][]float64{slices.Clone(theta0)}
	computedOn := map[consistency.DeltaID]consistency.Version{}
	for _, r := range tr.Records {
		switch r.Kind {
		case consistency.RecCommit:
			computedOn[consistency.DeltaID{Worker: r.Worker, Seq: r.Seq}] = r.Version
		case consistency.RecApply:
			merged := algorithms.NewDelta(alg.Layout())
			for _, id := range r.Deltas {
				w, err := alg.NewWorker(parts[id.Worker])
				if err != nil {
					t.Fatal(err)
				}
				v, ok := computedOn[id]
				if !ok {
					t.Fatalf("the ledger applies %v, never committed", id)
				}
				d := algorithms.NewDelta(alg.Layout())
				w.SetParams(versions[v])
				w.Process(0, w.Len(), d)
				if err := merged.Merge(d); err != nil {
					t.Fatal(err)
				}
			}
			if err := srv.Apply(merged); err != nil {
				t.Fatal(err)
			}
			versions = append(versions, slices.Clone(srv.Params()))
		}
	}
	return versions[len(versions)-1]
}

// RELIABILITY.md's checklist item 1: workers killed without notice at
// seeded points (the real clock's preemptions: mid-computation, after a
// commit was sent and before its acknowledgement, while waiting), over
// 24 seeds and three sync models: nothing is lost or applied twice (the
// checker), and the final θ is exactly what the ledger recomputed from
// scratch gives (==, dyadic data).
func TestLedgerOracleUnderCrashes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	alg := &algotest.Quadratic{X: algotest.Dyadic(rng, 256, 6), LR: 0.5}
	cfg := preempt.Config{Alpha: 0.7, MeanCycle: 200 * time.Millisecond, Step: 20 * time.Millisecond}
	kills, applies := 0, 0
	for _, spec := range []string{"bsp", "ssp:2", "asp"} {
		for seed := range uint64(8) {
			synctest.Test(t, func(t *testing.T) {
				e := harness.Experiment{Algorithm: alg, Sync: consistency.MustParse(spec), Workers: 8, Seed: seed,
					Clock: harness.Real, Duration: 400 * time.Millisecond, Retry: 5 * time.Millisecond, Lease: 50 * time.Millisecond,
					Stragglers: harness.Stragglers{Kind: harness.Injected, Count: 2, Tau: 4 * time.Millisecond, Every: 16},
					Preempt:    &cfg, Network: delayed(400 * time.Microsecond)}
				res, err := harness.Run(context.Background(), e)
				if err != nil {
					t.Fatal(err)
				}
				want := ledgerOracle(t, alg, e, res.Trace)
				if !slices.Equal(res.Theta, want) {
					t.Fatalf("%s seed %d: θ %v; the ledger recomputes %v", spec, seed, res.Theta, want)
				}
				kills += res.Preemptions
				applies += int(res.Versions)
			})
		}
	}
	if kills < 200 {
		t.Fatalf("only %d kills over 24 runs; the checklist asks for at least 200", kills)
	}
	t.Logf("24 runs, %d workers killed and restored, %d applies: θ = the ledger's recomputation every time", kills, applies)
}
