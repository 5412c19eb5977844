package interval

import (
	"math"
	"slices"
	"testing"
	"time"
)

// TestLinearFitFindsOptimum: on a process whose quality is exactly linear
// in η, the two probes recover g and the stage's η is the analytic
// optimum of Eq. (7), −φ + √(φ² − bφ/a).
func TestLinearFitFindsOptimum(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		a, b     float64
		phi      time.Duration
		minimize bool
	}{
		{-20, 10, 50 * ms, true},   // 115.8 ms
		{-20, 10, 50 * ms, false},  // the same, maximizing
		{-2, 3, 50 * ms, true},     // 228.4 ms
		{-5, 2, 20 * ms, false},    // 71.7 ms
		{-0.5, 4, 100 * ms, true},  // 800 ms
		{-40, 30, 5 * ms, true},    // 56.2 ms
		{-1, 12, 300 * ms, false},  // 1.616 s: beyond the default reach 1.6 s
		{-300, 90, 30 * ms, false}, // 69.5 ms; g(2η_i) = −30 < 0
	} {
		p := steady(c.minimize, c.phi, linear(c.a, c.b))
		tu := must(NewLinearFit(LinearFitConfig{Maximize: !c.minimize, Reach: 8}))(t)
		drive(t, tu, p, 6)
		s := tu.Stage()
		want := analytic(Line{A: c.a, B: c.b}, c.phi.Seconds())
		if got := s.Interval.Seconds(); s.Fallback || math.Abs(got-want) > 0.01*want {
			t.Errorf("g(η) = %v·η + %v, φ = %v: η = %v (fallback %v); want %.4gs", c.a, c.b, c.phi, s.Interval, s.Fallback, want)
		}
		if math.Abs(s.Fit.A-c.a) > 1e-6*math.Abs(c.a) || math.Abs(s.Fit.B-c.b) > 1e-6*math.Abs(c.b) || s.Phi != c.phi {
			t.Errorf("g(η) = %v·η + %v, φ = %v: fitted %v, φ = %v", c.a, c.b, c.phi, s.Fit, s.Phi)
		}
	}
}

// TestLinearFitNonlinearQuality: when g is not linear the probes' line is
// only an approximation; the interval chosen still achieves a rate within
// a few percent of the best one (found by a grid search).
func TestLinearFitNonlinearQuality(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		name string
		g    func(float64) float64
		phi  time.Duration
	}{
		{"exponential", func(e float64) float64 { return 10 * math.Exp(-e/0.3) }, 50 * ms},
		{"hyperbolic", func(e float64) float64 { return 8 / (1 + 5*e) }, 40 * ms},
		{"quadratic", func(e float64) float64 { return 6 - 4*e - 3*e*e }, 60 * ms},
	} {
		p := steady(true, c.phi, c.g)
		tu := must(NewLinearFit(LinearFitConfig{}))(t)
		drive(t, tu, p, 6)
		got := trueRate(c.g, tu.Interval().Seconds(), c.phi.Seconds())
		best := 0.0
		for e := 0.0125; e <= 3.2; e += 1e-4 {
			best = max(best, trueRate(c.g, e, c.phi.Seconds()))
		}
		if got < 0.95*best {
			t.Errorf("%s: η = %v gives rate %.4g; the best is %.4g", c.name, tu.Interval(), got, best)
		}
	}
}

// twoStages is a K-means-like curve (FSP Fig. 2b): fast progress until 30
// units, then a slower regime with a different optimal interval.
func twoStages(minimize bool) *process {
	return &process{minimize: minimize, f0: 100, full: time.Hour, phi: 50 * time.Millisecond, stages: []stage{
		{g: linear(-20, 10)},         // η* = 115.8 ms
		{from: 30, g: linear(-2, 3)}, // η* = 228.4 ms
	}}
}

