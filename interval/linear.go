package interval

import (
	"fmt"
	"math"
	"time"
)

// LinearFitConfig configures a LinearFit. The zero value probes first at
// 200 ms and 400 ms and minimizes the objective (a loss).
type LinearFitConfig struct {
	// Maximize is true for an objective that increases as training
	// progresses (EM's log-likelihood). The default, false, minimizes: the
	// objective is a loss.
	Maximize bool
	// Probe is η_1, the first stage's first probe; its second probe runs
	// at 2·Probe. Later stages probe around the interval the stage before
	// chose (see LinearFit). 0 means 200 ms (FSP §3.3, footnote 1).
	Probe time.Duration
	// Min and Max bound every interval the tuner asks for: the probes and
	// every stage's η*. 0 means Probe/64 and 64·Probe. Min ≤ Probe and
	// 2·Probe ≤ Max.
	Min, Max time.Duration
	// Reach bounds how far a stage's linear fit is extrapolated beyond its
	// probes η_i and 2η_i: η* lies in [η_i/Reach, 2η_i·Reach] (and in
	// [Min, Max]). An optimum further away is reached over several stages,
	// each probing next to the last η*. 0 means 4; otherwise ≥ 1.
	Reach float64
	// Window is how many iterations each monitoring request asks for: the
	// stage's prediction is checked after every Window iterations. 0 means
	// 4; otherwise ≥ 1.
	Window int
	// MaxWindow lets a stage that confirms the interval the stage before
	// chose (its η* within a factor √2 of that one) check its prediction
	// over twice as many iterations as the stage before did, up to
	// MaxWindow; a stage whose η* moves further checks every Window
	// iterations again. 0 means Window (every stage checks every Window
	// iterations); otherwise ≥ Window.
	MaxWindow int
	// Tolerance is the self-correction threshold: a new stage begins when
	// the progress since the stage began falls short of the stage's
	// prediction by more than this fraction of it. 0 means 0.2; otherwise
	// in (0, 1].
	Tolerance float64
	// Target, if not nil, is the objective value training aims at; it
	// gives Stage().Remaining, the time to reach it predicted at the
	// stage's rate (T in Eq. 7). η* does not depend on it. Must be finite.
	Target *float64
}

func (c *LinearFitConfig) validate() error {
	if c.Probe == 0 {
		c.Probe = 200 * time.Millisecond
	}
	if c.Probe < 0 || c.Probe > math.MaxInt64/128 {
		return badConfig("LinearFitConfig.Probe", c.Probe, "must be positive and at most MaxInt64/128 ns")
	}
	if c.Min == 0 {
		c.Min = max(c.Probe/64, 1)
	}
	if c.Max == 0 {
		c.Max = 64 * c.Probe
	}
	if c.Reach == 0 {
		c.Reach = 4
	}
	if c.Window == 0 {
		c.Window = 4
	}
	if c.Tolerance == 0 {
		c.Tolerance = 0.2
	}
	if c.MaxWindow == 0 {
		c.MaxWindow = c.Window
	}
	if err := checkBounds("LinearFitConfig", c.Min, c.Max); err != nil {
		return err
	}
	switch {
	case c.Min > c.Probe:
		return badConfig("LinearFitConfig.Min", c.Min, fmt.Sprintf("must be ≤ Probe (%v)", c.Probe))
	case c.Max < 2*c.Probe:
		return badConfig("LinearFitConfig.Max", c.Max, fmt.Sprintf("must be ≥ 2·Probe (%v)", 2*c.Probe))
	case !(c.Reach >= 1) || math.IsInf(c.Reach, 1):
		return badConfig("LinearFitConfig.Reach", c.Reach, "must be finite and ≥ 1")
	case c.Window < 1:
		return badConfig("LinearFitConfig.Window", c.Window, "must be ≥ 1")
	case c.MaxWindow < c.Window:
		return badConfig("LinearFitConfig.MaxWindow", c.MaxWindow, fmt.Sprintf("must be ≥ Window (%d)", c.Window))
	case !(c.Tolerance > 0 && c.Tolerance <= 1):
		return badConfig("LinearFitConfig.Tolerance", c.Tolerance, "must be in (0, 1]")
	case c.Target != nil && !finite(*c.Target):
		return badConfig("LinearFitConfig.Target", *c.Target, "must be finite")
	}
	return nil
}

