package harness

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/interval"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/inproc"
)

// The real-time runtime: the coordinator (this goroutine) drives the same
// coordinator state as the simulator; each worker is a goroutine; they talk
// only through a transport.Transport, so the messages are serialized and
// counted, and an unreliable link (inproc with drops, duplicates, jitter)
// exercises the protocol:
//
//   - Every commit carries the worker's sequence number. The coordinator
//     acknowledges it; a duplicate (a retransmission) is acknowledged again
//     and never applied twice (the model refuses it with ErrDuplicate).
//   - A worker retransmits its commit every Retry until it is
//     acknowledged, or until a later release shows it was accepted.
//   - A waiting worker sends a heartbeat every Retry naming the clock it
//     waits for; the coordinator re-sends that release if it was sent (and
//     so possibly lost). Releases of a clock already started are ignored.
//
// The trace's read records are written when the coordinator sends a
// release: the version a worker computes on is fixed then.
//
// Semi-centralized FSP (§5.2) works as in the simulator: each release
// carries the worker's local timer (transport.Message.Timer), computed by
// interval.Offsets from what the coordinator measured of the worker in
// the rounds before; the worker commits when its timer fires, after the
// chunk in progress, as if interrupted. Without a shared clock the
// coordinator measures a worker's Response as the time from sending its
// release to receiving its commit, less the timer the release carried,
// and its Speed as the commit's Points over that timer (the worker
// computes, pauses included, for about its timer unless its pass ends
// first; the message has no field for the time it computed). The two
// speeds of an Observation are the same measurement, as in the
// simulator, so the timers correct for response delays only.

// realDefaults fills the real runtime's defaults.
func (e *Experiment) realDefaults() {
	if e.Retry == 0 {
		e.Retry = 20 * time.Millisecond
	}
	if e.Lease == 0 {
		e.Lease = time.Second
	}
	e.Lease = max(e.Lease, 4*e.Retry)
	if e.JoinTimeout == 0 {
		e.JoinTimeout = time.Minute
	}
}

