package nmf_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/nmf"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/dataset"
)

// Factorise a non-negative rank-3 matrix with projected mini-batch GD.
func Example() {
	rng := rand.New(rand.NewPCG(4, 4))
	const n, d, r = 200, 20, 3
	x := make([]float64, n*d)
	h := make([]float64, r*d)
	for i := range h {
		h[i] = math.Abs(rng.NormFloat64())
	}
	for i := range n {
		for k := range r {
			w := math.Abs(rng.NormFloat64())
			for j := range d {
				x[i*d+j] += w * h[k*d+j]
			}
		}
	}
	data := &dataset.Dense{N: n, D: d, X: x}
	alg, err := nmf.New(data, nmf.Config{Rank: r, Optim: optim.Config{LR: 0.02}, HScale: 5})
	if err != nil {
		panic(err)
	}
	theta0, _ := alg.Init(rng)
	srv, _ := alg.NewServer(theta0)
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	w, _ := alg.NewWorker(all)
	objective := func() float64 {
		w.SetParams(srv.Params())
		return alg.Objective(srv.Params(), w.Evaluate())
	}
	fmt.Printf("before: %.0f\n", objective())
	delta := algorithms.NewDelta(alg.Layout())
	for range 200 { // epochs of 4 batches of 50 rows
		for lo := 0; lo < n; lo += 50 {
			delta.Reset()
			w.SetParams(srv.Params())
			w.Process(lo, lo+50, delta)
			if err := srv.Apply(delta); err != nil {
				panic(err)
			}
		}
	}
	fmt.Printf("after: below 1e-4: %v\n", objective() < 1e-4)
	// Output:
	// before: 27
	// after: below 1e-4: true
}
