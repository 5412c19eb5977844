package barrier

import (
	"cmp"
	"context"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// ClockTable is the clock table of stale synchronous parallel (SSP)
// execution (Ho et al., "More Effective Distributed ML via a Stale
// Synchronous Parallel Parameter Server", NIPS 2013). Each member has a
// clock, the number of iterations it has completed (Tick, or Advance for a
// coordinator that learns clocks from messages). A worker about to run
// iteration c calls Wait(ctx, w, c), which blocks until the slowest member's
// clock is at least c − s, where s is the staleness: the fastest worker is
// never more than s clocks ahead of the slowest. s = 0 is BSP; MLLess
// compares ISP with SSP at s = 3.
//
// A worker that joins starts at the current minimum clock, so it never holds
// back a worker that was allowed to run; a worker that leaves no longer
// holds anyone back. The minimum never decreases.
//
// The zero ClockTable has staleness 0 and no members. A ClockTable must not
// be copied after first use. All methods are safe for concurrent use.
type ClockTable struct {
	mu        sync.Mutex
	staleness uint64
	members   map[WorkerID]*clockParty
	list      []*clockParty // the members, for scans
	min       uint64        // minimum clock over members; kept when the table empties
	atMin     int           // members whose clock is min
	blocked   []*clockParty
	// minSeen mirrors min for yielding waiters, which read it without mu.
	minSeen atomic.Uint64
}

type clockParty struct {
	id    WorkerID
	clock uint64
	need  uint64 // while blocked: the minimum clock it waits for
	// blocked is whether the party is in ClockTable.blocked. Guarded by mu.
	blocked bool
	// busy is set (under mu) while a Wait for the party is in progress and
	// cleared after it consumed its wakeup, so at most one is ever buffered.
	busy atomic.Bool
	wake chan wakeup // one wakeup per blocked Wait; sent under mu
}

// NewClockTable returns a ClockTable with staleness s whose members are
// workers, all at clock 0. A negative s or a worker listed twice is an
// *InputError wrapping ErrConfig.
func NewClockTable(s int, workers ...WorkerID) (*ClockTable, error) {
	if s < 0 {
		return nil, &InputError{Op: "NewClockTable", Input: "staleness", Value: s, Reason: "must be ≥ 0", Err: ErrConfig}
	}
	if err := checkWorkers("NewClockTable", workers); err != nil {
		return nil, err
	}
	t := &ClockTable{staleness: uint64(s), members: make(map[WorkerID]*clockParty, len(workers))}
	for _, w := range workers {
		p := &clockParty{id: w, wake: make(chan wakeup, 1)}
		t.members[w] = p
		t.list = append(t.list, p)
	}
	t.atMin = len(workers)
	return t, nil
}

// Staleness returns s.
func (t *ClockTable) Staleness() int { return int(t.staleness) }

// need is the minimum clock that lets a worker run iteration clock.
func (t *ClockTable) need(clock uint64) uint64 {
	if clock <= t.staleness {
		return 0
	}
	return clock - t.staleness
}

// Wait blocks until every member's clock is at least clock − s, that is
// until worker may run iteration clock. It returns nil at once if that
// already holds.
//
// If ctx ends first, Wait returns a *WaitError wrapping ctx.Err() whose
// Missing lists the members that are too far behind, slowest first. If the
// worker leaves while Wait is blocked, Wait returns an error wrapping
// ErrLeft; Wait by a non-member one wrapping ErrUnknownWorker, and a second
// concurrent Wait for the same worker one wrapping ErrBusy.
//
// Wait does not compare clock with worker's own clock: a worker whose clock
// is ticked by someone else (a parameter server on receipt of its update)
// may wait on its own tick.
func (t *ClockTable) Wait(ctx context.Context, worker WorkerID, clock uint64) error {
	_, err := t.wait(ctx, "ClockTable.Wait", worker, clock, false)
	return err
}

// TickWait is a worker's SSP step in one call: the worker has completed
// iteration c (its clock was c), so TickWait advances its clock to c+1, as
// Tick, and blocks until it may run iteration c+1, as Wait(ctx, worker,
// c+1): until every member's clock is at least c+1−s. It returns the new
// clock c+1, the iteration to run next.
//
// Errors are those of Wait. A call that fails because worker is not a
// member or already has a Wait in progress changes nothing. Otherwise the
// tick is kept even if the wait then fails (the iteration was done): a
// worker whose context ended, say, retries with Wait(ctx, worker, clock).
func (t *ClockTable) TickWait(ctx context.Context, worker WorkerID) (clock uint64, err error) {
	return t.wait(ctx, "ClockTable.TickWait", worker, 0, true)
}

// wait is Wait, and with tick TickWait (clock is then the worker's
// clock after the tick).
func (t *ClockTable) wait(ctx context.Context, op string, worker WorkerID, clock uint64, tick bool) (uint64, error) {
	done := ctx.Done()
	t.mu.Lock()
	p := t.members[worker]
	if p == nil {
		t.mu.Unlock()
		return 0, &WorkerError{Op: op, Worker: worker, Err: ErrUnknownWorker}
	}
	if p.busy.Load() {
		t.mu.Unlock()
		return 0, &WorkerError{Op: op, Worker: worker, Err: ErrBusy}
	}
	if tick {
		if p.clock < math.MaxUint64 {
			t.setLocked(p, p.clock+1)
		}
		clock = p.clock
	}
	p.busy.Store(true)
	defer p.busy.Store(false) // after the wakeup, if any, was consumed
	need := t.need(clock)
	if done != nil {
		select {
		case <-done:
			err := t.waitErrorLocked(op, p, clock, need, ctx.Err())
			t.mu.Unlock()
			return clock, err
		default:
		}
	}
	if t.min >= need {
		t.mu.Unlock()
		return clock, nil
	}
	// Yield a few times before parking, as rounds.wait does: the workers
	// that hold this one back may be about to tick.
	t.mu.Unlock()
	for range yieldSpins {
		runtime.Gosched()
		if t.minSeen.Load() >= need {
			return clock, nil
		}
	}
	t.mu.Lock()
	switch {
	case t.members[worker] != p:
		t.mu.Unlock()
		return clock, &WorkerError{Op: op, Worker: worker, Err: ErrLeft}
	case t.min >= need:
		t.mu.Unlock()
		return clock, nil
	}
	p.need = need
	p.blocked = true
	t.blocked = append(t.blocked, p)
	t.mu.Unlock()

	var msg wakeup
	if done == nil {
		msg = <-p.wake
	} else {
		select {
		case msg = <-p.wake:
		case <-done:
			t.mu.Lock()
			if p.blocked {
				err := t.waitErrorLocked(op, p, clock, need, ctx.Err())
				t.unblockLocked(p)
				t.mu.Unlock()
				return clock, err
			}
			t.mu.Unlock()
			msg = <-p.wake
		}
	}
	if msg == wakeLeft {
		return clock, &WorkerError{Op: op, Worker: worker, Err: ErrLeft}
	}
	return clock, nil
}

func (t *ClockTable) waitErrorLocked(op string, p *clockParty, clock, need uint64, err error) *WaitError {
	var slow []*clockParty
	for _, q := range t.list {
		if q.clock < need {
			slow = append(slow, q)
		}
	}
	slices.SortFunc(slow, func(a, b *clockParty) int {
		return cmp.Or(cmp.Compare(a.clock, b.clock), cmp.Compare(a.id, b.id))
	})
	missing := make([]WorkerID, len(slow))
	for i, q := range slow {
		missing[i] = q.id
	}
	return &WaitError{Op: op, Worker: p.id, Round: clock, Missing: missing, Need: len(missing), Err: err}
}

func (t *ClockTable) unblockLocked(p *clockParty) {
	i := slices.Index(t.blocked, p)
	last := len(t.blocked) - 1
	t.blocked[i] = t.blocked[last]
	t.blocked[last] = nil
	t.blocked = t.blocked[:last]
	p.blocked = false
}

// Tick advances worker's clock by one (it completed an iteration) and
// returns the new clock, or an error wrapping ErrUnknownWorker. Clocks saturate
// at math.MaxUint64 rather than wrap.
func (t *ClockTable) Tick(worker WorkerID) (clock uint64, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.members[worker]
	if p == nil {
		return 0, &WorkerError{Op: "ClockTable.Tick", Worker: worker, Err: ErrUnknownWorker}
	}
	if p.clock < math.MaxUint64 {
		t.setLocked(p, p.clock+1)
	}
	return p.clock, nil
}

// Advance raises worker's clock to clock if it is lower, and returns the
// worker's clock, or an error wrapping ErrUnknownWorker. Clocks never go back,
// so Advance is idempotent: a coordinator that learns clocks from messages
// can apply a duplicated or reordered message twice without harm.
func (t *ClockTable) Advance(worker WorkerID, clock uint64) (uint64, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.members[worker]
	if p == nil {
		return 0, &WorkerError{Op: "ClockTable.Advance", Worker: worker, Err: ErrUnknownWorker}
	}
	if clock > p.clock {
		t.setLocked(p, clock)
	}
	return p.clock, nil
}

// setLocked raises p's clock to clock > p.clock.
func (t *ClockTable) setLocked(p *clockParty, clock uint64) {
	old := p.clock
	p.clock = clock
	if old == t.min {
		t.atMin--
		if t.atMin == 0 {
			t.raiseMinLocked()
		}
	}
}

// raiseMinLocked recomputes the minimum after the last member at it moved
// away, and releases the waiters it now satisfies.
func (t *ClockTable) raiseMinLocked() {
	if len(t.list) == 0 {
		return
	}
	t.min, t.atMin = t.list[0].clock, 1
	for _, q := range t.list[1:] {
		switch {
		case q.clock < t.min:
			t.min, t.atMin = q.clock, 1
		case q.clock == t.min:
			t.atMin++
		}
	}
	t.minSeen.Store(t.min)
	keep := t.blocked[:0]
	for _, q := range t.blocked {
		if q.need <= t.min {
			q.blocked = false
			q.wake <- wakeReleased
		} else {
			keep = append(keep, q)
		}
	}
	clear(t.blocked[len(keep):])
	t.blocked = keep
}

// Join adds worker at the current minimum clock and returns that clock, or
// an error wrapping ErrAlreadyMember.
func (t *ClockTable) Join(worker WorkerID) (clock uint64, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.members == nil {
		t.members = make(map[WorkerID]*clockParty)
	}
	if t.members[worker] != nil {
		return 0, &WorkerError{Op: "ClockTable.Join", Worker: worker, Err: ErrAlreadyMember}
	}
	p := &clockParty{id: worker, clock: t.min, wake: make(chan wakeup, 1)}
	t.members[worker] = p
	t.list = append(t.list, p)
	t.atMin++
	return t.min, nil
}

// Leave removes worker; the minimum may rise and release waiters. A Wait of
// worker that is blocked returns an error wrapping ErrLeft. Leave of a
// non-member returns an error wrapping ErrUnknownWorker.
func (t *ClockTable) Leave(worker WorkerID) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.members[worker]
	if p == nil {
		return &WorkerError{Op: "ClockTable.Leave", Worker: worker, Err: ErrUnknownWorker}
	}
	delete(t.members, worker)
	i := slices.Index(t.list, p)
	t.list[i] = t.list[len(t.list)-1]
	t.list[len(t.list)-1] = nil
	t.list = t.list[:len(t.list)-1]
	if p.blocked {
		t.unblockLocked(p)
		p.wake <- wakeLeft
	}
	if p.clock == t.min {
		t.atMin--
		if t.atMin == 0 {
			t.raiseMinLocked()
		}
	}
	return nil
}

// Min returns the minimum clock over the members (the last minimum if there
// are none).
func (t *ClockTable) Min() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.min
}

// Clock returns worker's clock, or an error wrapping ErrUnknownWorker.
func (t *ClockTable) Clock(worker WorkerID) (uint64, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.members[worker]
	if p == nil {
		return 0, &WorkerError{Op: "ClockTable.Clock", Worker: worker, Err: ErrUnknownWorker}
	}
	return p.clock, nil
}

// Members returns the members in ascending order.
func (t *ClockTable) Members() []WorkerID {
	t.mu.Lock()
	ids := make([]WorkerID, 0, len(t.members))
	for id := range t.members {
		ids = append(ids, id)
	}
	t.mu.Unlock()
	slices.Sort(ids)
	return ids
}
