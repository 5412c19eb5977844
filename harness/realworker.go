package harness

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/transport"
)

// WorkerOptions are what RunWorker needs besides the experiment.
type WorkerOptions struct {
	// ID is the worker's ID, in [0, Experiment.Workers).
	ID int
	// Incarnation is the worker's first incarnation; default 1. A worker
	// process restarted after a crash passes a higher one (the
	// coordinator refuses an incarnation it has seen and names the next).
	Incarnation uint32
	// Recorder, if set, receives the worker's side of the trace (Sent,
	// Confirmed, Abandoned), timed from Start; default a private one
	// (Result's Recorder field).
	Recorder *consistency.Recorder
	// Start is the origin of the records' times; default RunWorker's
	// start.
	Start time.Time
}

// WorkerResult is what RunWorker reports.
type WorkerResult struct {
	Stats WorkerStats
	// Incarnation is the worker's last incarnation: the first plus its
	// rejoins.
	Incarnation uint32
	// Rejoins counts the worker's joins after its first.
	Rejoins int
	// Recorder holds the worker's side of the trace.
	Recorder *consistency.Recorder
}

// RunWorker runs worker opt.ID of e over ep until the coordinator stops
// the run or ctx ends: the worker of a Remote experiment, in another
// process or on another host. e must describe the same experiment as the
// coordinator's (the same Algorithm, built identically, and the same
// Seed, Workers, Shuffle and Stragglers): the worker derives its shard and
// whether it straggles from them, as the coordinator does.
//
// The worker joins (waiting for a coordinator that is not there yet — a
// transport that answers transport.ErrUnknownNode for it — by sending
// Join every Retry), computes each release, commits and retransmits until
// acknowledged, and heartbeats at least every Lease/4. When the
// coordinator refuses it as a stale incarnation (its lease expired), it
// rejoins as the incarnation the coordinator names, giving up a commit
// that was not accepted and restoring its per-point state to before it.
// A Reject without a next incarnation (a worker whose state the
// coordinator cannot take back) ends RunWorker with an error naming it.
func RunWorker(ctx context.Context, e Experiment, ep transport.Endpoint, opt WorkerOptions) (*WorkerResult, error) {
	e.Remote = false // the coordinator's setting: this is the worker's side
	if err := e.validate(); err != nil {
		return nil, err
	}
	if e.Clock != Real {
		return nil, fmt.Errorf("harness: RunWorker runs the real clock, not %v: %w", e.Clock, ErrConfig)
	}
	if e.Sync.Kind == consistency.ISP || e.Replicas {
		return nil, fmt.Errorf("harness: remote workers cannot run ISP or replicas yet: %w", ErrConfig)
	}
	if opt.ID < 0 || opt.ID >= e.Workers {
		return nil, fmt.Errorf("harness: worker %d of %d: %w", opt.ID, e.Workers, ErrConfig)
	}
	if ep.ID() != transport.NodeID(opt.ID) {
		return nil, fmt.Errorf("harness: worker %d runs on the endpoint of %v: %w", opt.ID, ep.ID(), ErrConfig)
	}
	e.realDefaults()
	parts, err := shardPoints(&e)
	if err != nil {
		return nil, err
	}
	pts := parts[opt.ID]
	aw, err := e.Algorithm.NewWorker(pts)
	if err != nil {
		return nil, err
	}
	l := e.Algorithm.Layout()
	sh := &shard{id: consistency.WorkerID(opt.ID), w: aw, n: aw.Len(), deltaLen: l.Delta, block: l.Block}
	sh.straggler = slices.Contains(e.stragglers(rand.New(rand.NewPCG(e.Seed, 0x57a6))), opt.ID)
	sh.stats.Straggler = sh.straggler
	if opt.Incarnation == 0 {
		opt.Incarnation = 1
	}
	if opt.Start.IsZero() {
		opt.Start = time.Now()
	}
	if opt.Recorder == nil {
		opt.Recorder = consistency.NewRecorder(e.Sync, []consistency.WorkerID{sh.id}, true)
	}
	start := &atomic.Int64{}
	start.Store(opt.Start.UnixNano())
	w := &realWorker{e: &e, sh: sh, ep: ep, job: e.Seed, rec: opt.Recorder, start: start}
	w.inc.Store(opt.Incarnation)
	err = w.run(ctx)
	res := &WorkerResult{Stats: sh.stats, Incarnation: w.inc.Load(), Rejoins: w.rejoins, Recorder: opt.Recorder}
	if s := w.stream; s != nil {
		// Its own count: the batches that arrived at it, the ones it
		// fast-forwarded over included, and the time its stream ran.
		res.Stats.Batches = int(s.produced.Load())
		res.Stats.Arrived = int64(res.Stats.Batches) * int64(s.b)
		if t0 := s.start.Load(); t0 != 0 {
			res.Stats.Up = time.Since(time.Unix(0, t0))
		}
	}
	return res, err
}

