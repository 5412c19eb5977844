package doll_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/syncmodels/syncmodels/algorithms/logreg"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/arrival"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/doll"
)

// A small DOLL job: 16 workers with Poisson streams of 100 points/s,
// K = 4 batches of 32 points per update, 400 updates; preemptible
// instances are available 80% of the time. Theorem 4 rents 7 of the 16
// as preemptible for a deadline 10% over θ0.
func Example() {
	data, _ := dataset.Logistic(rand.New(rand.NewPCG(5, 5)), 4000, 10)
	alg, err := logreg.NewDense(data, logreg.Config{Optim: optim.Config{Method: optim.SGD, LR: 0.5}})
	if err != nil {
		panic(err)
	}
	job := doll.Job{Algorithm: alg, Workers: 16, K: 4, Batch: 32, Updates: 400,
		Arrivals: &arrival.Spec{Rate: 100}, Alpha: 0.8, MeanCycle: 10 * time.Second, DeadlineRatio: 1.1, Seed: 4}
	for _, p := range []doll.Policy{doll.OnDemand, doll.Static} {
		o, err := job.Run(context.Background(), p)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-9v N_s=%-2d θ0=%v θ=%v runtime=%.1fs cost=$%.4f\n", p, o.Ns, o.Theta0, o.Theta, o.Runtime.Seconds(), o.Cost)
	}
	// Output:
	// on-demand N_s=0  θ0=32s θ=35.2s runtime=32.2s cost=$0.0419
	// static    N_s=7  θ0=32s θ=35.2s runtime=35.0s cost=$0.0347
}
