package harness

import (
	"context"
	"time"

	"github.com/syncmodels/syncmodels/consistency"
)

// Tail stragglers (StragglerKind Tail): each operation of a chosen worker
// takes an extra delay drawn from Stragglers.Delay (package latency;
// slsML §"Mitigating stragglers"). An operation is fetching a release or
// sending a commit; the worker's n-th release is operation 2n and its
// n-th commit operation 2n+1, so a draw does not depend on how the
// runtime interleaves them, and both clocks draw the same delays.

// tailOps counts a worker's operations: releases fetched and commits
// sent, over all its incarnations.
type tailOps struct {
	releases, commits uint64
}

// tailDelay returns the delay of sh's next release fetch (commit false) or
// commit send (commit true) and counts the operation; 0 unless sh is a
// Tail straggler. A delay is at most the run's Duration: a longer one
// ends after the run all the same, and the cap keeps virtual times from
// overflowing (a Pareto draw may reach math.MaxInt64 ns).
func (e *Experiment) tailDelay(sh *shard, commit bool) time.Duration {
	if e.Stragglers.Kind != Tail || !sh.straggler {
		return 0
	}
	op := 2 * sh.ops.releases
	if commit {
		op = 2*sh.ops.commits + 1
		sh.ops.commits++
	} else {
		sh.ops.releases++
	}
	return min(e.Stragglers.Delay.Sample(e.Seed, uint64(sh.id), op), e.Duration)
}

// tailFIFO keeps each worker's messages in order on each direction of its
// link in virtual time: a message delayed by a Tail straggler's operation
// holds back the worker's later ones (head-of-line blocking), so the
// simulator's FIFO links stay FIFO (a preemption notice still follows the
// worker's last commit, an interrupt its release).
type tailFIFO struct {
	in, out []time.Duration // the latest arrival per worker, each way
}

// arrive returns when a message to or from w (toWorker) that would arrive
// at t arrives: not before the worker's previous one that way.
func (f *tailFIFO) arrive(w consistency.WorkerID, toWorker bool, t time.Duration) time.Duration {
	last := f.in
	if toWorker {
		last = f.out
	}
	t = max(t, last[w])
	last[w] = t
	return t
}

// tailSleep sleeps d unless ctx ends or stop closes first, and returns
// the time it slept.
func tailSleep(ctx context.Context, d time.Duration, stop <-chan struct{}) (time.Duration, error) {
	if d <= 0 {
		return 0, nil
	}
	t0 := time.Now()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-stop:
	case <-ctx.Done():
		return time.Since(t0), ctx.Err()
	}
	return time.Since(t0), nil
}