func runReal(ctx context.Context, e *Experiment, st *setupState) (*Result, error) {
	e.realDefaults()
	var tr transport.Transport
	var err error
	if e.Network != nil {
		tr, err = e.Network(st.layout)
	} else {
		tr, err = inproc.New(inproc.Config{Layout: st.layout, Seed: e.Seed})
	}
	if err != nil {
		return nil, configError("Network", err)
	}
	defer tr.Close()
	cep, err := tr.Open(transport.Coordinator)
	if err != nil {
		return nil, fmt.Errorf("harness: transport: %w", err)
	}
	job := e.Seed
	n := len(st.shards)
	wctx, stopWorkers := context.WithCancel(ctx)
	defer stopWorkers()
	g, gctx := errgroup.WithContext(wctx)
	start := &atomic.Int64{}
	start.Store(time.Now().UnixNano())
	var workers []*realWorker
	var started, ending chan struct{}
	spawn := func(i int, ep transport.Endpoint, inc uint32) *realWorker {
		w := &realWorker{e: e, sh: st.shards[i], ep: ep, job: job, isp: st.isp, rec: st.coord.rec, start: start}
		w.inc.Store(inc)
		return w
	}
	pres, err := newRealPreempters(e, st, tr, start, spawn)
	if err != nil {
		return nil, err
	}
	if pres != nil {
		started, ending = make(chan struct{}), make(chan struct{})
	}
	if e.Remote {
		// The workers' side of the trace is recorded where they run
		// (WorkerResult.Recorder); the coordinator's trace has its own.
		st.coord.rec = consistency.NewRecorder(e.Sync, st.ids, false)
	} else {
		eps := make([]transport.Endpoint, n)
		for i := range st.shards {
			if eps[i], err = tr.Open(transport.NodeID(i)); err != nil {
				return nil, fmt.Errorf("harness: transport: %w", err)
			}
		}
		workers = make([]*realWorker, n)
		for i := range st.shards {
			w := spawn(i, eps[i], 1)
			workers[i] = w
			if pres != nil {
				g.Go(func() error { return pres[i].run(gctx, w, started, ending) })
				continue
			}
			g.Go(func() error { return w.run(gctx) })
		}
	}
	rc := &realCoord{e: e, c: st.coord, ep: cep, clock: start, job: job,
		last: make([]*transport.Message, n), timer: -1, tune: st.tune, stop: st.stop, st: st,
		sentAt: make([]time.Duration, n), timers: make([]time.Duration, n),
		obs: make([]interval.Observation, n), accepted: make([]uint64, n),
		inc: make([]uint32, n), member: make([]bool, n), lease: make([]time.Duration, n),
		stateful: algorithms.HasState(st.shards[0].w), started: started, ending: ending, waitFrom: make([]time.Duration, n),
		batches: make([]uint64, n), used: make([]uint64, n)}
	for i := range rc.waitFrom {
		rc.waitFrom[i] = -1
	}
	if e.Journal != "" {
		if rc.jr, rc.replayed, err = openJournal(e.Journal, e, st.layout); err != nil {
			return nil, err
		}
		defer rc.jr.close()
	}
	loopErr := rc.loop(gctx)
	stopWorkers()
	werr := g.Wait()
	if loopErr != nil {
		if werr != nil && !errors.Is(werr, context.Canceled) {
			return nil, werr
		}
		return nil, loopErr
	}
	if werr != nil && !errors.Is(werr, context.Canceled) {
		return nil, werr
	}
	if pres == nil {
		for i, w := range workers {
			w.settleOut(rc.now(), rc.accepted[i], rc.inc[i], rc.member[i])
		}
	}
	preemptions := 0
	for i, p := range pres {
		if err := p.settle(rc.timeUp, rc.accepted[i], rc.inc[i], rc.member[i], rc.now()); err != nil {
			return nil, err
		}
		preemptions += st.shards[i].stats.Preempted
	}
	rc.streamStats()
	tot := tr.Stats().Total()
	sent := tot.Sent.Total()
	res := &Result{Sync: e.Sync, Clock: Real, Duration: rc.end, BytesSent: sent.Bytes, Messages: sent.Messages,
		Rejoins: rc.rejoins, Expired: rc.expired, Rejected: rc.rejected, Preemptions: preemptions, Resumed: rc.resumed}
	if st.isp != nil {
		// The workers have ended: their held reports join the trace.
		logs := make([][]heldRecord, len(workers))
		for i, w := range workers {
			logs[i] = w.heldLog
		}
		res.Trace = st.coord.rec.Trace()
		mergeHeld(res.Trace, logs)
		res.Held = st.isp.heldMass(nil)
	}
	return res, nil
}

type realCoord struct {
	e  *Experiment
	c  *coordinator
	ep transport.Endpoint
	// clock is the run's start (Unix nanoseconds), shared with the
	// goroutine workers' records: set when every worker has joined.
	clock *atomic.Int64
	job   uint64
	last  []*transport.Message // the latest release sent to each worker
	end   time.Duration
	timer time.Duration // the model's pending timer, -1 if none
	tune  *tuning
	stop  *stopper
	st    *setupState
	lastV consistency.Version
	later []consistency.Effect
	// Semi-centralized FSP (§5.2): when each worker's latest release was
	// sent, the local timer for its next release, what the coordinator
	// measured of it, and the interval the tuner set during the current
	// afterRound (0 if none), as in the simulator.
	sentAt []time.Duration
	timers []time.Duration
	obs    []interval.Observation
	tuned  time.Duration
	// accepted[w] is the highest sequence number of worker w's commits
	// the coordinator accepted; maxSeq the highest of any worker's (for
	// the globalDedup mutation only). draining is set once the run's
	// time is up and the coordinator collects the commits still in flight.
	accepted []uint64
	maxSeq   uint64
	draining bool
	// Membership (realmember.go): each worker's current incarnation
	// (0: never joined), whether it is a member of the model, when its
	// lease ends; whether the workers keep per-point state (a worker that
	// lost it cannot rejoin); and the counts for the Result.
	inc      []uint32
	member   []bool
	lease    []time.Duration
	stateful bool
	rejoins  int
	expired  int
	rejected int64
	// Preemptions (realpreempt.go): started is closed when the run's
	// clock starts, ending when its time is up (timeUp, by that clock);
	// both nil without preemptions.
	started, ending chan struct{}
	timeUp          time.Duration
	// The journal (journal.go; nil without Experiment.Journal), and the
	// replay of one: while replaying, the clock reads replayAt and
	// nothing is sent. resumed counts the restarts the journal records.
	jr        *journal
	outbox    []*transport.Message
	flushBy   time.Duration // when the outbox's first message must go
	replayed  []journalRecord
	replaying bool
	replayAt  time.Duration
	resumed   int
	// handling, while the loop handles a message, makes the clock read
	// handleAt, the time the snapshots due were taken at (snapUpTo):
	// whatever the message changes, it changes after them.
	handling bool
	handleAt time.Duration
	// waitFrom[w] (Remote) is when worker w's latest commit arrived, if
	// no release followed it yet (−1 otherwise): the coordinator's view of
	// its wait, since a remote worker's own measurements stay with it.
	waitFrom []time.Duration
	// Streams (realstream.go): batches[w] is the number of worker w's
	// batches the model has (its next batch's number), used[w] how many
	// of them accepted commits used.
	batches, used []uint64
}

