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
	eps := make([]transport.Endpoint, len(st.shards))
	for i := range st.shards {
		if eps[i], err = tr.Open(transport.NodeID(i)); err != nil {
			return nil, fmt.Errorf("harness: transport: %w", err)
		}
	}

	wctx, stopWorkers := context.WithCancel(ctx)
	defer stopWorkers()
	g, gctx := errgroup.WithContext(wctx)
	start := time.Now()
	workers := make([]*realWorker, len(st.shards))
	for i, sh := range st.shards {
		w := &realWorker{e: e, sh: sh, ep: eps[i], job: job, isp: st.isp, rec: st.coord.rec, start: start}
		workers[i] = w
		g.Go(func() error { return w.run(gctx) })
	}
	rc := &realCoord{e: e, c: st.coord, ep: cep, start: start, job: job,
		last: make([]*transport.Message, len(st.shards)), timer: -1, tune: st.tune, stop: st.stop, st: st,
		sentAt: make([]time.Duration, len(st.shards)), timers: make([]time.Duration, len(st.shards)),
		obs: make([]interval.Observation, len(st.shards)), accepted: make([]uint64, len(st.shards))}
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
	tot := tr.Stats().Total()
	sent := tot.Sent.Total()
	res := &Result{Sync: e.Sync, Clock: Real, Duration: rc.end, BytesSent: sent.Bytes, Messages: sent.Messages}
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
	e     *Experiment
	c     *coordinator
	ep    transport.Endpoint
	start time.Time
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

func (rc *realCoord) now() time.Duration { return time.Since(rc.start) }

