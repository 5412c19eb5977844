package harness

import (
	"container/heap"
	"fmt"
	"math/bits"
	"time"

	"github.com/syncmodels/syncmodels/consistency"
)

// CPU contention in virtual time (CostModel.Cores): the workers of a run
// on one machine share its cores, as the goroutine runtime's workers share
// GOMAXPROCS threads and the gRPC runtime's worker processes share the
// host. The simulator models the cores as processor sharing: while n
// workers compute, each computes at min(1, Cores/n) of its full speed. A
// worker in an Injected pause (a sleep on the real clock) or waiting for
// a release does not compute and leaves its share to the others. The
// coordinator's own work is not on these cores (its applies and messages
// keep their CostModel costs).
//
// The sharing is exact, with integer arithmetic: a work clock v counts
// the nanoseconds of full-speed computing each computing worker has done
// since the start; it advances by dt·min(n, Cores)/n over dt of virtual
// time (the remainder carried), and a worker's batch segment of w
// nanoseconds of work that started at v0 ends when v reaches v0 + w. The
// workers computing sit in a heap by that end, so each change costs
// O(log n). With Cores 0 (the default) none of this runs and a batch
// takes its points' cost, as before.
//
// A batch is computed in segments that end at the Injected pauses (after
// every Every-th point of a straggler): a segment is computing, the pause
// is a timer. An interrupt (FSP) lets the worker finish the point it is
// computing, as pace.interrupt does without contention, or cuts a pause
// short and owes the rest.

// simCPU sub-kinds, in simEvent.k.
const (
	cpuCheck    = iota // the earliest segment end (simEvent.seqNo: the cpuShare's epoch)
	cpuOwedEnd         // a pause owed from an interrupted batch ends
	cpuPauseEnd        // an Injected pause ends
)

type cpuPhase uint8

const (
	cpuIdle    cpuPhase = iota
	cpuOwed             // serving an owed pause before the batch's first point
	cpuCompute          // computing a segment
	cpuPause            // in an Injected pause after a segment
)

// cpuWorker is one worker's batch under processor sharing.
type cpuWorker struct {
	phase cpuPhase
	j     int   // points of the batch done before the current segment
	seg   int   // points of the current segment
	from  int64 // the work clock when the segment started
	tag   int64 // the work clock when the segment is done
	last  bool  // the segment ends the batch (an interrupt cut it)
	// until is when the current Injected pause ends.
	until time.Duration
	// ev numbers the worker's pending timer events: a later one makes the
	// earlier stale.
	ev  uint64
	idx int // position in the heap, -1 when not computing
}

// cpuShare is the processor sharing of Cores cores among the computing
// workers.
type cpuShare struct {
	cores int64
	v     int64         // the work clock, ns
	rem   uint64        // remainder of v's last advance, in 1/n ns
	at    time.Duration // when v was last advanced
	ws    []cpuWorker
	h     cpuHeap
	epoch uint64 // numbers the pending cpuCheck event
	// batching defers schedule while a cpuCheck ends several segments.
	batching bool
}

func newCPUShare(cores, workers int) *cpuShare {
	c := &cpuShare{cores: int64(cores), ws: make([]cpuWorker, workers)}
	c.h.c = c
	for i := range c.ws {
		c.ws[i].idx = -1
	}
	return c
}

// validateCores checks CostModel.Cores against the features whose batch
// timing the processor sharing does not follow.
func (e *Experiment) validateCores() error {
	c := e.Cost
	switch {
	case c.Cores < 0:
		return fmt.Errorf("harness: cost model cores %d < 0: %w", c.Cores, ErrConfig)
	case c.MessageCost < 0:
		return fmt.Errorf("harness: cost model message cost %v < 0: %w", c.MessageCost, ErrConfig)
	case c.Cores > 0 && e.Clock == Virtual && (e.Sync.Local || e.Migrate != nil || e.Preempt != nil || e.ScaleIn != nil):
		return fmt.Errorf("harness: cost model cores %d (CPU contention) runs without semi-centralized timers, data migration, preemptions and scale-in: %w", c.Cores, ErrConfig)
	}
	return nil
}

