package migrate

import (
	"fmt"
	"math"
)

// DefaultWindowSize is PlacementConfig.WindowSize's default, in points.
const DefaultWindowSize = 64

// Point names a data point by its home worker and its index in the home
// worker's shard. Migration never renames a point.
type Point struct {
	Home, Index int
}

func (p Point) String() string { return fmt.Sprintf("%d/%d", p.Home, p.Index) }

// PlacementConfig configures a Placement. The zero value is usable.
type PlacementConfig struct {
	// WindowSize: points locked and sent together (§4.3's windows).
	// Zero means DefaultWindowSize.
	WindowSize int
}

// mark is a copy's state at the worker holding it (§4.3, virtual
// migration).
type mark uint8

const (
	inactive mark = iota // held, but owned by another worker
	active               // owned and trained here
	sending              // owned, locked in this worker's open window: trained by nobody
)

// cp is one copy of a point at one worker.
type cp struct {
	pt     Point
	mark   mark
	queued bool   // active and in the priority queue (not yet compensated)
	count  int32  // traversal count; authoritative while owned (active or sending)
	seq    uint64 // arrival order, the queue's tie-break
}

// quota is a pending amount from a plan.
type quota struct {
	to, left int
}

// window is an open window at its source.
type window struct {
	id      uint64
	to      int
	slots   []int // source slots, flips first
	virtual int   // how many of them the target already holds a copy of
}

// worker is one worker's share: its copies, its round robin, its priority
// queue, its pending quotas and its open window.
type worker struct {
	natives int
	slots   []cp // natives at 0..natives−1, then guest copies in arrival order
	// guest[h][i] is 1 + the slot of the copy of point h/i held here
	// (any state), 0 if none; guest[h] is nil until a copy of one of h's
	// points arrives.
	guest  [][]int32
	from   []int // from[h]: guest copies of worker h's points
	cursor int   // next slot the round robin looks at
	pass   int32 // completed wraps of the round robin
	ring   int   // active, unqueued copies: the round robin's points
	owned  int   // active or sending copies
	sum    int64 // sum of the owned copies' counts
	queue  []int // queued slots not yet trained this iteration, by (count, seq)
	rested []int // queued slots trained this iteration
	quotas []quota
	open   *window
}

// Placement is the asynchronous data migration of FSP §4.3 for a set of
// workers: which worker owns and trains each point, and every worker's
// round robin, priority queue and sliding window. It is deterministic data
// with no clock and no goroutine, and not safe for concurrent use: a
// runtime serializes its calls (a distributed runtime keeps one per
// coordinator and forwards each worker's Next/Advance).
//
// Every point has a copy at its home worker and at every worker it was
// ever migrated to; exactly one copy owns it (marked active, or sending
// while locked in its owner's open window) and all others are inactive.
// Migrating a point to a worker that holds a copy flips marks and moves no
// data: that is virtual migration, and it is how a reversed migration
// costs nothing.
type Placement struct {
	cfg     PlacementConfig
	workers []worker
	open    map[uint64]int // window id → source
	nextWin uint64
	seq     uint64
	data    int64 // points whose data was sent
	virtual int64 // points migrated by a flip
}

// NewPlacement returns a Placement for len(sizes) workers, worker w owning
// points w/0 … w/(sizes[w]−1), each traversed 0 times.
func NewPlacement(sizes []int, cfg PlacementConfig) (*Placement, error) {
	if cfg.WindowSize == 0 {
		cfg.WindowSize = DefaultWindowSize
	}
	if cfg.WindowSize < 0 {
		return nil, inputErr(ErrConfig, "PlacementConfig.WindowSize", cfg.WindowSize, "must be ≥ 1")
	}
	if len(sizes) == 0 {
		return nil, inputErr(ErrInput, "sizes", "[]", "need at least one worker")
	}
	for w, n := range sizes {
		if n < 0 {
			return nil, inputErr(ErrInput, fmt.Sprintf("sizes[%d]", w), n, "must be ≥ 0")
		}
		if n > math.MaxInt32 {
			return nil, inputErr(ErrInput, fmt.Sprintf("sizes[%d]", w), n, "must be < 2^31")
		}
	}
	p := &Placement{cfg: cfg, workers: make([]worker, len(sizes)), open: map[uint64]int{}}
	for w, n := range sizes {
		wk := &p.workers[w]
		wk.natives, wk.ring, wk.owned = n, n, n
		wk.slots = make([]cp, n)
		wk.guest = make([][]int32, len(sizes))
		wk.from = make([]int, len(sizes))
		for i := range wk.slots {
			wk.slots[i] = cp{pt: Point{w, i}, mark: active}
		}
	}
	return p, nil
}

