package harness

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/internal/fpdet"
	"github.com/syncmodels/syncmodels/interval"
	"github.com/syncmodels/syncmodels/migrate"
)

// Migration configures FSP's asynchronous data migration (FSP paper §4) in
// a virtual-time FSP run: package migrate's Planner decides at every
// barrier how many points move between which workers (Eq. 8 test, Eq. 9
// amounts, min/max pairing over d rounds) and its Placement says which
// points each worker trains (bi-directional sliding window at the source,
// priority queue at the target, virtual migration).
//
// How the simulator carries it out:
//
//   - A point never leaves its home shard's algorithms.Worker, which keeps
//     its per-point state (EM's last contribution). A worker that trains a
//     migrated point (home h, index i) calls h's Worker.Process(i, i+1)
//     under the round's parameters (every worker reads the same version
//     under FSP) into its own delta; the time is charged to its own pace.
//     Migration therefore moves no per-point state and is exact: the
//     arithmetic is the same whoever trains the point, and a reversed
//     migration (virtual: the source still holds the point, marked
//     inactive) moves nothing but a mark.
//   - A worker trains its priority queue of received points first, then
//     its own active points round robin; a full-pass release asks for as
//     many points as it owns when released. Its progress through the
//     Placement is brought up to the current instant (from its pace)
//     whenever a window opens at it or is delivered to it.
//   - A window's data (PointBytes per point whose data the target lacks,
//     plus 8 bytes per point id) goes out on the source's own link at
//     Cost.Bandwidth, overlapping training: the source locks only the
//     window in flight, the target starts on it when it arrives, and the
//     source opens its next window then (local training never waits).
//   - At every barrier the harness measures each worker's speed (points
//     per busy second, older rounds weighing half every MinSplit of time)
//     and, from MinSplit on (so that an Injected straggler's speed is
//     measured over several of its pauses), gives the Planner the
//     Placement's passes and sizes and the remaining time T —
//     the FSPV stage's Remaining when the tuner has one and a target
//     (interval.LinearFit with LinearFitConfig.Target), otherwise the
//     time left until Duration, which is when the run ends — and applies
//     a new plan.
//   - An FSPV rollback restores the Placement and the Planner of the
//     checkpoint; windows that were open then are aborted (their points
//     stay at their source) and windows in flight are dropped.
//
// The Fig. 12 record (MigrationResult.History) samples, every SampleEvery
// at a barrier, each worker's passes (the mean traversal count of the
// points it owns) and its accumulated objective contribution: the
// improvement of the objective on the control sample since the previous
// sample, split among the workers by the mean over the rounds in between
// of ⟨d_w, D⟩/‖D‖², worker w's delta projected on the round's merged
// delta D (a first-order attribution; the shares of a round add up to 1).
type Migration struct {
	// Planner configures the balance (Eq. 8's ε, d rounds, the test, the
	// super-worker tolerance, MinSplit, MinPoints). Zero fields take
	// migrate's defaults (ε = 0.5 passes, d = 4, TestFinal), except a zero
	// Tolerance, which becomes DefaultTolerance, and a zero MinSplit,
	// which becomes Duration/16.
	Planner migrate.Config
	// Window is the points per migration window. Default
	// migrate.DefaultWindowSize (64).
	Window int
	// PointBytes is the size of one point's data on the wire, for
	// example 8 × its dimension. Default: the algorithm's PointBytes() if
	// it has that method; otherwise it must be set.
	PointBytes int
	// SampleEvery is the period of the Fig. 12 samples. Default
	// Experiment.EvalEvery.
	SampleEvery time.Duration
	// RecordOnly records the passes and contributions but never migrates:
	// the baseline of Fig. 12. The run computes exactly what the same run
	// without Migrate computes.
	RecordOnly bool
}

// DefaultTolerance groups workers into super-workers when their passes are
// within 0.1, their speeds within 35% and their sizes within 10%. Without
// slack, stragglers that are alike form separate super-workers and the
// min/max pairing pairs them with each other (or leaves one out) instead
// of with the fast workers: their passes differ by a few points, and an
// Injected straggler's measured speed by up to a third, depending on
// where its 32 ms pauses fall in the measurement (seen under FSPV+opt,
// whose local timers cut its batches at different points).
var DefaultTolerance = migrate.Tolerance{Passes: 0.1, Speed: 0.35, Size: 0.1}

