package barrier_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/syncmodels/syncmodels/barrier"
)

// Three workers run three BSP supersteps: no worker starts superstep r+1
// before all have finished superstep r.
func ExampleCyclic() {
	workers := []barrier.WorkerID{0, 1, 2}
	c := barrier.NewCyclic(workers...)
	ctx := context.Background()
	var mu sync.Mutex
	finished := make([]int, 3) // supersteps finished by each superstep's end
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Go(func() {
			for step := range 3 {
				mu.Lock()
				finished[step]++ // "compute"
				mu.Unlock()
				round, err := c.Wait(ctx, w)
				if err != nil || round != uint64(step) {
					panic(fmt.Sprint(round, err))
				}
				mu.Lock()
				if finished[step] != 3 {
					panic("released early")
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	fmt.Println("rounds released:", c.Round())
	// Output:
	// rounds released: 3
}

// A timed-out Wait names the workers the round was still waiting for, and
// withdraws its arrival.
func ExampleWaitError() {
	c := barrier.NewCyclic(1, 2, 3)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err := c.Wait(ctx, 1)
	var we *barrier.WaitError
	if errors.As(err, &we) {
		fmt.Println("missing:", we.Missing, "timed out:", errors.Is(err, context.DeadlineExceeded))
	}
	fmt.Println(err)
	// Output:
	// missing: [2 3] timed out: true
	// barrier: Cyclic.Wait: worker 1 at round 0: context deadline exceeded; awaiting workers [2 3]
}

// Stale synchronous parallel with staleness 3: worker 1 may run up to 3
// iterations ahead of the slowest worker, then waits.
func ExampleClockTable() {
	ct := barrier.NewClockTable([]barrier.WorkerID{1, 2}, 3)
	ctx := context.Background()
	for c := range uint64(4) {
		if err := ct.Wait(ctx, 1, c); err != nil {
			panic(err)
		}
		ct.Tick(1) // iteration c done
	}
	// Iteration 4 needs every clock ≥ 1; worker 2 is still at 0.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	fmt.Println(ct.Wait(cancelled, 1, 4))
	ct.Tick(2)
	fmt.Println(ct.Wait(ctx, 1, 4), "min clock", ct.Min())
	// Output:
	// barrier: ClockTable.Wait: worker 1 at clock 4: context canceled; awaiting workers [2]
	// <nil> min clock 1
}

// A 2-of-3 quorum: the first two arrivals release round 0; the third
// worker is late, and its arrival counts for round 1.
func ExampleQuorum() {
	q, err := barrier.NewQuorum(barrier.Count(2), 1, 2, 3)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	rounds := make([]uint64, 4)
	for _, w := range []barrier.WorkerID{1, 2} {
		wg.Go(func() { rounds[w], _ = q.Wait(ctx, w) })
	}
	wg.Wait()
	// Worker 3 arrives late: round 0 has released, so its arrival counts
	// for round 1, which worker 1's next arrival completes (in either order).
	wg.Go(func() { rounds[3], _ = q.Wait(ctx, 3) })
	if r, err := q.Wait(ctx, 1); r != 1 || err != nil {
		panic(fmt.Sprint(r, err))
	}
	wg.Wait()
	fmt.Println("workers 1, 2 released in round", rounds[1], rounds[2])
	fmt.Println("late worker 3 counted for round", rounds[3])
	// Output:
	// workers 1, 2 released in round 0 0
	// late worker 3 counted for round 1
}

// Fractions are rounded up: 90% of 16 workers is 15.
func ExampleFraction() {
	fmt.Println(barrier.Fraction(0.9).Need(16), barrier.Fraction(0.9).Need(10), barrier.Count(4).Need(3))
	// Output:
	// 15 9 3
}

// A flexible barrier (FSP): the coordinator initiates the barrier; each
// worker notices between data points, commits and waits for the others.
func ExampleFlexible() {
	f := barrier.NewFlexible(0, 1)
	var wg sync.WaitGroup
	counts := make([]int, 2)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !f.Signalled(0) {
				counts[w]++ // process one data point
				if counts[w] == 1000 {
					f.Signal(0) // a full pass: trigger the barrier early
				}
			}
			if _, err := f.Wait(context.Background(), barrier.WorkerID(w)); err != nil {
				fmt.Println(err)
			}
		}()
	}
	wg.Wait()
	fmt.Println("round", f.Round(), "released; someone completed a pass:", counts[0] >= 1000 || counts[1] >= 1000)
	// Output:
	// round 1 released; someone completed a pass: true
}
