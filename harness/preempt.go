package harness

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/preempt"
	"github.com/syncmodels/syncmodels/transport"
)

// Preemptions in virtual time (Experiment.Preempt). Each worker follows
// its own availability chain (package preempt; DOLL §III-B4, §V-A): worker
// n's schedule is preempt.Schedule(*Experiment.Preempt, Experiment.Seed,
// n, Experiment.Duration), and every worker starts available.
//
// At a preemption (an off transition) the worker's process dies:
//
//   - What it was computing is lost: the batch in progress is never
//     committed, its compute time is WorkerStats.Lost. DOLL §III-B4 makes
//     the same assumption ("preemptions that occur during updates discard
//     the update altogether"). A release or interrupt on its way to the
//     worker is lost with it.
//   - A commit it already sent is not lost: it is on the network, ahead
//     of the worker's preemption notice (AWS and GCP warn a preemptible
//     instance before they reclaim it), which reaches the coordinator as a
//     Leave message on the same FIFO link. The coordinator therefore
//     accepts the commit, then feeds EvLeave: every delta the worker sent
//     is applied exactly once, and its sequence numbers stay in step with
//     the model's (consistency.Check verifies both on Result.Trace).
//     Dropping the commit instead would be safe only if the worker's
//     restored state excluded it too; keeping it is what a reliable
//     transport does, and the simpler contract.
//   - Its per-point state (K-means' assignments, EM's statistics) dies
//     with the process. The worker checkpoints it with every commit it
//     sends (algorithms.Checkpointer, which every workload implements),
//     together with its cursor in its shard, as DOLL's workers keep what
//     they hold "via standard fault tolerance mechanisms" (§III-A).
//     Since every delta sent is applied (above), that checkpoint is the
//     state matching the worker's last accepted commit, and restoring it
//     counts no point twice and loses none.
//
// At a restore (an on transition) a fresh incarnation of the worker
// starts: a new algorithms.Worker over the same shard, restored from the
// checkpoint (a worker that never committed starts fresh, which is the
// same state). It sends Join; the coordinator feeds EvJoin, and the model
// releases it from its next round (BSP, FSP) or at once (SSP, ASP,
// quorum). Preemption overhead (shutdown, boot) is not modelled: DOLL
// takes it as negligible (§III-B4).
//
// The sync models go on with the members they have: a BSP or FSP round
// ends when its last computing member commits or leaves, SSP's bound and
// the quorum count only members. When every worker is down nothing
// happens until one returns.

// preemption is the simulator's preemption state.
type preemption struct {
	down  []bool
	since []time.Duration // when a down worker went down
	// inc is each worker's incarnation (0 first); releases and
	// interrupts carry the incarnation they were sent to, so that a fresh
	// incarnation drops what was meant for its predecessor.
	inc   []uint32
	saved []workerSave
	// preempted and rejoined count the preemptions and the joins the
	// coordinator accepted.
	preempted, rejoined int
	// spot says which workers are on preemptible instances now; chain[w]
	// counts the availability chains worker w has started (Provision
	// moves workers between kinds); sgen[w] tags its scheduled
	// transitions, so that a move cancels those of its old chain.
	spot  []bool
	chain []uint64
	sgen  []uint64
	// spans are the closed instance spans; from[w] is when worker w's
	// open span began.
	spans []InstanceSpan
	from  []time.Duration
}

// workerSave is a worker's state at its latest commit.
type workerSave struct {
	state  algorithms.Checkpoint
	cursor int
	ok     bool // false: no commit yet, a fresh worker is the state
}

// newPreemption schedules the experiment's preemptions, or returns nil
// without them.
func (s *sim) newPreemption() (*preemption, error) {
	e := s.e
	if e.Preempt == nil {
		return nil, nil
	}
	n := len(s.st.shards)
	if err := checkpointable(e, s.st); err != nil {
		return nil, err
	}
	p := &preemption{down: make([]bool, n), since: make([]time.Duration, n), inc: make([]uint32, n), saved: make([]workerSave, n),
		spot: make([]bool, n), chain: make([]uint64, n), sgen: make([]uint64, n), from: make([]time.Duration, n)}
	for w := range n {
		p.spot[w] = e.Preemptible == nil || slices.Contains(e.Preemptible, w)
	}
	for w := range n {
		if p.spot[w] {
			if err := s.schedule(p, consistency.WorkerID(w), 0); err != nil {
				return nil, err
			}
		}
	}
	if pr := e.Provision; pr != nil {
		for _, t := range pr.At {
			if t >= 0 && t < e.Duration {
				s.push(&simEvent{t: t, kind: simRevise})
			}
		}
	}
	return p, nil
}

