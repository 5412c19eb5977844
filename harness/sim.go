package harness

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/interval"
	"github.com/syncmodels/syncmodels/scalein"
	"github.com/syncmodels/syncmodels/transport"
)

// The virtual-time runtime: a discrete-event simulation over the shared
// coordinator and shards. Events are ordered by (time, insertion order),
// so a run is a pure function of the experiment and its seed.

type simKind uint8

const (
	simRelease    simKind = iota // a release reaches its worker
	simDone                      // a worker finished its batch
	simCommit                    // a commit reaches the coordinator
	simSnapshot                  // keep the parameters for the curve
	simProgress                  // report progress
	simEnd                       // the run's time is up
	simTick                      // the model's timer fires
	simInterrupt                 // an interrupt reaches its worker
	simCheck                     // a termination check (Stop)
	simMigrate                   // a migration window reaches its target
	simPreempt                   // a worker is preempted (preempt.go)
	simRestore                   // a preempted worker's next incarnation starts
	simLeave                     // a preempted worker's notice reaches the coordinator
	simJoin                      // a restored worker's join reaches the coordinator
	simBatch                     // a worker's next batch of streamed data is complete (stream.go)
	simBatchReady                // a batch indicator reaches the coordinator
	simRevise                    // the provisioning is revised (Experiment.Provision)
	simCPU                       // shared cores: a time slice or a pause ends (cores.go)
)

type simEvent struct {
	t    time.Duration
	seq  uint64
	kind simKind
	w    consistency.WorkerID
	eff  consistency.Effect // simRelease
	// simDone / simCommit
	params []float64
	delta  *algorithms.Delta
	k      int
	seqNo  uint64
	clock  uint64
	ver    consistency.Version
	gen    uint64        // simDone: the batch it ends; simMigrate: the migration epoch
	inc    uint32        // simRelease, simInterrupt: the worker incarnation it is for
	batch  uint64        // simBatchReady: the batch's index; simCommit: the first batch of the delta
	delay  time.Duration // simRelease: its Tail delay (tail.go), in its arrival
	win    uint64        // simMigrate: the window
	// simRelease under indirect communication: the updates to fetch, the
	// next one, the entries fetched so far, and whether fetching is done.
	items   []storeItem
	next    int
	entries int
	fetched bool
}

// simRun is a worker's batch in progress.
type simRun struct {
	gen    uint64
	start  time.Duration
	k      int
	pace   pace
	params []float64
	clock  uint64
	ver    consistency.Version
	active bool
	owed   time.Duration // pause served before start
	timer  time.Duration // the local timer it ran (semi-centralized), 0 if none
	batch  uint64        // the first batch it was released for (K-grouping)
	from   uint64        // the first batch it computes: batch, unless a bug
}

type simQueue []*simEvent

