package scalein

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/syncmodels/syncmodels/curvefit"
	"github.com/syncmodels/syncmodels/knee"
)

// maxStep bounds the step count, so that steps are exact as float64 curve
// abscissae.
const maxStep = 1 << 53

// Observation is what the caller reports after a training step (or after
// several, see Steps).
type Observation struct {
	// Time is the end of the step on the caller's clock, as an offset from
	// the start of the run (≥ 0, never before the previous observation's).
	Time time.Duration
	// Loss is the training loss after the step, the value the learning
	// curves are fitted to (MLLess: the mean of the workers' mini-batch
	// losses). Finite and > 0.
	Loss float64
	// Steps is the number of training steps since the previous
	// observation (or since the start, for the first); 0 means 1. A caller
	// that evaluates the loss only every k steps reports Steps = k.
	Steps int
	// Workers carries optional per-worker reports for this step. A worker
	// not listed keeps its previous report.
	Workers []Report
}

// Report is one worker's part of an Observation.
type Report struct {
	// ID is a worker of the current pool.
	ID int
	// Quality is the quality of the worker's model replica as a loss:
	// lower is better (for example the loss of its local replica on its
	// last mini-batch). Finite. The worker with the highest latest Quality
	// is the "lowest-quality replica" that §4.2 evicts.
	Quality float64
	// Duration is the worker's own time for the step (compute and
	// communication), ≥ 0; 0 means not measured. Informational: the tuner
	// keeps each worker's mean (Worker.MeanDuration) but estimates d_P and
	// d_p from Observation.Time, which includes the barrier.
	Duration time.Duration
}

// Op is what the tuner asks the caller to do.
type Op int

// Operations.
const (
	// Continue: keep training with the current pool.
	Continue Op = iota
	// Evict: remove Action.Worker from the pool before the next step (see
	// the package documentation for what the caller must do).
	Evict
)

func (o Op) String() string {
	switch o {
	case Continue:
		return "continue"
	case Evict:
		return "evict"
	}
	return "Op(" + strconv.Itoa(int(o)) + ")"
}

// Action is the tuner's answer to an Observation.
type Action struct {
	Op     Op
	Worker int // the worker to evict when Op == Evict
	// Decision is the scheduling decision taken at this observation, or
	// nil when it was not a scheduling point.
	Decision *Decision
}

// Outcome is the result of a scheduling decision.
type Outcome int

// Outcomes.
const (
	// Evicted: a worker was removed (Decision.Worker).
	Evicted Outcome = iota + 1
	// Kept: Eq. 1 was evaluated and s_Δ(t) ≥ S, or, at the knee, S = 0.
	Kept
	// Failed: no decision this interval; Decision.Err says why (a fit or
	// a step-duration estimate failed).
	Failed
)

func (o Outcome) String() string {
	switch o {
	case Evicted:
		return "evicted"
	case Kept:
		return "kept"
	case Failed:
		return "failed"
	}
	return "Outcome(" + strconv.Itoa(int(o)) + ")"
}

// Decision records one scheduling decision: the quantities of Eq. 1 and
// what was decided. Float fields that were not computed are NaN, duration
// and step fields 0.
type Decision struct {
	Time    time.Duration // Observation.Time of the step the decision was taken at
	Step    int64         // t, the current training step
	Workers int           // p, the pool size before the decision
	// First marks the decision at the knee: fit L_P, estimate d_P and
	// remove the lowest-quality replica (§4.2), without evaluating Eq. 1.
	First   bool
	Outcome Outcome
	Worker  int   // the evicted worker, when Outcome == Evicted
	Err     error // why no decision was taken, when Outcome == Failed

	DRef time.Duration // d_P, the mean step duration with all P workers
	DCur time.Duration // d_p, the mean step duration since the last eviction
	NRef int64         // ⌊Δ/d_P⌋, steps in Δ with P workers
	NCur int64         // ⌊Δ/d_p⌋, steps in Δ with p workers
	LRef float64       // L_P(t + ⌊Δ/d_P⌋), Eq. 2
	LCur float64       // ℓ_p(t + ⌊Δ/d_p⌋), Eq. 3
	S    float64       // s_Δ(t) = (LCur − LRef)/LRef, Eq. 1
}

