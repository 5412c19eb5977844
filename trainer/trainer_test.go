package trainer_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/algotest"
	"github.com/syncmodels/syncmodels/trainer"
)

func quad(lr float64) *algotest.Quadratic {
	return &algotest.Quadratic{X: algotest.Dyadic(rand.New(rand.NewPCG(9, 9)), 96, 4), LR: lr}
}

func TestFullBatchEqualsClosedForm(t *testing.T) {
	// θ_t = (1 − (1−lr)^t)·mean for full-batch GD on the quadratic from 0.
	q := quad(0.5)
	mean := make([]float64, 4)
	for _, x := range q.X {
		for j, v := range x {
			mean[j] += v / 96
		}
	}
	for _, workers := range []int{1, 3, 4} {
		res, err := trainer.Run(context.Background(), q, trainer.Config{Workers: workers, Iters: 3, Parallel: 2})
		if err != nil {
			t.Fatal(err)
		}
		if res.Iterations != 3 || len(res.Objectives) != 3 || res.Points != 3*96 {
			t.Errorf("workers=%d: iterations %d objectives %d points %d; want 3, 3, 288", workers, res.Iterations, len(res.Objectives), res.Points)
		}
		for j := range mean {
			want := (1 - 0.125) * mean[j]
			if d := res.Theta[j] - want; d > 1e-12 || d < -1e-12 {
				t.Errorf("workers=%d: θ[%d] = %v; want %v", workers, j, res.Theta[j], want)
			}
		}
		if !(res.Objectives[2] < res.Objectives[0] && res.Objectives[0] < res.InitialObjective) {
			t.Errorf("workers=%d: objective not decreasing: %v then %v", workers, res.InitialObjective, res.Objectives)
		}
	}
}

func TestParallelismDoesNotChangeResults(t *testing.T) {
	q := &algotest.Quadratic{X: algotest.Dyadic(rand.New(rand.NewPCG(5, 5)), 101, 3), LR: 0.3}
	var ref []float64
	for _, par := range []int{1, 2, 8} {
		res, err := trainer.Run(context.Background(), q, trainer.Config{Workers: 7, Iters: 5, Batch: 4, Parallel: par, Shuffle: true, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = res.Theta
		} else if !slices.Equal(res.Theta, ref) {
			t.Errorf("parallel=%d: θ = %v; parallel=1 gave %v", par, res.Theta, ref)
		}
	}
}

func TestMiniBatchWrapsRoundRobin(t *testing.T) {
	q := quad(0.1)
	var pts []int
	res, err := trainer.Run(context.Background(), q, trainer.Config{Workers: 2, Iters: 7, Batch: 20, EvalEvery: 3,
		OnIter: func(it trainer.Iter) { pts = append(pts, it.Points) }})
	if err != nil {
		t.Fatal(err)
	}
	// 2 workers × 20 points per iteration, shards of 48 wrap around.
	if want := []int{40, 40, 40, 40, 40, 40, 40}; !slices.Equal(pts, want) {
		t.Errorf("points per iteration %v; want %v", pts, want)
	}
	if want := []int{3, 6, 7}; !slices.Equal(res.EvaluatedAt, want) {
		t.Errorf("evaluated at %v; want %v", res.EvaluatedAt, want)
	}
}

func TestBadConfig(t *testing.T) {
	q := quad(1)
	for _, cfg := range []trainer.Config{{Workers: 97}, {Workers: -1}, {Iters: -1}, {Batch: -2}, {EvalEvery: -1}} {
		if _, err := trainer.Run(context.Background(), q, cfg); !errors.Is(err, algorithms.ErrConfig) {
			t.Errorf("Run(%+v) = %v; want ErrConfig", cfg, err)
		}
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := trainer.Run(ctx, quad(1), trainer.Config{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Run(cancelled) = %v; want context.Canceled", err)
	}
}