// Stage describes a LinearFit stage: its fit, its choice and how training
// has kept to its prediction so far.
type Stage struct {
	// Index counts the stages fitted: 1 for the first, 0 before any.
	Index int
	// Probe is the stage's η_i: its probes ran at η_i and 2η_i.
	Probe time.Duration
	// Fit is g(η) = A·η + B through the two probes (progress per second of
	// valid time; §3.3).
	Fit Line
	// Phi is φ, the barrier cost measured during the probes (the mean of
	// their reports' BarrierCost, per iteration).
	Phi time.Duration
	// Interval is the stage's η: Optimum(Fit, Phi, lo, hi) over the
	// stage's range [lo, hi] = [Probe/Reach, 2·Probe·Reach] ∩ [Min, Max],
	// or the fallback.
	Interval time.Duration
	// Fallback is true when neither probe made progress (g ≤ 0 at both:
	// a line through two losses that crosses zero beyond them is not
	// extrapolated), or the fit predicted no progress at any η in the
	// stage's range, or it is not finite: Interval is then the
	// probe interval whose measured g gives the higher rate η·g/(η+φ) —
	// the one that loses least when both lose; the longer one on a tie,
	// such as no progress at all — and Rate is that rate.
	Fallback bool
	// Window is how many iterations each of the stage's monitoring
	// requests asks for: LinearFitConfig.Window, or twice the stage
	// before's (at most MaxWindow) when the stage's η* lies within a
	// factor √2 of the stage before's.
	Window int
	// Rate is the predicted progress per second of elapsed time at
	// Interval: gain(η)/T = η·g(η)/(η+φ), Eq. (7) over T.
	Rate float64
	// Start is the objective when the stage's monitoring began (after its
	// second probe).
	Start float64
	// Elapsed and Progress are the monitored time and the objective's
	// progress since then. The stage ends when Progress falls behind
	// Rate·Elapsed by more than Tolerance·|Rate·Elapsed|, and a stage
	// that predicted no progress (Rate ≤ 0: a fallback) after its first
	// window.
	Elapsed  time.Duration
	Progress float64
	// Remaining is T, the time to reach the configured Target from the
	// current objective at Rate: 0 without a target or once it is
	// reached, math.MaxInt64 if Rate ≤ 0.
	Remaining time.Duration
}

type fitPhase uint8

const (
	fitCheckpoint fitPhase = iota // save X_j and θ
	fitProbe1                     // two iterations at η_i from the checkpoint
	fitRollback                   // back to the checkpoint
	fitProbe2                     // two iterations at 2η_i from the checkpoint
	fitMonitor                    // run at η*, check the prediction
)

// probeIterations is how many iterations each probe runs (§3.3: "through
// continuously running two iterations starting from X_j").
const probeIterations = 2

// LinearFit is FSPV, the multi-stage self-corrected linear fitting of FSP
// §3.3. Stage i begins at a checkpoint (the data cursor X_j and the
// parameters); it runs two iterations at its probe interval η_i and
// measures g(η_i) = Δf/Δt over their valid time Δt (Elapsed − Iterations
// × BarrierCost: 2η_i unless a full pass ended an iteration early), rolls
// back to the checkpoint, runs the same data again for two iterations at
// 2η_i and measures g(2η_i); it fits g(η) = a·η + b through the two
// points, takes φ from the probes' barrier costs, and runs at the η*
// maximizing Eq. (7),
//
//	gain(η) = (T − φ·T/(η + φ))·g(η),
//
// over the stage's range: [η_i/Reach, 2η_i·Reach] within [Min, Max] (see
// Optimum: η* does not depend on T, so no target is needed). It then
// monitors the stage: the objective should progress at Rate =
// η*·g(η*)/(η*+φ) per second; once the progress since the stage began
// falls short of Rate × elapsed by more than Tolerance of it (the
// "convergence delay" of §3.3, Fig. 2c: the linear model no longer holds),
// a new stage begins with a new checkpoint and new probes. A stage that
// runs ahead of its prediction continues; a stage that predicted no
// progress (both probes lost) ends after its first window, so that the
// tuner probes again rather than keeping an interval it knows loses.
//
// Where the probes of a new stage lie is our reading of the paper, which
// names η_i and η_{i+1} = 2η_i but not how η_i is chosen after the first
// stage. The first stage probes at Probe; stage i+1 probes next to
// η*_i, the interval stage i chose, on the side the fit moved it to
// (clamped so that both probes lie in [Min, Max]):
//
//   - η*_i below stage i's probes: at η*_i/2 and η*_i;
//   - η*_i above them: at η*_i and 2η*_i;
//   - η*_i between them: at η*_i/√2 and √2·η*_i, bracketing it.
//
// Its fit thus interpolates around the last choice, or extends the
// direction the last fit found, rather than extrapolating from far away.
// An optimum outside one stage's reach is approached stage by stage, each
// correcting the last (the self-correction of §3.3), instead of being
// extrapolated from probes fixed at the start. Placing the probes on the
// side the optimum moved to matters when the quality falls like 1/η
// (progress per iteration about constant, as with Adam's steps): a line
// through two such points bends away from the curve and puts η* at about
// the probes, so bracketing probes would walk towards a small optimum by
// a factor of only about 0.8 per stage.
//
// A decelerating objective falls behind any stage's prediction soon, so
// with a fixed window every stage would end after its first window and
// spend its start re-probing an interval that still holds. With MaxWindow
// above Window, a stage whose η* lies within a factor √2 of the stage
// before's checks its prediction over twice as many iterations as that
// stage did (Stage.Window, at most MaxWindow): the stages lengthen while
// the fits agree and shorten again when η* moves.
//
// The requests of a stage, in order (W: the stage's Window):
//
//	{OpCheckpoint}  {OpRun, η_i, 2}  {OpRollback}  {OpRun, 2·η_i, 2}
//	{OpRun, η*, W}  {OpRun, η*, W}  …
//
// OpRollback only ever follows the first probe, so the caller keeps one
// checkpoint, which it may drop once the second probe has begun. The
// second probe's progress is kept: the stage continues from its end.
type LinearFit struct {
	cfg       LinearFitConfig
	target    float64
	hasTarget bool
	x         exchange
	phase     fitPhase
	probe     time.Duration // η_i of the stage being probed (or the next one)
	f         float64       // objective now (the checkpoint's after a rollback)
	ck        float64       // objective at the checkpoint
	g1        float64       // progress per valid second of the first probe
	phi1      float64       // total barrier cost of the first probe, seconds
	n1        int           // iterations of the first probe
	stage     Stage
}

