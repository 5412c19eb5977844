package harness

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"time"

	"github.com/syncmodels/syncmodels/consistency"
)

// CPU contention in virtual time (CostModel.Cores): the workers of a run
// on one machine share its cores, as the goroutine runtime's workers
// share GOMAXPROCS threads and the gRPC runtime's worker processes share
// the host. The simulator models the cores as Go's scheduler runs
// goroutines: a worker that has points to compute asks for a core; while
// every core is taken it waits in a first-in first-out queue; once it has
// a core it computes until it stops computing (its batch ends, or an
// Injected pause, a sleep, begins) or until it has run for schedQuantum
// with others waiting, when it is preempted to the back of the queue (the
// runtime's sysmon preempts a goroutine that has run 10 ms). Batches
// shorter than the quantum therefore run whole, one after another (a
// round of N workers' batches on C cores takes N/C batch times, and each
// worker waits for its turn); long ones share the cores round-robin.
//
// Cores may be fractional: a shared machine whose other processes take
// part of its CPUs gives the run ⌈Cores⌉ cores that together compute
// Cores cores' worth, each of the b busy ones at min(1, Cores/b) of full
// speed (the operating system's fair share), so one worker alone still
// computes at full speed. Speeds are rationals in thousandths of a core
// and times are integer nanoseconds, rounded the same way everywhere.
//
// The coordinator's own work is not on these cores (its applies and
// messages keep their CostModel costs), but the runtime's work per
// commit is (CostModel.CommitCPU): decoding the release, encoding the
// commit, the coordinator's handling of both, computed before the
// batch's first point and counted in the worker's wait, not its busy
// time, as the real runtime counts it (sim.go). A worker's time queued for a core before its
// batch's first point counts as waiting (WorkerStats.Wait), as the
// goroutine runtime measures it: its release is received when it is
// scheduled. Time queued after that (preempted, or after a pause) is in
// its Busy and Paused time.
//
// The cores have identities. A worker goes back to the core it ran on
// if it is free (the coordinator's release readies the goroutine on the
// P its commit woke), else takes the one idle the shortest time. A core
// idle for longer than a commit's round trip, 2·(Latency + MessageCost),
// and schedSpin more has gone to sleep: starting a worker on it takes
// CostModel.Wakeup, the operating system's delay in running a sleeping
// thread, counted as the worker's wait. With CostModel.Stall the
// operating system also takes a running core away: after a running time
// drawn around StallEvery, the core stops for a time drawn around Stall
// (uniformly between 0 and twice the mean, from the experiment's seed),
// and the worker on it stops too; Go cannot move a goroutine off a
// thread the system has stopped, so it resumes on that core.
//
// A batch is computed in segments that end at the Injected pauses (after
// every Every-th point of a straggler). An interrupt (FSP) lets the
// worker finish the point it is computing, as pace.interrupt does without
// contention, or cuts a pause short and owes the rest. With Cores 0 (the
// default) none of this runs and a batch takes its points' cost.

// schedQuantum is how long a goroutine runs before Go's scheduler
// preempts it for a waiting one (runtime.forcePreemptNS).
const schedQuantum = 10 * time.Millisecond

// schedSpin is how long an idle core stays awake looking for work
// beyond a commit's round trip (CostModel.Wakeup): Go's scheduler spins
// a few microseconds stealing work before it parks the thread.
const schedSpin = 5 * time.Microsecond

// simCPU sub-kinds, in simEvent.k.
const (
	cpuSliceEnd = iota // a worker's work or time slice on its core ends
	cpuOwedEnd         // a pause owed from an interrupted batch ends
	cpuPauseEnd        // an Injected pause ends
	cpuStall           // the operating system takes core w away (CostModel.Stall)
	cpuResume          // core w is back
)

type cpuPhase uint8

const (
	cpuIdle    cpuPhase = iota
	cpuOwed             // serving an owed pause before the batch's first point
	cpuQueued           // waiting for a core
	cpuRunning          // computing on a core
	cpuPause            // in an Injected pause after a segment
)

