package interval_test

import (
	"fmt"
	"time"

	"github.com/syncmodels/syncmodels/interval"
)

// toy is a training process in virtual time for the examples: the loss
// falls by g(η)·η per iteration of interval η, with g(η) = 10 − 20·η (η in
// seconds: quality drops as barriers move apart), an iteration lasts at
// most a full pass, and each barrier costs 50 ms.
type toy struct {
	loss, saved float64
	full        time.Duration
}

const barrier = 50 * time.Millisecond

// do performs a request the way a training system would.
func (p *toy) do(req interval.Request) interval.Report {
	switch req.Op {
	case interval.OpCheckpoint:
		p.saved = p.loss // and θ, optimizer state, every worker's data cursor
		return interval.Report{Objective: p.loss}
	case interval.OpRollback:
		p.loss = p.saved
		return interval.Report{}
	}
	var elapsed time.Duration
	for range req.Iterations {
		eta := req.Interval
		if eta == interval.FullPass || eta > p.full {
			eta = p.full
		}
		p.loss -= (10 - 20*eta.Seconds()) * eta.Seconds()
		elapsed += eta + barrier
	}
	return interval.Report{Objective: p.loss, Elapsed: elapsed, BarrierCost: barrier, Iterations: req.Iterations}
}

// run drives a tuner for n exchanges and prints its requests.
func run(t interval.Tuner, p *toy, n int) {
	for range n {
		req, err := t.Next()
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(req)
		if err := t.Observe(p.do(req)); err != nil {
			fmt.Println(err)
			return
		}
	}
}

func ExampleFixed() {
	t, err := interval.NewFixed(250 * time.Millisecond)
	if err != nil {
		fmt.Println(err)
		return
	}
	run(t, &toy{loss: 1000, full: time.Second}, 2)
	// Output:
	// run 1×250ms
	// run 1×250ms
}

// FSPB: the first iteration is a full pass (1.6 s), then each interval is
// compared with half of it until halving stops paying: 50 ms loses to
// 100 ms, which is fixed.
func ExampleBinarySearch() {
	t, err := interval.NewBinarySearch(interval.BinarySearchConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	run(t, &toy{loss: 1000, full: 1600 * time.Millisecond}, 8)
	fmt.Println("η =", t.Interval(), "fixed:", t.Done())
	// Output:
	// run 1×full pass
	// run 1×1.6s
	// run 2×800ms
	// run 2×400ms
	// run 2×200ms
	// run 2×100ms
	// run 2×50ms
	// run 4×100ms
	// η = 100ms fixed: true
}

// FSPV: probe two iterations at 200 ms, roll back, probe the same data at
// 400 ms, fit g and run at the optimum of Eq. (7), −φ + √(φ² − bφ/a).
func ExampleLinearFit() {
	t, err := interval.NewLinearFit(interval.LinearFitConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	run(t, &toy{loss: 1000, full: time.Hour}, 6)
	s := t.Stage()
	fmt.Printf("stage %d: %v, φ = %v, η* = %v\n", s.Index, s.Fit, s.Phi, s.Interval.Round(time.Microsecond))
	// Output:
	// checkpoint
	// run 2×200ms
	// rollback
	// run 2×400ms
	// run 4×115.83124ms
	// run 4×115.83124ms
	// stage 1: g(η) = -20·η + 10, φ = 50ms, η* = 115.831ms
}

func ExampleOptimum() {
	g := interval.Line{A: -20, B: 10} // progress per second of computing at interval η
	eta, ok := interval.Optimum(g, 50*time.Millisecond, time.Millisecond, 10*time.Second)
	fmt.Println(eta.Round(time.Microsecond), ok)
	// Output: 115.831ms true
}

// Four workers answered the last barrier in 2, 4, 6 and 28 ms. Under
// semi-centralized coordination the straggler's timer fires early and the
// quick responders compute longer, so that every commit reaches the
// coordinator 110 ms after the release.
func ExampleOffsets_Timers() {
	ms := time.Millisecond
	obs := []interval.Observation{{Response: 2 * ms}, {Response: 4 * ms}, {Response: 6 * ms}, {Response: 28 * ms}}
	timers, arrival, err := interval.Offsets{}.Timers(100*ms, obs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(timers, arrival)
	// Output: [108ms 106ms 104ms 82ms] 110ms
}
