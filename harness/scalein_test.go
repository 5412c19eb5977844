package harness_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/logreg"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/scalein"
)

func logisticLR(t testing.TB) algorithms.Algorithm {
	t.Helper()
	data, _ := dataset.Logistic(rand.New(rand.NewPCG(5, 5)), 16000, 20)
	alg, err := logreg.NewDense(data, logreg.Config{Optim: optim.Config{Method: optim.Adam, LR: 0.01}})
	if err != nil {
		t.Fatal(err)
	}
	return alg
}

// The scale-in tuner (MLLess §4.2) drives a BSP run: after the knee it
// evicts workers while Eq. 1 says the smaller pool keeps up; evicted
// workers leave the model (the trace passes the checker, Run checks it)
// and stop computing.
func TestVirtualScaleIn(t *testing.T) {
	alg := logisticLR(t)
	ids := make([]int, 8)
	for i := range ids {
		ids[i] = i
	}
	run := func() *harness.Result {
		tu, err := scalein.New(scalein.Config{Workers: ids, MinWorkers: 2, S: 0.05, Delta: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		e := harness.Experiment{Algorithm: alg, Sync: consistency.MustParse("bsp"), Workers: 8, Batch: 50, Seed: 2,
			Duration: 500 * time.Millisecond, EvalEvery: 500 * time.Millisecond, ControlSample: 1024, ScaleIn: tu}
		r, err := harness.Run(context.Background(), e)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := run()
	if len(r.Evictions) == 0 {
		t.Fatal("no eviction")
	}
	evicted := 0
	for i, w := range r.Workers {
		if !w.Evicted {
			continue
		}
		evicted++
		var leave time.Duration = -1
		for _, rec := range r.Trace.Records {
			if rec.Kind == consistency.RecLeave && int(rec.Worker) == i {
				leave = rec.At
			}
			if rec.Kind == consistency.RecRead && int(rec.Worker) == i && leave >= 0 {
				t.Fatalf("worker %d read at %v after leaving at %v", i, rec.At, leave)
			}
		}
		if leave != w.Left {
			t.Errorf("worker %d left at %v in its stats, %v in the trace", i, w.Left, leave)
		}
	}
	if evicted != len(r.Evictions) || evicted > 6 {
		t.Errorf("%d workers evicted, %d evictions (min pool 2)", evicted, len(r.Evictions))
	}
	if r2 := run(); len(r2.Evictions) != len(r.Evictions) || r2.Final != r.Final {
		t.Error("same seed, different scale-in run")
	}
	t.Logf("evictions %v; final %.6g", r.Evictions, r.Final)
}

func TestScaleInNeedsVirtualRounds(t *testing.T) {
	tu, err := scalein.New(scalein.Config{Workers: []int{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	e := harness.Experiment{Algorithm: logisticLR(t), Sync: consistency.MustParse("asp"), Workers: 2, ScaleIn: tu}
	if _, err := harness.Run(context.Background(), e); !errors.Is(err, harness.ErrConfig) {
		t.Fatalf("scale-in under ASP: %v", err)
	}
}