func (q simQueue) Len() int { return len(q) }
func (q simQueue) Less(i, j int) bool {
	if q[i].t != q[j].t {
		return q[i].t < q[j].t
	}
	return q[i].seq < q[j].seq
}
func (q simQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *simQueue) Push(x any)   { *q = append(*q, x.(*simEvent)) }
func (q *simQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

type sim struct {
	e     *Experiment
	st    *setupState
	q     simQueue
	seq   uint64
	now   time.Duration
	busy  time.Duration // the coordinator is busy until then
	in    time.Duration // the coordinator's incoming link is free from then
	out   time.Duration // its outgoing link is free from then
	bytes int64
	msgs  int64
	// waitFrom[w] is when worker w last committed.
	waitFrom []time.Duration
	runs     []simRun
	timer    time.Duration // the model's pending timer, -1 if none
	// lastV is the version the tuning last saw; later holds effects of
	// the tuning's events, delivered after the round's releases.
	lastV consistency.Version
	later []consistency.Effect
	// Semi-centralized FSP (§5.2): when each worker's release was sent,
	// its local timer for the next release, and what the coordinator
	// measured of it in the last round.
	sentAt []time.Duration
	timers []time.Duration
	obs    []interval.Observation
	// gone marks workers the scale-in tuner evicted.
	gone []bool
	// inflight counts each worker's releases sent and not yet arrived.
	inflight []uint64
	// store is the shared store of indirect communication (nil: direct
	// links to the coordinator).
	store *storeState
	// mig is the data migration (Experiment.Migrate), nil without.
	mig *migration
	// tuned is the interval the tuner set during the current
	// afterRound, 0 if none (semi-centralized rounds take it at once).
	tuned time.Duration
	// unconfirmed[w] is the sequence number of worker w's latest commit
	// until a release shows it was accepted (0: none); sentClock[w] is
	// its clock.
	unconfirmed []uint64
	sentClock   []uint64
	// pre is the preemption state (Experiment.Preempt), nil without.
	pre *preemption
	// streams is the arrival state (Experiment.Arrivals), nil without.
	streams *streams
	// fifo keeps each worker's messages in order under Tail stragglers,
	// nil without (tail.go).
	fifo *tailFIFO
	// cpu shares CostModel.Cores among the computing workers, nil
	// without (cores.go).
	cpu *cpuShare
}

func (s *sim) setInterval(now, eta time.Duration) error {
	effs, err := s.st.coord.step(now, consistency.Event{Kind: consistency.EvSetInterval, Interval: eta})
	s.later = append(s.later, effs...)
	s.tuned = eta
	return err
}

// retime gives the releases of a semi-centralized round the interval the
// tuner set after the model made them: the model takes a new interval
// from the next release on, but these releases have not left yet, so the
// round runs at the interval the tuner asked for (as a centralized
// round's timer is re-armed).
func (s *sim) retime(effs []consistency.Effect) {
	if s.e.Sync.Local {
		s.tuned = retime(effs, s.tuned)
	}
}

// retime sets the Interval of the releases in effs to tuned, the
// interval the tuner set (0: none, effs unchanged), and returns 0, the
// interval left to apply (see sim.retime). Both runtimes use it.
func retime(effs []consistency.Effect, tuned time.Duration) time.Duration {
	if tuned == 0 {
		return 0
	}
	for i := range effs {
		if effs[i].Kind == consistency.EfRelease {
			if tuned == consistency.FullBatch {
				effs[i].Interval = 0
			} else {
				effs[i].Interval = tuned
			}
		}
	}
	return 0
}

func (s *sim) checkpoint() (*saved, error) {
	sv, err := checkpointShards(s.st.coord, s.st.shards)
	if err == nil && s.mig != nil {
		sv.migration = s.mig.save()
	}
	return sv, err
}

func (s *sim) rollback(now time.Duration, sv *saved) error {
	if err := restoreShards(now, s.st.coord, s.st.shards, sv); err != nil {
		return err
	}
	if s.mig != nil {
		return s.mig.restore(sv.migration)
	}
	return nil
}

// afterRound runs the tuning after a round's apply and delivers the
// round's effects, then the tuning's.
func (s *sim) afterRound(t time.Duration, effs []consistency.Effect, begin bool) error {
	if tu := s.st.tune; tu != nil {
		var err error
		switch v := s.st.coord.model.Version(); {
		case begin:
			err = tu.begin(t, s.st.coord.params, s)
		case v != s.lastV:
			err = tu.roundEnd(t, s.st.coord.params, s)
		}
		if err != nil {
			return err
		}
	}
	if v := s.st.coord.model.Version(); !begin && v != s.lastV && s.e.ScaleIn != nil {
		if err := s.scaleIn(t); err != nil {
			return err
		}
	}
	if v := s.st.coord.model.Version(); !begin && v != s.lastV && s.mig != nil {
		if err := s.mig.barrier(s, t); err != nil {
			return err
		}
	}
	s.lastV = s.st.coord.model.Version()
	s.retime(effs)
	if err := s.localTimers(effs); err != nil {
		return err
	}
	s.deliver(t, effs)
	later := s.later
	s.later = nil
	s.deliver(t, later)
	return nil
}

func (s *sim) push(ev *simEvent) {
	s.seq++
	ev.seq = s.seq
	heap.Push(&s.q, ev)
}

// transmit charges a message of size bytes on a shared link that is free
// from *link, sent at t, and returns its arrival time.
func (s *sim) transmit(link *time.Duration, t time.Duration, size int, w consistency.WorkerID) time.Duration {
	return s.transmitDelayed(link, t, size, w, 0)
}

// transmitDelayed is transmit for a message that a Tail straggler's
// operation delays by d. Under Tail stragglers every message of worker w
// arrives after w's previous one on its direction of the link.
func (s *sim) transmitDelayed(link *time.Duration, t time.Duration, size int, w consistency.WorkerID, d time.Duration) time.Duration {
	start := max(t, *link)
	*link = start + s.e.Cost.MessageCost + time.Duration(float64(size)/s.e.Cost.Bandwidth*1e9)
	s.bytes += int64(size)
	s.msgs++
	lat := s.e.Cost.Latency
	if s.st.shards[w].straggler {
		lat += s.e.Stragglers.Latency
	}
	if s.fifo == nil {
		return *link + lat
	}
	return s.fifo.arrive(w, link == &s.out, *link+lat+d)
}

// waited returns how long worker w, not computing, has waited since its
// last commit, and ends its wait now: under Tail stragglers a commit
// whose delay has not elapsed yet gives back the rest to WorkerStats
// (the delay counted within the run only).
func (s *sim) waited(w consistency.WorkerID, now time.Duration) time.Duration {
	if from := s.waitFrom[w]; from > now {
		s.st.shards[w].stats.Delayed -= from - now
		s.waitFrom[w] = now
	}
	return now - s.waitFrom[w]
}

func simulate(ctx context.Context, e *Experiment, st *setupState) (*Result, error) {
	s := &sim{e: e, st: st, waitFrom: make([]time.Duration, len(st.shards)),
		runs: make([]simRun, len(st.shards)), timer: -1,
		sentAt: make([]time.Duration, len(st.shards)), timers: make([]time.Duration, len(st.shards)),
		obs: make([]interval.Observation, len(st.shards)), gone: make([]bool, len(st.shards)), inflight: make([]uint64, len(st.shards)),
		unconfirmed: make([]uint64, len(st.shards)), sentClock: make([]uint64, len(st.shards))}
	var err error
	if s.mig, err = newMigration(e, st); err != nil {
		return nil, err
	}
	if s.pre, err = s.newPreemption(); err != nil {
		return nil, err
	}
	if s.streams, err = s.newStreams(); err != nil {
		return nil, err
	}
	if e.Cost.Cores > 0 {
		s.cpu = newCPUShare(e.Cost, len(st.shards), e.Seed)
	}
	if e.Stragglers.Kind == Tail {
		s.fifo = &tailFIFO{in: make([]time.Duration, len(st.shards)), out: make([]time.Duration, len(st.shards))}
	}
	c := st.coord
	if e.Indirect != nil {
		s.store = newStoreState(*e.Indirect, len(st.shards))
		c.onApply = s.store.applied
	}
	c.snapshot(0)
	effs, err := c.step(0, consistency.Event{Kind: consistency.EvStart})
	if err != nil {
		return nil, err
	}
	if err := s.afterRound(0, effs, true); err != nil {
		return nil, err
	}
	for t := e.EvalEvery; t > 0 && t < e.Duration; t += e.EvalEvery {
		s.push(&simEvent{t: t, kind: simSnapshot})
	}
	if e.Progress != nil {
		for i := 1; i < 10; i++ {
			s.push(&simEvent{t: e.Duration * time.Duration(i) / 10, kind: simProgress})
		}
	}
	if every := st.stop.checkInterval(e, st); every > 0 {
		for t := every; t < e.Duration; t += every {
			s.push(&simEvent{t: t, kind: simCheck})
		}
	}
	s.push(&simEvent{t: e.Duration, kind: simEnd})
	for n := 0; ; n++ {
		if n%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		ev := heap.Pop(&s.q).(*simEvent)
		s.now = ev.t
		switch ev.kind {
		case simRelease:
			if s.store != nil && !ev.fetched {
				s.fetch(ev)
				continue
			}
			s.start(ev)
		case simDone:
			if err := s.done(ev); err != nil {
				return nil, err
			}
		case simCommit:
			if s.busy > s.now {
				if e.bugs.dropBusyCommit {
					continue // the deliberate bug of a test: the commit is lost
				}
				// The coordinator handles one message at a time.
				ev.t = s.busy
				s.push(ev)
				continue
			}
			effs, err := c.commit(s.now, ev.w, ev.seqNo, ev.clock, ev.ver, ev.batch, ev.delta)
			if err != nil {
				return nil, err
			}
			if ss := s.streams; ss != nil {
				ss.used[ev.w] += uint64(ev.delta.Count / ss.b)
			}
			if r := &s.runs[ev.w]; r.timer > 0 {
				// Its response delay: commit arrival − release sent − timer.
				s.obs[ev.w].Response = max(s.now-s.sentAt[ev.w]-r.timer, 0)
			}
			s.busy = s.now + time.Duration(c.applied)*e.Cost.EntryCost
			if s.store != nil {
				s.busy = s.now // the workers aggregate, not the supervisor
			}
			if st.stop.applied(c.model.Version()) {
				s.now = s.busy
				return s.end()
			}
			if err := s.afterRound(s.busy, effs, false); err != nil {
				return nil, err
			}
		case simTick:
			if ev.t != s.timer {
				continue // replaced by a later timer
			}
			s.timer = -1
			if err := s.feed(consistency.Event{Kind: consistency.EvTick}); err != nil {
				return nil, err
			}
		case simInterrupt:
			s.interrupt(ev)
		case simCPU:
			s.cpu.event(s, ev)
		case simMigrate:
			if err := s.mig.deliver(s, ev); err != nil {
				return nil, err
			}
		case simPreempt:
			if s.pre.transition(ev) {
				s.preemptWorker(ev.w)
			}
		case simRestore:
			if !s.pre.transition(ev) {
				continue
			}
			if err := s.restoreWorker(ev.w); err != nil {
				return nil, err
			}
		case simRevise:
			if err := s.revise(); err != nil {
				return nil, err
			}
		case simBatch:
			s.batchDone(ev)
		case simBatchReady:
			if s.busy > s.now {
				ev.t = s.busy // behind the messages ahead of it
				s.push(ev)
				continue
			}
			if err := s.batchReady(ev); err != nil {
				return nil, err
			}
		case simLeave, simJoin:
			if s.busy > s.now {
				// Behind the commits ahead of it on the link, in order.
				ev.t = s.busy
				s.push(ev)
				continue
			}
			stop, err := s.membership(ev)
			if err != nil {
				return nil, err
			}
			if stop {
				return s.end()
			}
		case simCheck:
			if st.stop.check(c.params) {
				return s.end()
			}
		case simSnapshot:
			c.snapshot(s.now)
		case simProgress:
			e.Progress(Progress{Sync: e.Sync, Elapsed: s.now, Of: e.Duration, Version: c.model.Version()})
		case simEnd:
			return s.end()
		}
	}
}

// scaleIn reports the round to the scale-in tuner and evicts the worker
// it names: the model sees it leave, its release is not delivered.
func (s *sim) scaleIn(t time.Duration) error {
	obs := scalein.Observation{Time: t, Loss: s.st.sample.objective(s.st.coord.params)}
	if s.st.isp != nil && s.st.isp.filtered() {
		obs.Workers = s.replicaReports()
	}
	act, err := s.e.ScaleIn.Observe(obs)
	if err != nil {
		return fmt.Errorf("harness: scale-in tuner: %w", err)
	}
	if act.Op != scalein.Evict {
		return nil
	}
	w := consistency.WorkerID(act.Worker)
	if act.Worker < 0 || act.Worker >= len(s.gone) || s.gone[w] {
		return fmt.Errorf("harness: scale-in tuner evicted unknown worker %d", act.Worker)
	}
	effs, err := s.st.coord.step(t, consistency.Event{Kind: consistency.EvLeave, Worker: w})
	if err != nil {
		return err
	}
	s.gone[w] = true
	if s.st.isp != nil && s.st.isp.filtered() {
		if err := s.ispLeave(t, w); err != nil {
			return err
		}
	}
	sh := s.st.shards[w]
	sh.stats.Evicted, sh.stats.Left = true, t
	if !s.runs[w].active {
		sh.stats.Wait += s.waited(w, t)
	}
	s.runs[w].active = false
	s.later = append(s.later, effs...)
	return nil
}

// localTimers sets each worker's local timer for the releases in effs
// (semi-centralized FSP, §5.2) from what the last round measured:
// interval.Offsets aims every commit at the same arrival instant.
func (s *sim) localTimers(effs []consistency.Effect) error {
	return localTimers(effs, s.obs, s.timers)
}

// localTimers sets timers (one per worker) for the releases in effs from
// obs, under the round's interval η (the first release's Interval; no
// change if there is none): interval.Offsets. Both runtimes use it.
func localTimers(effs []consistency.Effect, obs []interval.Observation, timers []time.Duration) error {
	var eta time.Duration
	for _, e := range effs {
		if e.Kind == consistency.EfRelease && e.Interval > 0 {
			eta = e.Interval
			break
		}
	}
	if eta == 0 {
		return nil
	}
	ts, _, err := interval.Offsets{}.Timers(eta, obs)
	if err != nil {
		return fmt.Errorf("harness: local timers: %w", err)
	}
	copy(timers, ts)
	return nil
}

// localTimer is the local timer a release e carries: 0 unless it is a
// semi-centralized release (e.Interval > 0), then timers[e.Worker], or
// the interval itself if no timer was computed.
func localTimer(e consistency.Effect, timers []time.Duration) time.Duration {
	if e.Kind != consistency.EfRelease || e.Interval <= 0 {
		return 0
	}
	if t := timers[e.Worker]; t > 0 {
		return t
	}
	return e.Interval
}

// feed steps the model with an event raised at the coordinator now.
func (s *sim) feed(ev consistency.Event) error {
	if s.busy > s.now {
		// Ticks are handled when the coordinator is free.
		s.timer = s.busy
		s.push(&simEvent{t: s.busy, kind: simTick})
		return nil
	}
	effs, err := s.st.coord.step(s.now, ev)
	if err != nil {
		return err
	}
	s.deliver(s.now, effs)
	return nil
}

// deliver carries out effs at time t: releases and interrupts go out on
// the coordinator's link, timers are scheduled.
func (s *sim) deliver(t time.Duration, effs []consistency.Effect) {
	for _, e := range effs {
		if (e.Kind == consistency.EfRelease || e.Kind == consistency.EfInterrupt) && s.gone[e.Worker] {
			continue
		}
		if (e.Kind == consistency.EfRelease || e.Kind == consistency.EfInterrupt) && s.isDown(e.Worker) {
			// The coordinator does not know yet: it sends to a host
			// that is gone.
			size := interruptSize(e.Worker, s.e.Seed, s.runs[e.Worker].clock)
			if e.Kind == consistency.EfRelease {
				size = releaseSize(e, s.e.Seed, s.st.coord.params, s.st.releasePoints(), localTimer(e, s.timers))
			}
			s.transmit(&s.out, t, size, e.Worker)
			continue
		}
		switch e.Kind {
		case consistency.EfRelease:
			s.sentAt[e.Worker] = t
			var arrive time.Duration
			d := s.e.tailDelay(s.st.shards[e.Worker], false)
			if s.store != nil {
				arrive = s.signal(t, e.Worker, transport.Message{Kind: transport.Release, From: transport.Coordinator, To: transport.NodeID(e.Worker),
					Job: s.e.Seed, Version: uint64(e.Version), Clock: e.Clock, Budget: int64(e.Budget), Points: s.st.releasePoints(),
					Timer: localTimer(e, s.timers)})
				if s.fifo != nil {
					arrive = s.fifo.arrive(e.Worker, true, arrive+d)
				}
			} else {
				arrive = s.transmitDelayed(&s.out, t, releaseSize(e, s.e.Seed, s.st.coord.params, s.st.releasePoints(), localTimer(e, s.timers)), e.Worker, d)
			}
			s.inflight[e.Worker]++
			s.push(&simEvent{t: arrive, kind: simRelease, w: e.Worker, eff: e, params: s.st.coord.params, inc: s.incarnation(e.Worker), delay: d})
		case consistency.EfInterrupt:
			if s.st.tune != nil {
				s.st.tune.interrupted(t)
			}
			// The interrupt is for the worker's latest batch: the one it
			// computes, or the one whose release is still on the link
			// ahead of it (the link is FIFO, so the release arrives
			// first and starts batch gen+1). Stamping it with the old
			// batch would drop it, and a worker released after the timer
			// fired would compute to the end of its pass.
			gen := s.runs[e.Worker].gen + s.inflight[e.Worker]
			arrive := s.transmit(&s.out, t, interruptSize(e.Worker, s.e.Seed, s.runs[e.Worker].clock), e.Worker)
			s.push(&simEvent{t: arrive, kind: simInterrupt, w: e.Worker, gen: gen, inc: s.incarnation(e.Worker)})
		case consistency.EfTimer:
			s.timer = max(e.At, t)
			s.push(&simEvent{t: s.timer, kind: simTick})
		}
	}
}

// interrupt makes a computing worker commit after its current point.
func (s *sim) interrupt(ev *simEvent) {
	r := &s.runs[ev.w]
	if !r.active || r.gen != ev.gen || s.stale(ev) {
		return // the batch already ended
	}
	if s.cpu != nil {
		s.cpu.interrupt(s, ev.w)
		return
	}
	sh := s.st.shards[ev.w]
	e := s.now - r.start
	if e < 0 {
		// Still serving a pause owed from the previous batch.
		sh.owed = -e
		r.owed += e // the part served
		r.start, r.k = s.now, 0
		r.gen++
		s.push(&simEvent{t: s.now, kind: simDone, w: ev.w, gen: r.gen})
		return
	}
	j, at, owed := r.pace.interrupt(r.k, e)
	sh.owed = owed
	r.gen++
	r.k = j
	s.push(&simEvent{t: r.start + at, kind: simDone, w: ev.w, gen: r.gen})
}

// start begins a worker's batch when its release arrives.
func (s *sim) start(ev *simEvent) {
	if s.stale(ev) {
		return // lost with the worker it was sent to
	}
	sh := s.st.shards[ev.w]
	s.inflight[ev.w]--
	s.st.coord.read(s.now, ev.eff)
	if seq := s.unconfirmed[ev.w]; seq != 0 && ev.eff.Clock > s.sentClock[ev.w] {
		// A release of a later clock shows the worker its commit was
		// accepted.
		s.st.coord.rec.Confirmed(s.now, ev.w, seq)
		s.unconfirmed[ev.w] = 0
	}
	if !s.runs[ev.w].active {
		// The release's own delay is the worker's, not a wait.
		sh.stats.Wait += max(s.waited(ev.w, s.now)-ev.delay, 0)
		sh.stats.Delayed += ev.delay
	}
	r := &s.runs[ev.w]
	k := sh.points(ev.eff.Budget)
	from := ev.eff.Batch
	if ss := s.streams; ss != nil {
		// K-grouping names the batches: batch j is the points from j·b on.
		if s.e.bugs.ownBatch {
			from = ss.pos[ev.w] // the deliberate bug: where the process thinks it is
		}
		ss.pos[ev.w] = from + uint64(k/ss.b)
		if sh.n > 0 {
			sh.cursor = int(from * uint64(ss.b) % uint64(sh.n))
		}
	}
	if s.mig != nil {
		s.mig.release(ev.w)
		if ev.eff.Budget == consistency.FullPass {
			k = s.mig.passSize(int(ev.w))
		}
	}
	// A pause owed from an interrupted batch comes first.
	*r = simRun{gen: r.gen + 1, start: s.now + sh.owed, k: k, pace: s.e.pace(sh),
		params: ev.params, clock: ev.eff.Clock, ver: ev.eff.Version, batch: ev.eff.Batch, from: from, active: true, owed: sh.owed}
	sh.owed = 0
	if s.cpu != nil {
		s.cpu.begin(s, ev.w)
		return
	}
	if ev.eff.Interval > 0 {
		// Semi-centralized: the worker's own timer ends the batch.
		r.timer = localTimer(ev.eff, s.timers)
		e := s.now + r.timer - r.start
		if s.st.tune != nil {
			// The round's barrier begins when the first worker stops
			// computing: its timer fires or its pass ends (§5.2; the
			// tuner's φ, interval.Report.BarrierCost).
			s.st.tune.interrupted(r.start + min(e, r.pace.end(r.k)))
		}
		if e <= 0 {
			sh.owed = -e
			r.owed += e
			r.start, r.k = s.now+r.timer, 0
		} else if e < r.pace.end(r.k) {
			j, at, owed := r.pace.interrupt(r.k, e)
			sh.owed = owed
			r.k = j
			s.push(&simEvent{t: r.start + at, kind: simDone, w: ev.w, gen: r.gen})
			return
		}
	}
	s.push(&simEvent{t: r.start + r.pace.end(r.k), kind: simDone, w: ev.w, gen: r.gen})
}

// done runs the batch's arithmetic and sends the commit.
func (s *sim) done(ev *simEvent) error {
	r := &s.runs[ev.w]
	if !r.active || r.gen != ev.gen {
		return nil // cut short by an interrupt
	}
	r.active = false
	sh := s.st.shards[ev.w]
	d := s.st.coord.newDelta()
	var held *consistency.Held
	if is := s.st.isp; is != nil {
		var err error
		if held, err = is.process(sh, r.params, s.st.coord.points, r.k, d); err != nil {
			return err
		}
	} else if s.mig != nil {
		n, err := s.mig.compute(ev.w, r.k, r.params, d)
		if err != nil {
			return err
		}
		r.k = n
	} else {
		sh.process(r.params, r.k, d)
	}
	s.saveWorker(ev.w)
	busy := s.now - r.start + r.owed
	if r.timer > 0 && busy > 0 && r.k > 0 {
		// Its processing speed this round, for the local timers.
		o := &s.obs[ev.w]
		o.Speed = float64(r.k) / busy.Seconds()
		o.Current = o.Speed
	}
	// The runtime's work per commit (CostModel.CommitCPU, on the shared
	// cores before the batch's first point) is a wait, as the real
	// runtime measures it: a worker decodes its release and encodes its
	// commit outside its Busy time, between a commit and the next
	// release.
	commit := min(s.e.Cost.CommitCPU, busy)
	sh.stats.Busy += busy - commit
	sh.stats.Wait += commit
	sh.stats.Paused += busy - time.Duration(r.k)*s.e.Cost.PointCost - commit
	sh.stats.Points += int64(r.k)
	sh.stats.Commits++
	var seq uint64
	if s.streams != nil {
		seq = s.st.coord.rec.SentFrom(s.now, ev.w, r.clock, r.ver, d.Count, r.from)
	} else {
		seq = s.st.coord.rec.Sent(s.now, ev.w, r.clock, r.ver, d.Count)
	}
	if held != nil {
		s.st.coord.held[consistency.DeltaID{Worker: ev.w, Seq: seq}] = held
	}
	s.unconfirmed[ev.w], s.sentClock[ev.w] = seq, r.clock
	// A Tail straggler's commit is delayed: the worker waits from when
	// its send would have completed.
	delay := s.e.tailDelay(sh, true)
	sh.stats.Delayed += delay
	s.waitFrom[ev.w] = s.now + delay
	var arrive time.Duration
	if s.store != nil {
		arrive = s.storePush(ev.w, seq, r.clock, r.ver, d)
		if s.fifo != nil {
			arrive = s.fifo.arrive(ev.w, false, arrive+delay)
		}
	} else {
		arrive = s.transmitDelayed(&s.in, s.now, commitSize(ev.w, s.e.Seed, seq, r.clock, r.ver, r.batch, d), ev.w, delay)
	}
	s.push(&simEvent{t: arrive, kind: simCommit, w: ev.w, delta: d, seqNo: seq, clock: r.clock, ver: r.ver, batch: r.batch})
	return nil
}

// end stops the model (the final apply flushes pending commits), takes the
// last snapshot and counts the waits still open.
func (s *sim) end() (*Result, error) {
	c := s.st.coord
	// Commits still on their way are abandoned with the run: the workers
	// sent them, the coordinator will never see them. Read from the event
	// queue, so a commit the simulator lost is not among them.
	var flying []*simEvent
	for _, ev := range s.q {
		if ev.kind == simCommit {
			flying = append(flying, ev)
		}
	}
	slices.SortFunc(flying, func(a, b *simEvent) int { return cmp.Or(cmp.Compare(a.w, b.w), cmp.Compare(a.seqNo, b.seqNo)) })
	for _, ev := range flying {
		c.rec.Abandoned(s.now, ev.w, ev.seqNo, "in flight when the run ended")
	}
	if _, err := c.step(s.now, consistency.Event{Kind: consistency.EvStop}); err != nil {
		return nil, err
	}
	c.snapshot(s.now)
	for i, sh := range s.st.shards {
		if !s.runs[i].active && !s.gone[i] && !s.isDown(consistency.WorkerID(i)) {
			sh.stats.Wait += s.waited(consistency.WorkerID(i), s.now)
		}
	}
	res := &Result{Sync: s.e.Sync, Clock: Virtual, Duration: s.now, BytesSent: s.bytes, Messages: s.msgs}
	s.endPreemption(res)
	s.endStreams()
	if is := s.st.isp; is != nil {
		res.Held, res.Flushed = is.heldMass(s.gone), is.flushed
	}
	if st := s.store; st != nil {
		res.Store = &StoreStats{Bytes: st.bytes, Puts: st.puts, Gets: st.gets}
		res.BytesSent += st.bytes
	}
	if s.mig != nil {
		var err error
		if res.Migration, err = s.mig.finish(s); err != nil {
			return nil, err
		}
	}
	return res, nil
}