func (d Decision) String() string {
	s := fmt.Sprintf("t=%d time=%v p=%d first=%v %v", d.Step, d.Time, d.Workers, d.First, d.Outcome)
	if d.Outcome == Evicted {
		s += " worker=" + strconv.Itoa(d.Worker)
	}
	if d.Err != nil {
		s += " err=" + d.Err.Error()
	}
	return s + fmt.Sprintf(" dP=%v dp=%v nP=%d np=%d LP=%.6g lp=%.6g s=%.6g",
		d.DRef, d.DCur, d.NRef, d.NCur, d.LRef, d.LCur, d.S)
}

// Eviction records a removed worker.
type Eviction struct {
	Worker int
	Time   time.Duration // Observation.Time of the decision
	Step   int64         // the step the decision was taken after
}

// Worker is the tuner's view of one configured worker.
type Worker struct {
	ID      int
	Evicted bool
	// Quality is the latest reported Report.Quality; HasQuality is false
	// while none was reported.
	Quality    float64
	HasQuality bool
	// MeanDuration is the mean of the reported non-zero Report.Durations
	// since the worker joined or the last eviction; 0 if none.
	MeanDuration time.Duration
}

type phase int

const (
	waitKnee  phase = iota // feeding the knee detector
	reference              // knee found; L_P not fitted yet (the last try failed)
	schedule               // L_P fitted, at least one worker removed: Eq. 1 every Interval
	idle                   // no more decisions: pool at MinWorkers, or S = 0
)

type workerState struct {
	id          int
	evicted     bool
	quality     float64
	hasQuality  bool
	durSum      float64 // seconds, since the last eviction
	durN        int
	evictedStep int64
}

// series is a smoothed loss curve being collected for a fit. The losses
// and their steps pass through the same EWMA, so that each smoothed loss
// sits at the weighted mean step of the losses it averages (see the
// package documentation, "Smoothing").
type series struct {
	t, y         []float64 // smoothed steps and losses
	ewmaT, ewmaY curvefit.EWMAFilter
}

func (s *series) reset(span float64) {
	s.t, s.y = s.t[:0], s.y[:0]
	s.ewmaT = *curvefit.NewEWMAFilter(span, true)
	s.ewmaY = *curvefit.NewEWMAFilter(span, true)
}

func (s *series) push(t, loss float64) {
	s.t = append(s.t, s.ewmaT.Push(t))
	s.y = append(s.y, s.ewmaY.Push(loss))
}

// Tuner is the MLLess scale-in auto-tuner (§4.2) as a reverse-communication
// object: the caller reports every step with Observe and performs the
// Action it answers. It has no goroutines, reads no clock and uses no
// randomness; the same observations give the same actions. A Tuner is not
// safe for concurrent use. Create one with New.
type Tuner struct {
	cfg     Config
	det     knee.Detector
	index   map[int]int // worker ID → position in cfg.Workers
	workers []workerState
	pool    int

	n        int           // observations accepted
	step     int64         // t: steps so far
	lastTime time.Duration // Time of the last observation

	phase phase
	next  time.Duration // earliest Time of the next decision (reference, schedule)

	// Before L_P is fitted: the whole history (for L_P and d_P).
	hist      series
	firstTime time.Duration
	firstStep int64

	// L_P and d_P, once fitted.
	ref  curvefit.Curve
	dRef float64 // seconds

	// Since the last eviction: the segment ℓ_p is fitted to, and the
	// origin of the d_p estimate (the last observation of the transient).
	seg      series
	segStart int64 // step of the eviction
	segTime  time.Duration
	segStep  int64

	kneePt    knee.Point
	kneeFound bool

	decisions []Decision
	evictions []Eviction
}

// New returns a tuner for the initial pool cfg.Workers, or an error
// matching ErrConfig.
func New(cfg Config) (*Tuner, error) {
	c, err := cfg.validated()
	if err != nil {
		return nil, err
	}
	t := &Tuner{
		cfg:     c,
		det:     c.Knee,
		index:   make(map[int]int, len(c.Workers)),
		workers: make([]workerState, len(c.Workers)),
		pool:    len(c.Workers),
	}
	t.det.Reset()
	for i, id := range c.Workers {
		t.index[id] = i
		t.workers[i] = workerState{id: id}
	}
	t.hist.reset(c.Span)
	t.seg.reset(c.Span)
	return t, nil
}

