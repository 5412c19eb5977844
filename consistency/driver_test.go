package consistency_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/syncmodels/syncmodels/consistency"
)

// driver is the smallest correct driver: it carries out effects at once
// (a release is read immediately, an apply happens immediately) and
// records the trace. Tests feed it events by hand or at random.
type driver struct {
	m     consistency.Model
	trace consistency.Trace
	now   int
	// clock is the time of the latest tick, fed with every event.
	clock time.Duration
	// per worker: the release being computed, if any
	comp map[consistency.WorkerID]consistency.Effect
	next map[consistency.WorkerID]uint64
	// batches[w] is the number of batches w announced (KGroup).
	batches map[consistency.WorkerID]uint64
	// mutate, if set, may change effects before they are carried out
	// (tests of the checker use it to break the driver on purpose).
	mutate func([]consistency.Effect) []consistency.Effect
}

func newDriver(spec consistency.Spec, workers []consistency.WorkerID, batch int) (*driver, error) {
	m, err := consistency.New(spec, consistency.Config{Workers: workers, Batch: batch})
	if err != nil {
		return nil, err
	}
	return wrapDriver(m, workers), nil
}

func wrapDriver(m consistency.Model, workers []consistency.WorkerID) *driver {
	return &driver{m: m, trace: consistency.Trace{Spec: m.Spec(), Workers: slices.Clone(workers)},
		comp: map[consistency.WorkerID]consistency.Effect{}, next: map[consistency.WorkerID]uint64{}, batches: map[consistency.WorkerID]uint64{}}
}

func (d *driver) record(r consistency.Record) {
	d.now++
	r.At = time.Duration(d.now) * time.Millisecond
	d.trace.Add(r)
}

// step feeds ev, records what the driver does and returns the effects.
func (d *driver) step(ev consistency.Event) ([]consistency.Effect, error) {
	if ev.Kind == consistency.EvTick {
		d.clock = ev.Now
	}
	ev.Now = d.clock
	effs, err := d.m.Step(ev)
	if err != nil {
		return nil, err
	}
	switch ev.Kind {
	case consistency.EvCommit:
		rel := d.comp[ev.Worker]
		delete(d.comp, ev.Worker)
		d.next[ev.Worker] = ev.Seq + 1
		d.record(consistency.Record{Kind: consistency.RecCommit, Worker: ev.Worker, Seq: ev.Seq,
			Clock: rel.Clock, Version: ev.Version, Points: ev.Points, Batch: ev.Batch})
	case consistency.EvBatchReady:
		d.batches[ev.Worker] = max(d.batches[ev.Worker], ev.Batch+1)
		d.record(consistency.Record{Kind: consistency.RecBatch, Worker: ev.Worker, Batch: ev.Batch})
	case consistency.EvJoin:
		d.record(consistency.Record{Kind: consistency.RecJoin, Worker: ev.Worker})
	case consistency.EvLeave:
		delete(d.comp, ev.Worker)
		d.record(consistency.Record{Kind: consistency.RecLeave, Worker: ev.Worker})
	}
	if d.mutate != nil {
		effs = d.mutate(effs)
	}
	for _, e := range effs {
		switch e.Kind {
		case consistency.EfApply:
			d.record(consistency.Record{Kind: consistency.RecApply, Version: e.Version, Deltas: e.Deltas, Final: e.Final})
		case consistency.EfRelease:
			d.comp[e.Worker] = e
			r := consistency.Record{Kind: consistency.RecRead, Worker: e.Worker, Clock: e.Clock, Version: e.Version}
			if e.Batches > 0 {
				r.Batch, r.Batches, r.Points = e.Batch, e.Batches, e.Budget
			}
			d.record(r)
		}
	}
	if ev.Kind == consistency.EvStop {
		d.record(consistency.Record{Kind: consistency.RecStop})
	}
	return effs, nil
}

// commit commits the release w is computing.
func (d *driver) commit(w consistency.WorkerID) ([]consistency.Effect, error) {
	rel, ok := d.comp[w]
	if !ok {
		return nil, fmt.Errorf("worker %d is not computing", w)
	}
	seq := d.next[w]
	if seq == 0 {
		seq = 1
	}
	return d.step(consistency.Event{Kind: consistency.EvCommit, Worker: w, Seq: seq, Version: rel.Version, Points: max(rel.Budget, 1), Batch: rel.Batch})
}

// announce announces w's next batch.
func (d *driver) announce(w consistency.WorkerID) ([]consistency.Effect, error) {
	return d.step(consistency.Event{Kind: consistency.EvBatchReady, Worker: w, Batch: d.batches[w]})
}

// computing lists the workers computing, ascending.
func (d *driver) computing() []consistency.WorkerID {
	var ws []consistency.WorkerID
	for w := range d.comp {
		ws = append(ws, w)
	}
	slices.Sort(ws)
	return ws
}

// random runs n random events: commits of random computing workers
// (stragglers, workers 0 and 1, commit four times less often), and with
// churn, joins and leaves; then stop.
func (d *driver) random(rng *rand.Rand, n int, churn bool) error {
	if _, err := d.step(consistency.Event{Kind: consistency.EvStart}); err != nil {
		return err
	}
	nextID := consistency.WorkerID(100)
	for range n {
		ws := d.computing()
		if rng.IntN(10) == 0 {
			if _, err := d.step(consistency.Event{Kind: consistency.EvTick, Now: d.clock + time.Duration(rng.IntN(300))*time.Millisecond}); err != nil {
				return err
			}
			continue
		}
		if churn && rng.IntN(20) == 0 {
			members := d.m.Members()
			if len(members) > 2 && rng.IntN(2) == 0 {
				w := members[rng.IntN(len(members))]
				if _, err := d.step(consistency.Event{Kind: consistency.EvLeave, Worker: w}); err != nil {
					return err
				}
			} else {
				if _, err := d.step(consistency.Event{Kind: consistency.EvJoin, Worker: nextID}); err != nil {
					return err
				}
				nextID++
			}
			continue
		}
		if len(ws) == 0 {
			return fmt.Errorf("deadlock: nobody computing, members %v", d.m.Members())
		}
		w := ws[rng.IntN(len(ws))]
		if w <= 1 && rng.IntN(4) != 0 {
			continue
		}
		if _, err := d.commit(w); err != nil {
			return err
		}
	}
	_, err := d.step(consistency.Event{Kind: consistency.EvStop})
	return err
}