// NewLinearFit returns an FSPV tuner, or a *InputError for a bad
// configuration.
func NewLinearFit(cfg LinearFitConfig) (*LinearFit, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	t := &LinearFit{cfg: cfg, probe: cfg.Probe}
	if cfg.Target != nil {
		t.target, t.hasTarget = *cfg.Target, true
		t.cfg.Target = nil
	}
	return t, nil
}

// Next returns the next request, or ErrPending.
func (t *LinearFit) Next() (Request, error) {
	var r Request
	switch t.phase {
	case fitCheckpoint:
		r = Request{Op: OpCheckpoint}
	case fitProbe1:
		r = Request{Op: OpRun, Interval: t.probe, Iterations: probeIterations}
	case fitRollback:
		r = Request{Op: OpRollback}
	case fitProbe2:
		r = Request{Op: OpRun, Interval: 2 * t.probe, Iterations: probeIterations}
	case fitMonitor:
		r = Request{Op: OpRun, Interval: t.stage.Interval, Iterations: t.stage.Window}
	}
	return t.x.issue(r)
}

// Observe takes the report of the pending request.
func (t *LinearFit) Observe(rep Report) error {
	if err := t.x.check(rep); err != nil {
		return err
	}
	switch t.phase {
	case fitCheckpoint:
		t.ck, t.f = rep.Objective, rep.Objective
		t.phase = fitProbe1
	case fitProbe1:
		g, err := t.quality(t.ck, rep)
		if err != nil {
			return err
		}
		t.g1, t.phi1, t.n1 = g, float64(float64(rep.Iterations)*rep.BarrierCost.Seconds()), rep.Iterations
		t.f = rep.Objective
		t.phase = fitRollback
	case fitRollback:
		t.f = t.ck
		t.phase = fitProbe2
	case fitProbe2:
		g2, err := t.quality(t.ck, rep)
		if err != nil {
			return err
		}
		phi := (t.phi1 + float64(float64(rep.Iterations)*rep.BarrierCost.Seconds())) / float64(t.n1+rep.Iterations)
		prev := t.stage
		t.stage = t.fit(g2, duration(phi, 0, math.MaxInt64), rep.Objective)
		t.stage.Window = t.window(prev)
		t.probe = t.nextProbe()
		t.f = rep.Objective
		t.phase = fitMonitor
	case fitMonitor:
		p, ok := progress(!t.cfg.Maximize, t.f, rep.Objective)
		sum := t.stage.Progress + p
		if !ok || !finite(sum) {
			return badInput("Report.Objective", rep.Objective, fmt.Sprintf("its change from %v overflows", t.f))
		}
		t.stage.Elapsed += min(rep.Elapsed, math.MaxInt64-t.stage.Elapsed) // saturates
		t.stage.Progress = sum
		t.f = rep.Objective
		if t.behind() {
			t.phase = fitCheckpoint
		}
	}
	t.x.pending = false
	return nil
}

