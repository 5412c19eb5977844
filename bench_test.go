package syncmodels_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/logreg"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/harness"
)

// benchWorkload is the benchmarks' seeded workload: logistic regression
// (Adam, learning rate 0.005, λ 1e-4) on 8,000 synthetic points with 20
// features, 100-point commits, 2 s of virtual time, the objective every
// 10 ms.
func benchWorkload(b *testing.B) algorithms.Algorithm {
	b.Helper()
	x, _ := dataset.Logistic(rand.New(rand.NewPCG(1, 2)), 8000, 20)
	alg, err := logreg.NewDense(x, logreg.Config{Lambda: 1e-4, Optim: optim.Config{Method: optim.Adam, LR: 0.005}})
	if err != nil {
		b.Fatal(err)
	}
	return alg
}

func benchExperiment(alg algorithms.Algorithm, sync consistency.Spec, workers int) harness.Experiment {
	return harness.Experiment{
		Algorithm: alg, Sync: sync, Workers: workers, Batch: 100, Seed: 1,
		Duration: 2 * time.Second, EvalEvery: 10 * time.Millisecond,
	}
}

// BenchmarkSync runs each sync model once per iteration in virtual time on
// the same workload with a quarter of the workers injected stragglers
// (pausing 32 ms after every 1,000 points). ns/op is the simulation's own
// cost; the domain figures are reported as metrics: virtual time to
// target (ttt-s), the share of worker time spent waiting (wait-frac), the
// final objective (final-obj) and the bytes sent (bytes-sent).
//
// The target is fixed once for the workload, so times compare across
// models and worker counts: 95% of the improvement over θ0 that BSP makes
// in the run with 16 workers and no stragglers.
func BenchmarkSync(b *testing.B) {
	alg := benchWorkload(b)
	ref, err := harness.Run(context.Background(), benchExperiment(alg, consistency.MustParse("bsp"), 16))
	if err != nil {
		b.Fatal(err)
	}
	f0 := ref.Curve[0].Objective
	target := f0 - 0.95*(f0-ref.Final)
	for _, workers := range []int{4, 16} {
		for _, s := range []string{"bsp", "ssp:3", "asp", "quorum:0.9", "isp:0.7"} {
			spec := consistency.MustParse(s)
			b.Run(fmt.Sprintf("sync=%s/workers=%d", spec, workers), func(b *testing.B) {
				e := benchExperiment(alg, spec, workers)
				e.Stragglers = harness.Stragglers{Kind: harness.Injected, Count: workers / 4}
				e.Target, e.HasTarget = target, true
				var res *harness.Result
				for b.Loop() {
					if res, err = harness.Run(context.Background(), e); err != nil {
						b.Fatal(err)
					}
				}
				if res.TimeToTarget < 0 {
					b.Errorf("target %v not reached in %v (final %v)", target, e.Duration, res.Final)
				}
				b.ReportMetric(res.TimeToTarget.Seconds(), "ttt-s")
				b.ReportMetric(res.WaitFraction, "wait-frac")
				b.ReportMetric(res.Final, "final-obj")
				b.ReportMetric(float64(res.BytesSent), "bytes-sent")
			})
		}
	}
}