// Observe reports one observation and returns what the caller must do.
// An observation with a bad value (see Observation and Report) is
// rejected with an *InputError naming it, and the tuner is left exactly
// as it was. A decision that cannot be taken (a fit fails, too few steps)
// is not an error: the action is Continue and Action.Decision says why.
func (t *Tuner) Observe(o Observation) (Action, error) {
	steps, err := t.check(o)
	if err != nil {
		return Action{}, err
	}
	t.commit(o, steps)
	x := float64(t.step)
	switch t.phase {
	case waitKnee:
		if !t.det.Add(x, o.Loss) {
			return Action{}, nil
		}
		t.kneePt, t.kneeFound = t.det.Knee()
		if t.pool <= t.cfg.MinWorkers {
			t.phase, t.hist = idle, series{}
			return Action{}, nil
		}
		t.phase = reference
		return t.first(o.Time), nil
	case reference:
		if o.Time >= t.next {
			return t.first(o.Time), nil
		}
	case schedule:
		if o.Time >= t.next {
			return t.decide(o.Time), nil
		}
	}
	return Action{}, nil
}

// check validates o against the current state without changing it and
// returns the number of steps it covers.
func (t *Tuner) check(o Observation) (int64, error) {
	steps := int64(o.Steps)
	if steps == 0 {
		steps = 1
	}
	next := t.step + 1
	if steps > 0 && steps <= maxStep-t.step {
		next = t.step + steps
	}
	op := "observation of step " + strconv.FormatInt(next, 10)
	bad := func(input string, value any, detail string, err error) error {
		return &InputError{Op: op, Input: input, Value: value, Detail: detail, Err: err}
	}
	if steps < 0 {
		return 0, bad("Steps", o.Steps, "", ErrNegative)
	}
	if steps > maxStep-t.step {
		return 0, bad("Steps", o.Steps, fmt.Sprintf("%d steps so far, limit 2^53", t.step), ErrDomain)
	}
	if o.Time < 0 {
		return 0, bad("Time", o.Time, "", ErrNegative)
	}
	if t.n > 0 && o.Time < t.lastTime {
		return 0, bad("Time", o.Time, "previous observation at "+t.lastTime.String(), ErrTimeOrder)
	}
	switch {
	case math.IsNaN(o.Loss) || math.IsInf(o.Loss, 0):
		return 0, bad("Loss", o.Loss, "", ErrNonFinite)
	case o.Loss <= 0:
		return 0, bad("Loss", o.Loss, "the learning curves model positive losses", ErrDomain)
	}
	for i, r := range o.Workers {
		field := func(name string) string { return fmt.Sprintf("Workers[%d].%s", i, name) }
		k, ok := t.index[r.ID]
		if !ok {
			return 0, bad(field("ID"), r.ID, "not a configured worker", ErrUnknownWorker)
		}
		if w := t.workers[k]; w.evicted {
			return 0, bad(field("ID"), r.ID, fmt.Sprintf("evicted at step %d", w.evictedStep), ErrUnknownWorker)
		}
		for j := range i {
			if o.Workers[j].ID == r.ID {
				return 0, bad(field("ID"), r.ID, fmt.Sprintf("also Workers[%d]", j), ErrDuplicateWorker)
			}
		}
		if math.IsNaN(r.Quality) || math.IsInf(r.Quality, 0) {
			return 0, bad(field("Quality"), r.Quality, "", ErrNonFinite)
		}
		if r.Duration < 0 {
			return 0, bad(field("Duration"), r.Duration, "", ErrNegative)
		}
	}
	return steps, nil
}

// commit records a validated observation.
func (t *Tuner) commit(o Observation, steps int64) {
	t.step += steps
	x := float64(t.step)
	if t.n == 0 {
		t.firstTime, t.firstStep = o.Time, t.step
	}
	t.n++
	t.lastTime = o.Time
	for _, r := range o.Workers {
		w := &t.workers[t.index[r.ID]]
		w.quality, w.hasQuality = r.Quality, true
		if r.Duration > 0 {
			w.durSum += r.Duration.Seconds()
			w.durN++
		}
	}
	switch t.phase {
	case waitKnee, reference:
		t.hist.push(x, o.Loss)
	case schedule:
		if t.step <= t.segStart+int64(t.cfg.Settle) {
			t.segTime, t.segStep = o.Time, t.step // still the transient
		} else {
			t.seg.push(x, o.Loss)
		}
	}
}