// Workers is the number of workers.
func (p *Placement) Workers() int { return len(p.workers) }

func (p *Placement) worker(w int, name string) (*worker, error) {
	if w < 0 || w >= len(p.workers) {
		return nil, inputErr(ErrUnknownWorker, name, w, fmt.Sprintf("must be in [0, %d)", len(p.workers)))
	}
	return &p.workers[w], nil
}

// slot is the slot of pt's copy at w, or −1.
func (wk *worker) slot(self int, pt Point) int {
	if pt.Home == self {
		return pt.Index
	}
	if g := wk.guest[pt.Home]; g != nil && g[pt.Index] > 0 {
		return int(g[pt.Index]) - 1
	}
	return -1
}

// due is the count a copy in slot s must have to join the round robin
// without losing a pass: the wraps so far, plus one if the cursor has
// already passed s in this wrap.
func (wk *worker) due(s int) int32 {
	if s < wk.cursor {
		return wk.pass + 1
	}
	return wk.pass
}

// Load is one worker's share of the points.
type Load struct {
	Owned   int     // points it owns: Ring + Queued + Sending; Stats.Size
	Ring    int     // active points in its round robin
	Queued  int     // active points in its priority queue (received, lost passes not yet compensated)
	Sending int     // points locked in its open window
	Copies  int     // copies it holds in any state, its own points included: its memory
	Passes  float64 // mean traversal count of its owned points; Stats.Passes
}

// Load reports worker w's share.
func (p *Placement) Load(w int) (Load, error) {
	wk, err := p.worker(w, "w")
	if err != nil {
		return Load{}, err
	}
	l := Load{
		Owned: wk.owned, Ring: wk.ring, Queued: len(wk.queue) + len(wk.rested),
		Copies: len(wk.slots),
	}
	if wk.open != nil {
		l.Sending = len(wk.open.slots)
	}
	if wk.owned > 0 {
		l.Passes = float64(wk.sum) / float64(wk.owned)
	}
	return l, nil
}

// Stats is the planner's input: every worker's Load with the speeds the
// runtime measured (points per second, one per worker).
func (p *Placement) Stats(speeds []float64) ([]Stats, error) {
	if len(speeds) != len(p.workers) {
		return nil, inputErr(ErrLength, "len(speeds)", len(speeds), fmt.Sprintf("must equal the number of workers, %d", len(p.workers)))
	}
	out := make([]Stats, len(p.workers))
	for w, v := range speeds {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return nil, inputErr(ErrInput, fmt.Sprintf("speeds[%d]", w), v, "must be finite and ≥ 0")
		}
		l, _ := p.Load(w)
		out[w] = Stats{Passes: l.Passes, Speed: v, Size: l.Owned}
	}
	return out, nil
}

// Count is pt's traversal count and the worker that owns it.
func (p *Placement) Count(pt Point) (count, owner int, err error) {
	if pt.Home < 0 || pt.Home >= len(p.workers) || pt.Index < 0 || pt.Index >= p.workers[pt.Home].natives {
		return 0, 0, inputErr(ErrInput, "pt", pt, "no such point")
	}
	if c := &p.workers[pt.Home].slots[pt.Index]; c.mark != inactive {
		return int(c.count), pt.Home, nil
	}
	for w := range p.workers {
		wk := &p.workers[w]
		if s := wk.slot(w, pt); s >= 0 && wk.slots[s].mark != inactive {
			return int(wk.slots[s].count), w, nil
		}
	}
	return 0, 0, fmt.Errorf("%w: %v has no owner", ErrInvariant, pt)
}

// Moved counts the points migrated so far: data, those whose data was sent
// to a worker that held no copy; virtual, those migrated by flipping marks.
func (p *Placement) Moved() (data, virtual int64) { return p.data, p.virtual }
