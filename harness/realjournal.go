package harness

import (
	"context"
	"fmt"
	"time"

	"github.com/syncmodels/syncmodels/consistency"
)

// journal appends r to the coordinator's journal, if it keeps one and is
// not replaying it.
func (rc *realCoord) journal(r journalRecord) error {
	if rc.jr == nil || rc.replaying {
		return nil
	}
	return rc.jr.add(r)
}

// start starts the run: the first snapshot and the model's EvStart.
func (rc *realCoord) start(ctx context.Context) error {
	if err := rc.journal(journalRecord{kind: jStart}); err != nil {
		return err
	}
	rc.c.snapshot(0)
	effs, err := rc.c.step(0, consistency.Event{Kind: consistency.EvStart})
	if err != nil {
		return err
	}
	return rc.afterRound(ctx, effs, true)
}

// resume replays the journal a killed coordinator left (rc.replayed), if
// the run had started: it rebuilds the state through the same code,
// sending nothing, moves the clock so that the run's time goes on from
// the journal's last record, gives every member JoinTimeout to reconnect
// (its lease, as at the start), and reports true. A journal that ends before the start holds nothing worth
// keeping (registrations are made again): resume cuts it off and
// reports false.
func (rc *realCoord) resume(ctx context.Context) (bool, error) {
	recs := rc.replayed
	rc.replayed = nil
	started := false
	for _, r := range recs {
		started = started || r.kind == jStart
	}
	if !started {
		return false, nil
	}
	rc.replaying = true
	var last time.Duration
	for i, r := range recs {
		rc.replayAt, last = r.at, max(last, r.at)
		var err error
		switch r.kind {
		case jRegistered:
			if r.worker < 0 || r.worker >= len(rc.inc) {
				err = fmt.Errorf("worker %d registered, of %d", r.worker, len(rc.inc))
				break
			}
			rc.inc[r.worker], rc.member[r.worker] = r.inc, true
		case jStart:
			err = rc.start(ctx)
		case jMessage:
			err = rc.handle(ctx, r.msg)
		case jLeave:
			rc.expired++
			err = rc.leave(ctx, consistency.WorkerID(r.worker), r.reason)
		case jTick:
			rc.timer = -1
			var effs []consistency.Effect
			if effs, err = rc.c.step(r.at, consistency.Event{Kind: consistency.EvTick}); err == nil {
				err = rc.deliver(ctx, effs)
			}
		case jSnapshot:
			rc.c.snapshot(r.at)
		case jResume:
			rc.resumed++
		case jDrain:
			rc.draining = true
		}
		if err != nil {
			rc.replaying = false
			return false, fmt.Errorf("harness: replaying the journal's record %d (kind %d at %v): %w", i, r.kind, r.at, err)
		}
	}
	rc.replaying = false
	rc.resumed++
	rc.clock.Store(time.Now().UnixNano() - int64(last))
	if rc.e.OnStart != nil {
		rc.e.OnStart(time.Unix(0, rc.clock.Load()))
	}
	// The members reconnect as at the start: they have JoinTimeout.
	for w, ok := range rc.member {
		if ok {
			rc.lease[w] = last + max(rc.e.Lease, rc.e.JoinTimeout)
		}
	}
	if err := rc.journal(journalRecord{kind: jResume, at: last}); err != nil {
		return false, err
	}
	if err := rc.jr.sync(); err != nil {
		return false, err
	}
	if rc.started != nil {
		close(rc.started)
	}
	return true, nil
}
