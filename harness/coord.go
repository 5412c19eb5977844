package harness

import (
	"fmt"
	"slices"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
)

// coordinator is the state every runtime shares on the coordinator side:
// the sync-model core, the server, the committed deltas awaiting their
// apply, the trace and the objective snapshots. It is driven by one
// goroutine; it never blocks and never reads a clock (times come in as
// arguments).
type coordinator struct {
	alg    algorithms.Algorithm
	layout algorithms.Layout
	model  consistency.Model
	srv    algorithms.Server
	// rec records the trace: the coordinator's side here, the workers'
	// side in each runtime's workers (Trace.WorkerSide).
	rec    *consistency.Recorder
	deltas map[consistency.DeltaID]*algorithms.Delta
	free   []*algorithms.Delta
	merged *algorithms.Delta
	// params is an immutable copy of the current version's θ, shared by
	// every release of that version.
	params []float64
	snaps  []snapshot
	points int64 // points in applied deltas
	// applied counts the entries merged by the last apply, for its cost.
	applied int
	// ISP: held[id] is what the worker of commit id holds back after the
	// step (recorded right after the commit), and flush collects leaving
	// workers' held updates until the next apply merges them.
	held  map[consistency.DeltaID]*consistency.Held
	flush *algorithms.Delta
	// onApply, if set, sees every apply effect carried out.
	onApply func(consistency.Effect)
}

type snapshot struct {
	t       time.Duration
	version consistency.Version
	points  int64
	theta   []float64
}

func newCoordinator(e *Experiment, theta0 []float64, workers []consistency.WorkerID) (*coordinator, error) {
	// No runtime acts on the informational blocks: omitting them saves a
	// list of the members computing per commit.
	model, err := consistency.New(e.Sync, consistency.Config{Workers: workers, Batch: e.Batch, OmitBlocks: true})
	if err != nil {
		return nil, configError("sync model", err)
	}
	srv, err := e.Algorithm.NewServer(theta0)
	if err != nil {
		return nil, err
	}
	l := e.Algorithm.Layout()
	rec := consistency.NewRecorder(e.Sync, workers, true)
	if e.DiscardTrace {
		rec.CheckOnly()
	}
	return &coordinator{
		alg: e.Algorithm, layout: l, model: model, srv: srv,
		rec:    rec,
		deltas: map[consistency.DeltaID]*algorithms.Delta{},
		held:   map[consistency.DeltaID]*consistency.Held{},
		merged: algorithms.NewDelta(l),
		params: slices.Clone(srv.Params()),
	}, nil
}

// newDelta returns an empty delta, reusing applied ones.
func (c *coordinator) newDelta() *algorithms.Delta {
	if n := len(c.free); n > 0 {
		d := c.free[n-1]
		c.free = c.free[:n-1]
		d.Reset()
		return d
	}
	return algorithms.NewDelta(c.layout)
}

// step feeds ev to the model, carries out its Apply effects at once and
// returns the others (releases, blocks) for the runtime to deliver.
func (c *coordinator) step(now time.Duration, ev consistency.Event) ([]consistency.Effect, error) {
	ev.Now = now
	effs, err := c.model.Step(ev)
	if err != nil {
		return nil, err
	}
	switch ev.Kind {
	case consistency.EvJoin:
		c.rec.JoinedFrom(now, ev.Worker, ev.Seq)
	case consistency.EvLeave:
		c.rec.Left(now, ev.Worker)
	}
	return c.carry(now, ev, effs)
}

// leave feeds worker w's leave to the model, recording why it left, and
// returns the effects as step does.
func (c *coordinator) leave(now time.Duration, w consistency.WorkerID, reason string) ([]consistency.Effect, error) {
	ev := consistency.Event{Kind: consistency.EvLeave, Worker: w, Now: now}
	effs, err := c.model.Step(ev)
	if err != nil {
		return nil, err
	}
	c.rec.LeftBecause(now, w, reason)
	return c.carry(now, ev, effs)
}

