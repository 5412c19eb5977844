package consistency

// quorum is the k-of-n barrier of slsML: a commit becomes pending; once
// Need(members) commits are pending they are applied together and their
// workers released with the new version. A straggler that commits after a
// release has its delta folded into the next one, never dropped. Joiners
// are released at once and count from then on.
type quorum struct{ base }

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
		if !m.ready() {
			return append(out, Effect{Kind: EfBlock, Worker: w.id, Waiting: m.inState(computing)}), nil
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

func (m *quorum) releaseRound(out []Effect) []Effect {
	out = m.apply(out, false)
	for _, id := range m.ids {
		if w := m.ms[id]; w.state == waiting {
			out = m.release(out, w)
		}
	}
	return out
}
