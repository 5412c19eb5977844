package barrier_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/barrier"
)

func mustGrouper(t *testing.T, k int, spread bool, ws ...barrier.WorkerID) *barrier.Grouper {
	t.Helper()
	g, err := barrier.NewGrouper(k, spread, ws...)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func ready(t *testing.T, g *barrier.Grouper, ws ...barrier.WorkerID) {
	t.Helper()
	for _, w := range ws {
		if _, err := g.Ready(w); err != nil {
			t.Fatal(err)
		}
	}
}

func next(t *testing.T, g *barrier.Grouper) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	ts, err := g.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(ts)
}

// FIFO groups by announcement; spread by the fewest batches of one worker
// in the group, then announcement (DOLL §III-B2).
func TestGrouperOrder(t *testing.T) {
	arrivals := []barrier.WorkerID{0, 0, 0, 1, 0, 2, 1}
	for _, tc := range []struct {
		spread bool
		want   []string
		left   string // what is still queued
	}{
		{false, []string{"[w0:0..2]", "[w0:3 w1:0 w2:0]"}, "0 1 0"},
		{true, []string{"[w0:0 w1:0 w2:0]", "[w0:1..2 w1:1]"}, "1 0 0"},
	} {
		g := mustGrouper(t, 3, tc.spread, 0, 1, 2)
		ready(t, g, arrivals...)
		for _, want := range tc.want {
			if got := next(t, g); got != want {
				t.Errorf("spread=%v: Next = %s; want %s", tc.spread, got, want)
			}
		}
		if left := fmt.Sprint(g.Queued(0), g.Queued(1), g.Queued(2)); left != tc.left {
			t.Errorf("spread=%v: queued %s; want %s", tc.spread, left, tc.left)
		}
	}
}

// A worker that is away keeps its batches, which count again when it
// rejoins; a new worker starts empty; batches returned after a
// preemption go back to the front of their worker's queue.
func TestGrouperPreemption(t *testing.T) {
	g := mustGrouper(t, 2, false, 0, 1)
	ready(t, g, 0, 0)
	if got := next(t, g); got != "[w0:0..1]" {
		t.Fatalf("Next = %s", got)
	}
	ready(t, g, 0, 1)
	// Worker 0 is preempted before it computes its batches 0 and 1.
	if err := g.Leave(0); err != nil {
		t.Fatal(err)
	}
	if err := g.Return(barrier.Take{Worker: 0, First: 1, Count: 1}); err != nil {
		t.Fatal(err) // the last one handed out: fine
	}
	if err := g.Return(barrier.Take{Worker: 0, First: 1, Count: 1}); !errors.Is(err, barrier.ErrNotTaken) {
		t.Fatalf("second Return of batch 1 = %v; want ErrNotTaken", err)
	}
	if err := g.Return(barrier.Take{Worker: 0, First: 0, Count: 1}); err != nil {
		t.Fatal(err)
	}
	if g.Queued(0) != 3 {
		t.Fatalf("worker 0 has %d queued; want 3 (its batches 0..2)", g.Queued(0))
	}
	// The missing batches come from the others; worker 0's do not count
	// while it is away.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	_, err := g.Next(ctx)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "1 of 2 batches queued") {
		t.Fatalf("Next with worker 0 away = %v; want a deadline naming 1 of 2 batches", err)
	}
	if ts, err := g.Take(context.Background(), 1); err != nil || fmt.Sprint(ts) != "[w1:0]" {
		t.Fatalf("Take(1) = %v, %v; want [w1:0]", ts, err)
	}
	// Back, its batches count again, returned ones first and in order.
	if err := g.Join(0); err != nil {
		t.Fatal(err)
	}
	if got := next(t, g); got != "[w0:0..1]" {
		t.Fatalf("Next after the rejoin = %s; want [w0:0..1]", got)
	}
	if err := g.Join(7); err != nil || g.Queued(7) != 0 {
		t.Fatalf("Join(7) = %v, queued %d; want a new worker with no batch", err, g.Queued(7))
	}
	if got := fmt.Sprint(g.Members()); got != "[0 1 7]" {
		t.Fatalf("Members = %s", got)
	}
}