// MigrationResult is what a run with Migrate recorded.
type MigrationResult struct {
	// Planner is the planner's configuration, defaults filled.
	Planner    migrate.Config
	Window     int
	PointBytes int
	RecordOnly bool
	// History is Fig. 12: per worker, passes and accumulated objective
	// contribution (improvement, positive when the objective got better)
	// over time. Its last samples are at the end of the run.
	History *migrate.History
	// Passes is every worker's passes at the end: the mean traversal
	// count of the points it owns.
	Passes []float64
	// Imbalance is Eq. 8's left side at the end over the super-workers'
	// passes so far (grouped with the planner's tolerance).
	Imbalance float64
	// Windows counts the windows sent; Plans the planner's new plans with
	// transfers.
	Windows, Plans int
	// DataPoints were delivered with their data, VirtualPoints by a mark
	// flip (virtual migration: the target held a copy), Reactivated those
	// of VirtualPoints that returned to their home worker.
	DataPoints, VirtualPoints, Reactivated int64
	// Bytes were sent for migration (also in Result.BytesSent).
	Bytes int64
	// Counts is every point's traversal count at the end, by home worker
	// and index in its shard.
	Counts [][]int32
}

// Ratio is the max/min of Passes (+Inf if a worker made no pass).
func (m *MigrationResult) Ratio() float64 {
	lo, hi := slices.Min(m.Passes), slices.Max(m.Passes)
	if lo <= 0 {
		return math.Inf(1)
	}
	return hi / lo
}

// SpreadBound is the max − min of the workers' passes that Eq. 8 allows:
// every super-worker within ε of their mean, and every worker within
// 2·Tolerance.Passes of its super-worker's mean (its members are within
// Tolerance.Passes of the first), so max − min ≤ 2ε + 4·Tolerance.Passes.
func (m *MigrationResult) SpreadBound() float64 {
	return float64(2*m.Planner.Epsilon) + float64(4*m.Planner.Tolerance.Passes)
}

// RatioBound is the max/min of the workers' passes that Eq. 8 allows at
// the end: 1 + SpreadBound/min.
func (m *MigrationResult) RatioBound() float64 {
	lo := slices.Min(m.Passes)
	if lo <= 0 {
		return math.Inf(1)
	}
	return 1 + m.SpreadBound()/lo
}

// pointSizer is implemented by algorithms that know a point's size.
type pointSizer interface{ PointBytes() int }

func (e *Experiment) validateMigration() error {
	if e.Migrate == nil {
		return nil
	}
	// A copy: the caller's Migration is not modified.
	m := new(Migration)
	*m = *e.Migrate
	e.Migrate = m
	switch {
	case e.Clock != Virtual:
		return fmt.Errorf("harness: data migration runs on the virtual clock only (the goroutine runtime has no peer-to-peer data path): %w", ErrConfig)
	case e.Sync.Kind != consistency.FSP:
		return fmt.Errorf("harness: data migration needs an FSP sync model, not %v: %w", e.Sync, ErrConfig)
	case e.ScaleIn != nil:
		return fmt.Errorf("harness: data migration and the scale-in tuner cannot be combined: %w", ErrConfig)
	case m.Window < 0:
		return fmt.Errorf("harness: Migration.Window %d < 0: %w", m.Window, ErrConfig)
	case m.PointBytes < 0:
		return fmt.Errorf("harness: Migration.PointBytes %d < 0: %w", m.PointBytes, ErrConfig)
	case m.SampleEvery < 0:
		return fmt.Errorf("harness: Migration.SampleEvery %v < 0: %w", m.SampleEvery, ErrConfig)
	}
	cfg := m.Planner
	if cfg.Tolerance == (migrate.Tolerance{}) {
		cfg.Tolerance = DefaultTolerance
	}
	if cfg.MinSplit == 0 {
		cfg.MinSplit = e.Duration / 16
	}
	if err := cfg.Validate(); err != nil {
		return configError("Migration.Planner", err)
	}
	if m.PointBytes == 0 {
		ps, ok := e.Algorithm.(pointSizer)
		if !ok {
			return fmt.Errorf("harness: Migration.PointBytes must be set: %s does not report its point size: %w", e.Algorithm.Name(), ErrConfig)
		}
		m.PointBytes = ps.PointBytes()
	}
	if m.Window == 0 {
		m.Window = migrate.DefaultWindowSize
	}
	if m.SampleEvery == 0 {
		m.SampleEvery = e.EvalEvery
	}
	m.Planner = cfg
	return nil
}