// quality is a probe's g: its progress from the checkpoint per second of
// valid time.
func (t *LinearFit) quality(from float64, rep Report) (float64, error) {
	p, ok := progress(!t.cfg.Maximize, from, rep.Objective)
	var g float64
	if ok {
		g, ok = rateOf(p, rep.valid())
	}
	if !ok {
		return 0, badInput("Report.Objective", rep.Objective, fmt.Sprintf("its change per second from %v overflows", from))
	}
	return g, nil
}

// fit starts a stage from the probes' qualities t.g1 at η_i = t.probe and
// g2 at 2η_i, with barrier cost phi; f is the objective now.
func (t *LinearFit) fit(g2 float64, phi time.Duration, f float64) Stage {
	e1, e2 := t.probe, 2*t.probe
	s := Stage{
		Index: t.stage.Index + 1,
		Probe: e1,
		Fit:   fitLine(e1.Seconds(), t.g1, e2.Seconds(), g2),
		Phi:   phi,
		Start: f,
	}
	lo := duration(e1.Seconds()/t.cfg.Reach, t.cfg.Min, t.cfg.Max)
	hi := duration(float64(e2.Seconds()*t.cfg.Reach), t.cfg.Min, t.cfg.Max)
	eta, ok := Optimum(s.Fit, phi, lo, hi)
	// Two probes that both made no progress say nothing about where
	// progress lies: a line through two losses may still cross zero
	// beyond them, and extrapolating that crossing is a guess.
	ok = ok && max(t.g1, g2) > 0
	if ok {
		s.Interval, s.Rate = eta, rate(s.Fit, eta.Seconds(), phi.Seconds())
	} else {
		s.Fallback = true
		s.Interval, s.Rate = e2, rate(Line{B: g2}, e2.Seconds(), phi.Seconds())
		if r1 := rate(Line{B: t.g1}, e1.Seconds(), phi.Seconds()); r1 > s.Rate {
			s.Interval, s.Rate = e1, r1
		}
	}
	return s
}

// window is the monitoring window of the stage just fitted, prev the
// stage before it (the zero Stage for the first): twice prev's window, at
// most MaxWindow, if the new η* is within a factor √2 of prev's (the fit
// confirms the interval: the objective only decelerated; the paper's §1
// holds a recommended interval "steady to avoid over-reaction or
// oscillation"); Window otherwise.
func (t *LinearFit) window(prev Stage) int {
	if prev.Index == 0 {
		return t.cfg.Window
	}
	r := t.stage.Interval.Seconds() / prev.Interval.Seconds()
	if r < math.Sqrt2 && r > 1/math.Sqrt2 {
		return min(2*prev.Window, t.cfg.MaxWindow)
	}
	return t.cfg.Window
}

// nextProbe is η_{i+1}, the next stage's first probe, from the stage just
// fitted (see LinearFit).
func (t *LinearFit) nextProbe() time.Duration {
	eta, e1 := t.stage.Interval.Seconds(), t.stage.Probe.Seconds()
	next := eta / math.Sqrt2
	switch {
	case eta < e1:
		next = float64(eta / 2)
	case eta > 2*e1:
		next = eta
	}
	return duration(next, t.cfg.Min, t.cfg.Max/2)
}

// behind reports whether the stage has fallen behind its prediction by
// more than the tolerance (§3.3: a convergence delay starts a new stage).
func (t *LinearFit) behind() bool {
	if !(t.stage.Rate > 0) {
		return true
	}
	want := float64(t.stage.Rate * t.stage.Elapsed.Seconds())
	return t.stage.Progress < want-float64(t.cfg.Tolerance*math.Abs(want))
}

// Restart begins a new stage at the next request (a checkpoint and new
// probes), for when the caller knows the environment changed. It returns
// ErrPending, changing nothing, if a request awaits its report.
func (t *LinearFit) Restart() error {
	if t.x.pending {
		return ErrPending
	}
	t.phase = fitCheckpoint
	return nil
}

// Interval returns the current stage's η* (Probe before the first fit).
func (t *LinearFit) Interval() time.Duration {
	if t.stage.Index == 0 {
		return t.probe
	}
	return t.stage.Interval
}

// Stage returns the current stage: the last one fitted (the zero Stage
// before the first fit). While a new stage is being probed it is the
// stage that ended.
func (t *LinearFit) Stage() Stage {
	s := t.stage
	if !t.hasTarget || s.Index == 0 {
		return s
	}
	dist, _ := progress(!t.cfg.Maximize, t.f, t.target) // still to go; +Inf if it overflows
	switch {
	case !(dist > 0):
		s.Remaining = 0
	case s.Rate <= 0 || math.IsInf(dist, 1):
		s.Remaining = math.MaxInt64
	default:
		s.Remaining = duration(dist/s.Rate, 0, math.MaxInt64)
	}
	return s
}