func (rc *realCoord) setInterval(now, eta time.Duration) error {
	effs, err := rc.c.step(now, consistency.Event{Kind: consistency.EvSetInterval, Interval: eta})
	rc.later = append(rc.later, effs...)
	rc.tuned = eta
	return err
}

func (rc *realCoord) checkpoint() (*saved, error) {
	return nil, fmt.Errorf("harness: the interval tuner asked for a checkpoint: the real runtime cannot roll its workers back; use the virtual clock: %w", ErrConfig)
}

func (rc *realCoord) rollback(time.Duration, *saved) error {
	return fmt.Errorf("harness: the interval tuner asked for a rollback: the real runtime cannot roll its workers back; use the virtual clock: %w", ErrConfig)
}

// afterRound runs the tuning after a round's apply, then delivers the
// round's effects and the tuning's.
func (rc *realCoord) afterRound(ctx context.Context, effs []consistency.Effect, begin bool) error {
	if rc.draining {
		return nil // the run is over: nobody is released again
	}
	if rc.tune != nil {
		var err error
		now := rc.now()
		switch v := rc.c.model.Version(); {
		case begin:
			err = rc.tune.begin(now, rc.c.params, rc)
		case v != rc.lastV:
			rc.lastV = v
			err = rc.tune.roundEnd(now, rc.c.params, rc)
		}
		if err != nil {
			return err
		}
	}
	if rc.e.Sync.Local {
		rc.tuned = retime(effs, rc.tuned)
		if err := localTimers(effs, rc.obs, rc.timers); err != nil {
			return err
		}
	}
	if err := rc.deliver(ctx, effs); err != nil {
		return err
	}
	later := rc.later
	rc.later = nil
	return rc.deliver(ctx, later)
}

func (rc *realCoord) now() time.Duration {
	if rc.replaying {
		return rc.replayAt
	}
	if rc.handling {
		return rc.handleAt
	}
	return time.Duration(time.Now().UnixNano() - rc.clock.Load())
}

