package harness

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/syncmodels/syncmodels/arrival"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/transport"
)

// Data streams and K-grouping in real time (Experiment.Arrivals with
// Clock Real: goroutine workers and Remote ones; DOLL §III-A, Algorithms
// 1 to 4). The virtual-time version is stream.go's; this is the same
// protocol carried by messages.
//
//   - Each worker runs its own stream (Algorithm 1, the producer), in a
//     goroutine beside the one that computes (Algorithm 2): it sleeps on
//     the real clock until its next batch of b points is complete on its
//     up-time clock (arrival.Stream.Next, the λ_n of
//     Arrivals.RatesFor(Workers, Seed)), then sends a batch indicator
//     (transport.Batch naming the batch: 0, 1, 2, …). It resends every
//     indicator not yet acknowledged every Retry, oldest first; the
//     coordinator acknowledges cumulatively (a Batch message naming how
//     many of the worker's batches it has), so a lost acknowledgement
//     costs a retransmission, not a batch.
//   - The coordinator feeds each indicator to the model
//     (consistency.EvBatchReady, Algorithm 3) and records it
//     (Recorder.BatchReady) once the model accepts it. The model numbers
//     batches strictly: a retransmission of an announced batch is
//     ErrDuplicate, and one that overtook an earlier batch still on its
//     way (or lost) is refused; both are answered with the count, and
//     neither is recorded.
//   - A release names its first batch (Message.Batch, the model's
//     Effect.Batch) and covers Budget/b batches; the worker computes
//     exactly the points of those batches — batch j is points j·b …
//     (j+1)·b − 1 of its shard order, wrapping, as in virtual time — and
//     commits with the release's Batch echoed (the model checks it). Its
//     side of the trace (Recorder.SentFrom) names the batch it actually
//     computed from, so that Check compares the two.
//   - A worker is never released for a batch it has not announced; a
//     correct worker checks that it holds what it is released for, and
//     ends with an error otherwise (the coordinator's bug, not its own).
//
// The stop. The stream ends at the stop; a worker that is the current
// member records how many batches it produced (Recorder.Produced), sends
// the indicators the coordinator has not acknowledged until it has, and
// only then leaves (finish), so the coordinator's drain gets every batch
// produced, and Check holds its count to the worker's.
//
// Preemptions, crashes and rejoins. The stream's position outlives an
// incarnation, as DOLL's preempted workers "retain any samples received
// before the preemption": the coordinator's answer to every join names
// how many of the worker's batches it has (Message.Batch), and a new
// incarnation — a killed goroutine's successor, a restarted process —
// fast-forwards its stream to there (n calls of Next, deterministic per
// seed, worker and call) and continues on the real clock from the
// moment of the answer: its up-time clock reads the completion time of
// batch n−1 then. While a worker is down, nothing arrives. The batches
// it had been released for and not committed went back to the front of
// its queue in the model when it left (EvLeave), and are released to it
// again after it rejoins; those it had announced and not yet been
// released for wait in its queue, and do not count towards K while it is
// away. A worker whose lease ran out but which lives on (same process)
// keeps its stream and resends what the coordinator's count lacks.
//
// What a real preemption loses that a virtual one does not: the up-time
// between the last batch the coordinator got and the kill (a batch in
// progress, and indicators in flight) is not credited, since a killed
// process cannot say how far its stream had run; those batches complete
// again, from the coordinator's count, after the restore. Nothing is
// lost or counted twice — batch numbers come from the coordinator — but
// a preempted real worker's stream runs up to one batch's up-time per
// preemption behind the virtual one's.
//
// The stream of a worker's first incarnation starts when its first join
// is answered, which may be a little before the run's clock starts (once
// every worker has joined); indicators that come before the start are
// not answered, and are resent until they are.

// realStream is one real worker incarnation's stream: the producer's
// state, and what the worker shares with it.
type realStream struct {
	id, b int
	spec  *arrival.Spec
	seed  uint64
	n     int // workers, for the rates
	// joined carries the count of the latest join's answer to the
	// producer (latest, with kick signalled).
	joined atomic.Uint64
	kick   chan struct{}
	// produced is the number of batches complete at this incarnation's
	// stream (batches 0 … produced−1, the fast-forward included); acked
	// how many of them the coordinator has acknowledged.
	produced atomic.Uint64
	acked    atomic.Uint64
	// consumed is where the worker's own count of batches computed
	// stands (the restartStream mutation only; main loop only).
	consumed uint64
	// start is when the stream started on the real clock (Unix
	// nanoseconds; 0 before the first join's answer).
	start atomic.Int64
}

