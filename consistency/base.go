package consistency

import (
	"cmp"
	"fmt"
	"slices"
)

// wstate is where a member is in its cycle.
type wstate uint8

const (
	// joining: joined, not yet released (waits for the next round).
	joining wstate = iota
	// computing: released, its commit not yet accepted.
	computing
	// waiting: committed, not yet released again.
	waiting
)

type member struct {
	id    WorkerID
	state wstate
	// next is the sequence number of the next commit (1-based).
	next uint64
	// clock is the clock being computed (computing) or the number of
	// clocks committed (joining, waiting).
	clock uint64
	// version is the version of the worker's latest release.
	version Version
	// first is the first clock the worker computed (a joiner's start).
	first uint64
}

// base holds what every model shares: membership, sequence checks, the
// version counter and pending (committed, unapplied) deltas.
type base struct {
	spec    Spec
	budget  int
	version Version
	stopped bool
	started bool
	ids     []WorkerID // members, ascending
	ms      map[WorkerID]*member
	// left remembers workers that left, so their late events are refused
	// with a clear reason and a rejoin gets fresh sequence numbers.
	left    map[WorkerID]uint64
	pending []DeltaID
	// ncomputing counts the members in state computing, so that a model
	// asks whether anyone computes in O(1) (setState keeps it).
	ncomputing int
	// omitBlocks is Config.OmitBlocks.
	omitBlocks bool
}

func (b *base) init(spec Spec, cfg Config) error {
	b.spec = spec
	b.budget = cfg.Batch
	b.omitBlocks = cfg.OmitBlocks
	b.ms = make(map[WorkerID]*member, len(cfg.Workers))
	b.left = make(map[WorkerID]uint64)
	for _, w := range cfg.Workers {
		if _, dup := b.ms[w]; dup {
			return fmt.Errorf("consistency: worker %d listed twice: %w", w, ErrConfig)
		}
		b.ms[w] = &member{id: w, next: 1}
		b.ids = append(b.ids, w)
	}
	slices.Sort(b.ids)
	return nil
}

func (b *base) Spec() Spec          { return b.spec }
func (b *base) Version() Version    { return b.version }
func (b *base) Members() []WorkerID { return slices.Clone(b.ids) }

func (b *base) refuse(ev Event, err error, format string, args ...any) error {
	return &EventError{Model: b.spec.String(), Event: ev, Reason: fmt.Sprintf(format, args...), Err: err}
}

// check validates ev against the common protocol and returns the member it
// names (nil for events without a worker). It changes nothing.
func (b *base) check(ev Event) (*member, error) {
	if b.stopped {
		return nil, b.refuse(ev, ErrStopped, "the run has stopped")
	}
	if ev.Kind == EvStart {
		if b.started {
			return nil, b.refuse(ev, ErrProtocol, "already started")
		}
		return nil, nil
	}
	if !b.started && ev.Kind != EvJoin && ev.Kind != EvLeave {
		return nil, b.refuse(ev, ErrProtocol, "the run has not started")
	}
	switch ev.Kind {
	case EvTick, EvStop:
		return nil, nil
	case EvSetInterval:
		if ev.Interval <= 0 && ev.Interval != FullBatch {
			return nil, b.refuse(ev, ErrProtocol, "interval %v is neither positive nor FullBatch", ev.Interval)
		}
		return nil, nil
	case EvJoin:
		if _, ok := b.ms[ev.Worker]; ok {
			return nil, b.refuse(ev, ErrProtocol, "worker %d is already a member", ev.Worker)
		}
		if last := b.left[ev.Worker]; ev.Seq != 0 && ev.Seq <= last {
			return nil, b.refuse(ev, ErrProtocol, "worker %d rejoins at commit %d; commit %d was already accepted", ev.Worker, ev.Seq, last)
		}
		return nil, nil
	case EvCommit, EvProgress, EvBatchReady, EvLeave:
	default:
		return nil, b.refuse(ev, ErrProtocol, "unknown event kind")
	}
	m, ok := b.ms[ev.Worker]
	if !ok {
		if _, gone := b.left[ev.Worker]; gone {
			return nil, b.refuse(ev, ErrUnknownWorker, "worker %d has left", ev.Worker)
		}
		return nil, b.refuse(ev, ErrUnknownWorker, "worker %d is not a member", ev.Worker)
	}
	switch ev.Kind {
	case EvCommit:
		switch {
		case ev.Seq < m.next:
			return nil, b.refuse(ev, ErrDuplicate, "commit %d of worker %d was already accepted", ev.Seq, ev.Worker)
		case m.state != computing:
			return nil, b.refuse(ev, ErrProtocol, "worker %d commits without a release", ev.Worker)
		case ev.Seq > m.next:
			return nil, b.refuse(ev, ErrProtocol, "worker %d skipped to commit %d; expected %d", ev.Worker, ev.Seq, m.next)
		case ev.Version != m.version:
			return nil, b.refuse(ev, ErrProtocol, "worker %d computed on version %d; it was released with %d", ev.Worker, ev.Version, m.version)
		case ev.Points < 0:
			return nil, b.refuse(ev, ErrProtocol, "negative point count %d", ev.Points)
		}
	case EvProgress:
		if m.state != computing {
			return nil, b.refuse(ev, ErrProtocol, "worker %d reports progress while not computing", ev.Worker)
		}
		if ev.Points < 0 {
			return nil, b.refuse(ev, ErrProtocol, "negative point count %d", ev.Points)
		}
	}
	return m, nil
}

