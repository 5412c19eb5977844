package consistency

// bsp is bulk synchronous parallel: round v releases every member with
// version v; the round ends when no member is still computing, and then its
// deltas are applied together (in worker order, so the result does not
// depend on who finished first) and every member, joiners included, is
// released with the new version.
type bsp struct{ base }

func (m *bsp) Step(ev Event) ([]Effect, error) {
	w, err := m.check(ev)
	if err != nil {
		return nil, err
	}
	var out []Effect
	switch ev.Kind {
	case EvStart:
		m.started = true
		return m.endRound(out), nil
	case EvCommit:
		m.accept(w, ev)
		if m.ncomputing > 0 {
			return m.block(out, w.id, m.computingIDs), nil
		}
		return m.endRound(out), nil
	case EvJoin:
		m.join(ev, 0)
		if m.started && m.ncomputing == 0 {
			return m.endRound(out), nil
		}
	case EvLeave:
		m.leave(w)
		if m.started && m.ncomputing == 0 {
			return m.endRound(out), nil
		}
	case EvStop:
		return m.stop(out), nil
	}
	return out, nil
}

// endRound applies the round's deltas and releases every member.
func (m *bsp) endRound(out []Effect) []Effect {
	out = m.apply(out, false)
	for _, id := range m.ids {
		w := m.ms[id]
		w.clock = uint64(m.version)
		out = m.release(out, w)
	}
	return out
}
