package migrate

import "fmt"

// Window is one window of a migration (§4.3): points locked at the source
// and sent together. The runtime sends it, models the delay, and calls
// Deliver when the target has it (or Abort if the send failed).
type Window struct {
	ID       uint64
	From, To int
	// Points[:Virtual] are points To already holds a copy of: migrating
	// them flips marks and moves no data (virtual migration). The data of
	// Points[Virtual:] must be sent.
	Points  []Point
	Virtual int
}

// SetPlan replaces the pending migrations with transfers (a planner
// Decision's Transfers when NewPlan is set; nil stops migrating). Open
// windows are not affected: they are in flight and are delivered. Bad
// transfers return an error naming the first and change nothing.
//
// Within the transfers of one Pair (sources that only send, targets that
// only receive) SetPlan keeps every worker's amount but re-matches sources
// to targets, first to the targets holding copies of most of a source's
// points: when the planner reverses an earlier migration the points go
// back where they came from, by flips, whichever worker the planner's
// matching named.
func (p *Placement) SetPlan(transfers []Transfer) error {
	for i, t := range transfers {
		at := fmt.Sprintf("transfers[%d]", i)
		if _, err := p.worker(t.From, at+".From"); err != nil {
			return err
		}
		if _, err := p.worker(t.To, at+".To"); err != nil {
			return err
		}
		if t.From == t.To {
			return inputErr(ErrInput, at+".To", t.To, "must differ from From")
		}
		if t.Points < 0 {
			return inputErr(ErrInput, at+".Points", t.Points, "must be ≥ 0")
		}
	}
	for w := range p.workers {
		p.workers[w].quotas = nil
	}
	for _, t := range p.rematch(transfers) {
		wk := &p.workers[t.From]
		merged := false
		for i := range wk.quotas {
			if wk.quotas[i].to == t.To {
				wk.quotas[i].left += t.Points
				merged = true
			}
		}
		if !merged {
			wk.quotas = append(wk.quotas, quota{to: t.To, left: t.Points})
		}
	}
	return nil
}

// Pending is how many points worker w still has to migrate under the
// current plan, beyond its open window.
func (p *Placement) Pending(w int) (int, error) {
	wk, err := p.worker(w, "w")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, q := range wk.quotas {
		n += q.left
	}
	return n, nil
}

// OpenWindow locks worker src's next window, if src has no window open and
// points left to migrate: up to PlacementConfig.WindowSize points for its
// first pending target, taken by the bi-directional sliding window (§4.3).
// Local training rotates top-down through the slots from the point it
// trains next (the focus); windows are taken bottom-up from the end of the
// part of the pass not yet traversed, towards the focus, so the two move
// towards each other and training never waits for a migration: it skips
// locked points. Once the windows reach the focus they continue with the
// points this pass already trained, latest first. Points the target
// already holds a copy of are taken first (they migrate virtually); queued
// points and the focus itself are never taken, so a source keeps at least
// one point. ok is false when nothing was locked.
func (p *Placement) OpenWindow(src int) (win Window, ok bool, err error) {
	wk, err := p.worker(src, "src")
	if err != nil {
		return Window{}, false, err
	}
	if wk.open != nil {
		return Window{}, false, nil
	}
	for len(wk.quotas) > 0 && wk.quotas[0].left == 0 {
		wk.quotas = wk.quotas[1:]
	}
	if len(wk.quotas) == 0 {
		return Window{}, false, nil
	}
	q := &wk.quotas[0]
	slots, virtual := p.pick(src, q.to, min(p.cfg.WindowSize, q.left))
	if len(slots) == 0 {
		return Window{}, false, nil
	}
	q.left -= len(slots)
	p.nextWin++
	open := &window{id: p.nextWin, to: q.to, slots: slots, virtual: virtual}
	wk.open = open
	p.open[open.id] = src
	win = Window{ID: open.id, From: src, To: q.to, Points: make([]Point, len(slots)), Virtual: virtual}
	for i, s := range slots {
		wk.slots[s].mark = sending
		wk.ring--
		win.Points[i] = wk.slots[s].pt
	}
	return win, true, nil
}

