package barrier_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/syncmodels/syncmodels/barrier"
)

// Workers of different speeds train until the coordinator's timer (every
// η) or a full pass initiates each round's barrier: every round releases,
// the fast workers process more points than the slow one within a round
// (no pre-set workload), nobody waits longer than one point after a signal,
// and a late timer for a released round does nothing.
func TestFlexibleRounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const (
			workers = 4
			rounds  = 20
			eta     = 10 * time.Millisecond
			shard   = 100
		)
		costs := []time.Duration{time.Millisecond, time.Millisecond, time.Millisecond, 4 * time.Millisecond}
		f := must(barrier.NewFlexible(0, 1, 2, 3))
		var points [workers][rounds]int
		var wg sync.WaitGroup
		var lateSignals atomic.Int32
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				round := f.Round()
				for round < rounds {
					for !f.Signalled(round) {
						time.Sleep(costs[w])
						points[w][round]++
						if points[w][round] == shard {
							f.Signal(round)
						}
					}
					r, err := f.Wait(context.Background(), barrier.WorkerID(w))
					if err != nil {
						t.Error(err)
						return
					}
					if r != round {
						t.Errorf("worker %d waited for round %d, released %d", w, round, r)
					}
					round = r + 1
				}
			}()
		}
		// The coordinator: one timer per round.
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := uint64(0); r < rounds; r++ {
				time.Sleep(eta)
				if !f.Signal(r) {
					lateSignals.Add(1)
				}
				for f.Round() == r {
					time.Sleep(time.Millisecond)
				}
			}
		}()
		wg.Wait()
		synctest.Wait()
		for r := range rounds {
			if points[0][r] <= points[3][r] {
				t.Errorf("round %d: fast worker %d points, slow %d", r, points[0][r], points[3][r])
			}
			// Signalled at η: a fast worker computes about η/1ms points.
			if p := points[0][r]; p < 5 || p > 12 {
				t.Errorf("round %d: fast worker processed %d points in η = 10 ms", r, p)
			}
		}
		if f.Round() != rounds {
			t.Fatalf("round %d after %d rounds", f.Round(), rounds)
		}
	})
}

// A worker that completes its pass triggers the barrier at once.
func TestFlexibleEarlyTrigger(t *testing.T) {
	f := must(barrier.NewFlexible(1, 2))
	if f.Signalled(0) {
		t.Fatal("round 0 signalled at start")
	}
	if !f.Signal(0) || f.Signal(0) {
		t.Fatal("Signal(0) should succeed once")
	}
	if !f.Signalled(0) || f.Signalled(1) {
		t.Fatal("signal state wrong")
	}
	if f.Signal(1) || f.Signal(5) {
		t.Fatal("a signal for a round not in progress must do nothing")
	}
	done := make(chan error)
	go func() { _, err := f.Wait(context.Background(), 1); done <- err }()
	if _, err := f.Wait(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if f.Round() != 1 || f.Signalled(1) {
		t.Fatalf("after release: round %d, signalled %v", f.Round(), f.Signalled(1))
	}
	// A late signal for round 0 does not cut round 1 short.
	if f.Signal(0) || f.Signalled(1) {
		t.Fatal("late signal for a released round changed round 1")
	}
}

// A timed-out Wait names the workers still computing; a leaver is no
// longer awaited.
func TestFlexibleTimeoutAndLeave(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := must(barrier.NewFlexible(1, 2, 3))
		f.Signal(0)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err := f.Wait(ctx, 1)
		var we *barrier.WaitError
		if !errors.As(err, &we) || len(we.Missing) != 2 || we.Missing[0] != 2 || we.Missing[1] != 3 {
			t.Fatalf("Wait = %v; want a WaitError naming 2 and 3", err)
		}
		go func() { _, _ = f.Wait(context.Background(), 1) }()
		go func() { _, _ = f.Wait(context.Background(), 2) }()
		synctest.Wait()
		if err := f.Leave(3); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if f.Round() != 1 {
			t.Fatalf("round %d after the last awaited worker left", f.Round())
		}
	})
}