// advance brings the work clock to now, under the sharing that held
// since the last change.
func (c *cpuShare) advance(now time.Duration) {
	dt := now - c.at
	c.at = now
	n := int64(len(c.h.ws))
	if dt <= 0 || n == 0 {
		return
	}
	if n <= c.cores {
		c.v += int64(dt)
		return
	}
	// v += (dt·cores + rem) / n, exactly.
	hi, lo := bits.Mul64(uint64(dt), uint64(c.cores))
	var carry uint64
	lo, carry = bits.Add64(lo, c.rem, 0)
	hi += carry
	q, r := bits.Div64(hi, lo, uint64(n))
	c.v += int64(q)
	c.rem = r
}

// schedule sets the cpuCheck event at the earliest segment end.
func (c *cpuShare) schedule(s *sim) {
	if c.batching {
		return
	}
	c.epoch++
	if len(c.h.ws) == 0 {
		return
	}
	need := c.ws[c.h.ws[0]].tag - c.v
	var dt int64
	n := int64(len(c.h.ws))
	switch {
	case need <= 0:
		dt = 0
	case n <= c.cores:
		dt = need
	default:
		// The least dt with (dt·cores + rem)/n ≥ need.
		hi, lo := bits.Mul64(uint64(need), uint64(n))
		var borrow uint64
		lo, borrow = bits.Sub64(lo, c.rem, 0)
		hi -= borrow
		q, r := bits.Div64(hi, lo, uint64(c.cores))
		if r > 0 {
			q++
		}
		dt = int64(q)
	}
	s.push(&simEvent{t: s.now + time.Duration(dt), kind: simCPU, k: cpuCheck, seqNo: c.epoch})
}

// begin starts worker w's batch (sim.start has set s.runs[w]).
func (c *cpuShare) begin(s *sim, w consistency.WorkerID) {
	r, cw := &s.runs[w], &c.ws[w]
	*cw = cpuWorker{j: 0, ev: cw.ev + 1, idx: -1}
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
	c.advance(s.now)
	cw.phase, cw.seg, cw.from = cpuCompute, seg, c.v
	cw.tag = c.v + int64(seg)*int64(r.pace.cost)
	heap.Push(&c.h, int(w))
	c.schedule(s)
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
// on a pause point, else the next segment or the batch's end.
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
	c.segment(s, w)
}

// event handles a simCPU event.
func (c *cpuShare) event(s *sim, ev *simEvent) {
	switch ev.k {
	case cpuCheck:
		if ev.seqNo != c.epoch {
			return // the sharing changed since
		}
		c.advance(s.now)
		c.batching = true
		for len(c.h.ws) > 0 && c.ws[c.h.ws[0]].tag <= c.v {
			w := consistency.WorkerID(heap.Pop(&c.h).(int))
			c.segmentDone(s, w)
		}
		c.batching = false
		c.schedule(s)
	case cpuOwedEnd, cpuPauseEnd:
		if cw := &c.ws[ev.w]; ev.seqNo == cw.ev {
			c.segment(s, ev.w)
		}
	}
}

// interrupt makes computing worker w commit after its current point
// (sim.interrupt has checked that the interrupt is for its batch).
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
	case cpuCompute:
		c.advance(s.now)
		done := c.v - cw.from
		f := int(done / int64(r.pace.cost))
		if f >= cw.seg {
			// Its segment ends at this instant.
			heap.Remove(&c.h, cw.idx)
			cw.last = true
			c.segmentDone(s, w)
			c.schedule(s)
			return
		}
		cw.seg, cw.last = f+1, true
		cw.tag = cw.from + int64(f+1)*int64(r.pace.cost)
		heap.Fix(&c.h, cw.idx)
		c.schedule(s)
	}
}

// cpuHeap holds the computing workers by segment end, then ID.
type cpuHeap struct {
	c  *cpuShare
	ws []int
}

func (h *cpuHeap) Len() int { return len(h.ws) }
func (h *cpuHeap) Less(i, j int) bool {
	a, b := h.ws[i], h.ws[j]
	if ta, tb := h.c.ws[a].tag, h.c.ws[b].tag; ta != tb {
		return ta < tb
	}
	return a < b
}
func (h *cpuHeap) Swap(i, j int) {
	h.ws[i], h.ws[j] = h.ws[j], h.ws[i]
	h.c.ws[h.ws[i]].idx = i
	h.c.ws[h.ws[j]].idx = j
}
func (h *cpuHeap) Push(x any) {
	w := x.(int)
	h.c.ws[w].idx = len(h.ws)
	h.ws = append(h.ws, w)
}
func (h *cpuHeap) Pop() any {
	w := h.ws[len(h.ws)-1]
	h.ws = h.ws[:len(h.ws)-1]
	h.c.ws[w].idx = -1
	return w
}
