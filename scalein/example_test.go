package scalein_test

import (
	"fmt"
	"slices"
	"time"

	"github.com/syncmodels/syncmodels/cost"
	"github.com/syncmodels/syncmodels/scalein"
)

// A synthetic job drives the tuner. With p workers a step takes
// 0.2 + 0.05·p seconds and adds p mini-batches to the progress u; the
// loss is 1/(0.04·u + 0.667) + 0.05. The runtime reports every step and
// performs the evictions; each worker's replica quality is its loss.
func Example() {
	pool := []int{0, 1, 2, 3, 4, 5, 6, 7}
	tuner, err := scalein.New(scalein.Config{Workers: pool, MinWorkers: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	var u float64
	var now time.Duration
	for step := 1; step <= 400; step++ {
		p := len(pool)
		u += float64(p)
		now += 200*time.Millisecond + time.Duration(p)*50*time.Millisecond
		loss := 1/(0.04*u+0.667) + 0.05
		obs := scalein.Observation{Time: now, Loss: loss}
		for _, id := range pool {
			obs.Workers = append(obs.Workers, scalein.Report{ID: id, Quality: loss * (1 + 0.01*float64(id%3))})
		}
		a, err := tuner.Observe(obs)
		if err != nil {
			fmt.Println(err)
			return
		}
		switch d := a.Decision; {
		case d == nil:
		case d.First:
			fmt.Printf("step %d: knee; L_P fitted, d_P = %v; evict worker %d\n", d.Step, d.DRef, a.Worker)
		case a.Op == scalein.Evict:
			fmt.Printf("step %d: s_Δ = %.2f%% < 1%%: evict worker %d\n", d.Step, 100*d.S, a.Worker)
		case d.Outcome == scalein.Kept && d.Workers == len(tuner.Pool()) && d.Step < 300:
			fmt.Printf("step %d: s_Δ = %.2f%%: keep %d workers\n", d.Step, 100*d.S, d.Workers)
		}
		if a.Op == scalein.Evict {
			// The runtime stops the worker (and, if replicas differ,
			// averages its replica into the others: scalein.Average).
			pool = slices.DeleteFunc(pool, func(id int) bool { return id == a.Worker })
		}
	}
	lifetimes, _ := tuner.Lifetimes(now)
	bill, _ := scalein.Bill(lifetimes, now, cost.Options{})
	fixed, _ := scalein.Bill(scalein.Fixed(tuner.Config().Workers, now), now, cost.Options{})
	fmt.Printf("pool %v after %v: $%.4f (8 workers as long: $%.4f)\n", tuner.Pool(), now, bill.Total, fixed.Total)
	// Output:
	// step 228: knee; L_P fitted, d_P = 600ms; evict worker 5
	// step 247: s_Δ = 0.19% < 1%: evict worker 2
	// step 267: s_Δ = 0.54% < 1%: evict worker 7
	// step 290: s_Δ = 1.06%: keep 5 workers
	// pool [0 1 3 4 6] after 3m37.1s: $0.0713 (8 workers as long: $0.0784)
}

// The leave-time synchronization of §4.2: each remaining worker averages
// the leaving worker's replica into its own.
func ExampleAverage() {
	own := []float64{0.5, -1, 2}
	leaving := []float64{1.5, -1, 0}
	if _, err := scalein.Average(own, [][]float64{leaving, own}, nil); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(own)
	// Output: [1 -1 1]
}