func TestLinearFitNewStageWhenSlopeChanges(t *testing.T) {
	for _, minimize := range []bool{true, false} {
		p := twoStages(minimize)
		tu := must(NewLinearFit(LinearFitConfig{Maximize: !minimize}))(t)
		reqs := drive(t, tu, p, 500)
		s := tu.Stage()
		if s.Index != 2 {
			t.Fatalf("minimize %v: %d stages; want 2", minimize, s.Index)
		}
		if want := analytic(Line{A: -2, B: 3}, 0.05); math.Abs(s.Interval.Seconds()-want) > 0.01*want {
			t.Errorf("minimize %v: stage 2 η = %v; want %.4gs", minimize, s.Interval, want)
		}
		checkpoints := 0
		for _, r := range reqs {
			if r.Op == OpCheckpoint {
				checkpoints++
			}
		}
		if checkpoints != 2 {
			t.Errorf("minimize %v: %d checkpoints; want 2", minimize, checkpoints)
		}
	}
}

func TestLinearFitNoNewStageOtherwise(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		name   string
		stages []stage
	}{
		{"one linear stage", []stage{{g: linear(-20, 10)}}},
		{"faster second stage", []stage{{g: linear(-2, 3)}, {from: 30, g: linear(-20, 10)}}},
		{"slightly slower second stage, within tolerance", []stage{{g: linear(-20, 10)}, {from: 30, g: linear(-18, 9)}}},
	} {
		p := &process{minimize: true, f0: 100, full: time.Hour, phi: 50 * ms, stages: c.stages}
		tu := must(NewLinearFit(LinearFitConfig{}))(t)
		drive(t, tu, p, 1000)
		if s := tu.Stage(); s.Index != 1 {
			t.Errorf("%s: %d stages; want 1 (stage %+v)", c.name, s.Index, s)
		}
	}
}

func TestLinearFitTolerance(t *testing.T) {
	// The second stage is 15% slower at η*: a new stage with Tolerance 0.1,
	// none with the default 0.2.
	for _, c := range []struct {
		tol  float64
		want int
	}{{0.1, 2}, {0, 1}, {0.2, 1}} {
		p := &process{minimize: true, f0: 100, full: time.Hour, phi: 50 * time.Millisecond, stages: []stage{
			{g: linear(-20, 10)}, {from: 30, g: linear(-17, 8.5)},
		}}
		tu := must(NewLinearFit(LinearFitConfig{Tolerance: c.tol}))(t)
		drive(t, tu, p, 1000)
		if got := tu.Stage().Index; got != c.want {
			t.Errorf("Tolerance %v: %d stages; want %d", c.tol, got, c.want)
		}
	}
}

func TestLinearFitFallback(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		name     string
		g        func(float64) float64
		want     time.Duration
		fallback bool
	}{
		{"no progress: the longer probe", linear(0, 0), 400 * ms, true},
		{"diverging: the probe that loses less per second", linear(-1, -1), 200 * ms, true},
		{"diverging, a little less at the longer probe but more per second", linear(1, -5), 200 * ms, true},
		{"positive only below Min", linear(-100, 0.5), 200 * ms, true}, // g(0.2) = −19.5 > g(0.4) = −39.5
		{"equal positive probes: fewer barriers, as far as the stage reaches (2·Probe·Reach)", linear(0, 5), 1600 * ms, false},
	} {
		p := steady(true, 50*ms, c.g)
		tu := must(NewLinearFit(LinearFitConfig{}))(t)
		drive(t, tu, p, 5) // the first stage's probes and one window
		s := tu.Stage()
		if s.Index != 1 || s.Interval != c.want || s.Fallback != c.fallback || !finite(s.Rate) || !finite(s.Fit.A) || !finite(s.Fit.B) {
			t.Errorf("%s: stage %+v; want stage 1, η = %v, fallback %v", c.name, s, c.want, c.fallback)
		}
		// A stage that predicts no progress ends after its first window.
		if req := drive(t, tu, p, 1)[0]; c.fallback != (req.Op == OpCheckpoint) {
			t.Errorf("%s: after the first window, %v; fallback %v", c.name, req, c.fallback)
		}
	}
}