// shardPoints splits the data set among e's workers as every runtime
// does: in order, or shuffled by the seed.
func shardPoints(e *Experiment) ([][]int, error) {
	var perm *rand.Rand
	if e.Shuffle {
		perm = rand.New(rand.NewPCG(e.Seed, 0x5a4d))
	}
	parts, err := dataset.Shard(e.Algorithm.NumPoints(), e.Workers, perm)
	if err != nil {
		return nil, configError("", err)
	}
	return parts, nil
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
	stopc       chan struct{} // closed with stopped, to cut a Tail delay short
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
	// took as accepted. start is the trace's time origin (Unix
	// nanoseconds), which the coordinator may move to the run's start.
	rec   *consistency.Recorder
	start *atomic.Int64
	// Membership: the current incarnation (read by the goroutines that
	// send), the last one whose join was answered, the joins after the
	// first, the clock of the next release to start (for heartbeats),
	// when the worker last sent anything (Unix nanoseconds), and, for a
	// worker with per-point state, its state before the commit in flight.
	inc       atomic.Uint32
	joinedInc atomic.Uint32
	rejoins   int
	want      atomic.Uint64
	lastSend  atomic.Int64
	before    *algorithms.Checkpoint
	// Preemptions (realpreempt.go): what the worker keeps where a
	// preemption cannot take it (nil without Experiment.Preempt), the
	// commit in flight its predecessor left (the join's answer settles
	// it), when and from how many points the batch in progress started
	// (zero when none), and when it began to wait.
	disk      *realDisk
	inherited *transport.Message
	batchT0   time.Time
	batchFrom int64
	waitFrom  time.Time
	// stream is the worker's data stream (realstream.go; nil without
	// Experiment.Arrivals).
	stream *realStream
	// settled is the last sequence number the worker confirmed or
	// abandoned, cutOff that of a commit whose send had not returned when
	// the worker's context ended, and commitInc the incarnation that last
	// sent a commit (its main loop's; read after the run, settleOut).
	settled, cutOff uint64
	commitInc       uint32
}

// chunk is how many points a real worker processes between checks for an
// interrupt: FSP's "commit after the current point", at chunk granularity.
const chunk = 16

// ErrRefused reports that the coordinator refused a worker for good (a
// Reject naming no incarnation to rejoin as): a restarted worker whose
// per-point state the server already holds, say. RunWorker's error wraps
// it; the run goes on without the worker.
var ErrRefused = errors.New("harness: worker refused")

func (w *realWorker) since() time.Duration {
	return time.Duration(time.Now().UnixNano() - w.start.Load())
}

// send sends m as the worker's current incarnation.
//
// Until the worker has joined once, a coordinator the transport does not
// know (transport.ErrUnknownNode: a worker process started before the
// coordinator's, over a store's registry) loses the message as a lossy
// link would, and join sends Join again every Retry: RunWorker waits for
// the coordinator until ctx ends. Once joined, an unknown coordinator is
// an error.
func (w *realWorker) send(ctx context.Context, m *transport.Message) error {
	m.To, m.Job, m.Incarnation = transport.Coordinator, w.job, w.inc.Load()
	w.lastSend.Store(time.Now().UnixNano())
	err := w.ep.Send(ctx, m)
	if err != nil && w.joinedInc.Load() == 0 && errors.Is(err, transport.ErrUnknownNode) {
		return nil
	}
	if m.Kind == transport.Commit {
		w.commitInc = m.Incarnation
		if err != nil && ctx.Err() != nil {
			w.cutOff = m.Seq // the run ended with the commit still being sent
		}
	}
	return err
}

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
		case transport.Batch:
			if w.stream != nil {
				w.stream.ack(m.Batch) // cumulative: any incarnation's answer holds
			}
			continue
		case transport.Stop:
			if !w.stopped.Swap(true) {
				close(w.stopc)
			}
		}
		select {
		case w.in <- m:
		case <-ctx.Done():
			w.errc <- ctx.Err()
			return
		}
	}
}