func newRealStream(e *Experiment, id int) *realStream {
	if e.Arrivals == nil {
		return nil
	}
	return &realStream{id: id, b: e.Batch, spec: e.Arrivals, seed: e.Seed, n: e.Workers, kick: make(chan struct{}, 1)}
}

// ack takes a cumulative acknowledgement: the coordinator has n of the
// worker's batches.
func (s *realStream) ack(n uint64) {
	for {
		a := s.acked.Load()
		if n <= a || s.acked.CompareAndSwap(a, n) {
			return
		}
	}
}

// join passes a join's answer (n batches announced) to the producer.
func (s *realStream) join(n uint64) {
	s.joined.Store(max(s.joined.Load(), n)) // only the main loop stores
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// maxResend bounds the indicators resent at once, oldest first.
const maxResend = 64

// produce is the worker's producer (Algorithm 1): it waits for the first
// join's answer, fast-forwards the stream to the coordinator's count,
// then announces each batch as it completes on the real clock, and
// resends the unacknowledged ones every Retry, until ctx ends.
func (w *realWorker) produce(ctx context.Context) error {
	s := w.stream
	rates, err := s.spec.RatesFor(s.n, s.seed)
	if err != nil {
		return configError("arrivals", err)
	}
	st, err := arrival.NewStream(s.spec.Dist, rates[s.id], s.b, s.seed, s.id)
	if err != nil {
		return configError("arrivals", err)
	}
	var (
		started bool
		origin  time.Time     // when the stream started on the real clock
		next    time.Duration // up-time at which batch produced completes
		up      time.Duration // up-time at origin: the fast-forward's end
		sentAt  time.Time     // when an indicator was last sent
	)
	batchT := time.NewTimer(time.Hour)
	batchT.Stop()
	defer batchT.Stop()
	retry := time.NewTicker(w.e.Retry)
	defer retry.Stop()
	arm := func() { batchT.Reset(max(time.Until(origin.Add(next-up)), 0)) }
	send := func(lo, hi uint64) error {
		for j := lo; j < hi && j < lo+maxResend; j++ {
			if err := w.sendBatch(ctx, j); err != nil {
				return err
			}
		}
		sentAt = time.Now()
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.kick:
			n := s.joined.Load()
			if !started {
				started = true
				if w.e.bugs.restartStream && w.inc.Load() > 1 {
					n = 0 // the deliberate bug: a new process starts its stream afresh
				}
				// Fast-forward to batch n: the up-time clock reads the
				// completion of batch n−1 now, and batch n completes at
				// next.
				next = st.Next()
				for range n {
					up, next = next, st.Next()
				}
				s.produced.Store(n)
				origin = time.Now()
				s.start.Store(origin.UnixNano())
				s.ack(n)
				arm()
				continue
			}
			// A live stream is never behind the coordinator's count (the
			// coordinator counts only what it announced): the answer
			// acknowledges, and what it lacks is resent.
			s.ack(n)
			if err := send(s.acked.Load(), s.produced.Load()); err != nil {
				return err
			}
		case <-batchT.C:
			if w.stopped.Load() {
				continue // the run's stream ends at the stop (finish)
			}
			// Every batch complete by now, in order.
			lo := s.produced.Load()
			for !origin.Add(next - up).After(time.Now()) {
				next = st.Next()
				s.produced.Add(1)
			}
			if err := send(lo, s.produced.Load()); err != nil {
				return err
			}
			arm()
		case <-retry.C:
			if w.e.bugs.noBatchResend {
				continue // the deliberate bug of a test
			}
			if a, p := s.acked.Load(), s.produced.Load(); a < p && time.Since(sentAt) >= w.e.Retry {
				if err := send(a, p); err != nil {
					return err
				}
			}
		}
	}
}

