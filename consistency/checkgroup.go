package consistency

import (
	"fmt"
	"slices"
	"sort"
)

// batchTrack is what the checker knows of one worker's streamed batches,
// kept across its leaves and rejoins.
type batchTrack struct {
	// announced counts the batches announced: 0 … announced−1.
	announced uint64
	// spans are the batches accepted commits used, disjoint, ascending.
	spans []batchSpan
	// frontier is the end of the furthest range used so far.
	frontier uint64
	// produced is the worker's count of its stream's batches at the stop
	// (RecProduced, the worker side; the largest if several), at record
	// producedAt; −1 before.
	produced   uint64
	producedAt int
}

// batchSpan is a range of batches lo … hi−1 one commit used.
type batchSpan struct {
	lo, hi uint64
	id     DeltaID
	at     int // the commit's record
}

func (c *checker) batchTrack(w WorkerID) *batchTrack {
	bt := c.batches[w]
	if bt == nil {
		bt = &batchTrack{producedAt: -1}
		c.batches[w] = bt
	}
	return bt
}

// spanText names the batches lo … hi−1: "batch 3", "batches 3..5", "no
// batch".
func spanText(lo, hi uint64) string {
	switch {
	case hi <= lo:
		return "no batch"
	case hi == lo+1:
		return fmt.Sprintf("batch %d", lo)
	}
	return fmt.Sprintf("batches %d..%d", lo, hi-1)
}

// nBatches prints "1 batch", "3 batches".
func nBatches(n int) string {
	if n == 1 {
		return "1 batch"
	}
	return fmt.Sprintf("%d batches", n)
}

// batchReady checks a RecBatch: announcements come from members, numbered
// 0, 1, 2, … per worker.
func (c *checker) batchReady(r Record) {
	c.worker(r.Worker, "batch announcement")
	bt := c.batchTrack(r.Worker)
	switch {
	case r.Batch < bt.announced:
		c.fail(RuleKGroup, "worker %d announces batch %d again (%s announced before)", r.Worker, r.Batch, spanText(0, bt.announced))
	case r.Batch > bt.announced:
		c.fail(RuleKGroup, "worker %d announces batch %d, skipping %s", r.Worker, r.Batch, spanText(bt.announced, r.Batch))
		bt.announced = r.Batch + 1
	default:
		bt.announced++
	}
}

// batchSize checks that a release of m batches over points points agrees
// with the trace's batch size b, learning b from the first release.
func (c *checker) batchSize(w WorkerID, m, points int) {
	switch {
	case c.b == 0 && (points <= 0 || points%m != 0):
		c.fail(RuleKGroup, "worker %d is released for %s over %d points, not a positive multiple of %d", w, nBatches(m), points, m)
	case c.b == 0:
		c.b, c.bAt = points/m, c.at
	case points != m*c.b:
		c.fail(RuleKGroup, "worker %d is released for %s over %d points; batches have %d points (record %d)", w, nBatches(m), points, c.b, c.bAt)
	}
}

// readBatches checks a KGroup release: it names at least one batch, its
// points are b per batch, and every batch was announced.
func (c *checker) readBatches(t *wtrack, r Record) {
	t.readBatch, t.readBatches, t.readPoints = r.Batch, r.Batches, r.Points
	if r.Batches < 1 {
		c.fail(RuleKGroup, "worker %d is released for clock %d without batches (a KGroup release names the batches it covers)", r.Worker, r.Clock)
		return
	}
	c.batchSize(r.Worker, r.Batches, r.Points)
	c.announcedBy(r.Worker, fmt.Sprintf("worker %d is released for", r.Worker), r.Batch, r.Batch+uint64(r.Batches))
}

// announcedBy checks that batches lo … hi−1 of worker w were announced.
func (c *checker) announcedBy(w WorkerID, what string, lo, hi uint64) {
	if bt := c.batchTrack(w); hi > bt.announced {
		c.fail(RuleKGroup, "%s %s before its batch %d was announced (announced: %s)",
			what, spanText(lo, hi), max(lo, bt.announced), spanText(0, bt.announced))
	}
}

// commitBatches checks a KGroup commit against its release, records the
// batches it used and returns how many.
func (c *checker) commitBatches(t *wtrack, r Record, id DeltaID, wasReading bool) int {
	if c.b == 0 {
		return 0 // no release yet: the commit without a read is reported
	}
	if r.Points <= 0 || r.Points%c.b != 0 {
		c.fail(RuleKGroup, "%v aggregates %d points, not a positive multiple of the batch size %d", id, r.Points, c.b)
		return 0
	}
	m := r.Points / c.b
	if wasReading && (r.Batch != t.readBatch || r.Points != t.readPoints) {
		c.fail(RuleKGroup, "%v is computed from %s (%d points); worker %d was released for %s (%d points)",
			id, spanText(r.Batch, r.Batch+uint64(m)), r.Points, r.Worker, spanText(t.readBatch, t.readBatch+uint64(t.readBatches)), t.readPoints)
		c.announcedBy(r.Worker, fmt.Sprintf("%v uses", id), r.Batch, r.Batch+uint64(m))
	}
	c.useBatches(r.Worker, id, r.Batch, r.Batch+uint64(m))
	return m
}