// TestLinearFitTwoLossesNotExtrapolated: when both probes lose, the line
// through them may still cross zero beyond them (g = η − 5 at 0.2 s and
// 0.4 s crosses at 5 s, within a reach of 16); the stage falls back to the
// probe that loses least per second rather than betting on that crossing.
func TestLinearFitTwoLossesNotExtrapolated(t *testing.T) {
	ms := time.Millisecond
	p := steady(true, 50*ms, linear(1, -5))
	tu := must(NewLinearFit(LinearFitConfig{Reach: 16}))(t)
	drive(t, tu, p, 4)
	if s := tu.Stage(); !s.Fallback || s.Interval != 200*ms || !(s.Rate < 0) {
		t.Errorf("stage %+v; want a fallback to 200ms with a negative rate", s)
	}
}

// TestLinearFitLosingStagesReprobe: on a process that loses at every η, each
// stage runs one window at the probe that loses least per second (the
// shorter one for g = −η − 1) and probes again around it, so that the
// stages walk towards the least loss.
func TestLinearFitLosingStagesReprobe(t *testing.T) {
	ms := time.Millisecond
	p := steady(true, 50*ms, linear(-1, -1))
	tu := must(NewLinearFit(LinearFitConfig{Window: 3}))(t)
	reqs := drive(t, tu, p, 5*5)
	want := []Op{OpCheckpoint, OpRun, OpRollback, OpRun, OpRun}
	last := time.Duration(0)
	for i, r := range reqs {
		if r.Op != want[i%5] {
			t.Fatalf("request %d is %v; want %v (stages of two probes and one window)", i, r, want[i%5])
		}
		if i%5 == 4 {
			if r.Iterations != 3 || (last != 0 && r.Interval >= last) {
				t.Errorf("request %d: %v after a stage at %v; want a shorter interval, 3 iterations", i, r, last)
			}
			last = r.Interval
		}
	}
}

// wantNextProbe is the first probe LinearFit's doc gives the stage after
// prev: η*/2 if prev's η* lies below its probes, η* if above, η*/√2 if
// between (before clamping).
func wantNextProbe(prev Stage) time.Duration {
	eta := float64(prev.Interval)
	switch {
	case prev.Interval < prev.Probe:
		eta /= 2
	case prev.Interval <= 2*prev.Probe:
		eta /= math.Sqrt2
	}
	return time.Duration(math.Round(eta))
}

// fitStage fits stage i+1 of tu on p (a restart first unless i = 0: the
// checkpoint, the two probes and the first monitoring window) and
// returns it.
func fitStage(t *testing.T, tu *LinearFit, p *process, i int) Stage {
	t.Helper()
	if i > 0 {
		if err := tu.Restart(); err != nil {
			t.Fatal(err)
		}
	}
	drive(t, tu, p, 6)
	return tu.Stage()
}

// TestLinearFitWalksToFarOptimum: an optimum beyond the first stage's
// reach is approached stage by stage, each probing next to the η* of the
// stage before, until the stage's range holds it.
func TestLinearFitWalksToFarOptimum(t *testing.T) {
	ms := time.Millisecond
	p := steady(true, 100*ms, linear(-0.5, 4)) // η* = 800 ms
	tu := must(NewLinearFit(LinearFitConfig{Probe: 10 * ms, Max: 4 * time.Second, Reach: 2}))(t)
	want := analytic(Line{A: -0.5, B: 4}, 0.1)
	var etas []time.Duration
	var prev Stage
	for i := range 5 {
		s := fitStage(t, tu, p, i)
		if s.Index != i+1 {
			t.Fatalf("stage %d after %d restarts", s.Index, i)
		}
		if i > 0 {
			if wantProbe := wantNextProbe(prev); s.Probe != wantProbe {
				t.Errorf("stage %d probed at %v; want %v after the stage before chose %v from probes at %v", s.Index, s.Probe, wantProbe, prev.Interval, prev.Probe)
			}
		}
		prev = s
		// Each stage reaches at most 2·Reach = 4 times its first probe.
		if s.Interval > 4*s.Probe {
			t.Errorf("stage %d: η* = %v beyond 4 × its probe %v", s.Index, s.Interval, s.Probe)
		}
		etas = append(etas, s.Interval)
	}
	if got := etas[len(etas)-1].Seconds(); math.Abs(got-want) > 0.01*want {
		t.Errorf("stages chose %v; want them to end at %.4gs", etas, want)
	}
	if etas[0] != 40*ms {
		t.Errorf("stage 1 chose %v; want its reach 2·10ms·2 = 40ms", etas[0])
	}
}

