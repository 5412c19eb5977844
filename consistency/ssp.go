package consistency

import "slices"

// ssp is stale synchronous parallel with staleness s (bound true) or
// asynchronous parallel (bound false). Every commit is applied at once, so
// a released worker reads every update committed so far, its own included.
// A worker about to compute clock c is released only while every member's
// clock (clocks committed) is at least c − s: it has then seen every update
// of clocks up to c − s − 1 (Ho et al. 2013). ASP releases at once.
type ssp struct {
	base
	bound bool
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
		m.accept(w, ev)
		out = m.apply(out, false)
		out = m.unblock(out, w.id)
	case EvJoin:
		// A joiner starts at the slowest clock, so it never holds back a
		// worker that was allowed to run.
		j := m.join(ev, m.minClock())
		if m.started {
			out = m.release(out, j)
		}
	case EvLeave:
		m.leave(w)
		out = m.unblock(out, -1)
	case EvStop:
		return m.stop(out), nil
	}
	return out, nil
}

// minClock is the smallest member clock, 0 without members.
func (m *ssp) minClock() uint64 {
	var c uint64
	for i, id := range m.ids {
		if i == 0 || m.ms[id].clock < c {
			c = m.ms[id].clock
		}
	}
	return c
}

// unblock releases every waiting member the bound allows, in ID order, and
// reports the committing worker as blocked if it must wait.
func (m *ssp) unblock(out []Effect, committer WorkerID) []Effect {
	low := m.minClock()
	for _, id := range m.ids {
		w := m.ms[id]
		if w.state != waiting {
			continue
		}
		if !m.bound || w.clock <= low+uint64(m.spec.Staleness) {
			out = m.release(out, w)
			continue
		}
		if id == committer {
			need := w.clock - uint64(m.spec.Staleness)
			var slow []WorkerID
			for _, o := range m.ids {
				if m.ms[o].clock < need {
					slow = append(slow, o)
				}
			}
			out = append(out, Effect{Kind: EfBlock, Worker: id, Waiting: slices.Clip(slow)})
		}
	}
	return out
}