// accept records a validated commit as pending.
func (b *base) accept(m *member, ev Event) {
	b.pending = append(b.pending, DeltaID{m.id, ev.Seq})
	m.next++
	m.clock++
	b.setState(m, waiting)
}

// setState moves m to state st, counting the members computing.
func (b *base) setState(m *member, st wstate) {
	if m.state == computing {
		b.ncomputing--
	}
	if st == computing {
		b.ncomputing++
	}
	m.state = st
}

// join adds a member in state joining at the given clock.
func (b *base) join(ev Event, clock uint64) *member {
	w, next := ev.Worker, b.left[ev.Worker]+1
	if ev.Seq != 0 {
		next = ev.Seq // validated: after the last accepted
	}
	m := &member{id: w, next: next, clock: clock, first: clock}
	delete(b.left, w)
	b.ms[w] = m
	i, _ := slices.BinarySearch(b.ids, w)
	b.ids = slices.Insert(b.ids, i, w)
	return m
}

// leave removes a member. Its pending deltas stay pending.
func (b *base) leave(m *member) {
	if m.state == computing {
		b.ncomputing--
	}
	b.left[m.id] = m.next - 1
	delete(b.ms, m.id)
	i, _ := slices.BinarySearch(b.ids, m.id)
	b.ids = slices.Delete(b.ids, i, i+1)
}

// apply turns the pending deltas, sorted by worker then sequence so that
// the merge order does not depend on arrival timing, into an Apply effect.
func (b *base) apply(out []Effect, final bool) []Effect {
	if len(b.pending) == 0 {
		return out
	}
	ds := slices.Clone(b.pending)
	slices.SortFunc(ds, compareDeltaID)
	b.pending = b.pending[:0]
	b.version++
	return append(out, Effect{Kind: EfApply, Version: b.version, Deltas: ds, Final: final})
}

// release sends m the latest version.
func (b *base) release(out []Effect, m *member) []Effect {
	b.setState(m, computing)
	m.version = b.version
	return append(out, Effect{Kind: EfRelease, Worker: m.id, Version: b.version, Clock: m.clock, Budget: b.budget})
}

// stop flushes the pending deltas.
func (b *base) stop(out []Effect) []Effect {
	b.stopped = true
	return b.apply(out, true)
}

func compareDeltaID(x, y DeltaID) int {
	if c := cmp.Compare(x.Worker, y.Worker); c != 0 {
		return c
	}
	return cmp.Compare(x.Seq, y.Seq)
}

// block appends the informational EfBlock of worker w, waiting for the
// members in waiting (called only when it is needed), unless the driver
// asked to omit blocks (Config.OmitBlocks).
func (b *base) block(out []Effect, w WorkerID, waiting func() []WorkerID) []Effect {
	if b.omitBlocks {
		return out
	}
	return append(out, Effect{Kind: EfBlock, Worker: w, Waiting: waiting()})
}

// inState lists the members in state st, ascending.
func (b *base) inState(st wstate) []WorkerID {
	var ws []WorkerID
	for _, w := range b.ids {
		if b.ms[w].state == st {
			ws = append(ws, w)
		}
	}
	return ws
}

// computingIDs lists the members computing, ascending.
func (b *base) computingIDs() []WorkerID { return b.inState(computing) }

func compareWorker(a, b WorkerID) int { return cmp.Compare(a, b) }
