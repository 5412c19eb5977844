package consistency

import (
	"container/heap"
	"slices"
)

// ssp is stale synchronous parallel with staleness s (bound true) or
// asynchronous parallel (bound false). Every commit is applied at once, so
// a released worker reads every update committed so far, its own included.
// A worker about to compute clock c is released only while every member's
// clock (clocks committed) is at least c − s: it has then seen every update
// of clocks up to c − s − 1 (Ho et al. 2013). ASP releases at once.
//
// The members' clocks (clocks) and the members waiting (waiters, by
// clock) are indexed, so that a commit costs O(log n) in the members
// rather than a scan of them all.
type ssp struct {
	base
	bound   bool
	clocks  clockCount
	waiters waitHeap
}

func (m *ssp) Step(ev Event) ([]Effect, error) {
	w, err := m.check(ev)
	if err != nil {
		return nil, err
	}
	var out []Effect
	switch ev.Kind {
	case EvStart:
		m.started = true
		for _, id := range m.ids {
			out = m.release(out, m.ms[id])
		}
	case EvCommit:
		m.clocks.remove(w.clock)
		m.accept(w, ev)
		m.clocks.add(w.clock)
		heap.Push(&m.waiters, waiter{w.clock, w})
		out = m.apply(out, false)
		out = m.unblock(out, w.id)
	case EvJoin:
		// A joiner starts at the slowest clock, so it never holds back a
		// worker that was allowed to run.
		j := m.join(ev, m.clocks.min())
		m.clocks.add(j.clock)
		if m.started {
			out = m.release(out, j)
		}
	case EvLeave:
		m.clocks.remove(w.clock)
		m.leave(w)
		out = m.unblock(out, -1)
	case EvStop:
		return m.stop(out), nil
	}
	return out, nil
}

// unblock releases every waiting member the bound allows, in ID order, and
// reports the committing worker as blocked if it must wait (EfBlock, at
// its place in the ID order).
func (m *ssp) unblock(out []Effect, committer WorkerID) []Effect {
	low := m.clocks.min()
	limit := low + uint64(m.spec.Staleness)
	var free []*member
	for len(m.waiters) > 0 && (!m.bound || m.waiters[0].clock <= limit) {
		x := heap.Pop(&m.waiters).(waiter)
		// An entry of a member that left (a rejoiner is a new member) is
		// dropped; a member waits at one clock, once.
		if m.ms[x.m.id] == x.m && x.m.state == waiting && x.m.clock == x.clock {
			free = append(free, x.m)
		}
	}
	slices.SortFunc(free, func(a, b *member) int { return compareWorker(a.id, b.id) })
	// The committer, waiting, was freed unless the bound holds it back.
	c := m.ms[committer]
	blocked := c != nil && c.state == waiting && m.bound && c.clock > limit
	for _, w := range free {
		if blocked && committer < w.id {
			out = m.blockSSP(out, committer)
			blocked = false
		}
		out = m.release(out, w)
	}
	if blocked {
		out = m.blockSSP(out, committer)
	}
	return out
}

// blockSSP appends the EfBlock of worker id, held back by the bound: it
// waits for the members whose clock is below its own minus the
// staleness.
func (m *ssp) blockSSP(out []Effect, id WorkerID) []Effect {
	return m.block(out, id, func() []WorkerID {
		need := m.ms[id].clock - uint64(m.spec.Staleness)
		var slow []WorkerID
		for _, o := range m.ids {
			if m.ms[o].clock < need {
				slow = append(slow, o)
			}
		}
		return slices.Clip(slow)
	})
}

// clockCount counts the members at each clock and keeps the smallest.
// Clocks only grow (a commit adds one, a joiner starts at the smallest),
// so min scans forward from the last minimum: O(1) amortized.
type clockCount struct {
	n     int
	low   uint64
	count map[uint64]int
}

func newSSP(b base, bound bool) *ssp {
	m := &ssp{base: b, bound: bound}
	m.clocks.init(b.ids, b.ms)
	return m
}

func (c *clockCount) init(ids []WorkerID, ms map[WorkerID]*member) {
	c.count = map[uint64]int{}
	for _, id := range ids {
		c.add(ms[id].clock)
	}
}

func (c *clockCount) add(clock uint64) {
	if c.n == 0 || clock < c.low {
		c.low = clock
	}
	c.n++
	c.count[clock]++
}

func (c *clockCount) remove(clock uint64) {
	c.n--
	if c.count[clock]--; c.count[clock] == 0 {
		delete(c.count, clock)
	}
}

// min is the smallest member clock, 0 without members.
func (c *clockCount) min() uint64 {
	if c.n == 0 {
		return 0
	}
	for c.count[c.low] == 0 {
		c.low++
	}
	return c.low
}

// waiter is a member that committed clock−1 and waits at clock.
type waiter struct {
	clock uint64
	m     *member
}

// waitHeap orders waiters by clock, then worker.
type waitHeap []waiter

func (h waitHeap) Len() int { return len(h) }
func (h waitHeap) Less(i, j int) bool {
	if h[i].clock != h[j].clock {
		return h[i].clock < h[j].clock
	}
	return h[i].m.id < h[j].m.id
}
func (h waitHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *waitHeap) Push(x any)   { *h = append(*h, x.(waiter)) }
func (h *waitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = waiter{}
	*h = old[:len(old)-1]
	return x
}
