package scalein

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/curvefit"
	"github.com/syncmodels/syncmodels/knee"
)

func mustNew(t testing.TB, c Config) *Tuner {
	t.Helper()
	tu, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return tu
}

// digest captures the whole state of a tuner, its knee detector included.
func digest(tu *Tuner) string { return fmt.Sprintf("%+v|%+v", *tu, tu.det) }

// trace renders a run's actions and decisions.
func trace(ev []simEvent) string {
	var b strings.Builder
	for _, e := range ev {
		if e.err != nil {
			fmt.Fprintf(&b, "error %v\n", e.err)
		}
		if d := e.action.Decision; d != nil {
			fmt.Fprintf(&b, "%v %d %v\n", e.action.Op, e.action.Worker, d)
		}
	}
	return b.String()
}

func TestConfig(t *testing.T) {
	ids := []int{0, 1, 2, 3}
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"no workers", Config{}},
		{"negative ID", Config{Workers: []int{0, -1}}},
		{"duplicate ID", Config{Workers: []int{0, 1, 0}}},
		{"MinWorkers < 0", Config{Workers: ids, MinWorkers: -1}},
		{"MinWorkers > P", Config{Workers: ids, MinWorkers: 5}},
		{"S NaN", Config{Workers: ids, S: math.NaN()}},
		{"S > 1", Config{Workers: ids, S: 1.5}},
		{"S +Inf", Config{Workers: ids, S: math.Inf(1)}},
		{"Delta < 0", Config{Workers: ids, Delta: -time.Second}},
		{"Interval < 0", Config{Workers: ids, Interval: -time.Second}},
		{"Span < 1", Config{Workers: ids, Span: 0.5}},
		{"Span NaN", Config{Workers: ids, Span: math.NaN()}},
		{"Settle < 0", Config{Workers: ids, Settle: -1}},
		{"bad detector", Config{Workers: ids, Knee: &knee.Threshold{Slope: 1}}},
	} {
		if _, err := New(c.cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: New(%+v) error = %v; want ErrConfig", c.name, c.cfg, err)
		}
	}
	tu := mustNew(t, Config{Workers: ids})
	got := tu.Config()
	if got.MinWorkers != 1 || got.S != DefaultS || got.Delta != DefaultDelta || got.Interval != DefaultDelta ||
		got.Span != 1 || got.Settle != 0 {
		t.Errorf("defaults: %+v", got)
	}
	if _, ok := got.Knee.(*knee.Threshold); !ok {
		t.Errorf("default Knee = %T; want *knee.Threshold", got.Knee)
	}
	if c := mustNew(t, Config{Workers: ids, S: ZeroS, Delta: 20 * time.Second}).Config(); c.S != 0 || c.Interval != 20*time.Second {
		t.Errorf("ZeroS, Delta 20s: S = %v, Interval = %v; want 0, 20s", c.S, c.Interval)
	}
	// The caller's slice is copied.
	w := []int{5, 6}
	tu = mustNew(t, Config{Workers: w})
	w[0] = 9
	if p := tu.Pool(); !slices.Equal(p, []int{5, 6}) {
		t.Errorf("Pool() = %v after changing the caller's slice; want [5 6]", p)
	}
}