// migration is a run's migration state in the simulator.
type migration struct {
	cfg     Migration
	pl      *migrate.Placement
	planner *migrate.Planner
	res     MigrationResult
	shards  []*shard
	// batch[w] is the points of w's current batch taken from the
	// placement so far.
	batch [][]migrate.Point
	// set[h] is the θ home shard h's worker last computed under.
	set [][]float64
	// Speeds: decayed points and busy seconds, and the totals at the
	// previous barrier.
	pts, busy      []float64
	lastPts        []int64
	lastBusy       []time.Duration
	out            []time.Duration // each worker's link is free from then
	epoch          uint64          // bumped by a rollback: older flights are dropped
	last           []*algorithms.Delta
	share          []float64 // Σ over rounds since the last sample of each worker's share
	rounds         int
	fPrev          float64
	lastSample     time.Duration
	sampled        bool
	minimize       bool
	remaining      func() (time.Duration, bool)
	stragglerExtra time.Duration
	flying         map[uint64]migrate.Window
	lastBarrier    time.Duration
}

// migSaved is the migration state of a checkpoint.
type migSaved struct {
	pl      *migrate.Placement
	planner migrate.Planner
}

func newMigration(e *Experiment, st *setupState) (*migration, error) {
	if e.Migrate == nil {
		return nil, nil
	}
	sizes := make([]int, len(st.shards))
	for i, sh := range st.shards {
		sizes[i] = sh.n
	}
	pl, err := migrate.NewPlacement(sizes, migrate.PlacementConfig{WindowSize: e.Migrate.Window})
	if err != nil {
		return nil, configError("migration", err)
	}
	planner, err := migrate.NewPlanner(e.Migrate.Planner)
	if err != nil {
		return nil, configError("migration planner", err)
	}
	n := len(st.shards)
	hist, _ := migrate.NewHistory(n)
	m := &migration{cfg: *e.Migrate, pl: pl, planner: planner, shards: st.shards,
		batch: make([][]migrate.Point, n), set: make([][]float64, n),
		pts: make([]float64, n), busy: make([]float64, n), lastPts: make([]int64, n), lastBusy: make([]time.Duration, n),
		out: make([]time.Duration, n), last: make([]*algorithms.Delta, n), share: make([]float64, n),
		minimize: e.Algorithm.Minimize(), stragglerExtra: e.Stragglers.Latency, flying: map[uint64]migrate.Window{}}
	m.res = MigrationResult{Planner: planner.Config(), Window: e.Migrate.Window, PointBytes: e.Migrate.PointBytes,
		RecordOnly: e.Migrate.RecordOnly, History: hist}
	type stager interface{ Stage() interval.Stage }
	dur := e.Duration
	m.remaining = func() (time.Duration, bool) { return dur, false }
	if sg, ok := e.Tuner.(stager); ok {
		m.remaining = func() (time.Duration, bool) {
			s := sg.Stage()
			return s.Remaining, s.Index > 0 && s.Remaining > 0
		}
	}
	return m, nil
}

// passSize is how many points a full-pass release asks w for: the points
// it can train now, its round robin and its queue.
func (m *migration) passSize(w int) int {
	l, _ := m.pl.Load(int(w))
	return l.Ring + l.Queued
}

// release starts w's batch: the queue becomes eligible again (θ changed).
func (m *migration) release(w consistency.WorkerID) {
	m.pl.BeginIteration(int(w))
	m.batch[w] = m.batch[w][:0]
}

// catchUp takes from the placement the points w's run r has finished by
// now, so that the placement's cursor is where w's training is.
func (m *migration) catchUp(w consistency.WorkerID, r *simRun, now time.Duration) error {
	if !r.active {
		return nil
	}
	e := now - r.start
	if e <= 0 {
		return nil
	}
	j := sort.Search(r.k+1, func(j int) bool { return r.pace.finished(j) > e }) - 1
	return m.take(w, j)
}

// take brings w's batch to j points.
func (m *migration) take(w consistency.WorkerID, j int) error {
	n := j - len(m.batch[w])
	if n <= 0 {
		return nil
	}
	before := len(m.batch[w])
	var err error
	if m.batch[w], err = m.pl.Next(m.batch[w], int(w), n); err != nil {
		return err
	}
	return m.pl.Advance(int(w), len(m.batch[w])-before)
}

