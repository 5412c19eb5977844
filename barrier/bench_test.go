package barrier_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/syncmodels/syncmodels/barrier"
)

// condBarrier is the deliberately naive baseline: a fixed party count, one
// mutex and one sync.Cond, Broadcast at the last arrival. Every woken waiter
// re-acquires the mutex, which is what it costs.
type condBarrier struct {
	mu    sync.Mutex
	cond  sync.Cond
	n     int
	count int
	round uint64
}

func newCondBarrier(n int) *condBarrier {
	b := &condBarrier{n: n}
	b.cond.L = &b.mu
	return b
}

func (b *condBarrier) Wait(ctx context.Context, _ barrier.WorkerID) (uint64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r := b.round
	b.count++
	if b.count == b.n {
		b.count = 0
		b.round++
		b.cond.Broadcast()
		return r, nil
	}
	for r == b.round {
		b.cond.Wait()
	}
	return r, nil
}

type waiter interface {
	Wait(ctx context.Context, w barrier.WorkerID) (uint64, error)
}

var benchWorkers = []int{2, 4, 16}

// runRounds runs b.N rounds of n goroutines through w and reports ns/round.
func runRounds(b *testing.B, n int, w waiter) {
	ctx := context.Background()
	var wg sync.WaitGroup
	b.ResetTimer()
	for i := range n {
		wg.Add(1)
		go func(id barrier.WorkerID) {
			defer wg.Done()
			for range b.N {
				if _, err := w.Wait(ctx, id); err != nil {
					b.Error(err)
					return
				}
			}
		}(barrier.WorkerID(i))
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/round")
}

func ids(n int) []barrier.WorkerID {
	out := make([]barrier.WorkerID, n)
	for i := range out {
		out[i] = barrier.WorkerID(i)
	}
	return out
}

func BenchmarkCyclic(b *testing.B) {
	for _, n := range benchWorkers {
		b.Run(fmt.Sprintf("impl=cond/workers=%d", n), func(b *testing.B) {
			runRounds(b, n, newCondBarrier(n))
		})
		b.Run(fmt.Sprintf("impl=barrier/workers=%d", n), func(b *testing.B) {
			runRounds(b, n, must(barrier.NewCyclic(ids(n)...)))
		})
	}
}

// BenchmarkCyclicCtx is the barrier with a cancellable context, as real
// callers pass one: the park is a two-way select.
func BenchmarkCyclicCtx(b *testing.B) {
	for _, n := range benchWorkers {
		b.Run(fmt.Sprintf("impl=barrier/workers=%d", n), func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			runRoundsCtx(b, ctx, n, must(barrier.NewCyclic(ids(n)...)))
		})
	}
}