func TestLinearFitRemaining(t *testing.T) {
	target := 50.0
	p := steady(true, 50*time.Millisecond, linear(-20, 10))
	tu := must(NewLinearFit(LinearFitConfig{Target: &target}))(t)
	if s := tu.Stage(); s.Remaining != 0 {
		t.Errorf("before the fit: Remaining = %v; want 0", s.Remaining)
	}
	drive(t, tu, p, 6)
	s := tu.Stage()
	want := (p.objective() - target) / s.Rate
	if math.Abs(s.Remaining.Seconds()-want) > 1e-6 {
		t.Errorf("Remaining = %v; want %.6fs", s.Remaining, want)
	}
	drive(t, tu, p, 100) // past the target
	if s := tu.Stage(); p.objective() >= target || s.Remaining != 0 {
		t.Errorf("objective %v, Remaining = %v; want 0 once the target is reached", p.objective(), s.Remaining)
	}
	target = 0 // the tuner copied it
	if tu.target != 50 {
		t.Errorf("the tuner's target changed with the caller's variable: %v", tu.target)
	}
}

func TestLinearFitRestart(t *testing.T) {
	p := steady(true, 50*time.Millisecond, linear(-20, 10))
	tu := must(NewLinearFit(LinearFitConfig{}))(t)
	drive(t, tu, p, 8)
	if err := tu.Restart(); err != nil {
		t.Fatal(err)
	}
	if r, _ := tu.Next(); r.Op != OpCheckpoint {
		t.Fatalf("after Restart: %v; want checkpoint", r)
	}
	if err := tu.Restart(); err != ErrPending {
		t.Fatalf("Restart with a request pending = %v; want ErrPending", err)
	}
	if err := tu.Observe(p.do(Request{Op: OpCheckpoint})); err != nil {
		t.Fatal(err)
	}
	drive(t, tu, p, 4)
	if s := tu.Stage(); s.Index != 2 {
		t.Errorf("after Restart and probes: stage %d; want 2", s.Index)
	}
}

// TestLinearFitEarlyTrigger: when a full pass is shorter than the probe
// interval, iterations end early (§3.3's early trigger) and the reports'
// elapsed time says so; g is measured over the valid time actually spent.
func TestLinearFitEarlyTrigger(t *testing.T) {
	p := &process{minimize: true, f0: 100, full: 300 * time.Millisecond, phi: 50 * time.Millisecond, stages: []stage{{g: linear(-20, 10)}}}
	tu := must(NewLinearFit(LinearFitConfig{}))(t)
	drive(t, tu, p, 20)
	// Probes at 200 ms (g = 6) and 400 ms, cut to 300 ms (g = 4).
	if s := tu.Stage(); math.Abs(s.Fit.A-(-10)) > 1e-9 || math.Abs(s.Fit.B-8) > 1e-9 {
		t.Errorf("fit %v; want g(η) = -10·η + 8", s.Fit)
	}
}

