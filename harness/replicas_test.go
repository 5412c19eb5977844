package harness_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/kmeans"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/harness"
)

// BSP in MLLess's replica design (Experiment.Replicas) is isp:0 (MLLess
// Appendix A, Corollary 1: ISP with v = 0 is BSP of the same design): the
// same parameters bit for bit, on a dense (LR, Adam) and a sparse (PMF,
// momentum) workload, and both equal the independent parameter-space loop.
// On the goroutine runtime too, with batches over the real worker's
// 16-point chunk (the workloads' Process is split-invariant).
func TestReplicasBSPIsISPZero(t *testing.T) {
	for name, alg := range map[string]algorithms.Algorithm{"lr": logisticLR(t), "pmf": ratingsPMF(t)} {
		t.Run(name, func(t *testing.T) {
			const workers, batch, rounds = 4, 40, 25
			theta0, err := alg.Init(rand.New(rand.NewPCG(7, 7)))
			if err != nil {
				t.Fatal(err)
			}
			run := func(t *testing.T, spec string, replicas bool, clock harness.Clock) *harness.Result {
				t.Helper()
				e := harness.Experiment{Algorithm: alg, Sync: consistency.MustParse(spec), Replicas: replicas, Workers: workers, Batch: batch,
					Theta0: theta0, Duration: time.Hour, Stop: harness.Stop{MaxIterations: rounds}, Clock: clock,
					Network: delayed(100 * time.Microsecond)}
				r, err := harness.Run(context.Background(), e)
				if err != nil {
					t.Fatal(err)
				}
				if r.Versions != rounds {
					t.Fatalf("%s (replicas %v, %v): %d versions; want %d", spec, replicas, clock, r.Versions, rounds)
				}
				return r
			}
			bsp, isp0 := run(t, "bsp", true, harness.Virtual), run(t, "isp:0", false, harness.Virtual)
			if !slices.Equal(bsp.Theta, isp0.Theta) {
				t.Fatal("bsp with Replicas and isp:0 end with different θ")
			}
			if !slices.Equal(bsp.Theta, bspParameterSpace(t, alg, theta0, workers, batch, rounds)) {
				t.Fatal("bsp with Replicas differs from the parameter-space loop")
			}
			if ps := run(t, "bsp", false, harness.Virtual); slices.Equal(ps.Theta, bsp.Theta) {
				t.Fatal("bsp with and without Replicas agree: the designs should differ")
			}
			synctest.Test(t, func(t *testing.T) {
				if real := run(t, "bsp", true, harness.Real); !slices.Equal(real.Theta, bsp.Theta) {
					t.Fatal("bsp with Replicas: real and virtual clocks end with different θ")
				}
			})
		})
	}
}

// SSP in the replica design (MLLess §6.4's SSP: the same worker code with a
// slack): deterministic per seed, its trace passes consistency.Check (Run
// checks it), and over indirect communication it saves waiting but not
// bytes: every update is PUT once and fetched by each of the P − 1 other
// workers, as under BSP.
func TestReplicasSSP(t *testing.T) {
	for name, alg := range map[string]algorithms.Algorithm{"lr": logisticLR(t), "pmf": ratingsPMF(t)} {
		t.Run(name, func(t *testing.T) {
			const workers, s = 8, 3
			run := func(spec string, store *harness.StoreModel) *harness.Result {
				e := harness.Experiment{Algorithm: alg, Sync: consistency.MustParse(spec), Replicas: true, Workers: workers, Batch: 40, Seed: 3,
					Stragglers: harness.Stragglers{Kind: harness.Natural, Count: 2, Slowdown: 3},
					Duration:   300 * time.Millisecond, Indirect: store}
				r, err := harness.Run(context.Background(), e)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			ssp, bsp := run("ssp:3", &harness.StoreModel{}), run("bsp", &harness.StoreModel{})
			if again := run("ssp:3", &harness.StoreModel{}); !slices.Equal(again.Theta, ssp.Theta) || again.BytesSent != ssp.BytesSent || len(again.Trace.Records) != len(ssp.Trace.Records) {
				t.Fatal("same seed, different ssp:3 run")
			}
			for _, r := range []*harness.Result{bsp, ssp} {
				st := r.Store
				t.Logf("%s: versions %d, wait %.2f, store %d B, %d PUTs, %d GETs, %.1f GETs/PUT, %.0f B/PUT",
					r.Sync, r.Versions, r.WaitFraction, st.Bytes, st.Puts, st.Gets, float64(st.Gets)/float64(st.Puts), float64(st.Bytes)/float64(st.Puts))
				// Each stored update is fetched by at most the P − 1 others;
				// only those applied after a worker's last read are not:
				// under SSP a worker is at most s + 1 clocks behind, so at
				// most (s + 2)·P updates per worker.
				if st.Gets > (workers-1)*st.Puts || st.Gets < (workers-1)*st.Puts-(s+2)*workers*workers {
					t.Fatalf("%s: %d GETs for %d PUTs by %d workers", r.Sync, st.Gets, st.Puts, workers)
				}
			}
		})
	}
}

// SSP with Replicas on the goroutine runtime, over a link that drops and
// duplicates messages: the trace passes the checker (Run checks it), no
// commit is applied twice, and the model trains.
func TestReplicasSSPRealClock(t *testing.T) {
	alg := logisticLR(t)
	synctest.Test(t, func(t *testing.T) {
		e := harness.Experiment{Algorithm: alg, Sync: consistency.MustParse("ssp:3"), Replicas: true, Workers: 4, Batch: 40, Seed: 3,
			Duration: 500 * time.Millisecond, Clock: harness.Real,
			Network: lossy}
		r, err := harness.Run(context.Background(), e)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("versions %d, objective %.4g → %.4g", r.Versions, r.Curve[0].Objective, r.Final)
		if r.Versions < 10 || !(r.Final < r.Curve[0].Objective) {
			t.Fatalf("versions %d, objective %v → %v", r.Versions, r.Curve[0].Objective, r.Final)
		}
	})
}

// Replicas is refused with a clear error for EM workloads and for FSP.
func TestReplicasRefusals(t *testing.T) {
	pts := dataset.Blobs(rand.New(rand.NewPCG(1, 1)), 400, 2, 3, 1)
	km, err := kmeans.New(pts, kmeans.Config{K: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []harness.Experiment{
		{Algorithm: km, Sync: consistency.MustParse("ssp:3"), Replicas: true, Workers: 2},
		{Algorithm: km, Sync: consistency.MustParse("bsp"), Replicas: true, Workers: 2, Clock: harness.Real},
		{Algorithm: logisticLR(t), Sync: consistency.MustParse("fsp:2ms"), Replicas: true, Workers: 2},
	} {
		if _, err := harness.Run(context.Background(), e); !errors.Is(err, harness.ErrConfig) {
			t.Errorf("%s with %v: %v; want ErrConfig", e.Algorithm.Name(), e.Sync, err)
		} else {
			t.Log(err)
		}
	}
}