// useBatches records that commit id used batches lo … hi−1 of worker w:
// a batch used before is doubled; a range that starts below the furthest
// one used so far (and overlaps nothing) fills a gap out of order. A gap
// that is never filled is reported at the end (skippedBatches).
func (c *checker) useBatches(w WorkerID, id DeltaID, lo, hi uint64) {
	bt := c.batchTrack(w)
	i := sort.Search(len(bt.spans), func(i int) bool { return bt.spans[i].hi > lo })
	var pieces []batchSpan
	cur := lo
	for j := i; j < len(bt.spans) && bt.spans[j].lo < hi; j++ {
		s := bt.spans[j]
		c.fail(RuleTwice, "%s of worker %d used twice: by %v (record %d) and by %v",
			spanText(max(lo, s.lo), min(hi, s.hi)), w, s.id, s.at, id)
		if cur < s.lo {
			pieces = append(pieces, batchSpan{cur, s.lo, id, c.at})
		}
		cur = max(cur, s.hi)
	}
	if cur < hi {
		pieces = append(pieces, batchSpan{cur, hi, id, c.at})
	}
	if len(pieces) == 1 && pieces[0].lo == lo && pieces[0].hi == hi && lo < bt.frontier {
		c.fail(RuleKGroup, "%v uses %s after worker %d's batch %d was used: a worker's batches are used in order",
			id, spanText(lo, hi), w, bt.frontier-1)
	}
	for _, p := range pieces {
		k, _ := slices.BinarySearchFunc(bt.spans, p.lo, func(s batchSpan, lo uint64) int {
			switch {
			case s.lo < lo:
				return -1
			case s.lo > lo:
				return 1
			}
			return 0
		})
		bt.spans = slices.Insert(bt.spans, k, p)
	}
	bt.frontier = max(bt.frontier, hi)
}

// skippedBatches reports, at the end of the trace, every worker's batches
// that were never used though a later batch of the same worker was: a
// batch skipped is a batch lost.
func (c *checker) skippedBatches() {
	ws := make([]WorkerID, 0, len(c.batches))
	for w := range c.batches {
		ws = append(ws, w)
	}
	slices.Sort(ws)
	for _, w := range ws {
		var next uint64
		for _, s := range c.batches[w].spans {
			if s.lo > next {
				c.failAt(s.at, RuleLost, "%s of worker %d never used, though %v used its later %s: skipped",
					spanText(next, s.lo), w, s.id, spanText(s.lo, s.hi))
			}
			next = s.hi
		}
	}
}

// unannounced checks, at the end, that the coordinator heard of every
// batch the streams of its members at the stop produced (RecProduced): a
// batch indicator lost and never resent leaves the worker's stream
// stalled at the coordinator, its later batches refused as out of order,
// and nothing else in the trace says so. A worker that is not a member
// at the end (its lease ran out, it was preempted) is not waited for.
func (c *checker) unannounced() {
	ws := make([]WorkerID, 0, len(c.batches))
	for w, bt := range c.batches {
		if bt.producedAt >= 0 {
			ws = append(ws, w)
		}
	}
	slices.Sort(ws)
	for _, w := range ws {
		bt := c.batches[w]
		if t := c.ws[w]; t != nil && t.member && bt.produced > bt.announced {
			c.failAt(bt.producedAt, RuleLost, "worker %d's stream produced %s by the stop; the coordinator heard of %s: %s lost",
				w, nBatches(int(bt.produced)), nBatches(int(bt.announced)), spanText(bt.announced, bt.produced))
		}
	}
}

// stats summarises the trace.
func (c *checker) stats() Stats {
	st := Stats{Applies: c.applies}
	ws := make([]WorkerID, 0, len(c.batches))
	for w := range c.batches {
		ws = append(ws, w)
	}
	slices.Sort(ws)
	for _, w := range ws {
		bt := c.batches[w]
		u := BatchUse{Worker: w, Announced: bt.announced}
		for _, s := range bt.spans {
			if hi := min(s.hi, bt.announced); hi > s.lo {
				u.Used += hi - s.lo
			}
		}
		u.Unused = u.Announced - u.Used
		st.Batches = append(st.Batches, u)
	}
	return st
}