func (rc *realCoord) loop(ctx context.Context) error {
	c := rc.c
	resumed, err := rc.resume(ctx)
	if err != nil {
		return err
	}
	if !resumed {
		if err := rc.register(ctx); err != nil {
			return err
		}
		if err := rc.start(ctx); err != nil {
			return err
		}
	}
	// The next snapshot, progress report and stop check after the
	// present (0, or where a resumed journal ended).
	after := func(every time.Duration) time.Duration {
		if every <= 0 {
			return every
		}
		return (rc.now()/every + 1) * every
	}
	nextSnap, nextProg := after(rc.e.EvalEvery), after(rc.e.Duration/10)
	// snapUpTo keeps the snapshots due by t (at most the run's end), each
	// at its own time. The parameters change only when the coordinator
	// handles an event, so the snapshots due since the last one hold the
	// present parameters, and the coordinator need not wake for them: a
	// wake-up would put its goroutine in the run queue behind the
	// computing workers, where the commits that arrive meanwhile wait
	// with it (the observer slowing what it observes).
	snapUpTo := func(t time.Duration) error {
		for nextSnap > 0 && min(t, rc.e.Duration) >= nextSnap {
			if err := rc.journal(journalRecord{kind: jSnapshot, at: nextSnap}); err != nil {
				return err
			}
			c.snapshot(nextSnap)
			nextSnap += rc.e.EvalEvery
		}
		return nil
	}
	stop := rc.stop
	checkEvery := stop.checkInterval(rc.e, rc.st)
	nextCheck := after(checkEvery)
	for {
		now := rc.now()
		if err := snapUpTo(now); err != nil {
			return err
		}
		if now >= rc.e.Duration || stop.applied(c.model.Version()) || rc.draining {
			break
		}
		if err := rc.expire(ctx, now); err != nil {
			return err
		}
		if checkEvery > 0 && now >= nextCheck {
			nextCheck += checkEvery
			if stop.check(c.params) {
				break
			}
		}
		if rc.e.Progress != nil && now >= nextProg {
			rc.e.Progress(Progress{Sync: rc.e.Sync, Elapsed: now, Of: rc.e.Duration, Version: c.model.Version()})
			nextProg += rc.e.Duration / 10
		}
		if rc.timer >= 0 && now >= rc.timer {
			rc.timer = -1
			if err := rc.journal(journalRecord{kind: jTick, at: now}); err != nil {
				return err
			}
			effs, err := c.step(now, consistency.Event{Kind: consistency.EvTick})
			if err != nil {
				return err
			}
			if err := rc.deliver(ctx, effs); err != nil {
				return err
			}
			continue
		}
		wake := rc.e.Duration
		if rc.timer >= 0 {
			wake = min(wake, rc.timer)
		}
		if checkEvery > 0 {
			wake = min(wake, nextCheck)
		}
		wake = min(wake, rc.nextExpiry())
		if len(rc.outbox) > 0 {
			if now >= rc.flushBy {
				if err := rc.flush(ctx); err != nil {
					return err
				}
				continue
			}
			wake = min(wake, rc.flushBy)
		}
		rctx, cancel := context.WithTimeout(ctx, max(wake-now, 0))
		m, err := rc.ep.Recv(rctx)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if errors.Is(err, context.DeadlineExceeded) {
				continue
			}
			return fmt.Errorf("harness: coordinator receive: %w", err)
		}
		rc.handleAt = rc.now()
		if err := snapUpTo(rc.handleAt); err != nil {
			return err
		}
		rc.handling = true
		err = rc.handle(ctx, m)
		rc.handling = false
		if err != nil {
			return err
		}
	}
	if err := rc.drain(ctx); err != nil {
		return err
	}
	if rc.jr != nil {
		if err := rc.flush(ctx); err != nil {
			return err
		}
	}
	rc.end = rc.now()
	for w, from := range rc.waitFrom {
		if from >= 0 {
			rc.st.shards[w].stats.Wait += rc.end - from
		}
	}
	if _, err := c.step(rc.end, consistency.Event{Kind: consistency.EvStop}); err != nil {
		return err
	}
	c.snapshot(rc.end)
	return nil
}

// drainRetries bounds the drain: the coordinator collects the commits
// still in flight for at most drainRetries × Retry.
const drainRetries = 50