// cpuWorker is one worker's batch on the shared cores.
type cpuWorker struct {
	phase cpuPhase
	j     int           // points of the batch done before the current segment
	seg   int           // points of the current segment
	extra time.Duration // CostModel.CommitCPU in the segment (the first)
	left  time.Duration // full-speed work left in the segment, as of upd
	upd   time.Duration // when left was last brought up to date (running)
	quant time.Duration // when its time slice ends (running)
	// upd may lie ahead of the present while the worker's core wakes
	// (CostModel.Wakeup): it computes from then.
	last  bool          // the segment ends the batch (an interrupt cut it)
	began bool          // the batch has had a core
	until time.Duration // when the current pause ends
	// ev numbers the worker's pending events: a later one makes the
	// earlier stale.
	ev uint64
	// core is the core it runs on, or ran on last (-1: none yet).
	core int
}

// cpuShare is the cores the workers share.
type cpuShare struct {
	milli   int64 // capacity in thousandths of a core
	servers int   // ⌈capacity⌉ cores
	running []consistency.WorkerID
	queue   []consistency.WorkerID
	ws      []cpuWorker
	// cores are the cores: whether one is busy, since when it is idle.
	// A core idle for longer than awake is asleep and takes wake to
	// start a worker (CostModel.Wakeup).
	cores      []cpuCore
	wake       time.Duration
	awake      time.Duration
	commitWork time.Duration // CostModel.CommitCPU
	// stall and stallEvery are CostModel.Stall and StallEvery; rng draws
	// their durations (nil without stalls).
	stall, stallEvery time.Duration
	rng               *rand.Rand
}

func newCPUShare(c CostModel, workers int, seed uint64) *cpuShare {
	m := int64(math.Round(c.Cores * 1000))
	cs := &cpuShare{milli: m, servers: int((m + 999) / 1000), ws: make([]cpuWorker, workers),
		wake: c.Wakeup, awake: 2*(c.Latency+c.MessageCost) + schedSpin, commitWork: c.CommitCPU}
	cs.cores = make([]cpuCore, cs.servers) // idle and awake at the start
	for i := range cs.ws {
		cs.ws[i].core = -1
	}
	if c.Stall > 0 && c.StallEvery > 0 {
		cs.stall, cs.stallEvery = c.Stall, c.StallEvery
		cs.rng = rand.New(rand.NewPCG(seed, 0x57a11))
		for i := range cs.cores {
			cs.cores[i].budget = cs.draw(cs.stallEvery)
		}
	}
	return cs
}

// draw is a duration uniform on [0, 2·mean] (mean on average; integers
// only, the same on every architecture).
func (c *cpuShare) draw(mean time.Duration) time.Duration {
	return time.Duration(c.rng.Uint64N(2*uint64(mean) + 1))
}

// cpuCore is one of the shared cores.
type cpuCore struct {
	busy  bool
	since time.Duration // idle since
	// With stalls: off while the operating system has it; budget is
	// its running time left before the next stall, counted from from
	// while it runs; ev numbers its pending stall or resume.
	off    bool
	budget time.Duration
	from   time.Duration
	ev     uint64
}

// take gives worker w a free core: its last one if free (Go's scheduler
// runs a goroutine readied by the coordinator on the coordinator's P,
// which its commit woke: the worker's own), else the one idle the
// shortest time. It returns when w can start computing on it: now, or
// after the core wakes if it has been idle past the spin.
func (c *cpuShare) take(w consistency.WorkerID, now time.Duration) time.Duration {
	cw := &c.ws[w]
	k := cw.core
	if k < 0 || c.cores[k].busy {
		k = -1
		for i, x := range c.cores {
			if !x.busy && (k < 0 || x.since > c.cores[k].since) {
				k = i
			}
		}
	}
	cw.core = k
	core := &c.cores[k]
	core.busy = true
	if c.wake > 0 && now-core.since > c.awake {
		return now + c.wake
	}
	return now
}

// maxCores bounds CostModel.Cores.
const maxCores = 1 << 20

