package harness

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/preempt"
	"github.com/syncmodels/syncmodels/transport"
)

// Preemptions in real time (Experiment.Preempt with Clock: Real). Worker n
// follows the same schedule as in virtual time,
// preempt.Schedule(*Preempt, Seed, n, Duration), timed from the run's
// start (when every worker has joined), until the run's time is up.
//
// A preemption is a kill without notice, as SIGKILL is: the worker's
// goroutine is cancelled and its endpoint closed. What it was computing
// is lost (WorkerStats.Lost; its points leave WorkerStats.Points), and so
// is whatever was on its way to it. It sends no Leave: the coordinator
// learns of it when its lease ends, or when its next incarnation joins
// (the trace's leave record says which). A commit it sent before it died
// is on the network and may or may not arrive: the transport queued it
// (in-process links deliver it, unless they drop it), and the
// coordinator accepts it if the dead incarnation is still a member when
// it arrives, and refuses it otherwise. Either is safe, because the
// worker's per-point state is saved twice:
//
//   - The worker keeps, where a preemption cannot take it (realDisk: DOLL
//     §III-A's "standard fault tolerance mechanisms"), the checkpoint of
//     its state (algorithms.Checkpointer) and shard cursor as of its last
//     commit known accepted, and, while a commit is unconfirmed, the
//     checkpoint as of that commit. A confirmation (an acknowledgement, a
//     later release, a join's answer) promotes the second to the first.
//   - At a restore a fresh incarnation (the previous one + 1) starts on a
//     reopened endpoint from the checkpoint of its last commit sent, and
//     joins with that commit's sequence number (which is at least the
//     coordinator's last accepted, so a worker with per-point state is
//     not refused). The join's answer names the last commit the
//     coordinator accepted: the worker confirms its inherited commit, or
//     abandons it (RecAbandon) and restores the state from before it.
//     Its commit still in flight after the join is of an older
//     incarnation, and is refused.
//   - A worker still down when the run ends is settled the same way
//     against what the coordinator accepted, and its shard is left
//     holding the state it would restore.
//
// So every delta sent is applied exactly once or abandoned with a
// reason, and an EM workload's statistics equal the sum of every point's
// latest contribution (TestRealPreemptedKMeansStatistics). The sync models
// go on without a dead member once its lease ends: until then a BSP or
// FSP round waits for it, as it would for a killed process.

// realDisk is what a preemptible worker keeps across its deaths.
type realDisk struct {
	acc     workerSave // as of the last commit known accepted (ok false: none yet)
	pending workerSave // as of commit seq, sent and not yet known accepted
	seq     uint64     // 0: nothing pending
	inc     uint32     // the incarnation that sent commit seq
	// why is the reason the worker gave commit seq up after the stop
	// (refused, or the run ended while it rejoined), which the
	// settlement after the run records ("" while the worker holds it).
	why string
}

// giveUp notes that the worker gave commit seq up after the stop, for
// reason: settle records it. A nil disk (no preemptions) has the worker
// record it at once (it reports true).
func (d *realDisk) giveUp(seq uint64, reason string) (now bool) {
	if d == nil {
		return true
	}
	if d.seq == seq {
		d.why = reason
	}
	return false
}

// sent saves the state as of commit seq, just sent by incarnation inc. A
// nil disk keeps nothing (no preemptions).
func (d *realDisk) sent(seq uint64, inc uint32, sh *shard) {
	if d != nil {
		d.pending, d.seq, d.inc, d.why = sh.save(), seq, inc, ""
	}
}

// confirm records that commit seq was accepted.
func (d *realDisk) confirm(seq uint64) {
	if d != nil && d.seq == seq && seq != 0 {
		d.acc, d.pending, d.seq = d.pending, workerSave{}, 0
	}
}

// drop records that commit seq was abandoned.
func (d *realDisk) drop(seq uint64) {
	if d != nil && d.seq == seq {
		d.pending, d.seq = workerSave{}, 0
	}
}

