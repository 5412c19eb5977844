package fcm_test

import (
	"fmt"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/fcm"
	"github.com/syncmodels/syncmodels/algorithms/kmeans"
	"github.com/syncmodels/syncmodels/dataset"
)

// The textbook fuzzy c-means iteration (m = 2) as full-batch incremental
// EM. The middle point ends up shared by both clusters.
func Example() {
	data := &dataset.Dense{N: 5, D: 1, X: []float64{0, 10, 1, 5, 9}}
	f, err := fcm.New(data, fcm.Config{K: 2, Init: kmeans.InitFirst})
	if err != nil {
		panic(err)
	}
	theta, _ := f.Init(nil) // centroids 0 and 10
	srv, _ := f.NewServer(theta)
	w, _ := f.NewWorker([]int{0, 1, 2, 3, 4})
	for it := 1; it <= 20; it++ {
		w.SetParams(srv.Params())
		d := algorithms.NewDelta(f.Layout())
		w.Process(0, w.Len(), d)
		if err := srv.Apply(d); err != nil {
			panic(err)
		}
	}
	w.SetParams(srv.Params())
	fmt.Printf("centroids %.4f J %.4f\n", srv.Params(), f.Objective(srv.Params(), w.Evaluate()))
	// Output:
	// centroids [1.0118 8.9882] J 9.9750
}
