package logreg_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/logreg"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/dataset"
)

// Train logistic regression with Adam (the MLLess setting) on synthetic
// data: two workers, mini-batches of 50 points each, merged every step.
func Example() {
	rng := rand.New(rand.NewPCG(1, 1))
	data, _ := dataset.Logistic(rng, 1000, 10)
	alg, err := logreg.NewDense(data, logreg.Config{
		Lambda: 1e-3,
		Optim:  optim.Config{Method: optim.Adam, LR: 0.2, Epsilon: 1e-9, Schedule: optim.InvSqrtEpoch},
	})
	if err != nil {
		panic(err)
	}
	theta0, _ := alg.Init(rng)
	srv, _ := alg.NewServer(theta0)
	w0, _ := alg.NewWorker(seq(0, 500))
	w1, _ := alg.NewWorker(seq(500, 1000))
	workers := []algorithms.Worker{w0, w1}
	objective := func() float64 {
		var parts []algorithms.Partial
		for _, w := range workers {
			w.SetParams(srv.Params())
			parts = append(parts, w.Evaluate())
		}
		return alg.Objective(srv.Params(), parts...)
	}
	fmt.Printf("before: %.3f\n", objective())

	merged, d := algorithms.NewDelta(alg.Layout()), algorithms.NewDelta(alg.Layout())
	for step := range 100 { // 10 epochs
		lo := step % 10 * 50
		merged.Reset()
		for _, w := range workers {
			d.Reset()
			w.SetParams(srv.Params())
			w.Process(lo, lo+50, d)
			merged.Merge(d)
		}
		if err := srv.Apply(merged); err != nil {
			panic(err)
		}
	}
	fmt.Printf("after %d steps: %.2f\n", srv.Steps(), objective())
	// Output:
	// before: 0.693
	// after 100 steps: 0.55
}

func seq(lo, hi int) []int {
	s := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		s = append(s, i)
	}
	return s
}