func (rc *realCoord) loop(ctx context.Context) error {
	c := rc.c
	c.snapshot(0)
	effs, err := c.step(0, consistency.Event{Kind: consistency.EvStart})
	if err != nil {
		return err
	}
	if err := rc.afterRound(ctx, effs, true); err != nil {
		return err
	}
	nextSnap, nextProg := rc.e.EvalEvery, rc.e.Duration/10
	stop := rc.stop
	checkEvery := stop.checkInterval(rc.e, rc.st)
	nextCheck := checkEvery
	for {
		now := rc.now()
		if now >= rc.e.Duration || stop.applied(c.model.Version()) {
			break
		}
		if checkEvery > 0 && now >= nextCheck {
			nextCheck += checkEvery
			if stop.check(c.params) {
				break
			}
		}
		for nextSnap > 0 && now >= nextSnap {
			c.snapshot(now)
			nextSnap += rc.e.EvalEvery
		}
		if rc.e.Progress != nil && now >= nextProg {
			rc.e.Progress(Progress{Sync: rc.e.Sync, Elapsed: now, Of: rc.e.Duration, Version: c.model.Version()})
			nextProg += rc.e.Duration / 10
		}
		if rc.timer >= 0 && now >= rc.timer {
			rc.timer = -1
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
		if nextSnap > 0 {
			wake = min(wake, nextSnap)
		}
		if rc.timer >= 0 {
			wake = min(wake, rc.timer)
		}
		if checkEvery > 0 {
			wake = min(wake, nextCheck)
		}
		rctx, cancel := context.WithTimeout(ctx, wake-now)
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
		if err := rc.handle(ctx, m); err != nil {
			return err
		}
	}
	if err := rc.drain(ctx); err != nil {
		return err
	}
	rc.end = rc.now()
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
// when every worker has reported, by a heartbeat, a last sequence number
// it has accepted — or after drainRetries × Retry, when a commit it
// never received shows in the trace as lost.
func (rc *realCoord) drain(ctx context.Context) error {
	rc.draining = true
	rc.timer = -1
	n := len(rc.last)
	done, left := make([]bool, n), n
	stops := func() error {
		for i := range n {
			if done[i] {
				continue
			}
			m := &transport.Message{Kind: transport.Stop, To: transport.NodeID(i), Job: rc.job, Reason: "run finished"}
			if err := rc.ep.Send(ctx, m); err != nil {
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
		if m.Kind == transport.Heartbeat && m.Job == rc.job && m.From >= 0 && int(m.From) < n {
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

func (rc *realCoord) handle(ctx context.Context, m *transport.Message) error {
	w := consistency.WorkerID(m.From)
	if m.Job != rc.job || m.From < 0 || int(m.From) >= len(rc.last) {
		return rc.ep.Send(ctx, &transport.Message{Kind: transport.Reject, To: m.From, Job: rc.job, Seq: m.Seq,
			Reason: fmt.Sprintf("unknown job %d or worker %v", m.Job, m.From)})
	}
	switch m.Kind {
	case transport.Commit:
		if rc.e.bugs.globalDedup && m.Seq <= rc.maxSeq {
			return rc.ack(ctx, m) // the deliberate bug of a test
		}
		now := rc.now()
		effs, err := rc.c.commit(now, w, m.Seq, m.Clock, consistency.Version(m.Version), m.Delta)
		switch {
		case errors.Is(err, consistency.ErrDuplicate):
			return rc.ack(ctx, m)
		case err != nil:
			return err
		}
		rc.accepted[w] = max(rc.accepted[w], m.Seq)
		rc.maxSeq = max(rc.maxSeq, m.Seq)
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
			return rc.ep.Send(ctx, last)
		}
		return nil
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
	return rc.ep.Send(ctx, &transport.Message{Kind: transport.Ack, To: m.From, Job: rc.job, Seq: m.Seq, Clock: m.Clock})
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
				in := &transport.Message{Kind: transport.Interrupt, To: transport.NodeID(e.Worker), Job: rc.job, Clock: last.Clock}
				if err := rc.ep.Send(ctx, in); err != nil {
					return fmt.Errorf("harness: interrupt to worker %d: %w", e.Worker, err)
				}
			}
			continue
		case consistency.EfRelease:
		default:
			continue
		}
		m := &transport.Message{Kind: transport.Release, To: transport.NodeID(e.Worker), Job: rc.job,
			Version: uint64(e.Version), Clock: e.Clock, Budget: int64(e.Budget), Points: rc.st.releasePoints(), Params: rc.c.params,
			Timer: localTimer(e, rc.timers)}
		rc.sentAt[e.Worker] = now
		rc.c.read(now, e)
		rc.last[e.Worker] = m
		if err := rc.ep.Send(ctx, m); err != nil {
			return fmt.Errorf("harness: release to worker %d: %w", e.Worker, err)
		}
	}
	return nil
}

type realWorker struct {
	e     *Experiment
	sh    *shard
	ep    transport.Endpoint
	job   uint64
	delta *algorithms.Delta
	held  *transport.Message // a message read while waiting for an ack
	// heldAt is when held was read, got when the message recv returned
	// last was: a release's arrival, from which its local timer runs.
	heldAt, got time.Time
	// The reader goroutine forwards messages on in; it raises interrupted
	// when an Interrupt for the clock being computed (computing − 1)
	// arrives, and stopped on Stop, so a computing worker notices both.
	// An Interrupt that overtakes its release (it comes from the early
	// trigger of a worker that finished first) is kept in irq (clock + 1)
	// for the computation of that clock to find when it starts.
	in          chan *transport.Message
	errc        chan error
	computing   atomic.Uint64
	irq         atomic.Uint64
	interrupted atomic.Bool
	stopped     atomic.Bool
	wake        chan struct{} // signalled with interrupted, to cut a pause short
	// owed is the rest of an Injected pause cut short by an interrupt;
	// the next batch serves it first (as in the simulator).
	owed time.Duration
	// isp (ISP runs) holds the workers' replicas, local optimizers and
	// filters; this worker uses only its own. heldLog is what it reports
	// after each commit, merged into the trace after the run (the
	// message format has no field for it).
	isp     *ispState
	heldLog []heldRecord
	// rec records the worker's side of the trace: what it sent, what it
	// took as accepted. start is the run's start, the trace's time origin.
	rec   *consistency.Recorder
	start time.Time
}

// chunk is how many points a real worker processes between checks for an
// interrupt: FSP's "commit after the current point", at chunk granularity.
const chunk = 16

// read pumps the endpoint into w.in until ctx ends or Recv fails.
func (w *realWorker) read(ctx context.Context) {
	for {
		m, err := w.ep.Recv(ctx)
		if err != nil {
			w.errc <- err
			return
		}
		switch m.Kind {
		case transport.Interrupt:
			w.irq.Store(max(w.irq.Load(), m.Clock+1)) // only this goroutine stores irq
			if c := w.computing.Load(); c > 0 && m.Clock == c-1 {
				w.interrupted.Store(true)
				select {
				case w.wake <- struct{}{}:
				default:
				}
			}
			continue
		case transport.Stop:
			w.stopped.Store(true)
		}
		select {
		case w.in <- m:
		case <-ctx.Done():
			w.errc <- ctx.Err()
			return
		}
	}
}

// recv returns the next message, or nil after Retry without one.
func (w *realWorker) recv(ctx context.Context) (*transport.Message, error) {
	if m := w.held; m != nil {
		w.held, w.got = nil, w.heldAt
		return m, nil
	}
	t := time.NewTimer(w.e.Retry)
	defer t.Stop()
	select {
	case m := <-w.in:
		w.got = time.Now()
		return m, nil
	case err := <-w.errc:
		return nil, err
	case <-t.C:
		return nil, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (w *realWorker) run(ctx context.Context) error {
	rctx, stop := context.WithCancel(ctx)
	w.in, w.errc, w.wake = make(chan *transport.Message, 256), make(chan error, 1), make(chan struct{}, 1)
	done := make(chan struct{})
	go func() { defer close(done); w.read(rctx) }()
	defer func() { stop(); <-done }()
	var want uint64 // the clock of the next release to start
	waitFrom := time.Now()
	for {
		m, err := w.recv(ctx)
		switch {
		case err != nil:
			return err
		case m == nil:
			hb := &transport.Message{Kind: transport.Heartbeat, To: transport.Coordinator, Job: w.job, Clock: want, Seq: w.rec.LastSent(w.sh.id)}
			if err := w.ep.Send(ctx, hb); err != nil {
				return err
			}
			continue
		case m.Kind == transport.Stop:
			w.sh.stats.Wait += time.Since(waitFrom)
			return w.finish(ctx, nil)
		case m.Kind == transport.Reject:
			return fmt.Errorf("harness: worker %d rejected: %s", w.sh.id, m.Reason)
		case m.Kind != transport.Release || m.Clock < want:
			continue // an old ack, or a release already started
		}
		w.sh.stats.Wait += time.Since(waitFrom)
		commit, err := w.compute(ctx, m)
		switch {
		case err != nil:
			return err
		case commit == nil:
			// Stopped while computing: the unsent work is dropped.
			return w.finish(ctx, nil)
		}
		waitFrom = time.Now()
		want = m.Clock + 1
		pending, stop, err := w.commit(ctx, commit)
		if stop || err != nil {
			w.sh.stats.Wait += time.Since(waitFrom)
		}
		switch {
		case err != nil:
			return err
		case stop:
			return w.finish(ctx, pending)
		}
	}
}

// compute processes the release's budget, pausing like a straggler and
// stopping early (after the current chunk) when interrupted or, when the
// release carries a local timer (semi-centralized FSP, §5.2), when the
// timer has run since the release arrived: a pause in progress then ends
// at once, the rest owed, as with an interrupt. A natural straggler's
// slowdown is served after its points, so it stops its points when they
// and their slowdown would fill the timer.
func (w *realWorker) compute(ctx context.Context, m *transport.Message) (*transport.Message, error) {
	sh, st := w.sh, w.e.Stragglers
	if w.delta == nil {
		w.delta = algorithms.NewDelta(algorithms.Layout{Params: len(m.Params), Delta: sh.deltaLen, Block: sh.block})
	}
	w.delta.Reset()
	w.interrupted.Store(false)
	select {
	case <-w.wake: // a stale signal
	default:
	}
	w.computing.Store(m.Clock + 1)
	defer w.computing.Store(0)
	if w.irq.Load() == m.Clock+1 {
		w.interrupted.Store(true) // its interrupt came first
	}
	k := sh.points(int(m.Budget))
	params := m.Params
	var iw *ispWorker
	if w.isp != nil {
		iw = w.isp.workers[sh.id]
		params = iw.prepare(m.Params)
	}
	t0 := time.Now()
	var deadline time.Time // zero: no local timer
	if m.Timer > 0 {
		deadline = w.got.Add(m.Timer)
	}
	slow := 1.0 // how much longer the points take than their computing
	if sh.straggler && st.Kind == Natural {
		slow = st.Slowdown
	}
	expired := func() bool {
		return !deadline.IsZero() && !t0.Add(time.Duration(float64(time.Since(t0))*slow)).Before(deadline)
	}
	var paused time.Duration
	if w.owed > 0 {
		p0 := time.Now()
		left, err := w.pause(ctx, w.owed, deadline)
		if err != nil {
			return nil, err
		}
		w.owed = left
		paused += time.Since(p0)
	}
	done := 0
	for done < k && !w.interrupted.Load() && !w.stopped.Load() && !expired() {
		seg := min(k-done, chunk)
		if sh.straggler && st.Kind == Injected && st.Every > 0 {
			seg = min(seg, st.Every-int(sh.stats.Points%int64(st.Every)))
		}
		sh.process(params, seg, w.delta)
		sh.stats.Points += int64(seg)
		done += seg
		if sh.straggler && st.Kind == Injected && st.Every > 0 && sh.stats.Points%int64(st.Every) == 0 {
			// An interrupt or the local timer cuts the pause short; the
			// rest is owed.
			p0 := time.Now()
			left, err := w.pause(ctx, st.Tau, deadline)
			if err != nil {
				return nil, err
			}
			w.owed = left
			paused += time.Since(p0)
		}
	}
	if sh.straggler && st.Kind == Natural {
		p0 := time.Now()
		if err := sleep(ctx, time.Duration(float64(time.Since(t0))*(st.Slowdown-1))); err != nil {
			return nil, err
		}
		paused += time.Since(p0)
	}
	if w.stopped.Load() {
		return nil, nil // the run ended: what was computed is not sent
	}
	var h *consistency.Held
	if iw != nil {
		var err error
		if h, err = iw.finish(sh.id, w.delta, m.Points); err != nil {
			return nil, err
		}
	}
	seq := w.rec.Sent(time.Since(w.start), sh.id, m.Clock, consistency.Version(m.Version), w.delta.Count)
	if h != nil {
		w.heldLog = append(w.heldLog, heldRecord{seq: seq, clock: m.Clock, held: h})
	}
	sh.stats.Busy += time.Since(t0)
	sh.stats.Paused += paused
	sh.stats.Commits++
	return &transport.Message{Kind: transport.Commit, To: transport.Coordinator, Job: w.job, Seq: seq,
		Version: m.Version, Clock: m.Clock, Points: int64(done), Delta: w.delta}, nil
}

// commit sends c until it is acknowledged (or a later release shows it was
// accepted), and records the confirmation. It reports stop when the run
// ended meanwhile, with c as pending if it was not confirmed yet.
func (w *realWorker) commit(ctx context.Context, c *transport.Message) (pending *transport.Message, stop bool, err error) {
	for {
		if err := w.ep.Send(ctx, c); err != nil {
			return nil, false, err
		}
		for {
			m, err := w.recv(ctx)
			switch {
			case err != nil:
				return nil, false, err
			case m == nil:
				if w.e.bugs.noResend {
					continue // the deliberate bug of a test
				}
				// No ack within Retry: send again.
			case m.Kind == transport.Ack && (m.Seq == c.Seq || w.e.bugs.anyAck):
				w.confirm(c.Seq)
				return nil, false, nil
			case m.Kind == transport.Release && m.Clock > c.Clock:
				w.held, w.heldAt = m, w.got
				w.confirm(c.Seq)
				return nil, false, nil
			case m.Kind == transport.Stop:
				return c, true, nil
			case m.Kind == transport.Reject:
				return nil, false, fmt.Errorf("harness: worker %d commit %d rejected: %s", w.sh.id, c.Seq, m.Reason)
			default:
				continue // a stale ack or release
			}
			break
		}
	}
}

func (w *realWorker) confirm(seq uint64) { w.rec.Confirmed(time.Since(w.start), w.sh.id, seq) }

// finish answers the coordinator's stop until the run's context ends: it
// sends its unconfirmed commit pending (if any) until it is acknowledged,
// then heartbeats naming the last sequence number it sent, every Retry
// and at every message, so the coordinator's drain knows nothing of this
// worker is in flight.
func (w *realWorker) finish(ctx context.Context, pending *transport.Message) error {
	resend := !w.e.bugs.noResend
	for {
		var out *transport.Message
		switch {
		case pending == nil:
			out = &transport.Message{Kind: transport.Heartbeat, To: transport.Coordinator, Job: w.job, Seq: w.rec.LastSent(w.sh.id)}
		case resend:
			out = pending
			resend = !w.e.bugs.noResend
		}
		if out != nil {
			if err := w.ep.Send(ctx, out); err != nil {
				return ignoreCancel(ctx, err)
			}
		}
		m, err := w.recv(ctx)
		switch {
		case err != nil:
			return ignoreCancel(ctx, err)
		case pending != nil && m != nil && m.Kind == transport.Ack && (m.Seq == pending.Seq || w.e.bugs.anyAck):
			w.confirm(pending.Seq)
			pending = nil
		}
	}
}

// ignoreCancel returns nil for an error caused by ctx's end, else err.
func ignoreCancel(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// pause sleeps d unless an interrupt or the deadline (if not zero) comes
// first, and returns the time left.
func (w *realWorker) pause(ctx context.Context, d time.Duration, deadline time.Time) (time.Duration, error) {
	if w.interrupted.Load() {
		return d, nil
	}
	t0 := time.Now()
	sleep := d
	if !deadline.IsZero() {
		sleep = min(sleep, deadline.Sub(t0))
	}
	if sleep <= 0 {
		return d, nil
	}
	t := time.NewTimer(sleep)
	defer t.Stop()
	select {
	case <-t.C:
		return max(d-time.Since(t0), 0), nil
	case <-w.wake:
		return max(d-time.Since(t0), 0), nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
