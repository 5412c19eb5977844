package consistency

import "slices"

// kgroup is DOLL's K-grouping (§III-A, Algorithms 1–4; §III-B2). Each
// worker announces its streamed batches of b points, numbered 0, 1, 2, …
// (EvBatchReady, the batch indicator of Algorithm 1); the coordinator
// queues them (Algorithm 3). Once K batches are queued across the
// available members, a group starts (Algorithm 4): K batches are taken
// from the queues — in announcement order, or by the priority queue of
// §III-B2 with Spread — and each worker holding some of them is released
// with the current version to compute one gradient per batch and commit
// their sum as one delta. When the group's K batches are committed, their
// deltas are applied together and the next group starts as soon as K
// batches are queued again.
//
// Preemption (§III-A, "Handling preemptions"): a worker that leaves keeps
// its queued batches ("retain any samples received before the
// preemption"); they do not count towards K while it is away and count
// again once it rejoins. The batches it was computing and had not
// committed go back to the front of its queue, and the group in progress
// takes the same number of batches from the other available members'
// queues (a member that already committed in the group may be released
// again, on the same version), or waits for new batches. Nothing is lost
// and nothing is used twice: every worker's batches are used in order,
// each once.
type kgroup struct {
	base
	k      int
	b      int
	spread bool
	// qs holds every worker ever seen, members or not: a leaver keeps its
	// queue.
	qs map[WorkerID]*kqueue
	// announced counts every batch announced so far: the next batch's
	// position in the announcement order (the FIFO queue of Algorithm 3).
	announced uint64
	// The group in progress, if active: batches released in it (computing
	// or committed), batches committed, and per worker the batches it
	// holds in the group (the priority of §III-B2).
	active    bool
	assigned  int
	committed int
	inGroup   map[WorkerID]int
}

// kqueue is one worker's batches.
type kqueue struct {
	// next is the number of the next batch to be announced: batches
	// 0 … next−1 were announced.
	next uint64
	// used is the number of batches committed: batches 0 … used−1.
	used uint64
	// order[i] is the announcement position of batch used+i; batches used …
	// next−1 are unused.
	order []uint64
	// computing counts the batches released and not committed yet: batches
	// used … used+computing−1.
	computing int
	// clock counts the worker's accepted commits, kept across leaves.
	clock uint64
}

// queued is the number of the worker's batches neither used nor being
// computed.
func (q *kqueue) queued() int { return len(q.order) - q.computing }

func newKGroup(b base) *kgroup {
	m := &kgroup{base: b, k: b.spec.Group, b: b.budget, spread: b.spec.Spread,
		qs: make(map[WorkerID]*kqueue, len(b.ids)), inGroup: map[WorkerID]int{}}
	for _, w := range b.ids {
		m.qs[w] = &kqueue{}
	}
	return m
}

func (m *kgroup) Step(ev Event) ([]Effect, error) {
	w, err := m.check(ev)
	if err != nil {
		return nil, err
	}
	var out []Effect
	switch ev.Kind {
	case EvStart:
		m.started = true
		return m.progress(out), nil
	case EvBatchReady:
		q := m.qs[w.id]
		switch {
		case ev.Batch < q.next:
			return nil, m.refuse(ev, ErrDuplicate, "batch %d of worker %d was already announced", ev.Batch, w.id)
		case ev.Batch > q.next:
			return nil, m.refuse(ev, ErrProtocol, "worker %d announces batch %d; expected batch %d", w.id, ev.Batch, q.next)
		}
		q.next++
		q.order = append(q.order, m.announced)
		m.announced++
		return m.progress(out), nil
	case EvCommit:
		q := m.qs[w.id]
		switch {
		case ev.Batch != q.used:
			return nil, m.refuse(ev, ErrProtocol, "worker %d commits from batch %d; it was released for %s", w.id, ev.Batch, spanText(q.used, q.used+uint64(q.computing)))
		case ev.Points != q.computing*m.b:
			return nil, m.refuse(ev, ErrProtocol, "worker %d commits %d points; it was released for %s of %d points", w.id, ev.Points, nBatches(q.computing), m.b)
		}
		m.accept(w, ev)
		n := q.computing
		q.used += uint64(n)
		q.order = q.order[n:]
		q.computing = 0
		q.clock++
		m.committed += n
		if m.committed == m.k {
			out = m.apply(out, false)
			m.active, m.assigned, m.committed = false, 0, 0
			clear(m.inGroup)
			return m.progress(out), nil
		}
		out = m.fill(out)
		if w.state != computing {
			out = m.block(out, w.id, m.computingIDs)
		}
		return out, nil
	case EvJoin:
		q := m.qs[ev.Worker]
		if q == nil {
			q = &kqueue{}
			m.qs[ev.Worker] = q
		}
		m.join(ev, q.clock)
		if m.started {
			return m.progress(out), nil
		}
	case EvLeave:
		if q := m.qs[w.id]; w.state == computing {
			// Its uncommitted batches return to the front of its queue.
			m.assigned -= q.computing
			m.inGroup[w.id] -= q.computing
			q.computing = 0
		}
		m.leave(w)
		if m.started {
			return m.progress(out), nil
		}
	case EvStop:
		// Batches released and not committed stay queued.
		for _, q := range m.qs {
			q.computing = 0
		}
		return m.stop(out), nil
	}
	return out, nil
}

// progress starts a group if none is in progress and K batches are queued
// among the members, and completes the group in progress from the queues.
func (m *kgroup) progress(out []Effect) []Effect {
	if !m.active {
		queued := 0
		for _, w := range m.ids {
			queued += m.qs[w].queued()
		}
		if queued < m.k {
			return out
		}
		m.active = true
	}
	return m.fill(out)
}

// fill releases queued batches of members not computing until the group
// in progress holds K batches or no such batch is left. Each worker's
// batches are taken in order; among workers, the next batch is the one
// announced first (FIFO) or, with spread, the one whose worker holds the
// fewest batches in the group, then the one announced first.
func (m *kgroup) fill(out []Effect) []Effect {
	need := m.k - m.assigned
	if !m.active || need == 0 {
		return out
	}
	take := map[WorkerID]int{}
	for range need {
		best, found := WorkerID(0), false
		var bestHeld int
		var bestOrder uint64
		for _, w := range m.ids {
			q := m.qs[w]
			if m.ms[w].state == computing || take[w] >= q.queued() {
				continue
			}
			held, order := m.inGroup[w]+take[w], q.order[take[w]]
			if !m.spread {
				held = 0
			}
			if !found || held < bestHeld || held == bestHeld && order < bestOrder {
				best, found, bestHeld, bestOrder = w, true, held, order
			}
		}
		if !found {
			break
		}
		take[best]++
	}
	ws := make([]WorkerID, 0, len(take))
	for w := range take {
		ws = append(ws, w)
	}
	slices.Sort(ws)
	for _, w := range ws {
		n, q, mem := take[w], m.qs[w], m.ms[w]
		q.computing = n
		m.assigned += n
		m.inGroup[w] += n
		m.setState(mem, computing)
		mem.version = m.version
		out = append(out, Effect{Kind: EfRelease, Worker: w, Version: m.version, Clock: mem.clock,
			Budget: n * m.b, Batch: q.used, Batches: n})
	}
	return out
}
