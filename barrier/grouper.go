package barrier

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// Take is a run of one worker's batches handed out together: batches
// First, First+1, …, First+Count−1 of Worker.
type Take struct {
	Worker WorkerID
	First  uint64
	Count  int
	// orders are the batches' announcement positions, so that Return puts
	// them back where they were in the queue.
	orders []uint64
}

func (t Take) String() string {
	if t.Count == 1 {
		return fmt.Sprintf("w%d:%d", t.Worker, t.First)
	}
	return fmt.Sprintf("w%d:%d..%d", t.Worker, t.First, t.First+uint64(t.Count)-1)
}

// Grouper is DOLL's bulk-processing queue of streamed batches (§III-A,
// Algorithms 3 and 4; §III-B2). Producers announce each batch a worker
// has gathered (Ready); a consumer — the parameter server's update loop —
// blocks in Next until K batches are queued across the available workers
// and takes them as one group, a few runs of consecutive batches per
// worker, to have each worker compute a gradient per batch and aggregate
// the K gradients in one update.
//
// Batches are grouped in the order they were announced, or, with spread,
// by §III-B2's priority queue: a batch's priority falls with the number of
// batches of its worker already in the group (ties by announcement order),
// which keeps one worker from holding most of a group. A worker's batches
// are always handed out in order, each once.
//
// Preemption: a worker that leaves keeps its queued batches, which do not
// count while it is away and count again when it rejoins; a worker never
// seen before joins with an empty queue. Batches handed out to a worker
// that is preempted before it computes them can be put back at the front
// of its queue (Return) and the missing ones taken from the others
// (Take), so that none is lost and none is used twice.
//
// The zero Grouper is not usable; NewGrouper makes one. All methods are
// safe for concurrent use.
type Grouper struct {
	mu     sync.Mutex
	k      int
	spread bool
	qs     map[WorkerID]*groupQueue
	// seq counts the batches announced: the next one's position.
	seq uint64
	// changed is closed, and replaced, when batches may have become
	// available: a blocked Take waits on it.
	changed chan struct{}
}

// groupQueue is one worker's batches.
type groupQueue struct {
	member bool
	next   uint64   // batches 0 … next−1 announced
	taken  uint64   // batches 0 … taken−1 handed out and not returned
	order  []uint64 // order[i]: announcement position of batch taken+i
}

// NewGrouper returns a Grouper of groups of k ≥ 1 batches whose available
// workers are workers, with empty queues. A k below 1 or a worker listed
// twice is an *InputError wrapping ErrConfig.
func NewGrouper(k int, spread bool, workers ...WorkerID) (*Grouper, error) {
	if k < 1 {
		return nil, &InputError{Op: "NewGrouper", Input: "k", Value: k, Reason: "must be ≥ 1", Err: ErrConfig}
	}
	if err := checkWorkers("NewGrouper", workers); err != nil {
		return nil, err
	}
	g := &Grouper{k: k, spread: spread, qs: make(map[WorkerID]*groupQueue, len(workers)), changed: make(chan struct{})}
	for _, w := range workers {
		g.qs[w] = &groupQueue{member: true}
	}
	return g, nil
}

// K returns the group size.
func (g *Grouper) K() int { return g.k }

// notify wakes the blocked Takes. The caller holds mu.
func (g *Grouper) notify() {
	close(g.changed)
	g.changed = make(chan struct{})
}

// Ready announces that worker gathered its next batch and returns the
// batch's number: 0, 1, 2, … per worker. A worker that is away (preempted)
// receives no data: Ready of a non-member returns an error wrapping
// ErrUnknownWorker.
func (g *Grouper) Ready(worker WorkerID) (batch uint64, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	q := g.qs[worker]
	if q == nil || !q.member {
		return 0, &WorkerError{Op: "Grouper.Ready", Worker: worker, Err: ErrUnknownWorker}
	}
	batch = q.next
	q.next++
	q.order = append(q.order, g.seq)
	g.seq++
	g.notify()
	return batch, nil
}

// Next blocks until K batches are queued among the available workers and
// takes them as a group: Take(ctx, K).
func (g *Grouper) Next(ctx context.Context) ([]Take, error) { return g.take(ctx, "Grouper.Next", g.k) }

// Take blocks until n ≥ 1 batches are queued among the available workers
// and takes n of them: by announcement order, or with spread by the
// fewest batches of the same worker in this take. It returns one Take per
// worker, ascending by worker, each a run of the worker's oldest queued
// batches. Use it to complete a group whose batches were returned.
//
// If ctx ends first, Take takes nothing and returns an error wrapping
// ctx.Err() that says how many batches were queued. An n below 1 takes
// nothing and returns nil.
func (g *Grouper) Take(ctx context.Context, n int) ([]Take, error) {
	return g.take(ctx, "Grouper.Take", n)
}