// heartbeat sends a heartbeat whenever the worker has sent nothing for
// Lease/4, so that a worker computing a long batch keeps its lease.
func (w *realWorker) heartbeat(ctx context.Context) {
	every := w.e.Lease / 4
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if time.Since(time.Unix(0, w.lastSend.Load())) < every {
			continue
		}
		hb := &transport.Message{Kind: transport.Heartbeat, Clock: w.want.Load(), Seq: w.rec.LastSent(w.sh.id)}
		if err := w.send(ctx, hb); err != nil {
			return // the main loop sees the endpoint's error
		}
	}
}

// recv returns the next message, or nil after Retry without one.
// Messages to another incarnation of this worker are dropped, except Stop.
func (w *realWorker) recv(ctx context.Context) (*transport.Message, error) {
	if m := w.held; m != nil {
		w.held, w.got = nil, w.heldAt
		return m, nil
	}
	t := time.NewTimer(w.e.Retry)
	defer t.Stop()
	for {
		select {
		case m := <-w.in:
			if m.Incarnation != w.inc.Load() && m.Kind != transport.Stop && m.Kind != transport.Reject {
				continue // for an earlier incarnation
			}
			if m.Kind == transport.Reject && m.Incarnation != 0 && m.Incarnation <= w.inc.Load() {
				continue // an offer to rejoin as what this worker is already
			}
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
}

func (w *realWorker) run(ctx context.Context) (rerr error) {
	rctx, stop := context.WithCancel(ctx)
	w.in, w.errc, w.wake = make(chan *transport.Message, 256), make(chan error, 1), make(chan struct{}, 1)
	w.stopc = make(chan struct{})
	done := make(chan struct{}, 2)
	go func() { defer func() { done <- struct{}{} }(); w.read(rctx) }()
	go func() { defer func() { done <- struct{}{} }(); w.heartbeat(rctx) }()
	var perr chan error // the producer's end (streams only)
	if w.stream = newRealStream(w.e, int(w.sh.id)); w.stream != nil {
		perr = make(chan error, 1)
		go func() { perr <- w.produce(rctx) }()
	}
	defer func() {
		stop()
		<-done
		<-done
		if perr != nil {
			if err := <-perr; err != nil && rerr == nil {
				rerr = err
			}
		}
	}()
	// Wait counts from a commit to the next release: not the join, which
	// for a remote worker lasts until every worker process has joined.
	released := false
	w.waitFrom = time.Now()
	stopped, err := w.join(ctx, w.inherited)
	switch {
	case err != nil:
		return err
	case stopped:
		return w.finish(ctx, nil)
	}
	for {
		m, err := w.recv(ctx)
		want := w.want.Load()
		switch {
		case err != nil:
			return err
		case m == nil:
			hb := &transport.Message{Kind: transport.Heartbeat, Clock: want, Seq: w.rec.LastSent(w.sh.id)}
			if err := w.send(ctx, hb); err != nil {
				return err
			}
			continue
		case m.Kind == transport.Stop:
			if released {
				w.sh.stats.Wait += time.Since(w.waitFrom)
			}
			return w.finish(ctx, nil)
		case m.Kind == transport.Reject:
			if stopped, err := w.rejected(ctx, m, nil); err != nil || stopped {
				return errors.Join(err, w.finishIf(ctx, stopped))
			}
			continue
		case m.Kind != transport.Release || m.Clock < want:
			continue // an old ack, or a release already started
		}
		if released {
			w.sh.stats.Wait += time.Since(w.waitFrom)
		}
		released = true
		w.want.Store(m.Clock + 1)
		commit, err := w.compute(ctx, m)
		switch {
		case err != nil:
			return err
		case commit == nil:
			// Stopped while computing: the unsent work is dropped.
			return w.finish(ctx, nil)
		}
		w.waitFrom = time.Now()
		pending, stop, err := w.commit(ctx, commit)
		if stop || err != nil {
			w.sh.stats.Wait += time.Since(w.waitFrom)
		}
		switch {
		case err != nil:
			return err
		case stop:
			return w.finish(ctx, pending)
		}
	}
}

func (w *realWorker) finishIf(ctx context.Context, stopped bool) error {
	if !stopped {
		return nil
	}
	return w.finish(ctx, nil)
}

// join joins as the current incarnation, sending Join every Retry until
// the coordinator answers. pending is a commit sent and not confirmed:
// the answer names the worker's last accepted commit, so the worker
// confirms pending or gives it up (restoring its state from before it).
// It reports stopped when the run ended first.
func (w *realWorker) join(ctx context.Context, pending *transport.Message) (stopped bool, err error) {
	// A release that overtakes the answer is kept for after it.
	var early *transport.Message
	var earlyAt time.Time
	defer func() {
		if early != nil && err == nil && !stopped {
			w.held, w.heldAt = early, earlyAt
		}
	}()
	for {
		j := &transport.Message{Kind: transport.Join, Seq: w.rec.LastSent(w.sh.id)}
		if err := w.send(ctx, j); err != nil {
			return false, err
		}
		for {
			m, err := w.recv(ctx)
			switch {
			case err != nil:
				return false, err
			case m == nil:
			case m.Kind == transport.Join:
				return false, w.joined(m.Seq, m.Batch, pending)
			case m.Kind == transport.Stop:
				// (A preemptible worker's is settled after the run,
				// against what the coordinator accepted.)
				if pending != nil && w.disk.giveUp(pending.Seq, "the run ended while the worker rejoined") {
					w.abandon(pending.Seq, "the run ended while the worker rejoined")
				}
				return true, nil
			case m.Kind == transport.Reject && m.Incarnation > w.inc.Load():
				w.inc.Store(m.Incarnation)
			case m.Kind == transport.Reject:
				return false, fmt.Errorf("harness: worker %d incarnation %d: %s: %w", w.sh.id, w.inc.Load(), m.Reason, ErrRefused)
			case m.Kind == transport.Release:
				early, earlyAt = m, w.got
				continue
			default:
				continue
			}
			break // send the join again
		}
	}
}

// joined takes the coordinator's answer to a join: accepted is the last
// commit it accepted from this worker, batches the number of the
// worker's streamed batches it has (the stream resumes there).
func (w *realWorker) joined(accepted, batches uint64, pending *transport.Message) error {
	w.joinedInc.Store(w.inc.Load())
	if w.stream != nil {
		w.stream.join(batches)
	}
	if pending != nil {
		if pending.Seq <= accepted || w.e.bugs.rejoinConfirms {
			w.confirm(pending.Seq)
		} else {
			w.abandon(pending.Seq, fmt.Sprintf("not accepted before incarnation %d joined", w.inc.Load()))
			w.disk.drop(pending.Seq)
			if err := w.restoreBefore(fmt.Sprintf("commit %d was not accepted", pending.Seq)); err != nil {
				return err
			}
		}
	}
	w.before = nil
	w.rec.SkipTo(w.sh.id, accepted)
	w.want.Store(0)
	return nil
}

// rejected handles a Reject: one naming a later incarnation makes the
// worker rejoin as it (with pending, its commit in flight); any other
// ends the worker.
func (w *realWorker) rejected(ctx context.Context, m *transport.Message, pending *transport.Message) (stopped bool, err error) {
	if m.Incarnation <= w.inc.Load() {
		return false, fmt.Errorf("harness: worker %d incarnation %d: %s: %w", w.sh.id, w.inc.Load(), m.Reason, ErrRefused)
	}
	w.inc.Store(m.Incarnation)
	w.rejoins++
	return w.join(ctx, pending)
}

// compute processes the release's budget, pausing like a straggler and
// stopping early (after the current chunk) when interrupted or, when the
// release carries a local timer (semi-centralized FSP, §5.2), when the
// timer has run since the release arrived: a pause in progress then ends
// at once, the rest owed, as with an interrupt. A natural straggler's
// slowdown is served after its points, so it stops its points when they
// and their slowdown would fill the timer. A Tail straggler first sleeps
// its release's delay and, done, its commit's (tail.go); a stop cuts
// either short and drops the work.
func (w *realWorker) compute(ctx context.Context, m *transport.Message) (_ *transport.Message, err error) {
	sh, st := w.sh, w.e.Stragglers
	w.batchT0, w.batchFrom = time.Now(), sh.stats.Points
	defer func() {
		if err == nil {
			w.batchT0 = time.Time{} // else killed: the batch is lost
		}
	}()
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
	if w.isp == nil && algorithms.HasState(sh.w) {
		if c, ok := sh.w.(algorithms.Checkpointer); ok {
			ck := c.Checkpoint()
			w.before = &ck
		}
	}
	k := sh.points(int(m.Budget))
	var from uint64 // the first batch computed (streams)
	if w.stream != nil {
		if from, err = w.streamFrom(m); err != nil {
			return nil, err
		}
		if sh.n > 0 {
			// Batch j is the points from j·b on, wrapping.
			sh.cursor = int(from * uint64(w.stream.b) % uint64(sh.n))
		}
	}
	params := m.Params
	var iw *ispWorker
	if w.isp != nil {
		iw = w.isp.workers[sh.id]
		params = iw.prepare(m.Params)
	}
	if d := w.e.tailDelay(sh, false); d > 0 && !w.stopped.Load() {
		slept, err := tailSleep(ctx, d, w.stopc)
		sh.stats.Delayed += slept
		if err != nil {
			return nil, err
		}
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
	for done < k && !w.interrupted.Load() && !w.stopped.Load() && !expired() && ctx.Err() == nil {
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
	var delayed time.Duration // the commit's Tail delay
	if d := w.e.tailDelay(sh, true); d > 0 && !w.stopped.Load() {
		slept, err := tailSleep(ctx, d, w.stopc)
		sh.stats.Delayed += slept
		if err != nil {
			return nil, err
		}
		delayed = slept
	}
	if w.stopped.Load() {
		// The run ended: what was computed is not sent, and the
		// per-point state goes back to match what the server holds.
		return nil, w.restoreBefore("the run ended while it computed")
	}
	if err := ctx.Err(); err != nil {
		return nil, err // killed (a preemption) or the run's end
	}
	var h *consistency.Held
	if iw != nil {
		var err error
		if h, err = iw.finish(sh.id, w.delta, m.Points); err != nil {
			return nil, err
		}
	}
	var seq uint64
	if w.stream != nil {
		seq = w.rec.SentFrom(w.since(), sh.id, m.Clock, consistency.Version(m.Version), w.delta.Count, from)
	} else {
		seq = w.rec.Sent(w.since(), sh.id, m.Clock, consistency.Version(m.Version), w.delta.Count)
	}
	w.disk.sent(seq, w.inc.Load(), sh)
	if h != nil {
		w.heldLog = append(w.heldLog, heldRecord{seq: seq, clock: m.Clock, held: h})
	}
	sh.stats.Busy += time.Since(t0) - delayed
	sh.stats.Paused += paused
	sh.stats.Commits++
	return &transport.Message{Kind: transport.Commit, Seq: seq,
		Version: m.Version, Clock: m.Clock, Points: int64(done), Delta: w.delta, Batch: m.Batch}, nil
}

// commit sends c until it is acknowledged (or a later release shows it was
// accepted), and records the confirmation. It reports stop when the run
// ended meanwhile, with c as pending if it was not confirmed yet. A
// Reject naming a later incarnation (the worker's lease expired) makes it
// rejoin: the join's answer says whether c was accepted.
func (w *realWorker) commit(ctx context.Context, c *transport.Message) (pending *transport.Message, stop bool, err error) {
	for {
		if err := w.send(ctx, c); err != nil {
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
				stopped, err := w.rejected(ctx, m, c)
				return nil, stopped, err
			default:
				continue // a stale ack or release
			}
			break
		}
	}
}

// restoreBefore returns a worker with per-point state to its state
// before the delta it computed last, which will never be applied.
func (w *realWorker) restoreBefore(why string) error {
	if w.before == nil || w.e.bugs.noRejoinRestore {
		return nil
	}
	if err := w.sh.w.(algorithms.Checkpointer).Restore(*w.before); err != nil {
		return fmt.Errorf("harness: worker %d: restoring its state (%s): %w", w.sh.id, why, err)
	}
	w.before = nil
	return nil
}

func (w *realWorker) confirm(seq uint64) {
	w.rec.Confirmed(w.since(), w.sh.id, seq)
	w.settled = max(w.settled, seq)
	w.before = nil
	w.disk.confirm(seq)
}

// abandon records that the worker gave its unconfirmed delta seq up.
func (w *realWorker) abandon(seq uint64, reason string) {
	w.rec.Abandoned(w.since(), w.sh.id, seq, reason)
	w.settled = max(w.settled, seq)
}

// settleOut settles, after the run (its goroutines have returned), the
// delta the worker sent last if it never saw it confirmed or refused and
// the coordinator never accepted it, when the worker gave it up without
// knowing (giveUpReason), as virtual time abandons a commit still on the
// link at the end. coordInc is the coordinator's incarnation of the
// worker and member whether it is a member, at the end. A delta that
// left a member's current incarnation and never reached the coordinator
// is not settled: the worker had the drain to resend it, and Check
// reports it lost.
func (w *realWorker) settleOut(now time.Duration, accepted uint64, coordInc uint32, member bool) {
	last := w.rec.LastSent(w.sh.id)
	if last <= w.settled || last <= accepted {
		return
	}
	if reason := w.giveUpReason(last, coordInc, member); reason != "" {
		w.rec.Abandoned(now, w.sh.id, last, reason)
		w.settled = last
	}
}

// giveUpReason says why the worker's commit seq, never accepted, was
// given up at the run's end without the worker knowing, or "" if it was
// not:
//   - its send had not returned when the run ended (a send stalled past
//     the drain's 50 × Retry): it never left the worker;
//   - an older incarnation than the coordinator's sent it: the worker's
//     lease ran out with it in flight and the coordinator answered its
//     rejoin, whose answer gives up what was not accepted, but the run
//     ended before the worker heard it;
//   - the worker is not a member at the end: its lease ran out with the
//     commit in flight, and the drain, which waits for members only,
//     ended the run before the worker heard that it was refused.
//
// The coordinator refuses the commits of old incarnations and of
// non-members: none of these could be applied.
func (w *realWorker) giveUpReason(seq uint64, coordInc uint32, member bool) string {
	switch {
	case w.cutOff == seq:
		return "in flight when the run ended: its send had not returned when the drain gave up"
	case w.commitInc < coordInc:
		return fmt.Sprintf("in flight when the run ended: sent by incarnation %d, which the coordinator had replaced by %d (a rejoin whose answer the worker did not get)", w.commitInc, coordInc)
	case !member:
		return "in flight when the run ended, the worker out (its lease had expired): the coordinator refuses a non-member's commits"
	}
	return ""
}

// finish answers the coordinator's stop until the run's context ends: it
// sends its unconfirmed commit pending (if any) until it is acknowledged,
// then (K-grouping) the indicators of its stream's batches that the
// coordinator has not acknowledged, until it has, then a Leave naming the
// last sequence number it sent, every Retry and at every message, so
// the coordinator's drain knows nothing of this worker is in flight.
// A worker that is the coordinator's current member records how many
// batches its stream produced by the stop (Recorder.Produced), which
// Check holds the coordinator's count to; batches complete after the
// stop are not the run's.
func (w *realWorker) finish(ctx context.Context, pending *transport.Message) error {
	resend := !w.e.bugs.noResend
	var produced uint64 // the stream's batches to see acknowledged
	if s := w.stream; s != nil && w.joinedInc.Load() == w.inc.Load() {
		produced = s.produced.Load()
		w.rec.Produced(w.since(), w.sh.id, produced)
	}
	for {
		var out *transport.Message
		switch {
		case pending == nil && produced > 0 && w.stream.acked.Load() < produced && !w.e.bugs.leaveWithBatches:
			if !w.e.bugs.noBatchResend {
				if err := w.sendBatches(ctx, w.stream.acked.Load(), produced); err != nil {
					return ignoreCancel(ctx, err)
				}
			}
		case pending == nil:
			out = &transport.Message{Kind: transport.Leave, Seq: w.rec.LastSent(w.sh.id), Reason: "stopped"}
		case resend:
			out = pending
			resend = !w.e.bugs.noResend
		}
		if out != nil {
			if err := w.send(ctx, out); err != nil {
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
		case pending != nil && m != nil && m.Kind == transport.Reject:
			if why := "refused after the stop: " + m.Reason; w.disk.giveUp(pending.Seq, why) { // else settled after the run
				w.abandon(pending.Seq, why)
			}
			pending = nil
		case m != nil && m.Kind == transport.Reject:
			produced = 0 // not a member: the coordinator will not count them
		}
	}
}

// ignoreCancel returns nil for an error caused by ctx's end or by the
// network's closing after the stop (the coordinator's process is done),
// else err.
func ignoreCancel(ctx context.Context, err error) error {
	if ctx.Err() != nil || errors.Is(err, transport.ErrClosed) {
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
