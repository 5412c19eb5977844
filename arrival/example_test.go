package arrival_test

import (
	"fmt"
	"time"

	"github.com/syncmodels/syncmodels/arrival"
)

// DOLL §V-B's heterogeneous streams: each worker's rate drawn from
// U(1, 250) for the run, Poisson arrivals, batches of b = 256 points.
// Times are each worker's up-time: a simulator that preempts a worker
// stops its clock, so the worker's batch completes later in wall-clock
// time by the time it spent preempted.
func Example() {
	spec, err := arrival.Parse("poisson:1-250")
	if err != nil {
		panic(err)
	}
	const workers, batch, seed = 4, 256, 42
	rates, err := spec.RatesFor(workers, seed)
	if err != nil {
		panic(err)
	}
	for n, rate := range rates {
		st, err := arrival.NewStream(spec.Dist, rate, batch, seed, n)
		if err != nil {
			panic(err)
		}
		var est arrival.Estimator
		var times []time.Duration
		prev := time.Duration(0)
		for range 3 {
			next := st.Next()
			times = append(times, next.Round(time.Millisecond))
			_ = est.Observe(batch, next-prev)
			prev = next
		}
		r, _ := est.Rate()
		fmt.Printf("worker %d: λ = %6.2f/s, batches at %v, estimated λ = %6.2f/s\n", n, rate, times, r)
	}
	// Output:
	// worker 0: λ =  56.43/s, batches at [4.153s 9.152s 13.166s], estimated λ =  58.33/s
	// worker 1: λ = 108.22/s, batches at [2.157s 4.614s 6.988s], estimated λ = 109.91/s
	// worker 2: λ =  33.56/s, batches at [7.755s 15.505s 21.886s], estimated λ =  35.09/s
	// worker 3: λ =  95.51/s, batches at [2.691s 5.435s 8.166s], estimated λ =  94.05/s
}