// first takes the decision at the knee (§4.2): fit L_P on the whole
// smoothed history, estimate d_P as the mean step duration so far, and
// remove the lowest-quality replica.
func (t *Tuner) first(now time.Duration) Action {
	d := t.newDecision(now)
	d.First = true
	t.next = now + t.cfg.Interval
	var ref curvefit.Curve
	var err error
	d.DRef, err = duration(t.lastTime-t.firstTime, t.step-t.firstStep, "d_P")
	if err == nil {
		ref, err = fitCurve(t.hist.t, t.hist.y, "L_P (Eq. 2)", func(x, y []float64) (curvefit.Curve, error) {
			return curvefit.FitPower(x, y, curvefit.FitOptions{})
		})
	}
	if err != nil {
		return t.record(d, Failed, err)
	}
	t.ref = ref
	t.dRef = (t.lastTime - t.firstTime).Seconds() / float64(t.step-t.firstStep)
	t.hist = series{} // no longer needed
	if t.cfg.S == 0 {
		t.phase = idle
		return t.record(d, Kept, nil)
	}
	return t.evict(d)
}

// decide evaluates Eq. 1 and removes the lowest-quality replica when
// s_Δ(t) < S.
func (t *Tuner) decide(now time.Duration) Action {
	d := t.newDecision(now)
	t.next = now + t.cfg.Interval
	d.DRef = secondsToDuration(t.dRef)
	var err error
	if d.DCur, err = duration(t.lastTime-t.segTime, t.step-t.segStep, "d_p"); err != nil {
		return t.record(d, Failed, err)
	}
	cur, err := fitCurve(t.seg.t, t.seg.y, "ℓ_p (Eq. 3)", func(x, y []float64) (curvefit.Curve, error) {
		return curvefit.FitQuadratic(x, y, curvefit.FitOptions{})
	})
	if err != nil {
		return t.record(d, Failed, err)
	}
	dCur := (t.lastTime - t.segTime).Seconds() / float64(t.step-t.segStep)
	delta := t.cfg.Delta.Seconds()
	nRef, nCur := math.Floor(delta/t.dRef), math.Floor(delta/dCur)
	if !(nRef < maxStep && nCur < maxStep) {
		return t.record(d, Failed, fmt.Errorf("%w: ⌊Δ/d⌋ = %v, %v steps", ErrDegenerate, nRef, nCur))
	}
	d.NRef, d.NCur = int64(nRef), int64(nCur)
	x := float64(t.step)
	d.LRef, d.LCur = t.ref.Eval(x+nRef), cur.Eval(x+nCur)
	d.S = (d.LCur - d.LRef) / d.LRef
	if !(d.LRef > 0 && d.LCur > 0) || math.IsInf(d.LRef, 0) || math.IsInf(d.LCur, 0) || math.IsNaN(d.S) || math.IsInf(d.S, 0) {
		return t.record(d, Failed, fmt.Errorf("%w: L_P(%v) = %v, ℓ_p(%v) = %v", ErrDegenerate, x+nRef, d.LRef, x+nCur, d.LCur))
	}
	if d.S < t.cfg.S {
		return t.evict(d)
	}
	return t.record(d, Kept, nil)
}

func (t *Tuner) newDecision(now time.Duration) Decision {
	nan := math.NaN()
	return Decision{Time: now, Step: t.step, Workers: t.pool, LRef: nan, LCur: nan, S: nan}
}

func (t *Tuner) record(d Decision, o Outcome, err error) Action {
	d.Outcome, d.Err = o, err
	t.decisions = append(t.decisions, d)
	dc := d
	return Action{Op: Continue, Decision: &dc}
}

// evict removes the lowest-quality replica and starts a new segment.
func (t *Tuner) evict(d Decision) Action {
	k := t.worst()
	w := &t.workers[k]
	w.evicted, w.evictedStep = true, t.step
	t.pool--
	for i := range t.workers {
		t.workers[i].durSum, t.workers[i].durN = 0, 0
	}
	t.evictions = append(t.evictions, Eviction{Worker: w.id, Time: d.Time, Step: t.step})
	t.seg.reset(t.cfg.Span)
	t.segStart, t.segTime, t.segStep = t.step, t.lastTime, t.step
	t.phase = schedule
	if t.pool <= t.cfg.MinWorkers {
		t.phase = idle
	}
	d.Outcome, d.Worker = Evicted, w.id
	t.decisions = append(t.decisions, d)
	dc := d
	return Action{Op: Evict, Worker: w.id, Decision: &dc}
}

