package gmm_test

import (
	"fmt"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/gmm"
	"github.com/syncmodels/syncmodels/algorithms/kmeans"
	"github.com/syncmodels/syncmodels/dataset"
)

// Full-batch EM (scikit-learn's GaussianMixture(covariance_type="diag"))
// on one-dimensional data with two groups.
func Example() {
	data := &dataset.Dense{N: 8, D: 1, X: []float64{-1.2, 3.9, -1, 4, -0.9, 4.2, -0.8, 4.4}}
	g, err := gmm.New(data, gmm.Config{K: 2, Init: kmeans.InitFirst})
	if err != nil {
		panic(err)
	}
	theta, _ := g.Init(nil) // weights ½, means x_0 and x_1, variances Var(x) + 1e-6
	srv, _ := g.NewServer(theta)
	w, _ := g.NewWorker([]int{0, 1, 2, 3, 4, 5, 6, 7})
	for it := 0; it < 30; it++ {
		w.SetParams(srv.Params())
		d := algorithms.NewDelta(g.Layout())
		w.Process(0, w.Len(), d)
		if err := srv.Apply(d); err != nil {
			panic(err)
		}
	}
	th := srv.Params() // [π_0 π_1 | μ_0 μ_1 | σ²_0 σ²_1]
	w.SetParams(th)
	fmt.Printf("weights %.3f\nmeans %.3f\nvariances %.4f\n", th[0:2], th[2:4], th[4:6])
	fmt.Printf("mean log-likelihood %.4f\n", g.Objective(th, w.Evaluate()))
	// Output:
	// weights [0.500 0.500]
	// means [-0.975 4.125]
	// variances [0.0219 0.0369]
	// mean log-likelihood -0.3314
}