// TestLinearFitWalksDownAlongOneOverEta: a quality g(η) = c/η (the same
// progress per iteration whatever η, as with Adam's normalized steps)
// makes the rate c/(η+φ) largest at the shortest interval. A line through
// two points of c/η puts η* at about the probes; probing below the last
// η* when the fit moved it down walks to Min in 5 stages (probing around
// each η* instead takes 8 here), each stage probing where the doc says.
func TestLinearFitWalksDownAlongOneOverEta(t *testing.T) {
	ms := time.Millisecond
	phi := 2 * ms
	p := steady(true, phi, func(eta float64) float64 { return 0.01 / eta })
	tu := must(NewLinearFit(LinearFitConfig{Probe: 64 * ms, Min: ms, Max: time.Second}))(t)
	var prev Stage
	for i := range 5 {
		s := fitStage(t, tu, p, i)
		t.Logf("stage %d: probes %v, %v: η* = %v", s.Index, s.Probe, 2*s.Probe, s.Interval)
		if i > 0 {
			if want := max(wantNextProbe(prev), ms); s.Probe != want {
				t.Errorf("stage %d probed at %v; want %v after the stage before chose %v from probes at %v", s.Index, s.Probe, want, prev.Interval, prev.Probe)
			}
			if s.Interval > prev.Interval {
				t.Errorf("stage %d chose %v, longer than the stage before (%v): the rate falls with η", s.Index, s.Interval, prev.Interval)
			}
		}
		prev = s
	}
	// The line through c/η at η1 and 2η1 is g = c·(1.5/η1 − η/(2η1²));
	// η·g(η)/(η+φ) is largest at η1·(−r + √(r² + 3r)), r = φ/η1.
	if prev.Probe != ms {
		t.Fatalf("after 5 stages probing at %v; want Min = %v", prev.Probe, ms)
	}
	r := float64(phi) / float64(ms)
	want := float64(ms) * (-r + math.Sqrt(r*r+3*r))
	if got := float64(prev.Interval); math.Abs(got-want) > 1e-6*want {
		t.Errorf("η* = %v from probes at Min and 2·Min; want %v", prev.Interval, time.Duration(want))
	}
}

// TestLinearFitWindowGrows: stages whose η* confirms the stage before's
// (within √2) monitor over twice the stage before's window, up to
// MaxWindow; a stage whose η* moves further starts over at Window. The
// monitoring requests ask for the stage's window.
func TestLinearFitWindowGrows(t *testing.T) {
	ms := time.Millisecond
	// g = −0.5·η + 4 with φ = 100 ms: η* = 800 ms (analytic), inside the
	// first stage's reach from probes at 400 and 800 ms, and every later
	// stage's.
	p := steady(true, 100*ms, linear(-0.5, 4))
	tu := must(NewLinearFit(LinearFitConfig{Probe: 400 * ms, Max: 8 * time.Second, Window: 3, MaxWindow: 20}))(t)
	var got []int
	for i := range 5 {
		s := fitStage(t, tu, p, i)
		got = append(got, s.Window)
		req, err := tu.Next()
		if err != nil {
			t.Fatal(err)
		}
		if req.Op != OpRun || req.Iterations != s.Window || req.Interval != s.Interval {
			t.Errorf("stage %d: request %v; want run %d×%v", s.Index, req, s.Window, s.Interval)
		}
		if err := tu.Observe(p.do(req)); err != nil {
			t.Fatal(err)
		}
	}
	if want := []int{3, 6, 12, 20, 20}; !slices.Equal(got, want) {
		t.Errorf("windows %v; want %v", got, want)
	}
	// The quality changes: η* moves to 8 s (the bound), and the window
	// starts over.
	p.stages = append(p.stages, stage{from: p.progress, g: linear(-0.001, 4)})
	s := fitStage(t, tu, p, 5)
	if s.Window != 3 || s.Interval < 4*time.Second {
		t.Errorf("after the change: η* = %v, window %d; want η* ≥ 4 s and window 3", s.Interval, s.Window)
	}
}