func TestGrouperErrors(t *testing.T) {
	if _, err := barrier.NewGrouper(0, false, 0); !errors.Is(err, barrier.ErrConfig) {
		t.Errorf("NewGrouper(0) = %v; want ErrConfig", err)
	}
	if _, err := barrier.NewGrouper(2, false, 0, 1, 0); !errors.Is(err, barrier.ErrConfig) {
		t.Errorf("NewGrouper with a worker twice = %v; want ErrConfig", err)
	}
	g := mustGrouper(t, 2, false, 0)
	for name, err := range map[string]error{
		"Ready(5)": func() error { _, err := g.Ready(5); return err }(),
		"Leave(5)": g.Leave(5),
	} {
		if !errors.Is(err, barrier.ErrUnknownWorker) {
			t.Errorf("%s = %v; want ErrUnknownWorker", name, err)
		}
	}
	if err := g.Join(0); !errors.Is(err, barrier.ErrAlreadyMember) {
		t.Errorf("Join of a member = %v; want ErrAlreadyMember", err)
	}
	_ = g.Leave(0)
	if _, err := g.Ready(0); !errors.Is(err, barrier.ErrUnknownWorker) {
		t.Errorf("Ready while away = %v; want ErrUnknownWorker", err)
	}
	for _, tk := range []barrier.Take{{Worker: 0, Count: 1}, {Worker: 9, Count: 1}, {Worker: 0, Count: 0}} {
		if err := g.Return(tk); !errors.Is(err, barrier.ErrNotTaken) {
			t.Errorf("Return(%v) = %v; want ErrNotTaken", tk, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if ts, err := g.Next(ctx); ts != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("Next with a cancelled context = %v, %v", ts, err)
	}
	if ts, err := g.Take(context.Background(), 0); ts != nil || err != nil {
		t.Errorf("Take(0) = %v, %v; want nothing", ts, err)
	}
}

// Producers announce batches while a consumer takes groups, workers are
// preempted (their last group's batches returned) and rejoin: every group
// holds K batches, and every worker's batches are computed once each, in
// order.
func TestGrouperConcurrent(t *testing.T) {
	const k, workers, perWorker = 4, 6, 200
	for _, spread := range []bool{false, true} {
		ids := make([]barrier.WorkerID, workers)
		for i := range ids {
			ids[i] = barrier.WorkerID(i)
		}
		g := mustGrouper(t, k, spread, ids...)
		var wg sync.WaitGroup
		for _, w := range ids {
			wg.Go(func() {
				for range perWorker {
					for {
						if _, err := g.Ready(w); err == nil {
							break
						}
						time.Sleep(time.Microsecond) // away: no data
					}
				}
			})
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		rng := rand.New(rand.NewPCG(1, uint64(k)))
		computed := make([]uint64, workers) // batches computed, per worker
		away := map[barrier.WorkerID]bool{}
		preempted := 0
		for total := 0; total < workers*perWorker; {
			// Now and then a worker comes back; every one does before the
			// end, so the producers finish.
			for w := range away {
				if rng.IntN(3) == 0 || total > workers*perWorker/2 {
					if err := g.Join(w); err != nil {
						t.Fatal(err)
					}
					delete(away, w)
				}
			}
			n := min(k, workers*perWorker-total)
			group, err := g.Take(ctx, n)
			if err != nil {
				t.Fatalf("spread=%v after %d batches: %v", spread, total, err)
			}
			// One holder may be preempted before it computes (in the
			// first quarter of the run, so that the others hold enough):
			// its batches go back, and the group is completed from the
			// others.
			if rng.IntN(4) == 0 && len(away) < workers-2 && total < workers*perWorker/4 {
				i := rng.IntN(len(group))
				tk := group[i]
				if err := g.Leave(tk.Worker); err != nil {
					t.Fatal(err)
				}
				away[tk.Worker] = true
				if err := g.Return(tk); err != nil {
					t.Fatal(err)
				}
				more, err := g.Take(ctx, tk.Count)
				if err != nil {
					t.Fatal(err)
				}
				group = append(append(group[:i:i], group[i+1:]...), more...)
				preempted++
			}
			size := 0
			for _, tk := range group {
				size += tk.Count
			}
			if size != n {
				t.Fatalf("group %v holds %d batches; want %d", group, size, n)
			}
			for _, tk := range group {
				if tk.First != computed[tk.Worker] {
					t.Fatalf("worker %d computes batches from %d; it computed %d so far", tk.Worker, tk.First, computed[tk.Worker])
				}
				computed[tk.Worker] += uint64(tk.Count)
			}
			total += n
		}
		wg.Wait()
		if preempted < 10 {
			t.Fatalf("spread=%v: %d preemptions; the test should exercise more", spread, preempted)
		}
		for w, c := range computed {
			if c != perWorker {
				t.Fatalf("worker %d: %d batches computed; want %d", w, c, perWorker)
			}
		}
	}
}
