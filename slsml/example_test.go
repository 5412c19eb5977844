package slsml_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/syncmodels/syncmodels/algorithms/logreg"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/latency"
	"github.com/syncmodels/syncmodels/slsml"
)

// slsML's pipeline on the in-process store: 20 workers, 4 reducers, 10
// iterations of logistic regression, under a store whose requests take
// milliseconds except one in 200, which takes seconds. With a barrier
// every straggler stalls its iteration; the counting semaphore proceeds
// at 90% of the workers and folds the late gradients into the next
// iteration. Both runs keep the pipeline's guarantee (Check).
func Example() {
	data, _ := dataset.Logistic(rand.New(rand.NewPCG(1, 1)), 2000, 20)
	alg, err := logreg.NewDense(data, logreg.Config{Lambda: 1e-3, Optim: optim.Config{Method: optim.Adam, LR: 0.05, Epsilon: 1e-9}})
	if err != nil {
		panic(err)
	}
	tail := latency.Dist{Median: 5 * time.Millisecond, Sigma: 0.5, P: 0.005, Scale: 5 * time.Second, Alpha: 1.5, Max: time.Minute}
	for _, q := range []float64{1, 0.9} {
		m := exchange.NewMemory()
		store, _ := m.Open("example", exchange.Limits{})
		res, err := slsml.Run(context.Background(), store, alg, slsml.Config{
			Workers: 20, Reducers: 4, Iterations: 10, Batch: 50, Quorum: q, Seed: 1,
			Timing: slsml.Timing{Store: tail, PerPoint: 10 * time.Millisecond},
		})
		if err != nil {
			panic(err)
		}
		var slowest time.Duration
		for _, it := range res.Iterations {
			slowest = max(slowest, it.Duration())
		}
		c := res.Counts
		fmt.Printf("quorum %.1f: %v, slowest iteration %v; %d gradients written, %d applied (%d folded late), %d pending at the end; %d requests, $%.5f; check: %v\n",
			q, res.Time.Round(time.Millisecond), slowest.Round(time.Millisecond), c.Written, c.Applied, c.Folded, c.Ended,
			requests(res.Bill), res.Bill.Total, slsml.Check(res.Trace))
	}
	// Output:
	// quorum 1.0: 4m23.977s, slowest iteration 1m6.107s; 200 gradients written, 200 applied (0 folded late), 0 pending at the end; 3168 requests, $0.02206; check: <nil>
	// quorum 0.9: 1m42.812s, slowest iteration 37.11s; 200 gradients written, 196 applied (16 folded late), 4 pending at the end; 3152 requests, $0.02220; check: <nil>
}

func requests(b slsml.Bill) int64 {
	var n int64
	for _, ln := range b.Requests.Lines {
		n += ln.Requests
	}
	return n
}