// realPreempter runs one worker through its schedule: its incarnations,
// their kills and restores.
type realPreempter struct {
	e      *Experiment
	tr     transport.Transport
	st     *setupState
	id     int
	sched  []preempt.Transition
	origin *atomic.Int64 // the run's start, Unix nanoseconds
	// spawn makes incarnation inc of the worker over ep.
	spawn func(ep transport.Endpoint, inc uint32) *realWorker
	disk  realDisk
	w     *realWorker // the current incarnation, or the last one while down
	down  bool
	since time.Duration // by the schedule, when the worker went down
}

// newRealPreempters makes each worker's preempter, or returns nil
// without preemptions.
func newRealPreempters(e *Experiment, st *setupState, tr transport.Transport, origin *atomic.Int64,
	spawn func(i int, ep transport.Endpoint, inc uint32) *realWorker) ([]*realPreempter, error) {
	if e.Preempt == nil {
		return nil, nil
	}
	if err := checkpointable(e, st); err != nil {
		return nil, err
	}
	ps := make([]*realPreempter, len(st.shards))
	for i := range ps {
		ts, err := preempt.Schedule(*e.Preempt, e.Seed, i, e.Duration)
		if err != nil {
			return nil, configError("", err)
		}
		ps[i] = &realPreempter{e: e, tr: tr, st: st, id: i, sched: ts, origin: origin,
			spawn: func(ep transport.Endpoint, inc uint32) *realWorker { return spawn(i, ep, inc) }}
	}
	return ps, nil
}

// checkpointable refuses workers that cannot checkpoint.
func checkpointable(e *Experiment, st *setupState) error {
	for _, sh := range st.shards {
		if _, ok := sh.w.(algorithms.Checkpointer); !ok {
			return fmt.Errorf("harness: %s worker cannot checkpoint (it does not implement algorithms.Checkpointer), which preemptions need: %w",
				e.Algorithm.Name(), ErrConfig)
		}
	}
	return nil
}

// run runs the first incarnation w, then follows the schedule from the
// run's start (started) until its time is up (ending) or ctx ends. It
// returns the error of a live incarnation; a killed one's is not.
func (p *realPreempter) run(ctx context.Context, w *realWorker, started, ending <-chan struct{}) error {
	var (
		done chan error // the live incarnation's end; nil while down
		kill context.CancelFunc
	)
	launch := func(w *realWorker) {
		p.w = w
		w.disk = &p.disk
		var wctx context.Context
		wctx, kill = context.WithCancel(ctx)
		done = make(chan error, 1)
		go func() { done <- w.run(wctx) }()
	}
	defer func() {
		if kill != nil {
			kill()
		}
	}()
	launch(w)
	select {
	case <-started:
	case err := <-done:
		return err
	case <-ctx.Done():
		return <-done
	}
	t0 := time.Unix(0, p.origin.Load())
	for _, tr := range p.sched {
		timer := time.NewTimer(time.Until(t0.Add(tr.At)))
		select {
		case <-timer.C:
		case err := <-done: // nil channel while down
			timer.Stop()
			return err
		case <-ending:
			timer.Stop()
			return p.wait(done)
		case <-ctx.Done():
			timer.Stop()
			return p.wait(done)
		}
		if !tr.Available {
			p.kill(kill, done, tr.At)
			done, kill = nil, nil
			continue
		}
		nw, err := p.restore(tr.At)
		if err != nil {
			return err
		}
		launch(nw)
	}
	return p.wait(done)
}

// wait returns the live incarnation's error (nil while down).
func (p *realPreempter) wait(done chan error) error {
	if done == nil {
		return nil
	}
	return <-done
}

// kill preempts the live incarnation at schedule time at: its context
// ends and its endpoint closes; once its goroutine has returned, what it
// was computing is accounted as lost.
func (p *realPreempter) kill(kill context.CancelFunc, done chan error, at time.Duration) {
	w, s := p.w, &p.st.shards[p.id].stats
	kill()
	w.ep.Close()
	<-done // its error is the kill's
	now := time.Now()
	if !w.batchT0.IsZero() {
		s.Lost += now.Sub(w.batchT0)
		s.Points = w.batchFrom
	} else {
		s.Wait += now.Sub(w.waitFrom)
	}
	s.Preempted++
	p.down, p.since = true, at
}

