package barrier_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/syncmodels/syncmodels/barrier"
)

// The action runs once per round, before any of the round's Waits returns,
// for every Barrier; each waiter sees what the action wrote.
func TestOnReleaseRunsOncePerRoundBeforeWaitsReturn(t *testing.T) {
	impls := []struct {
		name string
		new  func(ws ...barrier.WorkerID) barrier.Barrier
	}{
		{"Cyclic", func(ws ...barrier.WorkerID) barrier.Barrier { return must(barrier.NewCyclic(ws...)) }},
		{"Quorum(all)", func(ws ...barrier.WorkerID) barrier.Barrier {
			return must(barrier.NewQuorum(barrier.Threshold{}, ws...))
		}},
		{"Flexible", func(ws ...barrier.WorkerID) barrier.Barrier { return must(barrier.NewFlexible(ws...)) }},
	}
	const workers, rounds = 4, 50
	for _, impl := range impls {
		t.Run(impl.name, func(t *testing.T) {
			b := impl.new(0, 1, 2, 3)
			var calls []uint64 // rounds the action ran for; written only by the action
			b.OnRelease(func(r barrier.Release) {
				if want := []barrier.WorkerID{0, 1, 2, 3}; !cmp.Equal(r.Arrived, want) || len(r.Late) != 0 {
					t.Errorf("round %d: Arrived %v, Late %v; want %v, none", r.Round, r.Arrived, r.Late, want)
				}
				calls = append(calls, r.Round)
			})
			var wg sync.WaitGroup
			for w := range barrier.WorkerID(workers) {
				wg.Go(func() {
					for step := range uint64(rounds) {
						round, err := b.Wait(context.Background(), w)
						if err != nil || round != step {
							t.Errorf("worker %d: Wait = %d, %v; want %d", w, round, err, step)
							return
						}
						// The action for this round ran before Wait returned.
						if n := uint64(len(calls)); n <= step {
							t.Errorf("worker %d: round %d returned after %d actions", w, step, n)
						}
					}
				})
			}
			wg.Wait()
			want := make([]uint64, rounds)
			for i := range want {
				want[i] = uint64(i)
			}
			if !cmp.Equal(calls, want) {
				t.Errorf("action ran for rounds %v; want each of 0..%d once", calls, rounds-1)
			}
		})
	}
}

// A panicking action propagates to the caller that completed the round and
// leaves the barrier usable: the round does not release, the completing
// arrival is not recorded, and the other methods do not deadlock.
func TestOnReleasePanicLeavesBarrierUsable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := must(barrier.NewCyclic(1, 2))
		c.OnRelease(func(barrier.Release) { panic("reducer failed") })
		var r1 uint64
		var err1 error
		done := make(chan struct{})
		go func() {
			defer close(done)
			r1, err1 = c.Wait(context.Background(), 1)
		}()
		synctest.Wait()
		func() {
			defer func() {
				if p := recover(); p != "reducer failed" {
					t.Errorf("Wait of the completing worker recovered %v; want the action's panic", p)
				}
			}()
			_, _ = c.Wait(context.Background(), 2)
		}()
		if got := c.Round(); got != 0 {
			t.Errorf("Round() after the panic = %d; want 0 (not released)", got)
		}
		c.OnRelease(nil) // a nil action removes it
		if r, err := c.Wait(context.Background(), 2); r != 0 || err != nil {
			t.Errorf("worker 2 retries: Wait = %d, %v; want round 0", r, err)
		}
		<-done
		if r1 != 0 || err1 != nil {
			t.Errorf("worker 1: Wait = %d, %v; want round 0", r1, err1)
		}
	})
}

// A Leave that completes a round runs the action in its own goroutine; the
// leaver is not among the arrivals.
func TestOnReleaseByLeave(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := must(barrier.NewQuorum(barrier.Count(2), 1, 2, 3))
		var got []barrier.Release
		q.OnRelease(func(r barrier.Release) { got = append(got, r) })
		done := make(chan error)
		go func() { _, err := q.Wait(context.Background(), 1); done <- err }()
		synctest.Wait()
		if err := q.Leave(2); err != nil {
			t.Fatal(err)
		}
		if err := q.Leave(3); err != nil { // now 1 of 1 member arrived
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		want := []barrier.Release{{Round: 0, Arrived: []barrier.WorkerID{1}}}
		if !cmp.Equal(got, want) {
			t.Errorf("releases %+v; want %+v", got, want)
		}
	})
}

// TickWait ticks and waits in one call; refused calls change nothing; a
// cancelled one keeps its tick and says which call failed.
func TestTickWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ct := must(barrier.NewClockTable(0, 1, 2))
		if _, err := ct.TickWait(context.Background(), 9); !errors.Is(err, barrier.ErrUnknownWorker) {
			t.Errorf("TickWait of a non-member = %v; want ErrUnknownWorker", err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		type res struct {
			c   uint64
			err error
		}
		done := make(chan res)
		go func() { c, err := ct.TickWait(ctx, 1); done <- res{c, err} }()
		synctest.Wait()
		if c, _ := ct.Clock(1); c != 1 {
			t.Errorf("clock of worker 1 while its TickWait blocks = %d; want 1", c)
		}
		if _, err := ct.TickWait(context.Background(), 1); !errors.Is(err, barrier.ErrBusy) {
			t.Errorf("second TickWait = %v; want ErrBusy", err)
		}
		if c, _ := ct.Clock(1); c != 1 {
			t.Errorf("clock after a refused TickWait = %d; want 1 (unchanged)", c)
		}
		cancel()
		r := <-done
		const want = "barrier: ClockTable.TickWait: worker 1 at clock 1: context canceled; awaiting workers [2]"
		if r.c != 1 || !errors.Is(r.err, context.Canceled) || r.err.Error() != want {
			t.Errorf("cancelled TickWait = %d, %v; want 1, %q", r.c, r.err, want)
		}
		if c, _ := ct.Clock(1); c != 1 {
			t.Errorf("clock after a cancelled TickWait = %d; want 1 (the tick is kept)", c)
		}
		// Worker 2's step releases both: worker 1 retries with Wait.
		go func() { done <- res{0, ct.Wait(context.Background(), 1, 1)} }()
		if c, err := ct.TickWait(context.Background(), 2); c != 1 || err != nil {
			t.Errorf("TickWait of worker 2 = %d, %v; want 1, nil", c, err)
		}
		if r := <-done; r.err != nil {
			t.Errorf("retried Wait = %v", r.err)
		}
	})
}

// Code written against the deprecated ErrNotMember still matches.
func TestErrNotMemberIsErrUnknownWorker(t *testing.T) {
	c := must(barrier.NewCyclic(1))
	err := c.Leave(2)
	if !errors.Is(err, barrier.ErrUnknownWorker) || !errors.Is(err, barrier.ErrNotMember) {
		t.Errorf("Leave of a non-member = %v; want ErrUnknownWorker, alias ErrNotMember", err)
	}
}
