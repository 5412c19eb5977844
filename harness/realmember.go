package harness

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/transport"
)

// Membership in the real runtime. Every worker message carries the
// worker's incarnation; the coordinator keeps each worker's current one.
//
//   - A worker joins (Join, Seq = the last commit it sent) and the
//     coordinator answers with a Join whose Seq is the last commit it
//     accepted from the worker, so a rejoining worker knows whether the
//     commit it had in flight counted. Before the run starts, every
//     worker must join once; the run's clock starts when all have.
//   - Every message of a member's current incarnation renews its lease.
//     When a lease ends, the model sees the worker leave (EvLeave) and
//     the trace's leave record says so; rounds go on without it.
//   - A message of an incarnation that is not a member any more is
//     refused with a Reject naming the next incarnation: the worker
//     rejoins as it (EvJoin, with the sequence number of its next
//     commit, past any commit never accepted). A Join of a later
//     incarnation replaces a current one that is still a member.
//   - A worker with per-point state (algorithms.HasState) that lost it,
//     a restarted process whose last commit sent is older than the last
//     accepted, is refused for good: its points' contributions are in
//     the server, and it would add them again.
//   - Messages of another job or from an unknown worker are refused
//     (Reject without a next incarnation) and counted (Result.Rejected);
//     nothing they carry is applied. So are messages of an incarnation
//     older than the worker's current one, but silently: a later
//     incarnation joined since, over the worker's link (a transport
//     keeps one endpoint per node), so an answer would reach that later
//     incarnation, not the sender — a preempted worker's last commit
//     still in flight when its successor has joined, for instance.
//   - A Join that comes once the run's time is up is answered with Stop.

// register waits until every worker has joined once, answering each
// Join, then starts the run's clock.
func (rc *realCoord) register(ctx context.Context) error {
	n, joined := len(rc.inc), 0
	deadline := time.Now().Add(rc.e.JoinTimeout)
	for joined < n {
		rctx, cancel := context.WithDeadline(ctx, deadline)
		m, err := rc.ep.Recv(rctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, context.DeadlineExceeded):
			var missing []int
			for i, inc := range rc.inc {
				if inc == 0 {
					missing = append(missing, i)
				}
			}
			return fmt.Errorf("harness: %d of %d workers joined within %v; missing %v: %w", joined, n, rc.e.JoinTimeout, missing, ErrConfig)
		case err != nil:
			return fmt.Errorf("harness: coordinator receive: %w", err)
		}
		if m.Job != rc.job || m.From < 0 || int(m.From) >= n {
			rc.rejected++
			if err := rc.reject(ctx, m, 0, fmt.Sprintf("unknown job %d or worker %v", m.Job, m.From)); err != nil {
				return err
			}
			continue
		}
		w := int(m.From)
		switch {
		case m.Kind != transport.Join:
			continue // a heartbeat before the answer to its join
		case m.Incarnation < rc.inc[w] || m.Incarnation == 0:
			rc.rejected++
			if err := rc.reject(ctx, m, 0, fmt.Sprintf("incarnation %d of worker %d is stale: %d joined", m.Incarnation, w, rc.inc[w])); err != nil {
				return err
			}
			continue
		case rc.inc[w] == 0:
			joined++
		}
		// Before the start every worker is a member of the model
		// already, and nothing was committed.
		rc.inc[w], rc.member[w] = m.Incarnation, true
		if err := rc.journal(journalRecord{kind: jRegistered, worker: w, inc: m.Incarnation}); err != nil {
			return err
		}
		if err := rc.answerJoin(ctx, w); err != nil {
			return err
		}
	}
	rc.clock.Store(time.Now().UnixNano())
	for i := range rc.lease {
		rc.lease[i] = rc.e.Lease
	}
	if rc.e.OnStart != nil {
		rc.e.OnStart(time.Unix(0, rc.clock.Load()))
	}
	if rc.started != nil {
		close(rc.started)
	}
	return nil
}

func (rc *realCoord) answerJoin(ctx context.Context, w int) error {
	return rc.out(ctx, &transport.Message{Kind: transport.Join, To: transport.NodeID(w), Job: rc.job,
		Incarnation: rc.inc[w], Seq: rc.accepted[w], Batch: rc.batches[w]})
}

// reject refuses m; next, if not 0, is the incarnation the worker may
// rejoin as.
func (rc *realCoord) reject(ctx context.Context, m *transport.Message, next uint32, reason string) error {
	r := &transport.Message{Kind: transport.Reject, To: m.From, Job: rc.job, Incarnation: next, Seq: m.Seq, Reason: reason}
	if !m.From.Valid() || m.From == transport.Coordinator {
		return nil
	}
	err := rc.out(ctx, r)
	if errors.Is(err, transport.ErrUnknownNode) || errors.Is(err, transport.ErrMalformed) {
		return nil // nowhere to answer
	}
	return err
}

// current reports whether m comes from a member's current incarnation.
func (rc *realCoord) current(m *transport.Message) bool {
	w := int(m.From)
	return m.Job == rc.job && w >= 0 && w < len(rc.inc) && rc.member[w] && m.Incarnation == rc.inc[w]
}