// worst returns the position of the pool's lowest-quality replica: the
// highest latest Quality; workers that never reported one come after
// those that did; ties go to the highest ID.
func (t *Tuner) worst() int {
	best := -1
	for i := range t.workers {
		w := &t.workers[i]
		if w.evicted {
			continue
		}
		if best < 0 || worse(w, &t.workers[best]) {
			best = i
		}
	}
	return best
}

func worse(a, b *workerState) bool {
	if a.hasQuality != b.hasQuality {
		return a.hasQuality
	}
	if a.hasQuality && a.quality != b.quality {
		return a.quality > b.quality
	}
	return a.id > b.id
}

// fitCurve fits a learning curve to a smoothed sample. Losses that do not
// vary at all (curvefit.ErrFlat) are predicted to stay where they are.
func fitCurve(x, y []float64, name string, fit func(x, y []float64) (curvefit.Curve, error)) (curvefit.Curve, error) {
	c, err := fit(x, y)
	switch {
	case err == nil:
		return c, nil
	case errors.Is(err, curvefit.ErrFlat):
		return flat(y[0]), nil
	}
	return nil, fmt.Errorf("scalein: fitting %s to %d losses: %w", name, len(y), err)
}

// flat is the learning curve of losses that have stopped changing.
type flat float64

func (f flat) Eval(float64) float64 { return float64(f) }
func (f flat) Params() []float64    { return []float64{0, 0, 0, float64(f)} }

// duration returns the mean step duration elapsed/steps, or ErrTooFewSteps.
func duration(elapsed time.Duration, steps int64, name string) (time.Duration, error) {
	if steps <= 0 || elapsed <= 0 {
		return 0, fmt.Errorf("%w: %s from %d steps in %v", ErrTooFewSteps, name, steps, elapsed)
	}
	return elapsed / time.Duration(steps), nil
}

func secondsToDuration(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

// Decisions returns a copy of the scheduling decisions taken so far, in
// order.
func (t *Tuner) Decisions() []Decision { return append([]Decision(nil), t.decisions...) }

// Evictions returns a copy of the evictions so far, in order.
func (t *Tuner) Evictions() []Eviction { return append([]Eviction(nil), t.evictions...) }

// Pool returns the IDs of the current pool, in Config.Workers order.
func (t *Tuner) Pool() []int {
	ids := make([]int, 0, t.pool)
	for _, w := range t.workers {
		if !w.evicted {
			ids = append(ids, w.id)
		}
	}
	return ids
}

// Workers returns the tuner's view of every configured worker, evicted or
// not, in Config.Workers order.
func (t *Tuner) Workers() []Worker {
	out := make([]Worker, len(t.workers))
	for i, w := range t.workers {
		out[i] = Worker{ID: w.id, Evicted: w.evicted, Quality: w.quality, HasQuality: w.hasQuality}
		if w.durN > 0 {
			out[i].MeanDuration = secondsToDuration(w.durSum / float64(w.durN))
		}
	}
	return out
}

// Step returns t, the number of training steps observed.
func (t *Tuner) Step() int64 { return t.step }

// Knee returns the knee the detector accepted (Point.X is the step,
// Point.Y the raw loss); ok is false before the knee.
func (t *Tuner) Knee() (p knee.Point, ok bool) { return t.kneePt, t.kneeFound }

// Reference returns the fitted reference curve L_P (Eq. 2) and the
// reference step duration d_P; ok is false until they are fitted, at the
// knee. When the losses were flat the curve is the constant loss.
func (t *Tuner) Reference() (lp curvefit.Curve, dP time.Duration, ok bool) {
	if t.ref == nil {
		return nil, 0, false
	}
	return t.ref, secondsToDuration(t.dRef), true
}

// Config returns the configuration with its defaults filled in (S as the
// effective threshold: 0 for ZeroS).
func (t *Tuner) Config() Config {
	c := t.cfg
	c.Workers = append([]int(nil), c.Workers...)
	return c
}
