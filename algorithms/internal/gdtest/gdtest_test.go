package gdtest_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms/algotest"
	"github.com/syncmodels/syncmodels/algorithms/internal/gdtest"
)

func TestShards(t *testing.T) {
	if got := gdtest.Seq(3, 6); !slices.Equal(got, []int{3, 4, 5}) {
		t.Errorf("Seq(3, 6) = %v", got)
	}
	if got := gdtest.Seq(4, 4); len(got) != 0 {
		t.Errorf("Seq(4, 4) = %v", got)
	}
	sh := gdtest.Shards(10, 3)
	if want := [][]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8, 9}}; !slices.EqualFunc(sh, want, slices.Equal) {
		t.Errorf("Shards(10, 3) = %v; want %v", sh, want)
	}
}

func TestRelErr(t *testing.T) {
	if e := gdtest.RelErr([]float64{1, 2.5, -4}, []float64{1, 2, -4}); e != 0.125 {
		t.Errorf("RelErr = %v; want 0.125", e)
	}
	if e := gdtest.RelErr([]float64{0, 0}, []float64{0, 0}); e != 0 {
		t.Errorf("RelErr of zeros = %v", e)
	}
}

// On the exact quadratic workload, one full-batch step with LR 1 lands on
// the mean whatever the number of workers, and mini-batches wrap around.
func TestTrainer(t *testing.T) {
	q := &algotest.Quadratic{X: algotest.Dyadic(rand.New(rand.NewPCG(1, 2)), 12, 3), LR: 1}
	mean := make([]float64, 3)
	for _, x := range q.X {
		for j, v := range x {
			mean[j] += v / 12
		}
	}
	for _, k := range []int{1, 3, 5} {
		tr := gdtest.NewTrainer(t, q, make([]float64, 3), k)
		if len(tr.Workers) != k {
			t.Fatalf("%d workers; want %d", len(tr.Workers), k)
		}
		tr.Step(t, 0)
		if e := gdtest.RelErr(tr.Params(), mean); e > 1e-15 {
			t.Errorf("%d workers: θ = %v; want the mean %v", k, tr.Params(), mean)
		}
		if f := tr.Objective(); !(f >= 0) {
			t.Errorf("%d workers: objective %v", k, f)
		}
	}
	// Batches of 5 over one shard of 12: 5, 5, 2, then 5 again.
	tr := gdtest.NewTrainer(t, q, make([]float64, 3), 1).Run(t, 4, 5)
	if tr.Server.Steps() != 4 {
		t.Errorf("%d steps; want 4", tr.Server.Steps())
	}
}