func (g *Grouper) take(ctx context.Context, op string, n int) ([]Take, error) {
	if n < 1 {
		return nil, nil
	}
	for {
		g.mu.Lock()
		have := g.queued()
		if have >= n {
			ts := g.takeLocked(n)
			g.mu.Unlock()
			return ts, nil
		}
		ch := g.changed
		g.mu.Unlock()
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("barrier: %s: %d of %d batches queued among the available workers: %w", op, have, n, err)
		}
		select {
		case <-ctx.Done():
		case <-ch:
		}
	}
}

// queued counts the batches queued among the members. The caller holds
// mu.
func (g *Grouper) queued() int {
	n := 0
	for _, q := range g.qs {
		if q.member {
			n += len(q.order)
		}
	}
	return n
}

// takeLocked takes n ≤ queued() batches. The caller holds mu.
func (g *Grouper) takeLocked(n int) []Take {
	ws := make([]WorkerID, 0, len(g.qs))
	for w, q := range g.qs {
		if q.member && len(q.order) > 0 {
			ws = append(ws, w)
		}
	}
	slices.Sort(ws)
	count := make(map[WorkerID]int, len(ws))
	for range n {
		var best WorkerID
		found := false
		for _, w := range ws {
			q, c := g.qs[w], count[w]
			if c == len(q.order) {
				continue
			}
			if !found {
				best, found = w, true
				continue
			}
			bc := count[best]
			if g.spread && c != bc {
				if c < bc {
					best = w
				}
				continue
			}
			if q.order[c] < g.qs[best].order[bc] {
				best = w
			}
		}
		count[best]++
	}
	var ts []Take
	for _, w := range ws {
		c := count[w]
		if c == 0 {
			continue
		}
		q := g.qs[w]
		ts = append(ts, Take{Worker: w, First: q.taken, Count: c, orders: slices.Clone(q.order[:c])})
		q.taken += uint64(c)
		q.order = q.order[c:]
	}
	return ts
}

// Return puts t, batches handed out and not computed (their worker was
// preempted before it committed them), back at the front of its worker's
// queue, where they were. They must be the worker's batches handed out
// last: t.First+t.Count is the first batch not handed out. Return of
// anything else returns an error wrapping ErrNotTaken and changes
// nothing. The worker may be away: its returned batches count when it
// rejoins.
func (g *Grouper) Return(t Take) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	q := g.qs[t.Worker]
	if q == nil || t.Count < 1 || t.First > q.taken || q.taken-t.First != uint64(t.Count) {
		return &WorkerError{Op: "Grouper.Return", Worker: t.Worker, Err: ErrNotTaken}
	}
	orders := t.orders
	if len(orders) != t.Count {
		// A Take made by hand: its batches go before every queued one.
		orders = make([]uint64, t.Count)
	}
	q.taken = t.First
	q.order = append(slices.Clone(orders), q.order...)
	g.notify()
	return nil
}

// Leave marks worker as away (preempted): its queued batches stay queued
// but do not count until it rejoins. Leave of a non-member returns an
// error wrapping ErrUnknownWorker.
func (g *Grouper) Leave(worker WorkerID) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	q := g.qs[worker]
	if q == nil || !q.member {
		return &WorkerError{Op: "Grouper.Leave", Worker: worker, Err: ErrUnknownWorker}
	}
	q.member = false
	return nil
}

// Join makes worker available: a worker that left gets its queued batches
// back in the count, a new worker starts with an empty queue. Join of a
// member returns an error wrapping ErrAlreadyMember.
func (g *Grouper) Join(worker WorkerID) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	q := g.qs[worker]
	switch {
	case q == nil:
		g.qs[worker] = &groupQueue{member: true}
	case q.member:
		return &WorkerError{Op: "Grouper.Join", Worker: worker, Err: ErrAlreadyMember}
	default:
		q.member = true
		g.notify()
	}
	return nil
}

// Queued returns how many of worker's batches are queued (announced and
// not handed out), whether or not it is available.
func (g *Grouper) Queued(worker WorkerID) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if q := g.qs[worker]; q != nil {
		return len(q.order)
	}
	return 0
}

// Members returns the available workers in ascending order.
func (g *Grouper) Members() []WorkerID {
	g.mu.Lock()
	defer g.mu.Unlock()
	var ws []WorkerID
	for w, q := range g.qs {
		if q.member {
			ws = append(ws, w)
		}
	}
	slices.Sort(ws)
	return ws
}
