package latency_test

import (
	"fmt"
	"strconv"
	"time"

	"github.com/syncmodels/syncmodels/latency"
)

// slsML's storage: milliseconds, except one operation in 10,000 that takes
// tens of seconds. The quantiles are closed-form; the draws are a pure
// function of (seed, worker, operation).
func Example() {
	d, err := latency.Parse("median=5ms,sigma=0.5,p=0.0001,scale=10s,alpha=1.5")
	if err != nil {
		panic(err)
	}
	fmt.Println(d == latency.Default(), d)
	for _, q := range []float64{0.5, 0.99, 0.999, 0.99995, 0.99999} {
		fmt.Printf("p%s = %v\n", strconv.FormatFloat(100*q, 'g', 6, 64), d.Quantile(q).Round(100_000))
	}
	const seed = 42
	var draws []time.Duration
	for op := range uint64(4) {
		draws = append(draws, d.Sample(seed, 3, op).Round(100_000)) // worker 3's first operations
	}
	fmt.Println(draws)
	_, err = latency.Parse("median=5ms,p=0.001")
	fmt.Println(err)
	// Output:
	// true median=5ms,sigma=0.5,p=0.0001,scale=10s,alpha=1.5
	// p50 = 5ms
	// p99 = 16ms
	// p99.9 = 23.8ms
	// p99.995 = 15.874s
	// p99.999 = 46.4159s
	// [2.2ms 3.2ms 3.8ms 6.3ms]
	// latency: spec = "median=5ms,p=0.001": Dist.Scale = 0s: the tail's scale must be > 0 when P > 0
}
