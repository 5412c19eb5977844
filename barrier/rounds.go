package barrier

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// party is one member of a rounds barrier. Its fields other than left are
// guarded by rounds.mu.
type party struct {
	id   WorkerID
	join uint64 // first round the party takes part in
	// arrival is 1 + the round of the party's last arrival. The arrival is
	// pending while arrival > rounds.round; released arrivals are not reset.
	arrival uint64
	// left is set (under rounds.mu) when Leave withdrew a pending arrival,
	// for its waiter to see even when the round released afterwards.
	left atomic.Bool
}

// rounds is the core shared by Cyclic and Quorum: numbered rounds over a
// dynamic member set; round r releases when k.Need(participants of r) of its
// participants arrived for it. Members that joined while a round was in
// progress take part from the next round; their arrivals wait for it.
//
// Waiters yield a few times (see yieldSpins), then block on the channel of
// their round, made by the first one to park and closed when the round
// releases: one close wakes them all, and they check the release without
// the lock. A Leave that must wake one parked waiter closes the channel of
// its round early: the others wake, see that their round has not released
// and park on a new channel. Leaving is rare; releasing is the hot path.
type rounds struct {
	mu      sync.Mutex
	k       Threshold
	members map[WorkerID]*party
	round   uint64 // the round in progress
	// released mirrors round for woken waiters, which check it without
	// taking mu (the close of their channel orders the store before).
	released atomic.Uint64
	parts    int // members taking part in round
	arrived  int // pending arrivals for round
	early    int // pending arrivals of joiners for round+1
	// cur and next are closed when round and round+1 release; nil until a
	// waiter parks.
	cur, next chan struct{}
	// action is the barrier action (OnRelease), run by releaseLocked.
	action func(Release)
}

func (r *rounds) init(op string, workers []WorkerID) error {
	if err := checkWorkers(op, workers); err != nil {
		return err
	}
	r.members = make(map[WorkerID]*party, len(workers))
	for _, w := range workers {
		r.members[w] = &party{id: w}
	}
	r.parts = len(workers)
	return nil
}

// onRelease sets the barrier action (nil removes it).
func (r *rounds) onRelease(action func(Release)) {
	r.mu.Lock()
	r.action = action
	r.mu.Unlock()
}

func (r *rounds) join(op string, w WorkerID) (uint64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.members == nil {
		r.members = make(map[WorkerID]*party)
	}
	if r.members[w] != nil {
		return 0, &WorkerError{Op: op, Worker: w, Err: ErrAlreadyMember}
	}
	p := &party{id: w}
	if r.parts == 0 {
		// Nobody takes part in the round in progress: nothing to not block.
		p.join = r.round
		r.parts++
	} else {
		p.join = r.round + 1
	}
	r.members[w] = p
	return p.join, nil
}

func (r *rounds) leave(op string, w WorkerID) error {
	// No deferred Unlock: a panicking barrier action unlocks (runAction).
	r.mu.Lock()
	p := r.members[w]
	if p == nil {
		r.mu.Unlock()
		return &WorkerError{Op: op, Worker: w, Err: ErrUnknownWorker}
	}
	delete(r.members, w)
	if p.join <= r.round {
		r.parts--
	}
	if r.pendingLocked(p) {
		// Wake p's waiter if it is parked (and, spuriously, the others
		// parked for its round: they block again).
		ch := &r.cur
		if p.arrival-1 != r.round {
			ch = &r.next
		}
		if *ch != nil {
			close(*ch)
			*ch = nil
		}
		r.withdrawLocked(p)
		p.left.Store(true)
	}
	r.settleLocked()
	r.mu.Unlock()
	return nil
}

// withdrawLocked removes p's pending arrival.
func (r *rounds) withdrawLocked(p *party) {
	if p.arrival == r.round+1 {
		r.arrived--
	} else {
		r.early--
	}
	p.arrival = 0
}

// settleLocked releases rounds while they are complete.
func (r *rounds) settleLocked() {
	for {
		if r.parts == 0 {
			if len(r.members) == 0 {
				return // idle: nobody to release, nobody waiting
			}
			// Only joiners are left: the round in progress is vacuous.
		} else if r.arrived < r.k.Need(r.parts) {
			return
		}
		r.releaseLocked(nil)
	}
}

// releaseLocked ends the round in progress: it runs the barrier action,
// then every blocked arrival for the round is released, and the next round
// starts with all members taking part and the joiners' early arrivals
// counted. last, if not nil, is an arrival for the round that completes it
// and is not recorded in the state (the releasing Wait's).
func (r *rounds) releaseLocked(last *party) {
	if r.action != nil {
		r.runActionLocked(last)
	}
	if r.cur != nil {
		close(r.cur)
	}
	r.cur, r.next = r.next, nil
	r.round++
	r.released.Store(r.round)
	r.parts = len(r.members)
	r.arrived, r.early = r.early, 0
}

