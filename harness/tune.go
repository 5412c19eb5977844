package harness

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/interval"
)

// tuning drives an interval.Tuner (FSP §3.3) at the rounds of an FSP run:
// it sets the barrier interval each OpRun asks for, counts the rounds,
// measures the objective (on a fixed seeded sample of the data, so that a
// report does not cost a pass), the elapsed time and the barrier cost φ
// (from the barrier's initiation — the first interrupt of the round — to
// the release), and carries out OpCheckpoint and OpRollback between
// rounds, when every worker is idle.
type tuning struct {
	t       interval.Tuner
	req     interval.Request
	iters   int
	start   time.Duration
	phi     time.Duration
	trigger time.Duration // when the round's barrier was initiated, -1 before
	sample  *sampler
	saved   *saved
	log     []IntervalPoint
	// probing: the last request was OpCheckpoint or OpRollback, so the
	// next OpRun is a probe.
	probing bool
}

// IntervalPoint is an interval a tuner chose, from time T on.
type IntervalPoint struct {
	T        time.Duration
	Interval time.Duration // consistency.FullBatch for a full-batch round
	// Probe marks a probe: a run the tuner asked for right after a
	// checkpoint or a rollback (FSPV's two probes of a stage, §3.3). The
	// first probe's progress is rolled back: the objective snapshots taken
	// during it show the checkpoint's parameters.
	Probe bool
}

// saved is a checkpoint of a run between rounds.
type saved struct {
	version consistency.Version
	server  algorithms.Checkpoint
	workers []algorithms.Checkpoint
	cursors []int
	params  []float64
	// migration is the data migration's state (simulator), nil without.
	migration *migSaved
	// snaps is how many objective snapshots had been taken: those after
	// it are of parameters a rollback undoes.
	snaps int
}

// tuneHost is what a runtime provides to the tuning.
type tuneHost interface {
	// setInterval feeds EvSetInterval and carries out its effects.
	setInterval(now, eta time.Duration) error
	checkpoint() (*saved, error)
	rollback(now time.Duration, s *saved) error
}

func newTuning(e *Experiment, st *setupState) (*tuning, error) {
	if e.Tuner == nil {
		return nil, nil
	}
	if e.Sync.Kind != consistency.FSP {
		return nil, fmt.Errorf("harness: an interval tuner needs an FSP sync model, not %v: %w", e.Sync, ErrConfig)
	}
	return &tuning{t: e.Tuner, trigger: -1, sample: st.sample}, nil
}

// objective is f(θ) on the sample.
func (t *tuning) objective(theta []float64) float64 { return t.sample.objective(theta) }

// interrupted notes a barrier initiation at now: the coordinator's
// interrupts, or under semi-centralized coordination a worker's local
// timer firing (or its pass ending first). The round's barrier begins at
// the earliest one (interval.Report.BarrierCost).
func (t *tuning) interrupted(now time.Duration) {
	if t.trigger < 0 || now < t.trigger {
		t.trigger = now
	}
}

// begin asks for the first request, after the model's start.
func (t *tuning) begin(now time.Duration, params []float64, h tuneHost) error {
	return t.next(now, params, h)
}

// roundEnd is called after every round's apply, before its releases go out.
func (t *tuning) roundEnd(now time.Duration, params []float64, h tuneHost) error {
	if t.trigger >= 0 {
		t.phi += now - t.trigger
	}
	t.trigger = -1
	t.iters++
	if t.iters < t.req.Iterations {
		return nil
	}
	rep := interval.Report{Objective: t.objective(params), Elapsed: now - t.start,
		BarrierCost: t.phi / time.Duration(t.iters), Iterations: t.iters}
	if err := t.t.Observe(rep); err != nil {
		return fmt.Errorf("harness: interval tuner: %w", err)
	}
	return t.next(now, params, h)
}

// next carries out requests until an OpRun is under way.
func (t *tuning) next(now time.Duration, params []float64, h tuneHost) error {
	for {
		req, err := t.t.Next()
		if err != nil {
			return fmt.Errorf("harness: interval tuner: %w", err)
		}
		t.req = req
		switch req.Op {
		case interval.OpRun:
			eta := req.Interval
			if eta == interval.FullPass {
				eta = consistency.FullBatch
			}
			t.iters, t.phi, t.start = 0, 0, now
			p := IntervalPoint{T: now, Interval: eta, Probe: t.probing}
			if n := len(t.log); n == 0 || p.Probe || t.log[n-1].Interval != eta || t.log[n-1].Probe {
				t.log = append(t.log, p)
			}
			t.probing = false
			return h.setInterval(now, eta)
		case interval.OpCheckpoint:
			if t.saved, err = h.checkpoint(); err != nil {
				return err
			}
			err = t.t.Observe(interval.Report{Objective: t.objective(t.saved.params)})
			t.probing = true
		case interval.OpRollback:
			if t.saved == nil {
				return errors.New("harness: interval tuner asked for a rollback before any checkpoint")
			}
			if err := h.rollback(now, t.saved); err != nil {
				return err
			}
			err = t.t.Observe(interval.Report{})
			t.probing = true
		default:
			return fmt.Errorf("harness: interval tuner asked for unknown op %v", req.Op)
		}
		if err != nil {
			return fmt.Errorf("harness: interval tuner: %w", err)
		}
	}
}

// checkpointShards saves the server and every worker (state and cursor);
// it is the simulator's checkpoint, taken between rounds.
func checkpointShards(c *coordinator, shards []*shard) (*saved, error) {
	sc, ok := c.srv.(algorithms.Checkpointer)
	if !ok {
		return nil, fmt.Errorf("harness: %s server cannot checkpoint (it does not implement algorithms.Checkpointer), which the interval tuner needs: %w", c.alg.Name(), ErrConfig)
	}
	s := &saved{version: c.model.Version(), server: sc.Checkpoint(), params: c.params, snaps: len(c.snaps)}
	for _, sh := range shards {
		wc, ok := sh.w.(algorithms.Checkpointer)
		if !ok {
			return nil, fmt.Errorf("harness: %s worker cannot checkpoint (it does not implement algorithms.Checkpointer), which the interval tuner needs: %w", c.alg.Name(), ErrConfig)
		}
		s.workers = append(s.workers, wc.Checkpoint())
		s.cursors = append(s.cursors, sh.cursor)
	}
	return s, nil
}

// restoreShards returns the server and workers to s and records it. The
// objective snapshots taken since the checkpoint become snapshots of the
// checkpoint's parameters: the progress they showed is undone, and a
// time to target must not count it.
func restoreShards(now time.Duration, c *coordinator, shards []*shard, s *saved) error {
	if err := c.srv.(algorithms.Checkpointer).Restore(s.server); err != nil {
		return fmt.Errorf("harness: rollback: %w", err)
	}
	for i, sh := range shards {
		if err := sh.w.(algorithms.Checkpointer).Restore(s.workers[i]); err != nil {
			return fmt.Errorf("harness: rollback of worker %d: %w", i, err)
		}
		sh.cursor = s.cursors[i]
	}
	c.params = slices.Clone(c.srv.Params())
	for i := s.snaps; i < len(c.snaps); i++ {
		c.snaps[i].theta, c.snaps[i].version = s.params, s.version
	}
	c.rec.RolledBack(now, s.version)
	return nil
}