// compute runs the arithmetic of w's batch of k points under params into
// d, each point on its home shard's worker, and returns how many points
// it processed (k unless the placement ran out of points for w).
func (m *migration) compute(w consistency.WorkerID, k int, params []float64, d *algorithms.Delta) (int, error) {
	if err := m.take(w, k); err != nil {
		return 0, err
	}
	pts := m.batch[w]
	for i := 0; i < len(pts); {
		h, lo := pts[i].Home, pts[i].Index
		j := i + 1
		for j < len(pts) && pts[j].Home == h && pts[j].Index == lo+(j-i) {
			j++
		}
		if set := m.set[h]; len(set) != len(params) || len(set) == 0 || &set[0] != &params[0] {
			m.shards[h].w.SetParams(params)
			m.set[h] = params
		}
		m.shards[h].w.Process(lo, lo+(j-i), d)
		i = j
	}
	m.last[w] = d
	return len(pts), nil
}

// barrier runs after a round's apply (and after the tuner, which may have
// rolled back): it records the Fig. 12 sample, measures the speeds, asks
// the planner and opens windows.
func (m *migration) barrier(s *sim, now time.Duration) error {
	m.attribute(s.st.coord)
	if !m.sampled || now-m.lastSample >= m.cfg.SampleEvery {
		if err := m.sample(s, now); err != nil {
			return err
		}
	}
	speeds := make([]float64, len(m.shards))
	decay := fpdet.Exp2(-float64(now-m.lastBarrier) / float64(m.cfg.Planner.MinSplit))
	m.lastBarrier = now
	for w, sh := range m.shards {
		m.pts[w] = float64(m.pts[w]*decay) + float64(sh.stats.Points-m.lastPts[w])
		m.busy[w] = float64(m.busy[w]*decay) + (sh.stats.Busy - m.lastBusy[w]).Seconds()
		m.lastPts[w], m.lastBusy[w] = sh.stats.Points, sh.stats.Busy
		if m.busy[w] > 0 {
			speeds[w] = m.pts[w] / m.busy[w]
		}
	}
	if m.cfg.RecordOnly || now < m.cfg.Planner.MinSplit {
		return nil
	}
	stats, err := m.pl.Stats(speeds)
	if err != nil {
		return fmt.Errorf("harness: migration: %w", err)
	}
	left := max(s.e.Duration-now, 0)
	if t, ok := m.remaining(); ok {
		left = min(left, t)
	}
	dec, err := m.planner.Plan(migrate.Barrier{Now: now, Workers: stats, Remaining: left})
	if err != nil {
		return fmt.Errorf("harness: migration planner: %w", err)
	}
	if dec.NewPlan {
		if len(dec.Transfers) > 0 {
			m.res.Plans++
		}
		if err := m.pl.SetPlan(dec.Transfers); err != nil {
			return fmt.Errorf("harness: migration plan: %w", err)
		}
	}
	for w := range m.shards {
		if err := m.open(s, consistency.WorkerID(w), now); err != nil {
			return err
		}
	}
	return nil
}

// attribute adds each worker's share of the round just applied: its
// delta projected on the merged delta, ⟨d_w, D⟩/‖D‖².
func (m *migration) attribute(c *coordinator) {
	var norm float64
	c.merged.Range(func(_ int, v float64) bool { norm += float64(v * v); return true })
	if !(norm > 0) || math.IsInf(norm, 0) {
		return
	}
	for w, d := range m.last {
		if d == nil {
			continue
		}
		var dot float64
		d.Range(func(i int, v float64) bool { dot += float64(v * c.merged.Vec[i]); return true })
		m.share[w] += dot / norm
		m.last[w] = nil
	}
	m.rounds++
}

// sample records every worker's passes and contribution since the last
// sample.
func (m *migration) sample(s *sim, now time.Duration) error {
	f := s.st.sample.objective(s.st.coord.params)
	gain := 0.0
	if m.sampled {
		gain = f - m.fPrev
		if m.minimize {
			gain = -gain
		}
	}
	for w := range m.shards {
		l, _ := m.pl.Load(w)
		share := 0.0
		if m.rounds > 0 {
			share = m.share[w] / float64(m.rounds)
		}
		if err := m.res.History.Record(w, now, l.Passes, float64(gain*share)); err != nil {
			return fmt.Errorf("harness: migration history: %w", err)
		}
		m.share[w] = 0
	}
	m.rounds, m.fPrev, m.lastSample, m.sampled = 0, f, now, true
	return nil
}