// sendBatches sends the indicators of batches lo … hi−1 (at most
// maxResend of them) after the stop, which sendBatch no longer does: the
// last ones the coordinator lacks, before the worker leaves (finish).
func (w *realWorker) sendBatches(ctx context.Context, lo, hi uint64) error {
	for j := lo; j < hi && j < lo+maxResend; j++ {
		if err := w.send(ctx, &transport.Message{Kind: transport.Batch, Batch: j}); err != nil {
			return err
		}
	}
	return nil
}

// sendBatch sends the indicator of batch j, unless the worker is between
// incarnations (rejoining: the indicator waits for the join's answer) or
// the run has stopped.
func (w *realWorker) sendBatch(ctx context.Context, j uint64) error {
	if w.stopped.Load() || w.joinedInc.Load() != w.inc.Load() {
		return nil
	}
	err := w.send(ctx, &transport.Message{Kind: transport.Batch, Batch: j})
	if errors.Is(err, transport.ErrClosed) || ctx.Err() != nil {
		return nil // the worker is ending: its main loop reports why
	}
	return err
}

// streamFrom returns the first batch the release m has the worker compute
// and how many, and checks that the worker holds them.
func (w *realWorker) streamFrom(m *transport.Message) (uint64, error) {
	s := w.stream
	k := uint64(m.Budget) / uint64(s.b)
	from := m.Batch
	if w.e.bugs.restartStream {
		// The deliberate bug: the worker computes from its own count of
		// the batches it computed, which a new process starts at 0.
		from = s.consumed
		s.consumed += k
		return from, nil
	}
	if m.Budget <= 0 || m.Budget%int64(s.b) != 0 {
		return 0, fmt.Errorf("harness: worker %d is released for %d points, not a positive multiple of the batch size %d", w.sh.id, m.Budget, s.b)
	}
	// It holds the batches its stream produced, and those the join's
	// answer counted (the producer may not have fast-forwarded yet).
	if p := max(s.produced.Load(), s.joined.Load()); from+k > p {
		return 0, fmt.Errorf("harness: worker %d is released for %d batches from batch %d; %d arrived at it",
			w.sh.id, k, from, p)
	}
	return from, nil
}

// batchReady handles a worker's batch indicator m (handle's, from a
// current member): the model takes it, or it is a retransmission or out
// of order; either way the worker hears how many of its batches the
// coordinator has.
func (rc *realCoord) batchReady(ctx context.Context, w consistency.WorkerID, m *transport.Message) error {
	now := rc.now()
	if rc.e.bugs.batchByCount {
		m.Batch = rc.batches[w] // the deliberate bug: number it by the coordinator's count
	}
	effs, err := rc.c.step(now, consistency.Event{Kind: consistency.EvBatchReady, Worker: w, Batch: m.Batch})
	switch {
	case errors.Is(err, consistency.ErrDuplicate) || err != nil && m.Batch > rc.batches[w]:
		// A retransmission, or a batch that overtook an earlier one still
		// on its way or lost: the worker resends from the count.
		return rc.ackBatches(ctx, m)
	case err != nil && rc.e.Remote:
		return rc.reject(ctx, m, 0, err.Error())
	case err != nil:
		return err
	}
	rc.c.rec.BatchReady(now, w, m.Batch)
	rc.batches[w]++
	if err := rc.ackBatches(ctx, m); err != nil {
		return err
	}
	return rc.afterRound(ctx, effs, false)
}

// ackBatches tells the worker of m how many of its batches the
// coordinator has.
func (rc *realCoord) ackBatches(ctx context.Context, m *transport.Message) error {
	n := rc.batches[m.From]
	if n == 0 {
		return nil // nothing to acknowledge yet
	}
	return rc.send(ctx, &transport.Message{Kind: transport.Batch, To: m.From, Job: rc.job, Incarnation: m.Incarnation, Batch: n})
}

// streamStats fills the workers' stream statistics from what the
// coordinator counted: the batches it got, those commits used, and (for
// goroutine workers) the time they were up.
func (rc *realCoord) streamStats() {
	if rc.e.Arrivals == nil {
		return
	}
	b := rc.e.Batch
	for i, sh := range rc.st.shards {
		s := &sh.stats
		s.Batches = int(rc.batches[i])
		s.Arrived = int64(rc.batches[i]) * int64(b)
		s.Queued = int(rc.batches[i] - rc.used[i])
		if !rc.e.Remote {
			s.Up = max(rc.timeUp-s.Down, 0)
		}
	}
}
