package barrier_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/syncmodels/syncmodels/barrier"
)

// Three workers run three BSP supersteps: no worker starts superstep r+1
// before all have finished superstep r.
func ExampleCyclic() {
	workers := []barrier.WorkerID{0, 1, 2}
	c, err := barrier.NewCyclic(workers...)
	if err != nil {
		panic(err)
	}
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
	c, err := barrier.NewCyclic(1, 2, 3)
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err = c.Wait(ctx, 1)
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
	ct, err := barrier.NewClockTable(3, 1, 2)
	if err != nil {
		panic(err)
	}
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
	f, err := barrier.NewFlexible(0, 1)
	if err != nil {
		panic(err)
	}
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

// Data-parallel SGD with one barrier per step: each worker writes its
// gradient and waits; the barrier action, run once per round by whichever
// goroutine completed the round and before any Wait returns, averages the
// gradients and updates the shared parameter. When Wait returns, every
// worker reads the new parameter. Worker w's loss is (x − t_w)²/2, so the
// mean gradient is x − 3 and x moves halfway to 3 each step.
func ExampleCyclic_OnRelease() {
	targets := []float64{1, 2, 6}
	c, err := barrier.NewCyclic(0, 1, 2)
	if err != nil {
		panic(err)
	}
	x := 0.0                    // written only by the action
	grads := make([]float64, 3) // grads[w] written only by worker w
	c.OnRelease(func(r barrier.Release) {
		var sum float64
		for _, w := range r.Arrived {
			sum += grads[w]
		}
		x -= 0.5 * sum / float64(len(r.Arrived))
		fmt.Printf("round %d: reduced %v: x = %v\n", r.Round, r.Arrived, x)
	})
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range barrier.WorkerID(3) {
		wg.Go(func() {
			for range 3 {
				grads[w] = x - targets[w]
				if _, err := c.Wait(ctx, w); err != nil {
					panic(err)
				}
				// x is the reduced value here, for every worker.
			}
		})
	}
	wg.Wait()
	fmt.Println("x =", x)
	// Output:
	// round 0: reduced [0 1 2]: x = 1.5
	// round 1: reduced [0 1 2]: x = 2.25
	// round 2: reduced [0 1 2]: x = 2.625
	// x = 2.625
}

// A 2-of-3 quorum names the arrivals that formed each round and the
// members that were late: a reducer averages only the arrived workers'
// gradients, and a late worker's next arrival counts for the next round.
func ExampleQuorum_OnRelease() {
	q, err := barrier.NewQuorum(barrier.Count(2), 1, 2, 3)
	if err != nil {
		panic(err)
	}
	q.OnRelease(func(r barrier.Release) {
		fmt.Printf("round %d: arrived %v, late %v\n", r.Round, r.Arrived, r.Late)
	})
	ctx := context.Background()
	wait := func(ws ...barrier.WorkerID) {
		var wg sync.WaitGroup
		for _, w := range ws {
			wg.Go(func() {
				if _, err := q.Wait(ctx, w); err != nil {
					panic(err)
				}
			})
		}
		wg.Wait()
	}
	wait(1, 2) // worker 3 is slow
	wait(3, 1) // worker 3 arrives, for round 1; worker 2 is slow now
	// Output:
	// round 0: arrived [1 2], late [3]
	// round 1: arrived [1 3], late [2]
}

// Stale synchronous parallel (s = 1) with one call per iteration: after
// iteration c a worker calls TickWait, which commits its clock c+1 and
// returns when every clock is at least c+1−s, so no worker ever runs more
// than s iterations ahead of the slowest.
func ExampleClockTable_TickWait() {
	const s = 1
	ct, err := barrier.NewClockTable(s, 1, 2)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	var ahead atomic.Bool // some worker ran more than s clocks ahead
	var wg sync.WaitGroup
	for _, w := range []barrier.WorkerID{1, 2} {
		wg.Go(func() {
			for c := uint64(0); c < 5; {
				// ... run iteration c ...
				var err error
				if c, err = ct.TickWait(ctx, w); err != nil {
					panic(err)
				}
				if c-ct.Min() > s {
					ahead.Store(true)
				}
			}
		})
	}
	wg.Wait()
	fmt.Println("min clock", ct.Min(), "ran more than s ahead:", ahead.Load())
	// Output:
	// min clock 5 ran more than s ahead: false
}

// DOLL's update loop over streamed batches: the parameter server takes
// groups of K = 4 batches as they become queued across the workers, and
// completes a group from the others when a holder is preempted. (A real
// loop calls Next from its own goroutine while the streams call Ready;
// Next blocks until K batches are queued.)
func ExampleGrouper() {
	g, err := barrier.NewGrouper(4, true, 0, 1, 2)
	if err != nil {
		panic(err)
	}
	// Streams: worker 0 is fast, workers 1 and 2 slow.
	for _, w := range []barrier.WorkerID{0, 0, 0, 1, 0, 2, 0, 0} {
		if _, err := g.Ready(w); err != nil {
			panic(err)
		}
	}
	ctx := context.Background()
	group, _ := g.Next(ctx) // spread: one batch of each worker first
	fmt.Println("group 1:", group)

	// Worker 1 is preempted before computing its batch: the batch goes
	// back to its queue and another is taken in its place.
	_ = g.Leave(1)
	_ = g.Return(group[1])
	more, _ := g.Take(ctx, 1)
	fmt.Println("in place of", group[1], "→", more)

	// Away, it keeps its batch, which counts again once it is back.
	fmt.Println("worker 1 away with", g.Queued(1), "batch queued")
	_ = g.Join(1)
	group, _ = g.Next(ctx)
	fmt.Println("group 2:", group)
	// Output:
	// group 1: [w0:0..1 w1:0 w2:0]
	// in place of w1:0 → [w0:2]
	// worker 1 away with 1 batch queued
	// group 2: [w0:3..5 w1:0]
}
