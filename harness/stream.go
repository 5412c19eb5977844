package harness

import (
	"fmt"
	"slices"
	"time"

	"github.com/syncmodels/syncmodels/arrival"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/transport"
)

// Data streams and K-grouping in virtual time (Experiment.Arrivals; DOLL
// §III-A, Algorithms 1 to 4).
//
// Worker n's points arrive as a renewal process of rate λ_n
// (arrival.Spec.RatesFor draws or takes the rates, arrival.Stream the
// arrival times). The process runs on the worker's up-time clock: it
// receives nothing while preempted, and the points it had received stay
// queued (DOLL §III-A: preempted workers "retain any samples received
// before the preemption"). When b = Experiment.Batch points have arrived
// since its last batch, the worker sends a batch indicator to the
// coordinator (Algorithm 1), which feeds consistency.EvBatchReady; the
// K-grouping model releases the workers holding the next K batches
// (Algorithm 4) with the index of the first batch each computes, and the
// worker computes exactly those points: batch j of worker n is points
// j·b … (j+1)·b − 1 of its shard order, wrapping round (the stream is
// the shard traversed again and again; DOLL makes repeated samples
// unique with random transforms, this module does not).
//
// Batches a preempted worker was computing return to its queue in the
// model and are computed after it is back: the release names the batch,
// so the worker restarts from the right point whatever it had done.

// Provisioning revises during a run which workers are preemptible, as
// DOLL's adaptive method does when the spot price changes (§V-C).
type Provisioning struct {
	// At are the times to revise at (spot price changes), ascending.
	At []time.Duration
	// Revise sees what the run observed up to now and returns the
	// workers to run on preemptible instances from now on. A worker
	// moved to on demand that is preempted comes back at once (a new
	// on-demand instance); a worker moved to preemptible starts a fresh
	// availability chain, available. An error ends the run.
	Revise func(Observation) ([]int, error)
}

// Observation is what a run has observed of its workers, for
// Provisioning.Revise.
type Observation struct {
	Now     time.Duration
	Workers []WorkerObservation
}

// WorkerObservation is one worker's tally: the points that arrived
// while it was up, its up time, and its time available and preempted
// while preemptible (for α).
type WorkerObservation struct {
	Preemptible bool
	Arrived     int64
	Up          time.Duration
	// SpotUp and SpotDown are the time the worker was available and
	// preempted while on a preemptible instance.
	SpotUp, SpotDown time.Duration
	// Preemptions counts its preemptions.
	Preemptions int
}

// InstanceSpan is a stretch of a worker's life on one kind of instance
// in one state. A preemptible instance is billed only while available
// (DOLL §IV-B); an on-demand one all the time.
type InstanceSpan struct {
	Worker      int
	From, To    time.Duration
	Preemptible bool
	Available   bool
}

// validateStream checks Arrivals, K-grouping, Preemptible and Provision.
func (e *Experiment) validateStream() error {
	kg := e.Sync.Kind == consistency.KGroup
	switch {
	case kg && e.Arrivals == nil:
		return fmt.Errorf("harness: %v needs data streams (Experiment.Arrivals): K-grouping groups the batches that arrive: %w", e.Sync, ErrConfig)
	case e.Arrivals != nil && !kg:
		return fmt.Errorf("harness: data streams (Arrivals) run under K-grouping (kgroup:K), not %v: %w", e.Sync, ErrConfig)
	case e.Arrivals != nil && e.Batch <= 0:
		return fmt.Errorf("harness: data streams need a batch size b > 0 (Experiment.Batch): %w", ErrConfig)
	case kg && (e.Replicas || e.Tuner != nil || e.ScaleIn != nil || e.Indirect != nil || e.Migrate != nil):
		return fmt.Errorf("harness: K-grouping runs without Replicas, an interval tuner, scale-in, indirect communication and data migration: %w", ErrConfig)
	case (e.Preemptible != nil || e.Provision != nil) && e.Preempt == nil:
		return fmt.Errorf("harness: Preemptible and Provision need Preempt (the availability chain): %w", ErrConfig)
	case (e.Preemptible != nil || e.Provision != nil) && e.Clock != Virtual:
		return fmt.Errorf("harness: Preemptible and Provision run on the virtual clock only: %w", ErrConfig)
	case e.Provision != nil && e.Provision.Revise == nil:
		return fmt.Errorf("harness: Provision without a Revise function: %w", ErrConfig)
	}
	if e.Arrivals != nil {
		if err := e.Arrivals.Validate(e.Workers); err != nil {
			return configError("arrivals", err)
		}
	}
	if err := checkWorkerSet("Preemptible", e.Preemptible, e.Workers); err != nil {
		return err
	}
	if p := e.Provision; p != nil && !slices.IsSorted(p.At) {
		return fmt.Errorf("harness: Provision.At is not ascending: %w", ErrConfig)
	}
	return nil
}

