package consistency

import (
	"fmt"
	"slices"
)

// The reference models: SSP/ASP, BSP, quorum and FSP as they were before
// their bookkeeping was indexed (each commit scanned every member). The
// indexed models must produce the same effects in the same order; the
// differential test (TestIndexedMatchesReference) drives both at random.

// NewReference returns the reference model of spec (SSP, ASP, BSP, ISP,
// quorum or FSP).
func NewReference(spec Spec, cfg Config) (Model, error) {
	m, err := New(spec, cfg)
	if err != nil {
		return nil, err
	}
	switch x := m.(type) {
	case *ssp:
		return &refSSP{base: x.base, bound: x.bound}, nil
	case *bsp:
		return &refBSP{base: x.base}, nil
	case *quorum:
		return &refQuorum{base: x.base}, nil
	case *fsp:
		return &refFSP{fsp: *x}, nil
	}
	return nil, fmt.Errorf("no reference model for %v", spec)
}

type refSSP struct {
	base
	bound bool
}

func (m *refSSP) Step(ev Event) ([]Effect, error) {
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

func (m *refSSP) minClock() uint64 {
	var c uint64
	for i, id := range m.ids {
		if i == 0 || m.ms[id].clock < c {
			c = m.ms[id].clock
		}
	}
	return c
}

func (m *refSSP) unblock(out []Effect, committer WorkerID) []Effect {
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
		if id == committer && !m.omitBlocks {
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

type refBSP struct{ base }

func (m *refBSP) Step(ev Event) ([]Effect, error) {
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
		if computing := m.inState(computing); len(computing) > 0 {
			if m.omitBlocks {
				return out, nil
			}
			return append(out, Effect{Kind: EfBlock, Worker: w.id, Waiting: computing}), nil
		}
		return m.endRound(out), nil
	case EvJoin:
		m.join(ev, 0)
		if m.started && len(m.inState(computing)) == 0 {
			return m.endRound(out), nil
		}
	case EvLeave:
		m.leave(w)
		if m.started && len(m.inState(computing)) == 0 {
			return m.endRound(out), nil
		}
	case EvStop:
		return m.stop(out), nil
	}
	return out, nil
}

func (m *refBSP) endRound(out []Effect) []Effect {
	out = m.apply(out, false)
	for _, id := range m.ids {
		w := m.ms[id]
		w.clock = uint64(m.version)
		out = m.release(out, w)
	}
	return out
}

type refQuorum struct{ base }

func (m *refQuorum) Step(ev Event) ([]Effect, error) {
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
			if m.omitBlocks {
				return out, nil
			}
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

func (m *refQuorum) ready() bool {
	return len(m.pending) > 0 && len(m.pending) >= m.spec.Need.Need(len(m.ids))
}

func (m *refQuorum) releaseRound(out []Effect) []Effect {
	out = m.apply(out, false)
	for _, id := range m.ids {
		if w := m.ms[id]; w.state == waiting {
			out = m.release(out, w)
		}
	}
	return out
}

// refFSP differs from fsp only in Step's scans for members computing.
type refFSP struct{ fsp }

func (m *refFSP) Step(ev Event) ([]Effect, error) {
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
			out = m.trigger(out)
		}
		if len(m.inState(computing)) == 0 {
			return m.endRound(out, ev.Now), nil
		}
		if m.omitBlocks {
			return out, nil
		}
		return append(out, Effect{Kind: EfBlock, Worker: w.id, Waiting: m.inState(computing)}), nil
	case EvTick:
		if m.started && !m.triggered && m.interval != FullBatch && !m.local && ev.Now >= m.deadline {
			out = m.trigger(out)
		}
	case EvSetInterval:
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
		if m.started && len(m.inState(computing)) == 0 {
			return m.endRound(out, ev.Now), nil
		}
	case EvLeave:
		m.leave(w)
		if m.started && len(m.inState(computing)) == 0 {
			return m.endRound(out, ev.Now), nil
		}
	case EvStop:
		return m.stop(out), nil
	}
	return out, nil
}