// schedule pushes the transitions of worker w's next availability chain,
// started available at from. The first chain of a worker is
// preempt.Schedule(*Preempt, Seed, w, Duration); a later one (after
// Provision moved the worker back to a preemptible instance) draws from
// a seed mixed with the chain's number.
func (s *sim) schedule(p *preemption, w consistency.WorkerID, from time.Duration) error {
	seed := s.e.Seed
	if k := p.chain[w]; k > 0 {
		seed ^= k * 0x9e3779b97f4a7c15
	}
	p.chain[w]++
	ts, err := preempt.Schedule(*s.e.Preempt, seed, int(w), s.e.Duration-from)
	if err != nil {
		return configError("", err)
	}
	for _, t := range ts {
		kind := simPreempt
		if t.Available {
			kind = simRestore
		}
		s.push(&simEvent{t: from + t.At, kind: kind, w: w, gen: p.sgen[w]})
	}
	return nil
}

// transition reports whether a scheduled preemption or restore ev is
// still due: Provision has not moved its worker since it was scheduled.
func (p *preemption) transition(ev *simEvent) bool { return ev.gen == p.sgen[ev.w] }

// span closes worker w's open instance span at now and opens the next.
func (p *preemption) span(w consistency.WorkerID, now time.Duration) {
	if now > p.from[w] {
		p.spans = append(p.spans, InstanceSpan{Worker: int(w), From: p.from[w], To: now, Preemptible: p.spot[w], Available: !p.down[w]})
	}
	p.from[w] = now
}

// revise carries out Provision.Revise at s.now.
func (s *sim) revise() error {
	p := s.pre
	ws, err := s.e.Provision.Revise(s.observe())
	if err != nil {
		return fmt.Errorf("harness: provisioning at %v: %w", s.now, err)
	}
	if err := checkWorkerSet("Provision.Revise", ws, len(p.spot)); err != nil {
		return err
	}
	want := make([]bool, len(p.spot))
	for _, w := range ws {
		want[w] = true
	}
	for i, spot := range want {
		w := consistency.WorkerID(i)
		if spot == p.spot[w] {
			continue
		}
		p.sgen[w]++ // cancels the old chain's transitions
		if p.down[w] {
			// Moved to on demand: a new instance starts at once.
			if err := s.restoreWorker(w); err != nil {
				return err
			}
		}
		p.span(w, s.now)
		p.spot[w] = spot
		if spot {
			if err := s.schedule(p, w, s.now); err != nil {
				return err
			}
		}
	}
	return nil
}

// observe tallies what the run has seen of each worker.
func (s *sim) observe() Observation {
	p := s.pre
	o := Observation{Now: s.now, Workers: make([]WorkerObservation, len(p.spot))}
	for i := range o.Workers {
		wo := &o.Workers[i]
		wo.Preemptible = p.spot[i]
		wo.Preemptions = s.st.shards[i].stats.Preempted
		if ss := s.streams; ss != nil {
			wo.Arrived = int64(ss.batch[i]) * int64(ss.b)
			wo.Up = ss.upTime(i, s.now)
		}
	}
	add := func(sp InstanceSpan) {
		wo := &o.Workers[sp.Worker]
		switch {
		case !sp.Preemptible:
		case sp.Available:
			wo.SpotUp += sp.To - sp.From
		default:
			wo.SpotDown += sp.To - sp.From
		}
	}
	for _, sp := range p.spans {
		add(sp)
	}
	for i := range o.Workers {
		add(InstanceSpan{Worker: i, From: p.from[i], To: s.now, Preemptible: p.spot[i], Available: !p.down[i]})
	}
	return o
}

// isDown reports whether worker w is preempted.
func (s *sim) isDown(w consistency.WorkerID) bool { return s.pre != nil && s.pre.down[w] }

// incarnation is worker w's current incarnation (0 without preemptions).
func (s *sim) incarnation(w consistency.WorkerID) uint32 {
	if s.pre == nil {
		return 0
	}
	return s.pre.inc[w]
}

// stale reports whether a release or interrupt ev was meant for a worker
// process that is gone: the worker is down, or has restarted since.
func (s *sim) stale(ev *simEvent) bool {
	return s.pre != nil && (s.pre.down[ev.w] || ev.inc != s.pre.inc[ev.w])
}

// saveWorker checkpoints worker w's state as it sends a commit.
func (s *sim) saveWorker(w consistency.WorkerID) {
	if s.pre != nil {
		s.pre.saved[w] = s.st.shards[w].save()
	}
}