// carry carries out the Apply effects of the model's answer to ev and
// returns the others.
func (c *coordinator) carry(now time.Duration, ev consistency.Event, effs []consistency.Effect) ([]consistency.Effect, error) {
	out := effs[:0]
	c.applied = 0
	for _, e := range effs {
		if e.Kind != consistency.EfApply {
			out = append(out, e)
			continue
		}
		if err := c.apply(now, e); err != nil {
			return nil, err
		}
	}
	if ev.Kind == consistency.EvStop {
		if c.flush != nil {
			// No round was left to carry a leaver's flush: add it now.
			if err := c.srv.Apply(c.flush); err != nil {
				return nil, fmt.Errorf("harness: flush at the stop: %w", err)
			}
			c.flush = nil
			c.params = slices.Clone(c.srv.Params())
		}
		c.rec.Stopped(now)
	}
	return out, nil
}

// commit validates a worker's delta, feeds the commit to the model and
// keeps the delta until its apply. A refused delta (wrong layout,
// non-finite entry) or commit leaves every state unchanged.
func (c *coordinator) commit(now time.Duration, w consistency.WorkerID, seq, clock uint64, v consistency.Version, batch uint64, d *algorithms.Delta) ([]consistency.Effect, error) {
	if err := algorithms.CheckApply(c.layout, d); err != nil {
		return nil, fmt.Errorf("harness: worker %d commit %d: %w", w, seq, err)
	}
	id := consistency.DeltaID{Worker: w, Seq: seq}
	if _, dup := c.deltas[id]; dup {
		return nil, fmt.Errorf("harness: worker %d commit %d is already held: %w", w, seq, consistency.ErrDuplicate)
	}
	ev := consistency.Event{Kind: consistency.EvCommit, Worker: w, Seq: seq, Version: v, Points: d.Count, Batch: batch, Now: now}
	effs, err := c.model.Step(ev)
	if err != nil {
		return nil, err
	}
	c.deltas[id] = d
	c.rec.Accepted(now, ev, clock)
	if h := c.held[id]; h != nil {
		c.rec.Held(now, w, clock, h)
		delete(c.held, id)
	}
	return c.carry(now, ev, effs)
}

func (c *coordinator) apply(now time.Duration, e consistency.Effect) error {
	c.merged.Reset()
	for _, id := range e.Deltas {
		d, ok := c.deltas[id]
		if !ok {
			return fmt.Errorf("harness: apply of version %d: delta %v is not held", e.Version, id)
		}
		c.applied += d.Live()
		if err := c.merged.Merge(d); err != nil {
			return fmt.Errorf("harness: apply of version %d: %w", e.Version, err)
		}
	}
	if c.flush != nil {
		// ISP: leaving workers' held updates ride on this apply.
		c.applied += c.flush.Live()
		if err := c.merged.Merge(c.flush); err != nil {
			return fmt.Errorf("harness: apply of version %d: %w", e.Version, err)
		}
		c.flush = nil
	}
	if err := c.srv.Apply(c.merged); err != nil {
		return fmt.Errorf("harness: apply of version %d (%v): %w", e.Version, e.Deltas, err)
	}
	for _, id := range e.Deltas {
		c.free = append(c.free, c.deltas[id])
		delete(c.deltas, id)
	}
	c.points += int64(c.merged.Count)
	c.params = slices.Clone(c.srv.Params())
	c.applied += len(c.params)
	c.rec.Applied(now, e)
	if c.onApply != nil {
		c.onApply(e)
	}
	return nil
}

// addFlush keeps a leaving worker's flushed updates for the next apply.
func (c *coordinator) addFlush(fl *algorithms.Delta) error {
	if c.flush == nil {
		c.flush = fl
		return nil
	}
	return c.flush.Merge(fl)
}

// read records that worker w started computing the release e.
func (c *coordinator) read(now time.Duration, e consistency.Effect) {
	c.rec.Released(now, e)
}

// snapshot keeps the current parameters for a later objective evaluation.
func (c *coordinator) snapshot(now time.Duration) {
	if n := len(c.snaps); n > 0 && c.snaps[n-1].t == now {
		return
	}
	c.snaps = append(c.snaps, snapshot{t: now, version: c.model.Version(), points: c.points, theta: c.params})
}
