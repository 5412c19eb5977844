package harness

import (
	"sort"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
)

// shard is one worker's data and progress, shared by the runtimes.
type shard struct {
	id        consistency.WorkerID
	w         algorithms.Worker
	n         int
	cursor    int
	straggler bool
	stats     WorkerStats
	// owed is the rest of an Injected pause cut short by an interrupt; the
	// worker's next batch starts after it.
	owed time.Duration
	// deltaLen and block give the delta layout.
	deltaLen, block int
	// ops counts the operations of a Tail straggler (tail.go).
	ops tailOps
}

// points returns how many points a release budget asks for.
func (s *shard) points(budget int) int {
	if budget == consistency.FullPass {
		return s.n
	}
	return budget
}

// process runs the worker over its next k points under theta into d,
// wrapping round-robin at the end of the shard.
func (s *shard) process(theta []float64, k int, d *algorithms.Delta) {
	if s.n == 0 {
		return
	}
	s.w.SetParams(theta)
	for k > 0 {
		hi := min(s.cursor+k, s.n)
		s.w.Process(s.cursor, hi, d)
		k -= hi - s.cursor
		s.cursor = hi % s.n
	}
}

// pauses returns how many Injected pauses fall within the next k points:
// one after every every-th point the worker processes.
func pauses(done int64, k int, every int) int64 {
	if every <= 0 {
		return 0
	}
	e := int64(every)
	return (done+int64(k))/e - done/e
}

// pace is a worker's virtual speed for one batch: per-point cost (the
// Natural slowdown included) and Injected pauses of tau after every
// every-th point it processes, counted from done points before the batch.
type pace struct {
	cost  time.Duration
	tau   time.Duration
	every int
	done  int64
}

func (e *Experiment) pace(s *shard) pace {
	p := pace{cost: e.Cost.PointCost, done: s.stats.Points}
	if !s.straggler {
		return p
	}
	switch st := e.Stragglers; st.Kind {
	case Injected:
		p.tau, p.every = st.Tau, st.Every
	case Natural:
		p.cost = time.Duration(float64(p.cost) * st.Slowdown)
	}
	return p
}

// end is when the batch's j-th point is done, its pause (if any) included.
func (p pace) end(j int) time.Duration {
	return time.Duration(j)*p.cost + time.Duration(pauses(p.done, j, p.every))*p.tau
}

// finished is when the j-th point's computation ends, before its pause.
func (p pace) finished(j int) time.Duration {
	if j == 0 {
		return 0
	}
	return time.Duration(j)*p.cost + time.Duration(pauses(p.done, j-1, p.every))*p.tau
}

// interrupt returns how many of the batch's k points a worker interrupted
// at elapsed time e has processed when it commits, when it commits, and
// the pause it still owes. It finishes the point it is computing (FSP
// §3.1: the others wait "a single data point at most"). A worker in an
// Injected pause commits at once; the rest of its pause is owed and
// delays its next batch, so the straggler stays as slow as before. So is
// the pause that follows the point it finishes: it commits first, then
// owes the whole pause (otherwise an interval that cuts batches just
// before their pause points would never pause a straggler).
func (p pace) interrupt(k int, e time.Duration) (points int, at, owed time.Duration) {
	// j: the points whose computation has finished by e.
	j := sort.Search(k+1, func(j int) bool { return p.finished(j) > e }) - 1
	switch {
	case j >= k && e >= p.end(k):
		return k, p.end(k), 0
	case e < p.end(j):
		return j, e, p.end(j) - e // in the pause after point j
	default:
		return j + 1, p.finished(j + 1), p.end(j+1) - p.finished(j+1)
	}
}
