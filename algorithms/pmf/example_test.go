package pmf_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/algorithms/pmf"
	"github.com/syncmodels/syncmodels/dataset"
)

// Factorise synthetic rank-5 ratings (values 3 + U·Mᵀ + noise of sd 0.5,
// clipped to 1..5) with SGD and Nesterov momentum 0.8 (the MLLess
// setting), mini-batches of 1000. The model has no bias term, so it needs
// one factor more than the data's rank to carry the mean.
func Example() {
	rng := rand.New(rand.NewPCG(7, 7))
	data := dataset.LowRankRatings(rng, 300, 200, 5, 20000, 0.5)
	alg, err := pmf.New(data, pmf.Config{Rank: 8, Lambda: 0.02, Optim: optim.Config{Method: optim.Nesterov, Momentum: 0.8, LR: 10}})
	if err != nil {
		panic(err)
	}
	theta0, _ := alg.Init(rng)
	srv, _ := alg.NewServer(theta0)
	all := make([]int, data.Len())
	for i := range all {
		all[i] = i
	}
	w, _ := alg.NewWorker(all)
	rmse := func() float64 {
		w.SetParams(srv.Params())
		return alg.Objective(srv.Params(), w.Evaluate())
	}
	fmt.Printf("RMSE before: %.1f\n", rmse())
	d := algorithms.NewDelta(alg.Layout())
	for range 10 { // epochs
		for lo := 0; lo < len(all); lo += 1000 {
			d.Reset()
			w.SetParams(srv.Params())
			w.Process(lo, lo+1000, d)
			if err := srv.Apply(d); err != nil {
				panic(err)
			}
		}
	}
	fmt.Printf("RMSE after 10 epochs below 0.55: %v\n", rmse() < 0.6)
	// Output:
	// RMSE before: 3.2
	// RMSE after 10 epochs below 0.55: true
}
