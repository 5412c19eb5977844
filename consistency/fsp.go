package consistency

import "time"

// fsp is flexible synchronous parallel (FSP paper §3). A round releases
// every member with the same version and a budget of one full pass over
// its shard, and sets a timer η ahead. The round's barrier is initiated
// when the timer fires (the coordinator's signal, §3.1) or when a worker
// commits because it completed its pass (the early trigger, §3.3): every
// member still computing is interrupted and commits right after its
// current point. When nobody computes any more, the round's deltas are
// applied together, as in BSP, so every worker computes on one parameter
// version per iteration and the BSP checker applies.
type fsp struct {
	base
	interval time.Duration
	// next is the interval of the next round (EvSetInterval) when
	// hasNext: FullBatch is negative, so no value of next can mean "none".
	next      time.Duration
	hasNext   bool
	deadline  time.Duration
	begun     time.Duration // when the current round was released
	triggered bool
	local     bool // semi-centralized: workers time themselves
}

func (m *fsp) Step(ev Event) ([]Effect, error) {
	w, err := m.check(ev)
	if err != nil {
		return nil, err
	}
	var out []Effect
	switch ev.Kind {
	case EvStart:
		m.started = true
		return m.endRound(out, ev.Now), nil
	case EvCommit:
		m.accept(w, ev)
		if !m.triggered && m.interval != FullBatch && !m.local {
			// Its full pass is done (or its own timer fired): barrier.
			out = m.trigger(out)
		}
		if m.ncomputing == 0 {
			return m.endRound(out, ev.Now), nil
		}
		return m.block(out, w.id, m.computingIDs), nil
	case EvTick:
		if m.started && !m.triggered && m.interval != FullBatch && !m.local && ev.Now >= m.deadline {
			out = m.trigger(out)
		}
	case EvSetInterval:
		// The current round takes the new interval if its barrier has not
		// been initiated yet; otherwise the next round does.
		if m.started && !m.triggered && !m.local && len(m.ids) > 0 {
			m.interval = ev.Interval
			if m.interval == FullBatch {
				return out, nil
			}
			m.deadline = m.begun + m.interval
			if ev.Now >= m.deadline {
				return m.trigger(out), nil
			}
			return append(out, Effect{Kind: EfTimer, At: m.deadline}), nil
		}
		m.next, m.hasNext = ev.Interval, true
	case EvJoin:
		m.join(ev, 0)
		if m.started && m.ncomputing == 0 {
			return m.endRound(out, ev.Now), nil
		}
	case EvLeave:
		m.leave(w)
		if m.started && m.ncomputing == 0 {
			return m.endRound(out, ev.Now), nil
		}
	case EvStop:
		return m.stop(out), nil
	}
	return out, nil
}

// trigger initiates the barrier: every member still computing is told to
// commit after its current point.
func (m *fsp) trigger(out []Effect) []Effect {
	m.triggered = true
	for _, id := range m.ids {
		if m.ms[id].state == computing {
			out = append(out, Effect{Kind: EfInterrupt, Worker: id})
		}
	}
	return out
}

// endRound applies the round's deltas, releases every member and sets the
// next round's timer.
func (m *fsp) endRound(out []Effect, now time.Duration) []Effect {
	out = m.apply(out, false)
	if m.hasNext {
		m.interval, m.next, m.hasNext = m.next, 0, false
	}
	for _, id := range m.ids {
		w := m.ms[id]
		w.clock = uint64(m.version)
		out = m.release(out, w)
		if m.local && m.interval != FullBatch {
			out[len(out)-1].Interval = m.interval
		}
	}
	m.triggered = false
	m.begun = now
	if len(m.ids) == 0 || m.interval == FullBatch || m.local {
		return out
	}
	m.deadline = now + m.interval
	return append(out, Effect{Kind: EfTimer, At: m.deadline})
}
