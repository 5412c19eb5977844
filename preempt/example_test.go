package preempt_test

import (
	"fmt"
	"time"

	"github.com/syncmodels/syncmodels/preempt"
)

// DOLL's experimental setup (§V-A): availability 0.9, a mean on-off cycle
// of 1,000 s, the chain sampled every 2 s. Worker 3's first hour, and what
// an online estimator makes of it.
func Example() {
	cfg := preempt.Config{Alpha: 0.9, MeanCycle: 1000 * time.Second}
	p, q, err := cfg.Probabilities()
	if err != nil {
		panic(err)
	}
	fmt.Printf("p = 1/%.0f, q = 1/%.0f per 2 s step\n", 1/p, 1/q)

	const hour = time.Hour
	ts, err := preempt.Schedule(cfg, 42, 3, hour)
	if err != nil {
		panic(err)
	}
	for _, t := range ts {
		fmt.Println(t)
	}
	up, n := preempt.Uptime(ts, hour)
	fmt.Printf("available %v of %v, %d preemptions\n", up, hour, n)

	var est preempt.Estimator
	on, from := true, time.Duration(0)
	for _, t := range ts {
		_ = est.Observe(on, t.At-from)
		on, from = t.Available, t.At
	}
	_ = est.Observe(on, hour-from)
	a, _ := est.Alpha()
	fmt.Printf("estimated α = %.3f\n", a)
	// Output:
	// p = 1/450, q = 1/50 per 2 s step
	// 23m38s preempted
	// 25m16s restored
	// 29m18s preempted
	// 29m24s restored
	// 55m34s preempted
	// 55m38s restored
	// available 58m12s of 1h0m0s, 3 preemptions
	// estimated α = 0.970
}