// validateCores checks CostModel.Cores against the features whose batch
// timing the shared cores do not follow.
func (e *Experiment) validateCores() error {
	c := e.Cost
	switch {
	case !(c.Cores >= 0) || c.Cores > maxCores:
		return fmt.Errorf("harness: cost model cores %v: want 0 (a core per worker) or a positive number of cores up to %d: %w", c.Cores, maxCores, ErrConfig)
	case c.Cores > 0 && c.Cores < 0.001:
		return fmt.Errorf("harness: cost model cores %v: want at least a thousandth of a core: %w", c.Cores, ErrConfig)
	case c.MessageCost < 0:
		return fmt.Errorf("harness: cost model message cost %v < 0: %w", c.MessageCost, ErrConfig)
	case c.Wakeup < 0 || c.CommitCPU < 0 || c.Stall < 0 || c.StallEvery < 0:
		return fmt.Errorf("harness: cost model wake-up %v, commit CPU %v, stall %v every %v: want ≥ 0: %w", c.Wakeup, c.CommitCPU, c.Stall, c.StallEvery, ErrConfig)
	case c.Stall > 0 && c.StallEvery < time.Microsecond:
		return fmt.Errorf("harness: cost model stalls of %v every %v: want them at least a microsecond apart: %w", c.Stall, c.StallEvery, ErrConfig)
	case c.Cores == 0 && (c.Wakeup > 0 || c.CommitCPU > 0 || c.Stall > 0):
		return fmt.Errorf("harness: cost model wake-up %v, commit CPU %v, stall %v: they time the shared cores (Cores > 0): %w", c.Wakeup, c.CommitCPU, c.Stall, ErrConfig)
	case c.Cores > 0 && e.Clock == Virtual && (e.Sync.Local || e.Migrate != nil || e.Preempt != nil || e.ScaleIn != nil):
		return fmt.Errorf("harness: cost model cores %v (CPU contention) runs without semi-centralized timers, data migration, preemptions and scale-in: %w", c.Cores, ErrConfig)
	}
	return nil
}

// slowed reports whether the busy cores run below full speed.
func (c *cpuShare) slowed() bool { return c.milli < 1000*int64(len(c.running)) }

// progress is the full-speed work a running worker does in dt.
func (c *cpuShare) progress(dt time.Duration) time.Duration {
	if dt <= 0 || !c.slowed() {
		return max(dt, 0)
	}
	return time.Duration(mulDiv(uint64(dt), uint64(c.milli), 1000*uint64(len(c.running)), false))
}

// duration is how long a running worker takes for work.
func (c *cpuShare) duration(work time.Duration) time.Duration {
	if work <= 0 || !c.slowed() {
		return max(work, 0)
	}
	return time.Duration(mulDiv(uint64(work), 1000*uint64(len(c.running)), uint64(c.milli), true))
}

// mulDiv is a·b/d, rounded down or up, in 128 bits.
func mulDiv(a, b, d uint64, up bool) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi >= d {
		return math.MaxInt64 // beyond any run
	}
	q, r := bits.Div64(hi, lo, d)
	if up && r > 0 {
		q++
	}
	return min(q, math.MaxInt64)
}

// settle brings every running worker's work up to now at the speed
// that held since its last update.
func (c *cpuShare) settle(now time.Duration) {
	for _, w := range c.running {
		cw := &c.ws[w]
		if now <= cw.upd || c.cores[cw.core].off {
			continue // its core is still waking, or the system has it
		}
		cw.left -= c.progress(now - cw.upd)
		cw.upd = now
	}
}

// reschedule sets every running worker's next event at the present
// speed: its work's end or its slice's, whichever comes first.
func (c *cpuShare) reschedule(s *sim) {
	for _, w := range c.running {
		cw := &c.ws[w]
		cw.ev++
		if c.cores[cw.core].off {
			continue // its resume reschedules it
		}
		s.push(&simEvent{t: max(min(cw.upd+c.duration(cw.left), cw.quant), s.now), kind: simCPU, k: cpuSliceEnd, w: w, seqNo: cw.ev})
	}
}

// begin starts worker w's batch (sim.start has set s.runs[w]).
func (c *cpuShare) begin(s *sim, w consistency.WorkerID) {
	r, cw := &s.runs[w], &c.ws[w]
	*cw = cpuWorker{ev: cw.ev + 1, core: cw.core}
	if r.start > s.now {
		cw.phase = cpuOwed
		s.push(&simEvent{t: r.start, kind: simCPU, k: cpuOwedEnd, w: w, seqNo: cw.ev})
		return
	}
	c.segment(s, w)
}