// admit decides whether handle goes on with m: it answers joins, renews
// the lease of a current member's message, and refuses the rest.
func (rc *realCoord) admit(ctx context.Context, m *transport.Message) (bool, error) {
	w := int(m.From)
	if m.Job != rc.job || w < 0 || w >= len(rc.inc) {
		rc.rejected++
		return false, rc.reject(ctx, m, 0, fmt.Sprintf("unknown job %d or worker %v", m.Job, m.From))
	}
	if m.Kind == transport.Join {
		return false, rc.join(ctx, m)
	}
	switch {
	case rc.current(m):
		rc.lease[w] = rc.now() + rc.e.Lease
		return true, nil
	case m.Incarnation < rc.inc[w]:
		rc.rejected++ // silently: see above
		return false, nil
	case rc.draining:
		rc.rejected++
		return false, rc.reject(ctx, m, 0, fmt.Sprintf("worker %d is not a member; the run is ending", w))
	default:
		rc.rejected++
		return false, rc.reject(ctx, m, rc.inc[w]+1, fmt.Sprintf("worker %d incarnation %d is not a member (its lease expired); rejoin as %d", w, m.Incarnation, rc.inc[w]+1))
	}
}

// join handles a Join during the run.
func (rc *realCoord) join(ctx context.Context, m *transport.Message) error {
	w := int(m.From)
	switch {
	case m.Incarnation == 0:
		rc.rejected++
		return rc.reject(ctx, m, 0, fmt.Sprintf("worker %d joins as incarnation 0; incarnations start at 1", w))
	case m.Incarnation < rc.inc[w]:
		rc.rejected++ // silently: see above
		return nil
	case m.Incarnation == rc.inc[w] && rc.member[w] && m.Seq < rc.accepted[w]:
		// Not the member's own join again (its last commit sent is never
		// below one accepted): a new process reusing the incarnation.
		// It rejoins as the next, where a worker with per-point state is
		// refused; answering it as the member would count its points
		// twice.
		rc.rejected++
		return rc.reject(ctx, m, rc.inc[w]+1, fmt.Sprintf("worker %d incarnation %d is a member whose commit %d was accepted; a new process (its last commit sent is %d) rejoins as %d",
			w, m.Incarnation, rc.accepted[w], m.Seq, rc.inc[w]+1))
	case m.Incarnation == rc.inc[w] && rc.member[w]:
		rc.lease[w] = rc.now() + rc.e.Lease
		return rc.answerJoin(ctx, w) // its answer was lost
	case m.Incarnation == rc.inc[w]:
		rc.rejected++
		return rc.reject(ctx, m, rc.inc[w]+1, fmt.Sprintf("worker %d incarnation %d left; rejoin as %d", w, m.Incarnation, rc.inc[w]+1))
	case rc.draining:
		rc.rejected++
		return rc.send(ctx, &transport.Message{Kind: transport.Stop, To: m.From, Job: rc.job, Incarnation: m.Incarnation, Reason: "run finished"})
	case rc.stateful && m.Seq < rc.accepted[w]:
		rc.rejected++
		return rc.reject(ctx, m, 0, fmt.Sprintf("worker %d incarnation %d lost its per-point state (its last commit sent is %d; %d was accepted): %s workers cannot restart without it, or their points would count twice",
			w, m.Incarnation, m.Seq, rc.accepted[w], rc.c.alg.Name()))
	}
	now := rc.now()
	if rc.member[w] {
		if err := rc.leave(ctx, consistency.WorkerID(w), fmt.Sprintf("replaced by incarnation %d", m.Incarnation)); err != nil {
			return err
		}
	}
	next := max(m.Seq, rc.accepted[w]) + 1
	effs, err := rc.c.step(now, consistency.Event{Kind: consistency.EvJoin, Worker: consistency.WorkerID(w), Seq: next})
	if err != nil {
		return err
	}
	rc.inc[w], rc.member[w], rc.last[w] = m.Incarnation, true, nil
	rc.lease[w] = now + rc.e.Lease
	rc.rejoins++
	if err := rc.answerJoin(ctx, w); err != nil {
		return err
	}
	return rc.afterRound(ctx, effs, false)
}

// leave takes worker w out of the model for reason.
func (rc *realCoord) leave(ctx context.Context, w consistency.WorkerID, reason string) error {
	if !rc.member[w] {
		return nil
	}
	effs, err := rc.c.leave(rc.now(), w, reason)
	if err != nil {
		return err
	}
	rc.member[w], rc.last[w] = false, nil
	return rc.afterRound(ctx, effs, false)
}

// nextExpiry returns when the earliest member's lease ends (Duration's
// end if none can).
func (rc *realCoord) nextExpiry() time.Duration {
	next := rc.e.Duration
	if rc.draining {
		return next
	}
	for w, ok := range rc.member {
		if ok {
			next = min(next, rc.lease[w])
		}
	}
	return next
}

// expire takes out every member whose lease ended by now.
func (rc *realCoord) expire(ctx context.Context, now time.Duration) error {
	if rc.draining {
		return nil
	}
	for w, ok := range rc.member {
		if !ok || now < rc.lease[w] {
			continue
		}
		rc.expired++
		silent := now - (rc.lease[w] - rc.e.Lease)
		reason := fmt.Sprintf("lease expired: nothing from incarnation %d for %v", rc.inc[w], silent.Round(time.Millisecond))
		if err := rc.journal(journalRecord{kind: jLeave, at: now, worker: w, reason: reason}); err != nil {
			return err
		}
		if err := rc.leave(ctx, consistency.WorkerID(w), reason); err != nil {
			return err
		}
	}
	return nil
}
