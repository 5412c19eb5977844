package barrier_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/barrier"
)

// These tests run real goroutines on real cores (no synctest) for the race
// detector, and check the barrier guarantees with counters and atomics.
// Every one bounds its Waits with a generous deadline, so a deadlock fails
// the test instead of hanging it, and checks that no goroutine outlives it.

// checkNoLeaks fails t if, shortly after t ends, more goroutines run than
// when it started (grpc-go internal/grpctest style, without the dependency).
func checkNoLeaks(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for {
			n := runtime.NumGoroutine()
			if n <= before {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				t.Errorf("%d goroutines before the test, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
}

func deadline(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Fixed membership: when Wait returns round r, all n workers have arrived
// for r (BSP), and every worker sees rounds 0, 1, 2, … in order.
func TestCyclicConcurrent(t *testing.T) {
	checkNoLeaks(t)
	for _, impl := range roundImpls {
		t.Run(impl.name, func(t *testing.T) {
			const n, rounds = 8, 300
			b := impl.new(ids(n)...)
			ctx := deadline(t)
			var arrived [rounds]atomic.Int32
			var wg sync.WaitGroup
			for w := range n {
				wg.Go(func() {
					for r := range uint64(rounds) {
						arrived[r].Add(1)
						got, err := b.Wait(ctx, barrier.WorkerID(w))
						if err != nil || got != r {
							t.Errorf("worker %d: Wait = %d, %v; want %d, nil", w, got, err, r)
							return
						}
						if a := arrived[r].Load(); a != n {
							t.Errorf("worker %d released from round %d with %d of %d arrived", w, r, a, n)
							return
						}
					}
				})
			}
			wg.Wait()
		})
	}
}

// Churn: workers leave and rejoin, and some Waits give up after a random
// few microseconds. Nothing deadlocks, rounds each worker sees increase,
// and every error is one of the expected kinds.
func TestCyclicChurnAndCancel(t *testing.T) {
	checkNoLeaks(t)
	for _, impl := range roundImpls {
		t.Run(impl.name, func(t *testing.T) {
			const n, iters = 6, 400
			b := impl.new(ids(n)...)
			ctx := deadline(t)
			var released, left, cancelled atomic.Int64
			var wg sync.WaitGroup
			for w := range n {
				id := barrier.WorkerID(w)
				rng := rand.New(rand.NewPCG(uint64(w), 99))
				wg.Go(func() {
					defer b.Leave(id) // so the others never wait for a finished worker
					var last uint64
					for i := range iters {
						switch rng.IntN(20) {
						case 0:
							if err := b.Leave(id); err != nil {
								t.Errorf("Leave(%d) = %v", id, err)
							}
							if _, err := b.Join(id); err != nil {
								t.Errorf("Join(%d) = %v", id, err)
							}
							left.Add(1)
							last = 0
							continue
						case 1, 2:
							c, cancel := context.WithTimeout(ctx, time.Duration(rng.IntN(50))*time.Microsecond)
							r, err := b.Wait(c, id)
							cancel()
							var we *barrier.WaitError
							switch {
							case err == nil:
								released.Add(1)
							case errors.As(err, &we) && errors.Is(err, context.DeadlineExceeded):
								cancelled.Add(1)
							default:
								t.Errorf("worker %d iteration %d: Wait = %d, %v", id, i, r, err)
								return
							}
							continue
						}
						r, err := b.Wait(ctx, id)
						if err != nil {
							t.Errorf("worker %d iteration %d: Wait = %d, %v", id, i, r, err)
							return
						}
						if r < last {
							t.Errorf("worker %d: round %d after round %d", id, r, last)
						}
						last = r
						released.Add(1)
					}
				})
			}
			wg.Wait()
			t.Logf("%d released, %d left, %d timed out; %d rounds", released.Load(), left.Load(), cancelled.Load(), b.Round())
		})
	}
}

// Quorum k of n: every round that released counted at least Need arrivals,
// and every arrival counted for exactly one round (none dropped).
func TestQuorumConcurrent(t *testing.T) {
	checkNoLeaks(t)
	const n, waits = 8, 300
	q, err := barrier.NewQuorum(barrier.Fraction(0.75), ids(n)...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := deadline(t)
	var mu sync.Mutex
	counted := map[uint64]int{}
	var firstLeave sync.Once
	var full uint64 // rounds before this one released with all n members
	var wg sync.WaitGroup
	for w := range n {
		id := barrier.WorkerID(w)
		rng := rand.New(rand.NewPCG(uint64(w), 7))
		wg.Go(func() {
			defer func() {
				// Leaving lowers the threshold for the last rounds.
				firstLeave.Do(func() { full = q.Round() })
				q.Leave(id)
			}()
			last := uint64(0)
			for i := range waits {
				if rng.IntN(4) == 0 {
					runtime.Gosched() // a little tail
				}
				r, err := q.Wait(ctx, id)
				if err != nil {
					t.Errorf("worker %d: Wait = %v", id, err)
					return
				}
				if i > 0 && r <= last {
					t.Errorf("worker %d: round %d after round %d", id, r, last)
				}
				last = r
				mu.Lock()
				counted[r]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	total := 0
	for r, c := range counted {
		total += c
		if c < 6 && r < full {
			t.Errorf("round %d released with %d arrivals; want ≥ 6", r, c)
		}
	}
	if total != n*waits {
		t.Errorf("arrivals counted = %d; want %d", total, n*waits)
	}
}

// SSP: when Wait(c) returns, no worker's clock is below c − s.
func TestClockTableConcurrent(t *testing.T) {
	checkNoLeaks(t)
	const n, iters, s = 6, 300, 2
	ct := must(barrier.NewClockTable(s, ids(n)...))
	ctx := deadline(t)
	// started[w] ≥ w's clock in the table: raised before Tick.
	var started [n]atomic.Uint64
	var wg sync.WaitGroup
	for w := range n {
		id := barrier.WorkerID(w)
		wg.Go(func() {
			defer ct.Leave(id)
			for c := range uint64(iters) {
				if err := ct.Wait(ctx, id, c); err != nil {
					t.Errorf("worker %d: Wait(%d) = %v", id, c, err)
					return
				}
				for v := range n {
					if got := started[v].Load(); got+s < c {
						t.Errorf("worker %d runs clock %d while worker %d is at %d (s=%d)", id, c, v, got, s)
					}
				}
				if w%3 == 0 {
					runtime.Gosched() // a slower worker
				}
				started[w].Store(c + 1)
				if _, err := ct.Tick(id); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// Misuse: two goroutines Wait for the same worker at once. Each call either
// succeeds, is refused with ErrBusy, or times out; nothing deadlocks and the
// race detector stays quiet.
func TestConcurrentWaitsForOneWorker(t *testing.T) {
	checkNoLeaks(t)
	ok := func(err error) bool {
		var we *barrier.WaitError
		return err == nil || errors.Is(err, barrier.ErrBusy) || errors.As(err, &we)
	}
	t.Run("Cyclic", func(t *testing.T) {
		c := must(barrier.NewCyclic(1, 2))
		ctx := deadline(t)
		var wg sync.WaitGroup
		for g, w := range []barrier.WorkerID{1, 1, 2} {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(g), 3))
				for range 300 {
					tctx, cancel := context.WithTimeout(ctx, time.Duration(rng.IntN(100))*time.Microsecond)
					_, err := c.Wait(tctx, w)
					cancel()
					if !ok(err) {
						t.Errorf("Wait(%d) = %v", w, err)
						return
					}
				}
			})
		}
		wg.Wait()
	})
	t.Run("ClockTable", func(t *testing.T) {
		ct := must(barrier.NewClockTable(0, 1, 2))
		ctx := deadline(t)
		var wg sync.WaitGroup
		for g := range 2 {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(g), 4))
				for range 300 {
					c, _ := ct.Clock(1)
					tctx, cancel := context.WithTimeout(ctx, time.Duration(rng.IntN(100))*time.Microsecond)
					err := ct.Wait(tctx, 1, c+uint64(rng.IntN(2)))
					cancel()
					if !ok(err) {
						t.Errorf("Wait(1) = %v", err)
						return
					}
				}
			})
		}
		wg.Go(func() {
			for range 300 {
				ct.Tick(1)
				ct.Tick(2)
				runtime.Gosched()
			}
		})
		wg.Wait()
	})
}