// checkRun checks the invariants of a run against the generating model:
// no eviction before the knee, the first decision at the knee, an
// eviction exactly when s_Δ < S, the evicted worker the worst replica
// of the pool, and s_Δ within tol of the model's (unless tol < 0).
func checkRun(t *testing.T, s sim, tu *Tuner, ev []simEvent, tol float64) (evicted, kept int) {
	t.Helper()
	kp, ok := tu.Knee()
	if !ok {
		t.Fatal("no knee")
	}
	first := true
	cfg := tu.Config()
	for i, e := range ev {
		if e.err != nil {
			t.Fatalf("step %d: %v", i+1, e.err)
		}
		step := float64(i + 1)
		d := e.action.Decision
		if e.action.Op == Evict {
			if step < kp.X {
				t.Errorf("step %v: evicted worker %d before the knee at step %v", step, e.action.Worker, kp.X)
			}
			if d == nil || d.Outcome != Evicted || d.Worker != e.action.Worker {
				t.Errorf("step %v: Evict %d with decision %v", step, e.action.Worker, d)
			}
			// The worst replica: the highest quality value in the pool.
			worst := slices.Max(e.pool)
			if len(e.obs.Workers) > 0 {
				w := e.obs.Workers[0]
				for _, r := range e.obs.Workers[1:] {
					if r.Quality > w.Quality || (r.Quality == w.Quality && r.ID > w.ID) {
						w = r
					}
				}
				worst = w.ID
			}
			if e.action.Worker != worst {
				t.Errorf("step %v: evicted %d; the worst replica is %d", step, e.action.Worker, worst)
			}
		}
		if d == nil {
			continue
		}
		if d.Step != int64(step) || d.Workers != len(e.pool) {
			t.Errorf("step %v: decision %v for p = %d", step, d, len(e.pool))
		}
		if first {
			if !d.First || step < kp.X {
				t.Errorf("first decision %v; want First at or after the knee %v", d, kp.X)
			}
			first = false
			continue
		}
		if d.First {
			t.Errorf("step %v: a second First decision %v", step, d)
		}
		switch d.Outcome {
		case Evicted:
			evicted++
			if !(d.S < cfg.S) {
				t.Errorf("step %v: evicted with s_Δ = %v ≥ S = %v", step, d.S, cfg.S)
			}
		case Kept:
			kept++
			if !(d.S >= cfg.S) {
				t.Errorf("step %v: kept with s_Δ = %v < S = %v", step, d.S, cfg.S)
			}
		default:
			t.Errorf("step %v: %v", step, d)
			continue
		}
		if want := s.trueS(*d, e.u, d.Workers, cfg.Delta); tol >= 0 && math.Abs(d.S-want) > tol {
			t.Errorf("step %v: s_Δ = %.6f; the model's is %.6f (tolerance %v)", step, d.S, want, tol)
		}
	}
	return evicted, kept
}

// TestSynthetic runs the tuner on losses from the known Eq. 2 family and
// checks that it evicts exactly when s_Δ < S, never before the knee, and
// that its s_Δ is the model's.
func TestSynthetic(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		noise float64
		span  float64
		tol   float64 // on s_Δ; < 0: invariants only
		mixed bool    // some evictions and some kept decisions after the first
	}{
		{"exact", 0, 0, 1e-4, true},       // the fits recover the model
		{"noisy", 0.01, 0, 0.03, true},    // 1% noise on every loss
		{"noisier", 0.03, 0, 0.06, false}, // 3% noise
		// EWMA with span 20 before the fits (§4.2's text) biases s_Δ by
		// several points here (package doc): the invariants still hold.
		{"smoothed", 0.01, 20, -1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := defaultSim()
			s.noise = c.noise
			tu := mustNew(t, Config{Workers: s.ids(), Span: c.span})
			ev := s.run(tu)
			evicted, kept := checkRun(t, s, tu, ev, c.tol)
			if c.mixed && (evicted == 0 || kept == 0) {
				t.Errorf("%d evictions and %d kept decisions after the first; want some of each", evicted, kept)
			}
			if p := len(tu.Pool()); p != s.P-1-evicted {
				t.Errorf("pool of %d; want %d", p, s.P-1-evicted)
			}
		})
	}
}

