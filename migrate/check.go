package migrate

import (
	"cmp"
	"fmt"
)

// Check verifies the placement's invariants and returns an error wrapping
// ErrInvariant that names the first one broken:
//
//   - every point is owned (active, or sending in its owner's open window)
//     by exactly one worker, and every other copy of it is inactive;
//   - a worker's copies are its own points at their indices, then guest
//     copies of other workers' points, each once;
//   - every open window is its source's, and its points are exactly the
//     source's sending copies;
//   - queued copies are active and are exactly those in the queue and the
//     trained-this-iteration list, the queue in (count, arrival) order;
//   - every round-robin point has the count the round robin gave its slot
//     (no point lost a pass), and the tallies (ring, owned, sum of counts)
//     match the copies.
//
// It reads every copy; runtimes call it in tests.
func (p *Placement) Check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvariant, fmt.Sprintf(format, args...))
	}
	owners := make([][]int8, len(p.workers))
	for w := range p.workers {
		owners[w] = make([]int8, p.workers[w].natives)
	}
	for w := range p.workers {
		wk := &p.workers[w]
		// With as many entries as guest slots, each naming a guest slot
		// that holds its key, the index is a bijection onto the guest slots.
		from := make([]int, len(p.workers))
		entries := 0
		for h, g := range wk.guest {
			for i, s1 := range g {
				if s1 == 0 {
					continue
				}
				entries++
				from[h]++
				if s := int(s1) - 1; s < wk.natives || s >= len(wk.slots) || wk.slots[s].pt != (Point{h, i}) {
					return bad("worker %d: guest index maps %v to slot %d", w, Point{h, i}, s)
				}
			}
		}
		if len(wk.slots) < wk.natives || entries != len(wk.slots)-wk.natives {
			return bad("worker %d: %d slots, %d natives, %d guest copies", w, len(wk.slots), wk.natives, entries)
		}
		for h, n := range from {
			if wk.from[h] != n {
				return bad("worker %d: holds %d copies of worker %d's points, counted %d", w, n, h, wk.from[h])
			}
		}
		if wk.cursor < 0 || (wk.cursor >= len(wk.slots) && wk.cursor != 0) {
			return bad("worker %d: cursor %d outside %d slots", w, wk.cursor, len(wk.slots))
		}
		inQueue := make([]int8, len(wk.slots))
		for _, q := range [][]int{wk.queue, wk.rested} {
			for _, s := range q {
				if s < 0 || s >= len(wk.slots) {
					return bad("worker %d: queue holds slot %d of %d", w, s, len(wk.slots))
				}
				inQueue[s]++
			}
		}
		for i := 1; i < len(wk.queue); i++ {
			a, b := &wk.slots[wk.queue[i-1]], &wk.slots[wk.queue[i]]
			if cmp.Or(cmp.Compare(a.count, b.count), cmp.Compare(a.seq, b.seq)) > 0 {
				return bad("worker %d: queue out of order at %d (%v count %d before %v count %d)", w, i, a.pt, a.count, b.pt, b.count)
			}
		}
		locked := make([]bool, len(wk.slots))
		if wk.open != nil {
			if src, ok := p.open[wk.open.id]; !ok || src != w {
				return bad("worker %d: open window %d not registered", w, wk.open.id)
			}
			if wk.open.to == w || wk.open.to < 0 || wk.open.to >= len(p.workers) {
				return bad("worker %d: window %d to worker %d", w, wk.open.id, wk.open.to)
			}
			for _, s := range wk.open.slots {
				if s < 0 || s >= len(wk.slots) {
					return bad("worker %d: window %d holds slot %d of %d", w, wk.open.id, s, len(wk.slots))
				}
				if locked[s] {
					return bad("worker %d: window %d holds slot %d twice", w, wk.open.id, s)
				}
				locked[s] = true
			}
		}
		ring, owned, sum := 0, 0, int64(0)
		for s := range wk.slots {
			c := &wk.slots[s]
			pt := c.pt
			if s < wk.natives {
				if pt != (Point{w, s}) {
					return bad("worker %d: slot %d holds %v", w, s, pt)
				}
			} else if pt.Home == w || pt.Home < 0 || pt.Home >= len(p.workers) || pt.Index < 0 || pt.Index >= p.workers[pt.Home].natives {
				return bad("worker %d: guest slot %d holds %v", w, s, pt)
			}
			if c.count < 0 {
				return bad("worker %d: %v has count %d", w, pt, c.count)
			}
			if (c.mark == sending) != locked[s] {
				return bad("worker %d: %v marked %d, in open window %v", w, pt, c.mark, locked[s])
			}
			if c.queued != (inQueue[s] == 1) || inQueue[s] > 1 {
				return bad("worker %d: %v queued %v, in queue %d times", w, pt, c.queued, inQueue[s])
			}
			if c.queued && c.mark != active {
				return bad("worker %d: %v queued but not active", w, pt)
			}
			if c.mark == inactive {
				continue
			}
			owners[pt.Home][pt.Index]++
			owned++
			sum += int64(c.count)
			if c.mark == active && !c.queued {
				ring++
				if c.count < wk.due(s) {
					return bad("worker %d: %v in the round robin at slot %d has count %d, below %d", w, pt, s, c.count, wk.due(s))
				}
			}
		}
		if ring != wk.ring || owned != wk.owned || sum != wk.sum {
			return bad("worker %d: tallies ring %d owned %d sum %d; copies say %d, %d, %d", w, wk.ring, wk.owned, wk.sum, ring, owned, sum)
		}
		for _, q := range wk.quotas {
			if q.to < 0 || q.to >= len(p.workers) || q.to == w || q.left < 0 {
				return bad("worker %d: quota %+v", w, q)
			}
		}
	}
	for id, src := range p.open {
		if src < 0 || src >= len(p.workers) || p.workers[src].open == nil || p.workers[src].open.id != id {
			return bad("window %d registered to worker %d, which does not have it open", id, src)
		}
	}
	for h, os := range owners {
		for i, n := range os {
			if n != 1 {
				return bad("point %v has %d owners", Point{h, i}, n)
			}
		}
	}
	return nil
}