// pick selects up to n of src's round-robin slots for a window to dst:
// bottom-up from the last slot, skipping the focus — first the points the
// current pass has not reached yet, from its end back towards the focus,
// then those it already trained, latest first — taking first those dst
// holds a copy of, then the others. It returns them flips first.
func (p *Placement) pick(src, dst, n int) (slots []int, virtual int) {
	wk, to := &p.workers[src], &p.workers[dst]
	if wk.ring <= 1 || n <= 0 {
		return nil, 0
	}
	inRing := func(s int) bool { c := &wk.slots[s]; return c.mark == active && !c.queued }
	focus := wk.cursor
	for !inRing(focus) {
		focus = (focus + 1) % len(wk.slots)
	}
	// held: dst holds a copy of pt. A map lookup only when dst holds
	// copies of pt's home's points at all.
	held := func(pt Point) bool {
		return pt.Home == dst || (to.from[pt.Home] > 0 && to.slot(dst, pt) >= 0)
	}
	// Flips are possible only for src's guest copies or when dst holds
	// copies of src's points.
	anyHeld := len(wk.slots) > wk.natives || to.from[src] > 0
	for flips := range 2 {
		if flips == 0 && !anyHeld {
			continue
		}
		for s := len(wk.slots) - 1; s >= 0 && len(slots) < n; s-- {
			if s == focus || !inRing(s) {
				continue
			}
			held := held(wk.slots[s].pt)
			if held == (flips == 0) {
				slots = append(slots, s)
			}
		}
		if flips == 0 {
			virtual = len(slots)
		}
	}
	return slots, virtual
}

// Deliver completes window id: its points become inactive at the source
// and active at the target, which creates a copy for each point it did
// not hold. A point that lost passes — its count is below what the
// target's round robin has given its slot — goes into the target's
// priority queue; the others join the round robin.
func (p *Placement) Deliver(id uint64) error {
	src, ok := p.open[id]
	if !ok {
		return inputErr(ErrWindow, "id", id, "no such open window")
	}
	wk := &p.workers[src]
	win := wk.open
	dst := &p.workers[win.to]
	queued := false
	for _, s := range win.slots {
		c := &wk.slots[s]
		pt, count := c.pt, c.count
		c.mark = inactive
		wk.owned--
		wk.sum -= int64(count)
		ds := dst.slot(win.to, pt)
		if ds < 0 {
			ds = len(dst.slots)
			dst.slots = append(dst.slots, cp{pt: pt})
			if dst.guest[pt.Home] == nil {
				dst.guest[pt.Home] = make([]int32, p.workers[pt.Home].natives)
			}
			dst.guest[pt.Home][pt.Index] = int32(ds + 1)
			dst.from[pt.Home]++
		}
		queued = dst.arrive(ds, count, &p.seq) || queued
	}
	if queued {
		dst.sortQueue()
	}
	p.virtual += int64(win.virtual)
	p.data += int64(len(win.slots) - win.virtual)
	wk.open = nil
	delete(p.open, id)
	return nil
}

// Abort cancels window id (its send failed): the points become active at
// the source again, queued if the round robin passed their slots while
// they were locked. The plan's amount is not restored; the next plan
// decides.
func (p *Placement) Abort(id uint64) error {
	src, ok := p.open[id]
	if !ok {
		return inputErr(ErrWindow, "id", id, "no such open window")
	}
	wk := &p.workers[src]
	queued := false
	for _, s := range wk.open.slots {
		c := &wk.slots[s]
		c.mark = inactive
		wk.owned--
		wk.sum -= int64(c.count)
		queued = wk.arrive(s, c.count, &p.seq) || queued
	}
	if queued {
		wk.sortQueue()
	}
	wk.open = nil
	delete(p.open, id)
	return nil
}

// arrive makes the copy in slot s owned and active with the given count,
// queued if it lost passes. It reports whether it was queued.
func (wk *worker) arrive(s int, count int32, seq *uint64) bool {
	c := &wk.slots[s]
	*seq++
	c.mark, c.count, c.seq = active, count, *seq
	wk.owned++
	wk.sum += int64(count)
	if count < wk.due(s) {
		c.queued = true
		wk.queue = append(wk.queue, s)
		return true
	}
	c.queued = false
	wk.ring++
	return false
}
