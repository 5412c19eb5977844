package kmeans_test

import (
	"fmt"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/kmeans"
	"github.com/syncmodels/syncmodels/dataset"
)

// Lloyd's algorithm as full-batch incremental EM: one worker processes every
// point, the server applies the delta once per iteration.
func Example() {
	data := &dataset.Dense{N: 6, D: 2, X: []float64{
		0, 0, 0, 1, 1, 0, // near the origin
		9, 9, 9, 10, 10, 9, // near (9.3, 9.3)
	}}
	km, err := kmeans.New(data, kmeans.Config{K: 2, Init: kmeans.InitFirst})
	if err != nil {
		panic(err)
	}
	theta, _ := km.Init(nil) // the first two points: (0,0) and (0,1)
	srv, _ := km.NewServer(theta)
	w, _ := km.NewWorker([]int{0, 1, 2, 3, 4, 5})
	for it := 1; it <= 3; it++ {
		w.SetParams(srv.Params())
		d := algorithms.NewDelta(km.Layout())
		w.Process(0, w.Len(), d)
		if err := srv.Apply(d); err != nil {
			panic(err)
		}
		w.SetParams(srv.Params())
		fmt.Printf("iteration %d: centroids %.3g inertia %.4g\n",
			it, srv.Params(), km.Objective(srv.Params(), w.Evaluate()))
	}
	// Output:
	// iteration 1: centroids [0.5 0 7 7.25] inertia 32.44
	// iteration 2: centroids [0.333 0.333 9.33 9.33] inertia 2.667
	// iteration 3: centroids [0.333 0.333 9.33 9.33] inertia 2.667
}
