package migrate

import (
	"cmp"
	"fmt"
	"slices"
)

// Next appends to dst the next k points worker w should train, in order,
// and returns it; it changes nothing. First come the points of w's
// priority queue not yet trained in this iteration, fewest traversals
// first (§4.3: received points are trained with high priority, each at
// most once per iteration, since θ does not change within one); then the
// round robin over w's other active points, from the cursor on, wrapping
// as often as k needs. Points locked in a window or owned elsewhere are
// skipped, never waited for. Fewer than k points come back only when w's
// round robin is empty and its queue exhausted for this iteration.
func (p *Placement) Next(dst []Point, w, k int) ([]Point, error) {
	wk, err := p.worker(w, "w")
	if err != nil {
		return dst, err
	}
	if k < 0 {
		return dst, inputErr(ErrInput, "k", k, "must be ≥ 0")
	}
	return wk.walk(dst, k, false), nil
}

// Advance records that worker w trained the first n points Next(w, n)
// returns now: their traversal counts grow by one and the round robin's
// cursor moves past them. A queued point whose count has caught up with
// the round robin (it lost no pass any more) leaves the queue and joins
// the round robin at its slot. A runtime that trains a chunk calls Next
// and Advance with no other call in between; an interrupted chunk advances
// by the points actually trained.
func (p *Placement) Advance(w, n int) error {
	wk, err := p.worker(w, "w")
	if err != nil {
		return err
	}
	if n < 0 {
		return inputErr(ErrInput, "n", n, "must be ≥ 0")
	}
	if wk.ring == 0 && n > len(wk.queue) {
		return inputErr(ErrInput, "n", n, fmt.Sprintf("worker %d has only %d points to train in this iteration", w, len(wk.queue)))
	}
	wk.walk(nil, n, true)
	return nil
}

// BeginIteration tells the placement that worker w starts computing on a
// new parameter version (the runtime's release): every queued point is
// eligible for training again, fewest traversals first.
func (p *Placement) BeginIteration(w int) error {
	wk, err := p.worker(w, "w")
	if err != nil {
		return err
	}
	if len(wk.rested) > 0 {
		wk.queue = append(slices.Clip(wk.queue), wk.rested...)
		wk.rested = wk.rested[:0]
		wk.sortQueue()
	}
	return nil
}

func (wk *worker) sortQueue() {
	slices.SortFunc(wk.queue, func(a, b int) int {
		ca, cb := &wk.slots[a], &wk.slots[b]
		return cmp.Or(cmp.Compare(ca.count, cb.count), cmp.Compare(ca.seq, cb.seq))
	})
}

// walk lists (apply false) or trains (apply true) the next k points.
func (wk *worker) walk(dst []Point, k int, apply bool) []Point {
	nq := min(k, len(wk.queue))
	for _, s := range wk.queue[:nq] {
		c := &wk.slots[s]
		if apply {
			c.count++
			wk.sum++
		} else {
			dst = append(dst, c.pt)
		}
	}
	k -= nq
	var trained []int
	if apply && nq > 0 {
		trained = wk.queue[:nq:nq]
		wk.queue = wk.queue[nq:]
	}
	if wk.ring > 0 {
		s := wk.cursor
		pass := wk.pass
		for k > 0 {
			c := &wk.slots[s]
			ring := c.mark == active && !c.queued
			if ring {
				k--
				if apply {
					c.count++
					wk.sum++
				} else {
					dst = append(dst, c.pt)
				}
			}
			if s++; s == len(wk.slots) {
				s = 0
				pass++
			}
		}
		if apply {
			wk.cursor, wk.pass = s, pass
		}
	}
	// Settle after the cursor moved, against the requirement at its new
	// position.
	for _, s := range trained {
		c := &wk.slots[s]
		if c.count >= wk.due(s) {
			c.queued = false
			wk.ring++
		} else {
			wk.rested = append(wk.rested, s)
		}
	}
	return dst
}
