package harness

import (
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
	// deltaLen and block give the delta layout.
	deltaLen, block int
	// nextSeq is the sequence number of the worker's next commit.
	nextSeq uint64
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

// computeTime is the virtual time k points take on s: k·PointCost, times
// the Natural slowdown, plus the Injected pauses. It also returns the
// part due to straggling.
func (e *Experiment) computeTime(s *shard, k int) (total, straggling time.Duration) {
	base := time.Duration(k) * e.Cost.PointCost
	if !s.straggler {
		return base, 0
	}
	st := e.Stragglers
	switch st.Kind {
	case Injected:
		straggling = time.Duration(pauses(s.stats.Points, k, st.Every)) * st.Tau
	case Natural:
		straggling = time.Duration(float64(base) * (st.Slowdown - 1))
	}
	return base + straggling, straggling
}