// The exact run, step by step: the decisions that the model predicts.
func TestSyntheticExactDecisions(t *testing.T) {
	t.Parallel()
	s := defaultSim()
	tu := mustNew(t, Config{Workers: s.ids(), Span: 1})
	s.run(tu)
	var got []string
	for _, d := range tu.Decisions()[:5] {
		got = append(got, fmt.Sprintf("t=%d p=%d %v %d s=%.4f", d.Step, d.Workers, d.Outcome, d.Worker, d.S))
	}
	// Knee accepted at step 228; ⌊10 s/0.6 s⌋ = 16 steps with P = 8, 18,
	// 20, 22 with p = 7, 6, 5.
	want := []string{
		"t=228 p=8 evicted 6 s=NaN",
		"t=247 p=7 evicted 4 s=0.0019",
		"t=267 p=6 evicted 2 s=0.0054",
		"t=290 p=5 kept 0 s=0.0106",
		"t=313 p=5 kept 0 s=0.0140",
	}
	if !slices.Equal(got, want) {
		t.Errorf("decisions:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The first decision is at the step the detector accepts the knee:
	// the same losses fed to a fresh default detector.
	var det knee.Threshold
	var u float64
	for k := 1; ; k++ {
		u += float64(s.P)
		if det.Add(float64(k), s.loss(u)) {
			if d := tu.Decisions()[0]; d.Step != int64(k) {
				t.Errorf("first decision at step %d; the detector accepts the knee at step %d", d.Step, k)
			}
			break
		}
	}
	if lp, dP, ok := tu.Reference(); !ok || dP != 600*time.Millisecond {
		t.Errorf("Reference() = %v, %v, %v; want d_P = 600ms", lp, dP, ok)
	} else if th := lp.Params(); math.Abs(th[0]-0.32) > 1e-6 || math.Abs(th[1]-1) > 1e-6 || math.Abs(th[2]-0.667) > 1e-6 || math.Abs(th[3]-0.05) > 1e-6 {
		t.Errorf("L_P θ = %v; want [0.32 1 0.667 0.05] (a·P^b, b, c, d)", th)
	}
}

// With S = 0 the tuner never evicts, whatever the curve.
func TestZeroS(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		mod  func(*sim)
	}{
		{"default", func(*sim) {}},
		{"noisy", func(s *sim) { s.noise = 0.02 }},
		{"flat", func(s *sim) { s.a, s.b, s.d = 1e-7, 3, 2 }},
	} {
		s := defaultSim()
		c.mod(&s)
		tu := mustNew(t, Config{Workers: s.ids(), S: ZeroS, Interval: time.Second})
		ev := s.run(tu)
		for i, e := range ev {
			if e.err != nil || e.action.Op != Continue {
				t.Fatalf("%s: step %d: %v, %v; want Continue", c.name, i+1, e.action, e.err)
			}
		}
		ds := tu.Decisions()
		if len(ds) != 1 || !ds[0].First || ds[0].Outcome != Kept {
			t.Errorf("%s: decisions %v; want one First Kept", c.name, ds)
		}
		if _, _, ok := tu.Reference(); !ok {
			t.Errorf("%s: no reference curve", c.name)
		}
		if len(tu.Pool()) != s.P {
			t.Errorf("%s: pool %v", c.name, tu.Pool())
		}
	}
}

// A curve that has flattened out: removing workers costs nothing, so the
// tuner evicts one worker per interval down to the minimum.
func TestFlatEvictsToMinimum(t *testing.T) {
	t.Parallel()
	for _, minW := range []int{1, 3, 8} {
		s := defaultSim()
		s.a, s.b, s.d = 1e-7, 3, 2 // 1/(1e-7·u³ + 0.667) + 2
		tu := mustNew(t, Config{Workers: s.ids(), MinWorkers: minW})
		ev := s.run(tu)
		checkRun(t, s, tu, ev, 0.01)
		if got := len(tu.Pool()); got != minW {
			t.Errorf("MinWorkers %d: pool %v", minW, tu.Pool())
		}
		// Every decision evicted: one per interval, none kept.
		for _, d := range tu.Decisions() {
			if d.Outcome != Evicted {
				t.Errorf("MinWorkers %d: %v", minW, d)
			}
		}
		if len(tu.Evictions()) != s.P-minW {
			t.Errorf("MinWorkers %d: %d evictions", minW, len(tu.Evictions()))
		}
	}
}

func TestDeterminism(t *testing.T) {
	t.Parallel()
	run := func() (string, string) {
		s := defaultSim()
		s.noise = 0.02
		tu := mustNew(t, Config{Workers: s.ids()})
		tr := trace(s.run(tu))
		return tr, fmt.Sprint(tu.Decisions(), tu.Evictions(), tu.Pool(), tu.Workers())
	}
	t1, s1 := run()
	t2, s2 := run()
	if t1 != t2 || s1 != s2 {
		t.Errorf("two runs differ:\n%s\n%s", t1, t2)
	}
	if !strings.Contains(t1, "evict") {
		t.Errorf("no eviction in\n%s", t1)
	}
}

// TestBadInput: every bad observation is an *InputError naming the field,
// matching its sentinel, and leaves the tuner exactly as it was; a tuner
// fed the same good observations with bad ones interleaved decides the
// same.
func TestBadInput(t *testing.T) {
	t.Parallel()
	s := defaultSim()
	s.noise = 0.01
	ref := mustNew(t, Config{Workers: s.ids()})
	good := s.run(ref)
	var evictedAt int
	for i, e := range good {
		if e.action.Op == Evict {
			evictedAt = i
			break
		}
	}
	evictedID := good[evictedAt].action.Worker

	bad := func(i int) []struct {
		name, field string
		o           Observation
		err         error
	} {
		prev := good[max(i-1, 0)].obs
		o := good[i].obs
		with := func(f func(*Observation)) Observation {
			c := o
			c.Workers = slices.Clone(o.Workers)
			f(&c)
			return c
		}
		cases := []struct {
			name, field string
			o           Observation
			err         error
		}{
			{"NaN loss", "Loss", with(func(o *Observation) { o.Loss = math.NaN() }), ErrNonFinite},
			{"Inf loss", "Loss", with(func(o *Observation) { o.Loss = math.Inf(1) }), ErrNonFinite},
			{"zero loss", "Loss", with(func(o *Observation) { o.Loss = 0 }), ErrDomain},
			{"negative loss", "Loss", with(func(o *Observation) { o.Loss = -1 }), ErrDomain},
			{"negative time", "Time", with(func(o *Observation) { o.Time = -1 }), ErrNegative},
			{"negative steps", "Steps", with(func(o *Observation) { o.Steps = -2 }), ErrNegative},
			{"too many steps", "Steps", with(func(o *Observation) { o.Steps = math.MaxInt }), ErrDomain},
			{"unknown worker", "Workers[1].ID", with(func(o *Observation) { o.Workers[1].ID = 99 }), ErrUnknownWorker},
			{"duplicate worker", "Workers[2].ID", with(func(o *Observation) { o.Workers[2].ID = o.Workers[0].ID }), ErrDuplicateWorker},
			{"negative duration", "Workers[0].Duration", with(func(o *Observation) { o.Workers[0].Duration = -time.Millisecond }), ErrNegative},
			{"NaN quality", "Workers[3].Quality", with(func(o *Observation) { o.Workers[3].Quality = math.NaN() }), ErrNonFinite},
		}
		if i > 0 {
			cases = append(cases, struct {
				name, field string
				o           Observation
				err         error
			}{"time backwards", "Time", with(func(o *Observation) { o.Time = prev.Time - 1 }), ErrTimeOrder})
		}
		if i > evictedAt {
			cases = append(cases, struct {
				name, field string
				o           Observation
				err         error
			}{"evicted worker", "Workers[0].ID", with(func(o *Observation) { o.Workers[0].ID = evictedID }), ErrUnknownWorker})
		}
		return cases
	}

	tu := mustNew(t, Config{Workers: s.ids()})
	for i, e := range good {
		// Bad observations at a few places: the start, around the knee
		// and the first eviction, and later.
		if i == 0 || i == 300 || i == evictedAt || i == evictedAt+1 || i == evictedAt+15 || i == 700 {
			for _, c := range bad(i) {
				before := digest(tu)
				a, err := tu.Observe(c.o)
				var ie *InputError
				if !errors.Is(err, c.err) || !errors.As(err, &ie) || ie.Input != c.field || !strings.Contains(err.Error(), c.field) {
					t.Errorf("step %d, %s: Observe error = %v; want an *InputError on %s matching %v", i+1, c.name, err, c.field, c.err)
				}
				if a != (Action{}) {
					t.Errorf("step %d, %s: Action = %+v; want the zero Action", i+1, c.name, a)
				}
				if after := digest(tu); after != before {
					t.Errorf("step %d, %s: state changed", i+1, c.name)
				}
			}
		}
		a, err := tu.Observe(e.obs)
		if err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		if got, want := fmt.Sprint(a.Op, a.Worker, a.Decision), fmt.Sprint(e.action.Op, e.action.Worker, e.action.Decision); got != want {
			t.Fatalf("step %d: %s; the undisturbed run gave %s", i+1, got, want)
		}
	}
	if fmt.Sprint(tu.Decisions()) != fmt.Sprint(ref.Decisions()) {
		t.Error("decisions differ from the undisturbed run")
	}
}

func TestErrorMessage(t *testing.T) {
	tu := mustNew(t, Config{Workers: []int{0, 1}})
	_, err := tu.Observe(Observation{Time: time.Second, Loss: math.NaN()})
	if got, want := err.Error(), "scalein: observation of step 1: Loss = NaN: scalein: non-finite value"; got != want {
		t.Errorf("error %q; want %q", got, want)
	}
	if _, err := tu.Observe(Observation{Time: time.Second, Loss: 1}); err != nil {
		t.Fatal(err)
	}
	_, err = tu.Observe(Observation{Time: time.Millisecond, Loss: 1})
	if got, want := err.Error(), "scalein: observation of step 2: Time = 1ms: previous observation at 1s: scalein: time went backwards"; got != want {
		t.Errorf("error %q; want %q", got, want)
	}
}

// A fit that cannot be made is "no decision this interval", never a
// crash: here the interval is shorter than a step, so the first decision
// after an eviction has a single loss to fit.
func TestFailedFitNoDecision(t *testing.T) {
	t.Parallel()
	s := defaultSim()
	s.steps = 280
	tu := mustNew(t, Config{Workers: s.ids(), Interval: time.Millisecond})
	ev := s.run(tu)
	var failed, ok int
	for _, e := range ev {
		d := e.action.Decision
		if d == nil || d.First {
			continue
		}
		switch d.Outcome {
		case Failed:
			failed++
			if e.action.Op != Continue || !errors.Is(d.Err, curvefit.ErrTooFewPoints) || !math.IsNaN(d.S) {
				t.Errorf("failed decision %v with action %v; want Continue, ErrTooFewPoints, NaN s", d, e.action.Op)
			}
		default:
			ok++
		}
	}
	// After each eviction: 1, 2, 3 points fail (curvefit needs 4), the
	// fourth step decides.
	if failed == 0 || ok == 0 {
		t.Errorf("%d failed and %d taken decisions; want both", failed, ok)
	}
	for _, d := range tu.Decisions() {
		if d.Outcome == Failed && d.Err != nil && !strings.Contains(d.Err.Error(), "fitting ℓ_p (Eq. 3) to") {
			t.Errorf("reason %q does not name the curve", d.Err)
		}
	}
}

// Steps that take no time give no step duration: no decision, retried.
func TestNoDurationNoDecision(t *testing.T) {
	t.Parallel()
	s := defaultSim()
	tu := mustNew(t, Config{Workers: s.ids(), Interval: time.Second})
	for k := 1; k <= 600; k++ {
		a, err := tu.Observe(Observation{Time: 0, Loss: s.loss(float64(8 * k))})
		if err != nil || a.Op != Continue {
			t.Fatalf("step %d: %v %v", k, a, err)
		}
	}
	ds := tu.Decisions()
	if len(ds) != 1 || ds[0].Outcome != Failed || !errors.Is(ds[0].Err, ErrTooFewSteps) {
		t.Fatalf("decisions %v; want one Failed with ErrTooFewSteps", ds)
	}
	// Time starts to move: one interval later the reference is fitted and
	// the first worker goes.
	now := time.Duration(0)
	for k := 601; ; k++ {
		now += 600 * time.Millisecond
		a, err := tu.Observe(Observation{Time: now, Loss: s.loss(float64(8 * k))})
		if err != nil {
			t.Fatal(err)
		}
		if a.Op == Evict {
			if now < time.Second || !a.Decision.First {
				t.Errorf("evicted at %v by %v; want the First decision, at or after 1s", now, a.Decision)
			}
			break
		}
		if k > 700 {
			t.Fatal("no eviction")
		}
	}
}

func TestWorst(t *testing.T) {
	for _, c := range []struct {
		ids     []int
		quality map[int]float64
		want    int
	}{
		{[]int{0, 1, 2}, nil, 2},                                  // no qualities: highest ID
		{[]int{5, 3, 9}, map[int]float64{5: 1, 3: 2, 9: 1.5}, 3},  // highest quality value
		{[]int{5, 3, 9}, map[int]float64{5: 2, 3: 2, 9: 1}, 5},    // tie: highest ID
		{[]int{5, 3, 9}, map[int]float64{3: 0.1}, 3},              // reported before unreported
		{[]int{5, 3, 9}, map[int]float64{3: -1, 5: -1, 9: -2}, 5}, // negative qualities are fine
		{[]int{0, 1, 2, 3}, map[int]float64{1: 4, 2: 4, 3: 4}, 3}, // tie among reported
		{[]int{4, 1}, map[int]float64{4: 1, 1: 1}, 4},             // tie, Config order irrelevant
	} {
		tu := mustNew(t, Config{Workers: c.ids})
		var rs []Report
		for _, id := range c.ids {
			if q, ok := c.quality[id]; ok {
				rs = append(rs, Report{ID: id, Quality: q})
			}
		}
		if _, err := tu.Observe(Observation{Time: 1, Loss: 1, Workers: rs}); err != nil {
			t.Fatal(err)
		}
		if got := tu.workers[tu.worst()].id; got != c.want {
			t.Errorf("worst(%v, %v) = %d; want %d", c.ids, c.quality, got, c.want)
		}
	}
}

// Without quality reports the tuner evicts the highest IDs first, and a
// worker's reports are kept until it reports again.
func TestNoQuality(t *testing.T) {
	t.Parallel()
	s := defaultSim()
	s.quality = false
	s.a, s.b, s.d = 1e-7, 3, 2
	tu := mustNew(t, Config{Workers: s.ids(), MinWorkers: 4})
	s.run(tu)
	var got []int
	for _, e := range tu.Evictions() {
		got = append(got, e.Worker)
	}
	if !slices.Equal(got, []int{7, 6, 5, 4}) {
		t.Errorf("evicted %v; want [7 6 5 4]", got)
	}
	for _, w := range tu.Workers() {
		if w.HasQuality || w.MeanDuration != 0 {
			t.Errorf("%+v; want no quality or duration", w)
		}
	}
}

func TestWorkers(t *testing.T) {
	tu := mustNew(t, Config{Workers: []int{3, 1}})
	obs := []Observation{
		{Time: 1 * time.Second, Loss: 2, Workers: []Report{{ID: 1, Quality: 2.5, Duration: time.Second}}},
		{Time: 2 * time.Second, Loss: 1.9, Workers: []Report{{ID: 1, Quality: 2.4, Duration: 3 * time.Second}, {ID: 3, Quality: 7}}},
	}
	for _, o := range obs {
		if _, err := tu.Observe(o); err != nil {
			t.Fatal(err)
		}
	}
	want := []Worker{
		{ID: 3, Quality: 7, HasQuality: true},
		{ID: 1, Quality: 2.4, HasQuality: true, MeanDuration: 2 * time.Second},
	}
	if got := tu.Workers(); !slices.Equal(got, want) {
		t.Errorf("Workers() = %+v; want %+v", got, want)
	}
	if tu.Step() != 2 {
		t.Errorf("Step() = %d; want 2", tu.Step())
	}
}

// Reporting every k-th step with Steps = k gives the same curves on the
// same step axis.
func TestSteps(t *testing.T) {
	s := defaultSim()
	tu := mustNew(t, Config{Workers: s.ids(), Span: 1, Knee: &knee.Threshold{Span: 4, Stable: 2}})
	pool := s.ids()
	var u, now float64
	var first *Decision
	for k := 1; k <= 1500 && first == nil; k++ {
		p := len(pool)
		u += s.progress(p)
		now += s.stepTime(p)
		if k%4 != 0 {
			continue
		}
		a, err := tu.Observe(Observation{Time: time.Duration(now * 1e9), Loss: s.loss(u), Steps: 4})
		if err != nil {
			t.Fatal(err)
		}
		if a.Op == Evict && !a.Decision.First {
			first = a.Decision
		}
		if a.Op == Evict {
			pool = slices.DeleteFunc(pool, func(id int) bool { return id == a.Worker })
		}
	}
	if first == nil {
		t.Fatal("no decision by Eq. 1")
	}
	if want := s.trueS(*first, u, first.Workers, DefaultDelta); math.Abs(first.S-want) > 1e-4 || first.Step%4 != 0 {
		t.Errorf("%v; want s_Δ = %v at a multiple of 4", first, want)
	}
	if _, dP, _ := tu.Reference(); dP != 600*time.Millisecond {
		t.Errorf("d_P = %v; want 600ms", dP)
	}
}

// Settle steps after an eviction enter neither ℓ_p nor d_p.
func TestSettle(t *testing.T) {
	t.Parallel()
	s := defaultSim()
	tu := mustNew(t, Config{Workers: s.ids(), Span: 1, Settle: 5})
	ev := s.run(tu)
	checkRun(t, s, tu, ev, 1e-4)
	if tu.seg.t[0] <= float64(tu.segStart+5) || tu.segStep != tu.segStart+5 {
		t.Errorf("segment starts at step %v, duration origin %d; eviction at %d, Settle 5", tu.seg.t[0], tu.segStep, tu.segStart)
	}
}

func TestMinWorkersEqualsP(t *testing.T) {
	s := defaultSim()
	s.a, s.b, s.d = 1e-7, 3, 2
	tu := mustNew(t, Config{Workers: s.ids(), MinWorkers: s.P})
	for _, e := range s.run(tu) {
		if e.action != (Action{}) {
			t.Fatalf("action %+v", e.action)
		}
	}
	if _, ok := tu.Knee(); !ok {
		t.Error("no knee")
	}
	if len(tu.Decisions()) != 0 || tu.hist.t != nil {
		t.Errorf("decisions %v, history kept %d", tu.Decisions(), len(tu.hist.t))
	}
}

// Kneedle plugs in as the knee detector (§4.2).
func TestKneedleDetector(t *testing.T) {
	t.Parallel()
	s := defaultSim()
	s.a, s.b, s.d = 1e-8, 3, 2
	s.steps = 400
	det := &knee.OnlineKneedle{Options: knee.Options{Curve: knee.Convex, Direction: knee.Decreasing}}
	tu := mustNew(t, Config{Workers: s.ids(), Knee: det, MinWorkers: 4})
	ev := s.run(tu)
	// Kneedle, relative to the curve so far, accepts an early knee (step
	// 64 here, against 319 for Threshold), still in the steep region; the
	// losses are exactly Eq. 2, so the fits stay exact and the flat tail
	// takes the pool to MinWorkers.
	checkRun(t, s, tu, ev, 1e-3)
	kp, _ := tu.Knee()
	if len(tu.Evictions()) != 4 || kp.X > 100 {
		t.Errorf("knee at %v, evictions %v; want the knee before step 100, 4 evictions", kp.X, tu.Evictions())
	}
}

func TestOpOutcomeString(t *testing.T) {
	for _, c := range []struct {
		got  fmt.Stringer
		want string
	}{
		{Continue, "continue"}, {Evict, "evict"}, {Op(7), "Op(7)"},
		{Evicted, "evicted"}, {Kept, "kept"}, {Failed, "failed"}, {Outcome(0), "Outcome(0)"},
	} {
		if c.got.String() != c.want {
			t.Errorf("String() = %q; want %q", c.got.String(), c.want)
		}
	}
}