// save checkpoints the shard's worker state and cursor: what a worker
// keeps with each commit it sends, so that its next incarnation can
// resume from it (either runtime).
func (sh *shard) save() workerSave {
	return workerSave{state: sh.w.(algorithms.Checkpointer).Checkpoint(), cursor: sh.cursor, ok: true}
}

// reincarnate replaces the shard's worker by a fresh one over the same
// points, restored from sv (unless sv holds no commit yet, or fresh is
// set: the noRestore bug), as a restarted worker process does.
func (sh *shard) reincarnate(alg algorithms.Algorithm, points []int, sv workerSave, fresh bool) error {
	w, err := alg.NewWorker(points)
	if err != nil {
		return fmt.Errorf("harness: restore of worker %d: %w", sh.id, err)
	}
	cursor := 0
	if sv.ok && !fresh {
		if err := w.(algorithms.Checkpointer).Restore(sv.state); err != nil {
			return fmt.Errorf("harness: restore of worker %d: %w", sh.id, err)
		}
		cursor = sv.cursor
	}
	sh.w, sh.cursor, sh.owed = w, cursor, 0
	return nil
}

// preemptWorker takes worker w down at s.now.
func (s *sim) preemptWorker(w consistency.WorkerID) {
	p := s.pre
	sh := s.st.shards[w]
	r := &s.runs[w]
	if r.active {
		// The batch in progress is lost (its simDone is ignored).
		sh.stats.Lost += max(s.now-r.start+r.owed, 0)
	} else {
		sh.stats.Wait += s.waited(w, s.now)
	}
	r.active = false
	r.gen++
	sh.owed = 0
	s.inflight[w] = 0
	s.unconfirmed[w] = 0 // the process that would confirm it is gone
	p.span(w, s.now)
	p.down[w], p.since[w] = true, s.now
	s.streams.pause(w, s.now)
	p.preempted++
	sh.stats.Preempted++
	// The preemption notice follows the worker's last commit on its link.
	m := transport.Message{Kind: transport.Leave, From: transport.NodeID(w), To: transport.Coordinator, Job: s.e.Seed,
		Incarnation: p.inc[w], Reason: "preempted"}
	s.push(&simEvent{t: s.transmit(&s.in, s.now, m.Size(), w), kind: simLeave, w: w})
}

// restoreWorker starts worker w's next incarnation at s.now.
func (s *sim) restoreWorker(w consistency.WorkerID) error {
	p := s.pre
	sh := s.st.shards[w]
	if err := sh.reincarnate(s.e.Algorithm, s.st.parts[w], p.saved[w], s.e.bugs.noRestore); err != nil {
		return err
	}
	sh.stats.Down += s.now - p.since[w]
	p.span(w, s.now)
	p.down[w] = false
	s.resumeStream(w)
	p.inc[w]++
	s.waitFrom[w] = s.now
	m := transport.Message{Kind: transport.Join, From: transport.NodeID(w), To: transport.Coordinator, Job: s.e.Seed, Incarnation: p.inc[w]}
	s.push(&simEvent{t: s.transmit(&s.in, s.now, m.Size(), w), kind: simJoin, w: w})
	return nil
}

// membership feeds the coordinator a preempted worker's leave or a
// restored worker's join, and reports whether the apply it caused ends
// the run (Stop.MaxIterations).
func (s *sim) membership(ev *simEvent) (stop bool, err error) {
	c := s.st.coord
	kind := consistency.EvLeave
	if ev.kind == simJoin {
		kind = consistency.EvJoin
	}
	effs, err := c.step(s.now, consistency.Event{Kind: kind, Worker: ev.w})
	if err != nil {
		return false, err
	}
	if kind == consistency.EvJoin {
		s.pre.rejoined++
	}
	s.busy = s.now + time.Duration(c.applied)*s.e.Cost.EntryCost
	if s.st.stop.applied(c.model.Version()) {
		s.now = max(s.now, s.busy)
		return true, nil
	}
	return false, s.afterRound(s.busy, effs, false)
}

// endPreemption closes the down time still open at the end of the run and
// fills the result's counts.
func (s *sim) endPreemption(res *Result) {
	p := s.pre
	if p == nil {
		return
	}
	for w, down := range p.down {
		if down {
			s.st.shards[w].stats.Down += s.now - p.since[w]
		}
		p.span(consistency.WorkerID(w), s.now)
	}
	slices.SortStableFunc(p.spans, func(a, b InstanceSpan) int { return cmp.Compare(a.Worker, b.Worker) })
	res.Instances = p.spans
	res.Preemptions, res.Rejoins = p.preempted, p.rejoined
}