// drain ends the run without losing a delta in flight: the coordinator
// tells every worker to stop (again every Retry), keeps accepting
// commits (their applies happen; nobody is released again), and ends
// when every member has left naming a last sequence number it has
// accepted — or after drainRetries × Retry, when a commit it never
// received shows in the trace as lost. Workers that are not members
// (their lease expired) are told to stop but not waited for: whatever
// they send is refused.
func (rc *realCoord) drain(ctx context.Context) error {
	if err := rc.journal(journalRecord{kind: jDrain, at: rc.now()}); err != nil {
		return err
	}
	rc.draining = true
	rc.timer = -1
	rc.timeUp = rc.now()
	if rc.ending != nil {
		close(rc.ending)
	}
	n := len(rc.last)
	done, left := make([]bool, n), 0
	for i := range n {
		done[i] = !rc.member[i]
		if !done[i] {
			left++
		}
	}
	stops := func() error {
		for i := range n {
			if done[i] && rc.member[i] {
				continue
			}
			m := &transport.Message{Kind: transport.Stop, To: transport.NodeID(i), Job: rc.job, Incarnation: rc.inc[i], Reason: "run finished"}
			if err := rc.send(ctx, m); err != nil {
				return fmt.Errorf("harness: stop to worker %d: %w", i, err)
			}
		}
		return nil
	}
	deadline := rc.now() + drainRetries*rc.e.Retry
	next := rc.now()
	for left > 0 {
		now := rc.now()
		if now >= deadline {
			break
		}
		if now >= next {
			if err := stops(); err != nil {
				return err
			}
			next = now + rc.e.Retry
		}
		rctx, cancel := context.WithTimeout(ctx, min(next, deadline)-now)
		m, err := rc.ep.Recv(rctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, context.DeadlineExceeded):
			continue
		case err != nil:
			return fmt.Errorf("harness: coordinator receive: %w", err)
		}
		if m.Kind == transport.Leave && rc.current(m) {
			if w := int(m.From); !done[w] && m.Seq <= rc.accepted[w] {
				done[w] = true
				left--
			}
			continue
		}
		if err := rc.handle(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// send sends m, unless it is to a worker that never joined (a remote
// worker that is not there: nothing to tell it).
func (rc *realCoord) send(ctx context.Context, m *transport.Message) error {
	if m.To >= 0 && rc.inc[m.To] == 0 {
		return nil
	}
	err := rc.out(ctx, m)
	if errors.Is(err, transport.ErrUnknownNode) && rc.e.Remote {
		return nil // a remote worker's stream is gone: it rejoins or its lease ends
	}
	return err
}

// out sends m, once every journal record is durable; it sends nothing
// while a journal is replayed. With a journal, acknowledgements wait in
// the outbox for the next message that drives the run (a release, a stop,
// an answer) or for a quarter of Retry at most, so that one fsync covers
// a round's commits (group commit): a worker whose ack is late only
// retransmits, which the coordinator acknowledges again.
func (rc *realCoord) out(ctx context.Context, m *transport.Message) error {
	if rc.replaying {
		return nil
	}
	if rc.jr == nil {
		return rc.ep.Send(ctx, m)
	}
	if len(rc.outbox) == 0 {
		rc.flushBy = rc.now() + rc.e.Retry/4
	}
	rc.outbox = append(rc.outbox, m)
	if m.Kind == transport.Ack {
		return nil
	}
	return rc.flush(ctx)
}

// flush makes the journal durable and sends the outbox.
func (rc *realCoord) flush(ctx context.Context) error {
	if len(rc.outbox) == 0 {
		return nil
	}
	if err := rc.jr.sync(); err != nil {
		return err
	}
	box := rc.outbox
	rc.outbox = rc.outbox[:0]
	for i, m := range box {
		box[i] = nil
		err := rc.ep.Send(ctx, m)
		switch {
		case err == nil:
		case rc.e.Remote && errors.Is(err, transport.ErrUnknownNode):
			// A remote worker's stream is gone: it rejoins or its lease ends.
		case m.Kind == transport.Reject && (errors.Is(err, transport.ErrUnknownNode) || errors.Is(err, transport.ErrMalformed)):
			// Nowhere to answer.
		default:
			return err
		}
	}
	return nil
}

func (rc *realCoord) handle(ctx context.Context, m *transport.Message) error {
	switch m.Kind {
	case transport.Commit, transport.Join, transport.Leave, transport.Batch:
		if err := rc.journal(journalRecord{kind: jMessage, at: rc.now(), msg: m}); err != nil {
			return err
		}
	}
	w := consistency.WorkerID(m.From)
	if ok, err := rc.admit(ctx, m); !ok || err != nil {
		return err
	}
	switch m.Kind {
	case transport.Commit:
		if rc.e.bugs.globalDedup && m.Seq <= rc.maxSeq {
			return rc.ack(ctx, m) // the deliberate bug of a test
		}
		now := rc.now()
		effs, err := rc.c.commit(now, w, m.Seq, m.Clock, consistency.Version(m.Version), m.Batch, m.Delta)
		switch {
		case errors.Is(err, consistency.ErrDuplicate):
			return rc.ack(ctx, m)
		case err != nil && rc.e.Remote:
			// A remote worker's bad commit is refused, not fatal: nothing
			// of it was applied.
			return rc.reject(ctx, m, 0, err.Error())
		case err != nil:
			return err
		}
		rc.accepted[w] = max(rc.accepted[w], m.Seq)
		rc.maxSeq = max(rc.maxSeq, m.Seq)
		if rc.e.Arrivals != nil {
			rc.used[w] += uint64(m.Points) / uint64(rc.e.Batch)
		}
		if rc.e.Remote {
			s := &rc.st.shards[w].stats
			s.Commits++
			s.Points += m.Points
			rc.waitFrom[w] = now
		}
		if last := rc.last[w]; last != nil && last.Timer > 0 && last.Clock == m.Clock {
			rc.observe(now, w, last.Timer, m.Points)
		}
		if err := rc.ack(ctx, m); err != nil {
			return err
		}
		if rc.stop.applied(rc.c.model.Version()) {
			// The run ends at this version (the loop sees it next): as in
			// the simulator, nobody is released into a round past it.
			rc.draining = true
			return nil
		}
		return rc.afterRound(ctx, effs, false)
	case transport.Heartbeat:
		if last := rc.last[w]; last != nil && last.Clock >= m.Clock {
			return rc.send(ctx, last)
		}
		return nil
	case transport.Leave:
		return rc.leave(ctx, w, "left: "+m.Reason)
	case transport.Batch:
		if rc.e.Arrivals != nil {
			return rc.batchReady(ctx, w, m)
		}
	}
	if rc.e.Remote {
		return rc.reject(ctx, m, 0, fmt.Sprintf("unexpected %v from worker %d", m.Kind, w))
	}
	return fmt.Errorf("harness: coordinator got an unexpected %v from worker %d", m.Kind, w)
}

// observe records what a commit of a semi-centralized round (its release
// carried the local timer timer) shows of worker w, received at now: its
// Observation for the next round's timers, and its barrier initiation for
// the interval tuning — when its timer fired, by the coordinator's clock
// (the release's sending plus the timer), or the commit's arrival if that
// is earlier (its pass ended first); the round's barrier begins at the
// earliest (§5.2, interval.Report.BarrierCost).
func (rc *realCoord) observe(now time.Duration, w consistency.WorkerID, timer time.Duration, points int64) {
	o := &rc.obs[w]
	o.Response = max(now-rc.sentAt[w]-timer, 0)
	if points > 0 {
		o.Speed = float64(points) / timer.Seconds()
		o.Current = o.Speed
	}
	if rc.tune != nil {
		rc.tune.interrupted(min(rc.sentAt[w]+timer, now))
	}
}

func (rc *realCoord) ack(ctx context.Context, m *transport.Message) error {
	return rc.send(ctx, &transport.Message{Kind: transport.Ack, To: m.From, Job: rc.job, Incarnation: m.Incarnation, Seq: m.Seq, Clock: m.Clock})
}

func (rc *realCoord) deliver(ctx context.Context, effs []consistency.Effect) error {
	now := rc.now()
	for _, e := range effs {
		switch e.Kind {
		case consistency.EfTimer:
			rc.timer = e.At
			continue
		case consistency.EfInterrupt:
			if rc.tune != nil {
				rc.tune.interrupted(now)
			}
			if last := rc.last[e.Worker]; last != nil {
				// Best effort: a lost interrupt leaves the worker to
				// commit at the end of its pass.
				in := &transport.Message{Kind: transport.Interrupt, To: transport.NodeID(e.Worker), Job: rc.job, Incarnation: rc.inc[e.Worker], Clock: last.Clock}
				if err := rc.send(ctx, in); err != nil {
					return fmt.Errorf("harness: interrupt to worker %d: %w", e.Worker, err)
				}
			}
			continue
		case consistency.EfRelease:
		default:
			continue
		}
		m := &transport.Message{Kind: transport.Release, To: transport.NodeID(e.Worker), Job: rc.job, Incarnation: rc.inc[e.Worker],
			Version: uint64(e.Version), Clock: e.Clock, Budget: int64(e.Budget), Points: rc.st.releasePoints(), Params: rc.c.params,
			Timer: localTimer(e, rc.timers), Batch: e.Batch}
		rc.sentAt[e.Worker] = now
		if from := rc.waitFrom[e.Worker]; from >= 0 {
			rc.st.shards[e.Worker].stats.Wait += now - from
			rc.waitFrom[e.Worker] = -1
		}
		rc.c.read(now, e)
		rc.last[e.Worker] = m
		if err := rc.send(ctx, m); err != nil {
			return fmt.Errorf("harness: release to worker %d: %w", e.Worker, err)
		}
	}
	return nil
}
