package consistency

import "slices"

// quorum is the k-of-n barrier of slsML: a commit becomes pending; once
// Need(members) commits are pending they are applied together and their
// workers released with the new version. A straggler that commits after a
// release has its delta folded into the next one, never dropped. Joiners
// are released at once and count from then on.
type quorum struct {
	base
	// waiters are the members that committed since the last round's
	// release (some may have left since): the members waiting, found
	// without a scan of every member.
	waiters []*member
}

func (m *quorum) Step(ev Event) ([]Effect, error) {
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
		m.waiters = append(m.waiters, w)
		if !m.ready() {
			return m.block(out, w.id, m.computingIDs), nil
		}
		out = m.releaseRound(out)
	case EvJoin:
		j := m.join(ev, 0)
		if m.started {
			out = m.release(out, j)
		}
	case EvLeave:
		m.leave(w)
		if m.ready() {
			out = m.releaseRound(out)
		}
	case EvStop:
		return m.stop(out), nil
	}
	return out, nil
}

// ready reports whether enough commits are pending to release a round.
func (m *quorum) ready() bool {
	return len(m.pending) > 0 && len(m.pending) >= m.spec.Need.Need(len(m.ids))
}

// releaseRound applies the pending deltas and releases every waiting
// member, in ID order.
func (m *quorum) releaseRound(out []Effect) []Effect {
	out = m.apply(out, false)
	ws := m.waiters[:0]
	for _, w := range m.waiters {
		// A member that left is no longer ms's; one that left and
		// rejoined is a new member.
		if m.ms[w.id] == w && w.state == waiting {
			ws = append(ws, w)
		}
	}
	slices.SortFunc(ws, func(a, b *member) int { return compareWorker(a.id, b.id) })
	for _, w := range ws {
		out = m.release(out, w)
	}
	clear(m.waiters)
	m.waiters = m.waiters[:0]
	return out
}