// checkWorkerSet checks that ws are distinct workers among 0..n-1.
func checkWorkerSet(what string, ws []int, n int) error {
	seen := make(map[int]bool, len(ws))
	for _, w := range ws {
		if w < 0 || w >= n {
			return fmt.Errorf("harness: %s: worker %d not among workers 0..%d: %w", what, w, n-1, ErrConfig)
		}
		if seen[w] {
			return fmt.Errorf("harness: %s: worker %d listed twice: %w", what, w, ErrConfig)
		}
		seen[w] = true
	}
	return nil
}

// streams is the simulator's arrival state, one entry per worker.
type streams struct {
	b      int
	rates  []float64
	st     []*arrival.Stream
	next   []time.Duration // up-time at which the next batch completes
	up     []time.Duration // up-time accumulated before the current up period
	since  []time.Duration // start of the current up period
	gen    []uint64        // invalidates a scheduled batch after a preemption
	batch  []uint64        // index of the next batch to complete
	used   []uint64        // batches in the commits the coordinator accepted
	pos    []uint64        // the batch after the last one the worker computed
	closed []bool          // down: the clock is stopped
}

func (s *sim) newStreams() (*streams, error) {
	e := s.e
	if e.Arrivals == nil {
		return nil, nil
	}
	n := len(s.st.shards)
	rates, err := e.Arrivals.RatesFor(n, e.Seed)
	if err != nil {
		return nil, configError("arrivals", err)
	}
	ss := &streams{b: e.Batch, rates: rates, st: make([]*arrival.Stream, n), next: make([]time.Duration, n),
		up: make([]time.Duration, n), since: make([]time.Duration, n), gen: make([]uint64, n),
		batch: make([]uint64, n), used: make([]uint64, n), pos: make([]uint64, n), closed: make([]bool, n)}
	for w := range n {
		if ss.st[w], err = arrival.NewStream(e.Arrivals.Dist, rates[w], e.Batch, e.Seed, w); err != nil {
			return nil, configError("arrivals", err)
		}
		ss.next[w] = ss.st[w].Next()
		s.push(&simEvent{t: ss.next[w], kind: simBatch, w: consistency.WorkerID(w), gen: 0})
	}
	return ss, nil
}

// batchDone handles a worker's batch completing: it sends the batch
// indicator and schedules the next batch.
func (s *sim) batchDone(ev *simEvent) {
	ss := s.streams
	w := ev.w
	if ss.closed[w] || ev.gen != ss.gen[w] {
		return // the worker was preempted first
	}
	j := ss.batch[w]
	ss.batch[w]++
	m := transport.Message{Kind: transport.Batch, From: transport.NodeID(w), To: transport.Coordinator, Job: s.e.Seed, Batch: j}
	s.push(&simEvent{t: s.transmit(&s.in, s.now, m.Size(), w), kind: simBatchReady, w: w, batch: j})
	ss.next[w] = ss.st[w].Next()
	s.push(&simEvent{t: ss.since[w] + ss.next[w] - ss.up[w], kind: simBatch, w: w, gen: ss.gen[w]})
}

// batchReady feeds a batch indicator that reached the coordinator.
func (s *sim) batchReady(ev *simEvent) error {
	c := s.st.coord
	effs, err := c.step(s.now, consistency.Event{Kind: consistency.EvBatchReady, Worker: ev.w, Batch: ev.batch})
	if err != nil {
		return err
	}
	c.rec.BatchReady(s.now, ev.w, ev.batch)
	s.busy = s.now + time.Duration(c.applied)*s.e.Cost.EntryCost
	return s.afterRound(s.busy, effs, false)
}

// pauseStream stops worker w's arrival clock at a preemption.
func (ss *streams) pause(w consistency.WorkerID, now time.Duration) {
	if ss == nil || ss.closed[w] {
		return
	}
	ss.up[w] += now - ss.since[w]
	ss.gen[w]++
	ss.closed[w] = true
}

// resume restarts worker w's arrival clock at a restore and schedules its
// next batch.
func (s *sim) resumeStream(w consistency.WorkerID) {
	ss := s.streams
	if ss == nil || !ss.closed[w] {
		return
	}
	ss.closed[w] = false
	ss.since[w] = s.now
	if s.e.bugs.ownBatch {
		ss.pos[w] = 0 // a new process starts at the beginning
	}
	s.push(&simEvent{t: s.now + ss.next[w] - ss.up[w], kind: simBatch, w: w, gen: ss.gen[w]})
}

// upTime is worker w's time available so far.
func (ss *streams) upTime(w int, now time.Duration) time.Duration {
	if ss.closed[w] {
		return ss.up[w]
	}
	return ss.up[w] + now - ss.since[w]
}

// endStreams fills the workers' arrival statistics at the end of the run.
func (s *sim) endStreams() {
	ss := s.streams
	if ss == nil {
		return
	}
	for w, sh := range s.st.shards {
		sh.stats.Batches = int(ss.batch[w])
		sh.stats.Arrived = int64(ss.batch[w]) * int64(ss.b)
		sh.stats.Queued = int(ss.batch[w] - ss.used[w])
		sh.stats.Up = ss.upTime(w, s.now)
	}
}