// restore starts the next incarnation at schedule time at, on a reopened
// endpoint, from the state as of its last commit sent; the commit, if
// unconfirmed, is inherited for the join's answer to settle.
func (p *realPreempter) restore(at time.Duration) (*realWorker, error) {
	sh := p.st.shards[p.id]
	ep, err := p.tr.Open(transport.NodeID(p.id))
	if err != nil {
		return nil, fmt.Errorf("harness: reopening the endpoint of restored worker %d: %w", p.id, err)
	}
	sv := p.disk.acc
	var before *algorithms.Checkpoint
	if p.disk.seq != 0 {
		sv = p.disk.pending
		if before, err = p.stateOf(p.disk.acc); err != nil {
			return nil, err
		}
	}
	if err := sh.reincarnate(p.e.Algorithm, p.st.parts[p.id], sv, p.e.bugs.noRestore); err != nil {
		return nil, err
	}
	nw := p.spawn(ep, p.w.inc.Load()+1)
	if p.disk.seq != 0 {
		nw.inherited = &transport.Message{Kind: transport.Commit, Seq: p.disk.seq}
		nw.before = before
	}
	sh.stats.Down += at - p.since
	p.down = false
	return nw, nil
}

// stateOf returns the per-point state sv holds: a fresh worker's when sv
// holds no commit yet.
func (p *realPreempter) stateOf(sv workerSave) (*algorithms.Checkpoint, error) {
	if sv.ok {
		return &sv.state, nil
	}
	w, err := p.e.Algorithm.NewWorker(p.st.parts[p.id])
	if err != nil {
		return nil, fmt.Errorf("harness: restore of worker %d: %w", p.id, err)
	}
	ck := w.(algorithms.Checkpointer).Checkpoint()
	return &ck, nil
}

// settle ends the worker's preemptions after the run (its goroutines have
// returned): the down time still open up to the run's time timeUp, and a
// commit left unconfirmed, which the coordinator accepted (accepted is
// its last accepted) or not — then the worker abandons it if it gave it
// up (coordInc, member: the coordinator's incarnation of the worker and
// whether it is a member, at the end). The shard is
// left holding the state the worker would restore if its state is not
// that already: it is down, the run's end cut a batch short, or the
// commit was not accepted.
func (p *realPreempter) settle(timeUp time.Duration, accepted uint64, coordInc uint32, member bool, now time.Duration) error {
	sh := p.st.shards[p.id]
	if p.down {
		sh.stats.Down += max(timeUp-p.since, 0)
	}
	restore := p.down || !p.w.batchT0.IsZero()
	sv := p.disk.acc
	switch seq := p.disk.seq; {
	case seq == 0:
	case seq <= accepted:
		sv = p.disk.pending
	default:
		// Never accepted: the worker gave it up — preempted with it in
		// flight (down, or a later incarnation not yet rejoined), refused
		// or rejoining after the stop (disk.why), or without knowing at
		// the end (giveUpReason) — or it left a member and was lost,
		// which Check then reports.
		var reason string
		switch {
		case p.down:
			reason = "the worker was preempted with it in flight, and the coordinator never accepted it"
		case p.disk.inc < p.w.inc.Load():
			reason = fmt.Sprintf("sent by incarnation %d, which incarnation %d had replaced when the run ended; the coordinator never accepted it", p.disk.inc, p.w.inc.Load())
		case p.disk.why != "":
			reason = p.disk.why
		default:
			reason = p.w.giveUpReason(seq, coordInc, member)
		}
		if reason != "" {
			p.st.coord.rec.Abandoned(now, sh.id, seq, reason)
		}
		restore = true
	}
	if !restore {
		return nil
	}
	return sh.reincarnate(p.e.Algorithm, p.st.parts[p.id], sv, false)
}