// segment starts worker w's next segment, or ends its batch.
func (c *cpuShare) segment(s *sim, w consistency.WorkerID) {
	r, cw := &s.runs[w], &c.ws[w]
	if cw.j >= r.k || cw.last {
		c.finish(s, w)
		return
	}
	seg := r.k - cw.j
	if p := r.pace; p.every > 0 {
		seg = min(seg, p.every-int((p.done+int64(cw.j))%int64(p.every)))
	}
	cw.seg, cw.left, cw.extra = seg, time.Duration(seg)*r.pace.cost, 0
	if cw.j == 0 {
		// The runtime's work around the batch, before its first point.
		cw.extra = c.commitWork
		cw.left += cw.extra
	}
	c.settle(s.now)
	if len(c.running) < c.servers {
		c.start(s, w)
	} else {
		cw.phase = cpuQueued
		c.queue = append(c.queue, w)
	}
	c.reschedule(s)
}

// start puts worker w on a free core for a new time slice (the others
// are settled; the caller reschedules).
func (c *cpuShare) start(s *sim, w consistency.WorkerID) {
	cw := &c.ws[w]
	at := c.take(w, s.now)
	if !cw.began {
		// Queued before its first point, or waiting for its core to
		// wake: a wait, as the real runtime measures it (the worker
		// receives its release when it runs).
		cw.began = true
		r := &s.runs[w]
		if q := at - r.start; q > 0 {
			s.st.shards[w].stats.Wait += q
			r.start = at
		}
	}
	cw.phase, cw.upd, cw.quant = cpuRunning, at, at+schedQuantum
	c.running = append(c.running, w)
	c.burn(s, cw.core, at)
}

// burn starts core k's running time at t: its next stall comes when its
// budget is spent.
func (c *cpuShare) burn(s *sim, k int, t time.Duration) {
	if c.rng == nil {
		return
	}
	core := &c.cores[k]
	core.from = t
	core.ev++
	s.push(&simEvent{t: t + core.budget, kind: simCPU, k: cpuStall, w: consistency.WorkerID(k), seqNo: core.ev})
}

// spend stops core k's running time at now (its worker leaves it).
func (c *cpuShare) spend(k int, now time.Duration) {
	if c.rng == nil {
		return
	}
	core := &c.cores[k]
	core.budget = max(core.budget-max(now-core.from, 0), 0)
	core.ev++
}

// stop takes worker w off its core, idle from now (settled; the caller
// reschedules).
func (c *cpuShare) stop(w consistency.WorkerID, now time.Duration) {
	for i, x := range c.running {
		if x == w {
			c.running = append(c.running[:i], c.running[i+1:]...)
			k := c.ws[w].core
			c.spend(k, now)
			core := &c.cores[k]
			core.busy, core.since = false, now
			return
		}
	}
}

// dispatch gives the free cores to the workers queued first (the others
// are settled; the caller reschedules).
func (c *cpuShare) dispatch(s *sim) {
	for len(c.running) < c.servers && len(c.queue) > 0 {
		w := c.queue[0]
		c.queue = c.queue[1:]
		c.start(s, w)
	}
}

// sliceEnd handles worker w's event while running: its segment done, or
// its time slice over (preempted if others wait).
func (c *cpuShare) sliceEnd(s *sim, w consistency.WorkerID) {
	cw := &c.ws[w]
	c.settle(s.now)
	switch {
	case cw.left > 0 && s.now < cw.quant:
		// Not due yet (the speed changed since): wait for the next.
	case cw.left > 0 && len(c.queue) == 0:
		cw.quant = s.now + schedQuantum // nobody waits: it keeps its core
	case cw.left > 0:
		c.stop(w, s.now)
		cw.phase = cpuQueued
		c.queue = append(c.queue, w)
		c.dispatch(s)
	default:
		// Done computing. It leaves its core only if a pause or the
		// batch's end follows; the next segment without a pause between
		// keeps computing on it.
		c.stop(w, s.now)
		c.segmentDone(s, w)
		c.dispatch(s)
	}
	c.reschedule(s)
}