func runRoundsCtx(b *testing.B, ctx context.Context, n int, w waiter) {
	var wg sync.WaitGroup
	b.ResetTimer()
	for i := range n {
		wg.Go(func() {
			for range b.N {
				if _, err := w.Wait(ctx, barrier.WorkerID(i)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/round")
}

// condClock is the naive SSP baseline: one mutex, one sync.Cond, a
// Broadcast on every tick, and a scan for the minimum on every check.
type condClock struct {
	mu     sync.Mutex
	cond   sync.Cond
	s      uint64
	clocks []uint64
}

func newCondClock(n, s int) *condClock {
	c := &condClock{s: uint64(s), clocks: make([]uint64, n)}
	c.cond.L = &c.mu
	return c
}

func (c *condClock) Wait(_ context.Context, _ barrier.WorkerID, clock uint64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for clock > c.s && slicesMin(c.clocks) < clock-c.s {
		c.cond.Wait()
	}
	return nil
}

func (c *condClock) Tick(w barrier.WorkerID) (uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clocks[w]++
	c.cond.Broadcast()
	return c.clocks[w], nil
}

func slicesMin(xs []uint64) uint64 {
	m := xs[0]
	for _, x := range xs[1:] {
		m = min(m, x)
	}
	return m
}

type clockTable interface {
	Wait(ctx context.Context, w barrier.WorkerID, clock uint64) error
	Tick(w barrier.WorkerID) (uint64, error)
}

// BenchmarkClockTable: n goroutines each run b.N iterations of
// Wait(clock) + Tick; ns/clock is the time per iteration of all of them.
func BenchmarkClockTable(b *testing.B) {
	for _, s := range []int{0, 3} {
		for _, n := range benchWorkers {
			for _, impl := range []struct {
				name string
				new  func() clockTable
			}{
				{"cond", func() clockTable { return newCondClock(n, s) }},
				{"barrier", func() clockTable { return must(barrier.NewClockTable(s, ids(n)...)) }},
			} {
				b.Run(fmt.Sprintf("impl=%s/s=%d/workers=%d", impl.name, s, n), func(b *testing.B) {
					ct := impl.new()
					ctx := context.Background()
					var wg sync.WaitGroup
					b.ResetTimer()
					for i := range n {
						w := barrier.WorkerID(i)
						wg.Go(func() {
							for c := range uint64(b.N) {
								if err := ct.Wait(ctx, w, c); err != nil {
									b.Error(err)
									return
								}
								if _, err := ct.Tick(w); err != nil {
									b.Error(err)
									return
								}
							}
						})
					}
					wg.Wait()
					b.StopTimer()
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/clock")
				})
			}
		}
	}
}

// condQuorum is the naive k-of-n baseline: arrivals count for the round in
// progress, the k-th broadcasts; done lowers n for workers that finished.
type condQuorum struct {
	mu      sync.Mutex
	cond    sync.Cond
	k       barrier.Threshold
	n       int
	arrived int
	round   uint64
}

func newCondQuorum(k barrier.Threshold, n int) *condQuorum {
	q := &condQuorum{k: k, n: n}
	q.cond.L = &q.mu
	return q
}

func (q *condQuorum) Wait(_ context.Context, _ barrier.WorkerID) (uint64, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	r := q.round
	q.arrived++
	q.releaseIfComplete()
	for r == q.round {
		q.cond.Wait()
	}
	return r, nil
}

func (q *condQuorum) releaseIfComplete() {
	if q.arrived >= q.k.Need(q.n) {
		q.arrived = 0
		q.round++
		q.cond.Broadcast()
	}
}

func (q *condQuorum) Leave(barrier.WorkerID) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.n--
	if q.n > 0 {
		q.releaseIfComplete()
	}
	return nil
}

func (q *condQuorum) Round() uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.round
}

type quorumBarrier interface {
	waiter
	Leave(w barrier.WorkerID) error
	Round() uint64
}

// BenchmarkQuorum: n goroutines each arrive b.N times at a 90% quorum;
// ns/round is the elapsed time over the rounds released.
func BenchmarkQuorum(b *testing.B) {
	k := barrier.Fraction(0.9)
	for _, n := range benchWorkers {
		for _, impl := range []struct {
			name string
			new  func() quorumBarrier
		}{
			{"cond", func() quorumBarrier { return newCondQuorum(k, n) }},
			{"barrier", func() quorumBarrier {
				q, err := barrier.NewQuorum(k, ids(n)...)
				if err != nil {
					b.Fatal(err)
				}
				return q
			}},
		} {
			b.Run(fmt.Sprintf("impl=%s/workers=%d", impl.name, n), func(b *testing.B) {
				q := impl.new()
				ctx := context.Background()
				var wg sync.WaitGroup
				b.ResetTimer()
				for i := range n {
					w := barrier.WorkerID(i)
					wg.Go(func() {
						defer q.Leave(w)
						for range b.N {
							if _, err := q.Wait(ctx, w); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
				b.StopTimer()
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(q.Round()), "ns/round")
				b.ReportMetric(float64(q.Round())/float64(b.N), "rounds/op")
			})
		}
	}
}