// runActionLocked runs the barrier action for the round in progress. If
// the action panics, it unlocks r.mu before the panic propagates, so that
// the barrier's other methods do not deadlock; the round does not release.
func (r *rounds) runActionLocked(last *party) {
	rel := Release{Round: r.round}
	for id, q := range r.members {
		switch {
		case q == last || q.arrival == r.round+1:
			rel.Arrived = append(rel.Arrived, id)
		case q.join <= r.round:
			rel.Late = append(rel.Late, id)
		}
	}
	slices.Sort(rel.Arrived)
	slices.Sort(rel.Late)
	done := false
	defer func() {
		if !done {
			r.mu.Unlock()
		}
	}()
	r.action(rel)
	done = true
}

// pendingLocked reports whether p has an arrival that has not been released.
func (r *rounds) pendingLocked(p *party) bool {
	return p.arrival > r.round
}

// yieldSpins is how many times a waiter yields its P (runtime.Gosched) and
// rechecks before it parks on its round's channel. Yielding lets the other
// goroutines of the round arrive, and a waiter that sees the release after a
// yield costs neither a channel nor a wakeup. It is bounded, so a waiter for
// a straggler parks after a few microseconds at most and burns no CPU.
// Measured on the 2-core reference machine with BenchmarkCyclic (editing
// this constant), ns per round for 2/16/64 goroutines: 0 yields
// 310/3000/12200, 2 yields 125/1750/8000–10000, 4 yields 120/1700/7350,
// 8 yields 117/1700/7800–9500.
const yieldSpins = 4

func (r *rounds) wait(ctx context.Context, op string, w WorkerID) (uint64, error) {
	done := ctx.Done()
	r.mu.Lock()
	p := r.members[w]
	if p == nil {
		r.mu.Unlock()
		return 0, &WorkerError{Op: op, Worker: w, Err: ErrUnknownWorker}
	}
	if r.pendingLocked(p) {
		r.mu.Unlock()
		return 0, &WorkerError{Op: op, Worker: w, Err: ErrBusy}
	}
	round := max(r.round, p.join)
	if done != nil {
		select {
		case <-done:
			// The context ended before the arrival: fail rather than arrive,
			// as x/sync/semaphore does.
			err := r.waitErrorLocked(op, p, round, ctx.Err())
			r.mu.Unlock()
			return round, err
		default:
		}
	}
	if round == r.round {
		if r.arrived+1 >= r.k.Need(r.parts) {
			// This arrival completes the round: release it without blocking.
			r.releaseLocked(p)
			r.settleLocked()
			r.mu.Unlock()
			return round, nil
		}
		r.arrived++
	} else {
		r.early++
	}
	p.arrival = round + 1
	r.mu.Unlock()

	for range yieldSpins {
		runtime.Gosched()
		if r.released.Load() > round {
			return r.outcome(op, p, round)
		}
	}
	r.mu.Lock()
	for {
		switch {
		case p.left.Load():
			r.mu.Unlock()
			return round, &WorkerError{Op: op, Worker: w, Err: ErrLeft}
		case r.round > round:
			r.mu.Unlock()
			return round, nil
		case done != nil && ctx.Err() != nil:
			// Still pending: withdraw the arrival and name who was missing.
			err := r.waitErrorLocked(op, p, round, ctx.Err())
			r.withdrawLocked(p)
			r.mu.Unlock()
			return round, err
		}
		ch := &r.cur
		if round != r.round {
			ch = &r.next
		}
		if *ch == nil {
			*ch = make(chan struct{})
		}
		wake := *ch
		r.mu.Unlock()
		if done == nil {
			<-wake
		} else {
			select {
			case <-wake:
			case <-done:
			}
		}
		if r.released.Load() > round {
			return r.outcome(op, p, round)
		}
		// Cancelled, left, or woken because another waiter of the round left.
		r.mu.Lock()
	}
}

// outcome is the result of p's arrival for round once round has released:
// success, unless Leave withdrew the arrival before the release (Leave then
// set p.left before the release stored released, so it is visible here).
func (r *rounds) outcome(op string, p *party, round uint64) (uint64, error) {
	if p.left.Load() {
		return round, &WorkerError{Op: op, Worker: p.id, Err: ErrLeft}
	}
	return round, nil
}

// waitErrorLocked describes what round was still waiting for, from p's
// point of view.
func (r *rounds) waitErrorLocked(op string, p *party, round uint64, err error) *WaitError {
	var missing []WorkerID
	parts, arrived := r.parts, r.arrived
	if round != r.round {
		parts, arrived = len(r.members), r.early
	}
	for id, q := range r.members {
		if q != p && q.join <= round && q.arrival != round+1 {
			missing = append(missing, id)
		}
	}
	slices.Sort(missing)
	if p.arrival == round+1 {
		arrived-- // the others' arrivals only
	}
	need := max(r.k.Need(parts)-arrived-1, 0)
	return &WaitError{Op: op, Worker: p.id, Round: round, Missing: missing, Need: need, Err: err}
}

func (r *rounds) current() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.round
}

func (r *rounds) memberList() []WorkerID {
	r.mu.Lock()
	ids := make([]WorkerID, 0, len(r.members))
	for id := range r.members {
		ids = append(ids, id)
	}
	r.mu.Unlock()
	slices.Sort(ids)
	return ids
}