// open opens w's next window, if its plan asks for one, and sends it.
func (m *migration) open(s *sim, w consistency.WorkerID, now time.Duration) error {
	if err := m.catchUp(w, &s.runs[w], now); err != nil {
		return err
	}
	win, ok, err := m.pl.OpenWindow(int(w))
	if err != nil || !ok {
		return err
	}
	size := 24 + 8*len(win.Points) + m.cfg.PointBytes*(len(win.Points)-win.Virtual)
	start := max(now, m.out[w])
	m.out[w] = start + time.Duration(float64(size)/s.e.Cost.Bandwidth*1e9)
	arrive := m.out[w] + s.e.Cost.Latency
	if m.shards[win.From].straggler {
		arrive += m.stragglerExtra
	}
	if m.shards[win.To].straggler {
		arrive += m.stragglerExtra
	}
	m.res.Bytes += int64(size)
	m.res.Windows++
	s.bytes += int64(size)
	s.msgs++
	m.flying[win.ID] = win
	s.push(&simEvent{t: arrive, kind: simMigrate, w: w, win: win.ID, gen: m.epoch})
	return nil
}

// deliver completes a window that reached its target and has its source
// open the next.
func (m *migration) deliver(s *sim, ev *simEvent) error {
	win, ok := m.flying[ev.win]
	if !ok || ev.gen != m.epoch {
		return nil // sent before a rollback
	}
	delete(m.flying, ev.win)
	to := consistency.WorkerID(win.To)
	if err := m.catchUp(to, &s.runs[to], s.now); err != nil {
		return err
	}
	if err := m.pl.Deliver(win.ID); err != nil {
		return fmt.Errorf("harness: migration: %w", err)
	}
	m.res.DataPoints += int64(len(win.Points) - win.Virtual)
	m.res.VirtualPoints += int64(win.Virtual)
	for _, p := range win.Points[:win.Virtual] {
		if p.Home == win.To {
			m.res.Reactivated++
		}
	}
	return m.open(s, consistency.WorkerID(win.From), s.now)
}

// save is the migration state of a checkpoint, taken between rounds.
func (m *migration) save() *migSaved {
	return &migSaved{pl: m.pl.Clone(), planner: *m.planner}
}

// restore returns to a checkpoint (FSPV's rollback): the placement and the
// planner as they were; windows open then are aborted, windows in flight
// dropped. What was sent stays counted.
func (m *migration) restore(sv *migSaved) error {
	m.pl = sv.pl.Clone()
	*m.planner = sv.planner
	for _, id := range m.pl.OpenWindows() {
		if err := m.pl.Abort(id); err != nil {
			return fmt.Errorf("harness: migration rollback: %w", err)
		}
	}
	m.epoch++
	clear(m.flying)
	for w := range m.set {
		m.set[w] = nil
		m.last[w] = nil
		m.share[w] = 0
	}
	m.rounds = 0
	return nil
}

// finish fills the result at the end of the run.
func (m *migration) finish(s *sim) (*MigrationResult, error) {
	// Batches the end cut short: the points their workers had finished
	// are computed into a delta nobody commits, so that every traversal
	// the placement counted was computed once.
	for w := range m.shards {
		id := consistency.WorkerID(w)
		if r := &s.runs[w]; r.active {
			if err := m.catchUp(id, r, s.now); err != nil {
				return nil, err
			}
			if _, err := m.compute(id, len(m.batch[w]), r.params, algorithms.NewDelta(s.st.layout)); err != nil {
				return nil, err
			}
			m.last[w] = nil
		}
	}
	m.attribute(s.st.coord)
	// The last round's barrier may have run past the end (it runs when the
	// coordinator is free, after the apply): the final sample is not
	// earlier than it.
	if err := m.sample(s, max(s.now, m.lastSample)); err != nil {
		return nil, err
	}
	if err := m.pl.Check(); err != nil {
		return nil, fmt.Errorf("harness: migration: %w", err)
	}
	speeds := make([]float64, len(m.shards))
	stats, err := m.pl.Stats(speeds)
	if err != nil {
		return nil, err
	}
	for w := range stats {
		stats[w].Speed = 1 // grouped by passes and size only
	}
	gs, err := migrate.Groups(stats, m.res.Planner.Tolerance)
	if err != nil {
		return nil, err
	}
	passes := make([]float64, len(gs))
	for k, g := range gs {
		passes[k] = g.Passes
	}
	m.res.Imbalance = migrate.Imbalance(passes)
	for _, st := range stats {
		m.res.Passes = append(m.res.Passes, st.Passes)
	}
	for h, sh := range m.shards {
		cs := make([]int32, sh.n)
		for i := range cs {
			c, _, err := m.pl.Count(migrate.Point{Home: h, Index: i})
			if err != nil {
				return nil, fmt.Errorf("harness: migration: %w", err)
			}
			cs[i] = int32(c)
		}
		m.res.Counts = append(m.res.Counts, cs)
	}
	res := m.res
	return &res, nil
}