// finish ends worker w's batch after cw.j points: its simDone now.
func (c *cpuShare) finish(s *sim, w consistency.WorkerID) {
	r, cw := &s.runs[w], &c.ws[w]
	cw.phase = cpuIdle
	cw.ev++
	r.k = cw.j
	s.push(&simEvent{t: s.now, kind: simDone, w: w, gen: r.gen})
}

// segmentDone follows the end of worker w's segment: a pause if it ended
// on a pause point, else the next segment or the batch's end. It does not
// reschedule.
func (c *cpuShare) segmentDone(s *sim, w consistency.WorkerID) {
	r, cw := &s.runs[w], &c.ws[w]
	cw.j += cw.seg
	cw.seg = 0
	p := r.pace
	if p.every > 0 && (p.done+int64(cw.j))%int64(p.every) == 0 {
		if cw.last {
			// Interrupted: it commits first and owes the pause.
			s.st.shards[w].owed = p.tau
			c.finish(s, w)
			return
		}
		cw.phase, cw.until = cpuPause, s.now+p.tau
		cw.ev++
		s.push(&simEvent{t: cw.until, kind: simCPU, k: cpuPauseEnd, w: w, seqNo: cw.ev})
		return
	}
	c.segment(s, w) // the batch's end: segments end at pause points or there
}

// event handles a simCPU event.
func (c *cpuShare) event(s *sim, ev *simEvent) {
	switch ev.k {
	case cpuStall, cpuResume:
		c.coreEvent(s, int(ev.w), ev)
		return
	}
	cw := &c.ws[ev.w]
	if ev.seqNo != cw.ev {
		return // stale: the worker's state moved on
	}
	switch ev.k {
	case cpuSliceEnd:
		c.sliceEnd(s, ev.w)
	case cpuOwedEnd, cpuPauseEnd:
		c.segment(s, ev.w)
	}
}

// coreEvent handles a stall or a resume of core k: the operating system
// takes it away for a while, its worker stopped where it was (Go cannot
// move a goroutine off a thread the system has stopped), then gives it
// back.
func (c *cpuShare) coreEvent(s *sim, k int, ev *simEvent) {
	core := &c.cores[k]
	if ev.seqNo != core.ev {
		return // stale: the core's worker left it
	}
	c.settle(s.now)
	core.ev++
	if ev.k == cpuStall {
		core.off, core.budget = true, c.draw(c.stallEvery)
		s.push(&simEvent{t: s.now + c.draw(c.stall), kind: simCPU, k: cpuResume, w: ev.w, seqNo: core.ev})
	} else {
		core.off = false
		for _, w := range c.running {
			if cw := &c.ws[w]; cw.core == k {
				cw.upd = max(cw.upd, s.now)
				c.burn(s, k, cw.upd)
			}
		}
	}
	c.reschedule(s)
}

// interrupt makes worker w commit after its current point (sim.interrupt
// has checked that the interrupt is for its batch).
func (c *cpuShare) interrupt(s *sim, w consistency.WorkerID) {
	r, cw := &s.runs[w], &c.ws[w]
	sh := s.st.shards[w]
	r.gen++
	switch cw.phase {
	case cpuOwed:
		// Still serving a pause owed from the previous batch.
		e := s.now - r.start
		sh.owed = -e
		r.owed += e // the part served
		r.start = s.now
		cw.j = 0
		c.finish(s, w)
	case cpuPause:
		// In the pause after its last point: commit now, owe the rest.
		sh.owed = max(cw.until-s.now, 0)
		c.finish(s, w)
	case cpuRunning, cpuQueued:
		c.settle(s.now)
		if cw.left <= 0 {
			// Its segment ends at this instant (its event is due): the
			// batch ends with it.
			cw.last = true
			return
		}
		cost := r.pace.cost
		done := time.Duration(cw.seg)*cost - cw.left // of the points (< 0: of the commit work)
		f := int(max(done, 0) / cost)                // points finished in the segment
		// It finishes point f+1 and commits.
		cw.seg, cw.last = f+1, true
		cw.left = time.Duration(f+1)*cost - done
		c.reschedule(s)
	}
}
