package interval

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// subject is a tuner and the process that drives it, for the suite every
// Tuner passes.
type subject struct {
	name string
	make func(tb testing.TB, minimize bool) (Tuner, *process)
}

// contractProcess has two stages and a full pass of 1.6 s, so every
// tuner goes through all its phases (FSPB's full pass and trials, FSPV's
// stage switch) within a few hundred exchanges.
func contractProcess(minimize bool) *process {
	p := twoStages(minimize)
	p.full = 1600 * time.Millisecond
	return p
}

func subjects() []subject {
	return []subject{
		{"Fixed", func(tb testing.TB, minimize bool) (Tuner, *process) {
			return must(NewFixed(250 * time.Millisecond))(tb), contractProcess(minimize)
		}},
		{"BinarySearch", func(tb testing.TB, minimize bool) (Tuner, *process) {
			return must(NewBinarySearch(BinarySearchConfig{Maximize: !minimize}))(tb), contractProcess(minimize)
		}},
		{"BinarySearch/Initial", func(tb testing.TB, minimize bool) (Tuner, *process) {
			return must(NewBinarySearch(BinarySearchConfig{Maximize: !minimize, Initial: time.Second, Factor: 3}))(tb), contractProcess(minimize)
		}},
		{"LinearFit", func(tb testing.TB, minimize bool) (Tuner, *process) {
			return must(NewLinearFit(LinearFitConfig{Maximize: !minimize}))(tb), contractProcess(minimize)
		}},
	}
}

// state is a copy of a tuner's state (the tuners hold no pointers).
func state(t Tuner) any { return reflect.ValueOf(t).Elem().Interface() }

type badReport struct {
	field string
	rep   Report
}

// badReports returns reports that must be refused for req, each naming
// the field at fault, made from the good one.
func badReports(req Request, good Report) []badReport {
	with := func(f func(*Report)) Report { r := good; f(&r); return r }
	out := []badReport{
		{"Report.Objective", with(func(r *Report) { r.Objective = math.NaN() })},
		{"Report.Objective", with(func(r *Report) { r.Objective = math.Inf(1) })},
		{"Report.Objective", with(func(r *Report) { r.Objective = math.Inf(-1) })},
	}
	if req.Op != OpRun {
		return append(out,
			badReport{"Report.Elapsed", with(func(r *Report) { r.Elapsed = time.Second })},
			badReport{"Report.BarrierCost", with(func(r *Report) { r.BarrierCost = time.Millisecond })},
			badReport{"Report.Iterations", with(func(r *Report) { r.Iterations = 1 })},
		)
	}
	return append(out,
		badReport{"Report.Elapsed", with(func(r *Report) { r.Elapsed = 0 })},
		badReport{"Report.Elapsed", with(func(r *Report) { r.Elapsed = -time.Second })},
		badReport{"Report.Elapsed", with(func(r *Report) { r.BarrierCost = r.Elapsed / time.Duration(r.Iterations) })},
		badReport{"Report.BarrierCost", with(func(r *Report) { r.BarrierCost = -1 })},
		badReport{"Report.Iterations", with(func(r *Report) { r.Iterations = 0 })},
		badReport{"Report.Iterations", with(func(r *Report) { r.Iterations = -1 })},
		badReport{"Report.Iterations", with(func(r *Report) { r.Iterations = req.Iterations + 1 })},
	)
}

// TestContract drives every tuner through 300 exchanges and, at each one,
// tries the misuses and bad reports first: each is refused with the right
// error and leaves the state as it was, and the run's requests are those
// of an undisturbed run.
func TestContract(t *testing.T) {
	const n = 300
	for _, s := range subjects() {
		t.Run(s.name, func(t *testing.T) {
			clean, cp := s.make(t, true)
			want := drive(t, clean, cp, n)

			tu, p := s.make(t, true)
			if err := tu.Observe(Report{}); !errors.Is(err, ErrNoRequest) {
				t.Fatalf("Observe before Next = %v; want ErrNoRequest", err)
			}
			var got []Request
			ops := map[Op]bool{}
			for i := range n {
				req, err := tu.Next()
				if err != nil {
					t.Fatalf("#%d Next: %v", i, err)
				}
				got = append(got, req)
				ops[req.Op] = true
				before := state(tu)
				if r, err := tu.Next(); !errors.Is(err, ErrPending) || r != (Request{}) {
					t.Fatalf("#%d Next with %v pending = %v, %v; want ErrPending", i, req, r, err)
				}
				if rs, ok := tu.(interface{ Restart() error }); ok {
					if err := rs.Restart(); !errors.Is(err, ErrPending) {
						t.Fatalf("#%d Restart with %v pending = %v; want ErrPending", i, req, err)
					}
				}
				good := p.do(req)
				for _, b := range badReports(req, good) {
					err := tu.Observe(b.rep)
					var fe *InputError
					if !errors.Is(err, ErrInput) || errors.Is(err, ErrConfig) || !errors.As(err, &fe) || fe.Input != b.field || !strings.Contains(err.Error(), b.field) {
						t.Fatalf("#%d %v: Observe(%+v) = %v; want an *InputError wrapping ErrInput naming %s", i, req, b.rep, err, b.field)
					}
				}
				if !reflect.DeepEqual(state(tu), before) {
					t.Fatalf("#%d %v: refused calls changed the state\n%+v\nto\n%+v", i, req, before, state(tu))
				}
				if err := tu.Observe(good); err != nil {
					t.Fatalf("#%d %v: Observe(%+v): %v", i, req, good, err)
				}
				after := state(tu)
				if err := tu.Observe(good); !errors.Is(err, ErrNoRequest) {
					t.Fatalf("#%d second Observe = %v; want ErrNoRequest", i, err)
				}
				if !reflect.DeepEqual(state(tu), after) {
					t.Fatalf("#%d: a refused second Observe changed the state", i)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("requests differ from an undisturbed run:\n%v\nwant\n%v", got, want)
			}
			if s.name == "LinearFit" && !(ops[OpCheckpoint] && ops[OpRollback]) {
				t.Errorf("the run did not exercise checkpoint and rollback: ops %v", ops)
			}
		})
	}
}

// TestDeterminism: the same reports give the same requests, and
// maximizing the mirror image of a minimized objective gives the same
// requests too.
func TestDeterminism(t *testing.T) {
	for _, s := range subjects() {
		a, pa := s.make(t, true)
		b, pb := s.make(t, true)
		c, pc := s.make(t, false)
		ra, rb, rc := drive(t, a, pa, 400), drive(t, b, pb, 400), drive(t, c, pc, 400)
		if !slices.Equal(ra, rb) {
			t.Errorf("%s: two runs differ", s.name)
		}
		if !slices.Equal(ra, rc) {
			t.Errorf("%s: minimizing f and maximizing −f differ", s.name)
		}
		if !reflect.DeepEqual(state(a), state(b)) {
			t.Errorf("%s: two runs end in different states", s.name)
		}
	}
}

// TestObjectiveOverflow: an objective whose change from the previous one
// overflows float64 is refused, naming Objective, state unchanged (Fixed
// reads no objective).
func TestObjectiveOverflow(t *testing.T) {
	for _, s := range subjects()[1:] {
		tu, p := s.make(t, true)
		p.f0 = math.MaxFloat64
		for i := range 12 {
			req, err := tu.Next()
			if err != nil {
				t.Fatal(err)
			}
			good := p.do(req)
			if req.Op == OpRun && i > 0 {
				before := state(tu)
				err := tu.Observe(Report{Objective: -math.MaxFloat64, Elapsed: good.Elapsed, BarrierCost: good.BarrierCost, Iterations: good.Iterations})
				var fe *InputError
				if !errors.As(err, &fe) || fe.Input != "Report.Objective" {
					t.Fatalf("%s #%d %v: a change of −Inf: %v; want an *InputError naming Report.Objective", s.name, i, req, err)
				}
				if !reflect.DeepEqual(state(tu), before) {
					t.Fatalf("%s #%d: a refused report changed the state", s.name, i)
				}
			}
			if err := tu.Observe(good); err != nil {
				t.Fatalf("%s #%d: %v", s.name, i, err)
			}
		}
	}
}

// TestRandomProcesses drives the adaptive tuners with random synthetic
// processes — several stages of linear quality of any sign, random barrier
// costs, full passes, bounds, factors, restarts — and checks what every
// request and stage must satisfy: intervals within bounds (FSPB's full
// pass aside), at least one iteration, a rollback only right after the
// first probe, finite stage figures.
func TestRandomProcesses(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ms := time.Millisecond
	dur := func(lo, hi time.Duration) time.Duration { return lo + time.Duration(rng.Int64N(int64(hi-lo)+1)) }
	for seed := range 300 {
		p := &process{minimize: rng.IntN(2) == 0, f0: rng.NormFloat64() * 1e3, full: dur(20*ms, 5*time.Second), phi: dur(0, 300*ms)}
		for k := range 1 + rng.IntN(3) {
			p.stages = append(p.stages, stage{from: float64(k) * rng.Float64() * 50, g: linear(rng.NormFloat64()*20, rng.NormFloat64()*10)})
		}
		probe := dur(ms, time.Second)
		lcfg := LinearFitConfig{Maximize: !p.minimize, Probe: probe, Min: dur(1, probe), Max: dur(2*probe, 20*probe), Reach: 1 + 8*rng.Float64(), Window: 1 + rng.IntN(6), Tolerance: rng.Float64()}
		lcfg.MaxWindow = lcfg.Window * (1 + rng.IntN(8))
		lo := dur(1, 50*ms)
		bcfg := BinarySearchConfig{Maximize: !p.minimize, Factor: 2 + rng.IntN(3), Min: lo, Max: dur(lo, 10*time.Second), Window: 1 + rng.IntN(6)}
		if rng.IntN(2) == 0 {
			bcfg.Initial = dur(bcfg.Min, bcfg.Max)
		}
		for _, tu := range []Tuner{must(NewLinearFit(lcfg))(t), must(NewBinarySearch(bcfg))(t)} {
			q := *p
			name := fmt.Sprintf("seed %d %T", seed, tu)
			var prev []Request
			for i := range 200 {
				if i%67 == 66 {
					if err := tu.(interface{ Restart() error }).Restart(); err != nil {
						t.Fatalf("%s: Restart: %v", name, err)
					}
				}
				req, err := tu.Next()
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				checkRequest(t, name, tu, req, prev)
				prev = append(prev, req)
				if err := tu.Observe(q.do(req)); err != nil {
					t.Fatalf("%s %v: %v", name, req, err)
				}
				if lf, ok := tu.(*LinearFit); ok {
					s := lf.Stage()
					if !finite(s.Rate) || !finite(s.Progress) || s.Interval < 0 || s.Phi < 0 || s.Elapsed < 0 || s.Remaining < 0 {
						t.Fatalf("%s: stage %+v", name, s)
					}
				}
			}
		}
	}
}

func checkRequest(t *testing.T, name string, tu Tuner, req Request, prev []Request) {
	t.Helper()
	var lo, hi time.Duration
	switch tu := tu.(type) {
	case *Fixed:
		lo, hi = tu.eta, tu.eta
	case *LinearFit:
		lo, hi = tu.cfg.Min, tu.cfg.Max
		if req.Op == OpRollback {
			n := len(prev)
			if n < 2 || prev[n-1] != (Request{OpRun, tu.probe, 2}) || prev[n-2].Op != OpCheckpoint {
				t.Fatalf("%s: rollback after %v", name, prev[max(n-2, 0):])
			}
		}
	case *BinarySearch:
		lo, hi = tu.cfg.Min, tu.cfg.Max
		if req.Interval == FullPass && req.Op == OpRun {
			if req.Iterations != 1 || tu.cfg.Initial != 0 {
				t.Fatalf("%s: %v", name, req)
			}
			return
		}
	}
	switch {
	case req.Op == OpRun && (req.Interval < lo || req.Interval > hi || req.Iterations < 1):
		t.Fatalf("%s: %v outside [%v, %v] or without iterations", name, req, lo, hi)
	case req.Op != OpRun && (req.Interval != 0 || req.Iterations != 0):
		t.Fatalf("%s: %v with an interval or iterations", name, req)
	}
}

func TestConfigErrors(t *testing.T) {
	ms := time.Millisecond
	nan := math.NaN()
	for _, c := range []struct {
		field string
		err   error
	}{
		{"BinarySearchConfig.Factor", second(NewBinarySearch(BinarySearchConfig{Factor: 1}))},
		{"BinarySearchConfig.Factor", second(NewBinarySearch(BinarySearchConfig{Factor: -2}))},
		{"BinarySearchConfig.Window", second(NewBinarySearch(BinarySearchConfig{Window: -1}))},
		{"BinarySearchConfig.Min", second(NewBinarySearch(BinarySearchConfig{Min: -ms}))},
		{"BinarySearchConfig.Max", second(NewBinarySearch(BinarySearchConfig{Min: 2 * ms, Max: ms}))},
		{"BinarySearchConfig.Initial", second(NewBinarySearch(BinarySearchConfig{Initial: 2 * time.Hour}))},
		{"BinarySearchConfig.Initial", second(NewBinarySearch(BinarySearchConfig{Initial: -ms}))},
		{"LinearFitConfig.Probe", second(NewLinearFit(LinearFitConfig{Probe: -ms}))},
		{"LinearFitConfig.Probe", second(NewLinearFit(LinearFitConfig{Probe: math.MaxInt64 / 2}))},
		{"LinearFitConfig.Probe", second(NewLinearFit(LinearFitConfig{Probe: math.MaxInt64/128 + 1}))},
		{"LinearFitConfig.Min", second(NewLinearFit(LinearFitConfig{Min: -ms}))},
		{"LinearFitConfig.Min", second(NewLinearFit(LinearFitConfig{Min: 300 * ms}))},
		{"LinearFitConfig.Max", second(NewLinearFit(LinearFitConfig{Max: 300 * ms}))},
		{"LinearFitConfig.Reach", second(NewLinearFit(LinearFitConfig{Reach: 0.5}))},
		{"LinearFitConfig.Reach", second(NewLinearFit(LinearFitConfig{Reach: nan}))},
		{"LinearFitConfig.Reach", second(NewLinearFit(LinearFitConfig{Reach: math.Inf(1)}))},
		{"LinearFitConfig.Window", second(NewLinearFit(LinearFitConfig{Window: -3}))},
		{"LinearFitConfig.MaxWindow", second(NewLinearFit(LinearFitConfig{Window: 8, MaxWindow: 4}))},
		{"LinearFitConfig.MaxWindow", second(NewLinearFit(LinearFitConfig{MaxWindow: -1}))},
		{"LinearFitConfig.Tolerance", second(NewLinearFit(LinearFitConfig{Tolerance: nan}))},
		{"LinearFitConfig.Tolerance", second(NewLinearFit(LinearFitConfig{Tolerance: 1.5}))},
		{"LinearFitConfig.Tolerance", second(NewLinearFit(LinearFitConfig{Tolerance: -0.1}))},
		{"LinearFitConfig.Target", second(NewLinearFit(LinearFitConfig{Target: &nan}))},
		{"η", second(NewFixed(0))},
	} {
		var fe *InputError
		if !errors.Is(c.err, ErrConfig) || errors.Is(c.err, ErrInput) || !errors.As(c.err, &fe) || fe.Input != c.field {
			t.Errorf("error %v; want an *InputError wrapping ErrConfig naming %s", c.err, c.field)
		}
		// Code written against the deprecated names still matches.
		var old *FieldError
		if !errors.Is(c.err, ErrInvalid) || !errors.As(c.err, &old) {
			t.Errorf("error %v; want it to match the deprecated ErrInvalid and *FieldError", c.err)
		}
	}
	// The defaults.
	b := must(NewBinarySearch(BinarySearchConfig{}))(t)
	if c := b.cfg; c.Factor != 2 || c.Min != ms || c.Max != time.Hour || c.Window != 4 || c.Maximize {
		t.Errorf("BinarySearch defaults %+v", c)
	}
	l := must(NewLinearFit(LinearFitConfig{}))(t)
	if c := l.cfg; c.Probe != 200*ms || c.Min != 3125*time.Microsecond || c.Max != 12800*ms || c.Reach != 4 || c.Window != 4 || c.MaxWindow != 4 || c.Tolerance != 0.2 {
		t.Errorf("LinearFit defaults %+v", c)
	}
}

func second[T any](_ T, err error) error { return err }

func TestErrorMessages(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{badInput("Report.Elapsed", -time.Second, "must be positive"), "interval: Report.Elapsed = -1s: must be positive"},
		{(Report{Objective: math.NaN()}).validate(Request{Op: OpRollback}), "interval: Report.Objective = NaN: must be finite"},
		{(Report{Objective: 1, Elapsed: time.Second, BarrierCost: 600 * time.Millisecond, Iterations: 2}).validate(Request{OpRun, time.Second, 2}),
			"interval: Report.Elapsed = 1s: must exceed Iterations × BarrierCost = 2 × 600ms"},
		{(Report{Iterations: 3, Elapsed: 1}).validate(Request{OpRun, time.Second, 2}), "interval: Report.Iterations = 3: must be in 1..2 (the request's Iterations)"},
		{(Report{Iterations: 1}).validate(Request{Op: OpCheckpoint}), "interval: Report.Iterations = 1: must be 0 for checkpoint"},
	} {
		if c.err == nil || c.err.Error() != c.want {
			t.Errorf("error %q; want %q", c.err, c.want)
		}
	}
	for _, c := range []struct {
		r    Request
		want string
	}{
		{Request{OpRun, 200 * time.Millisecond, 2}, "run 2×200ms"},
		{Request{OpRun, FullPass, 1}, "run 1×full pass"},
		{Request{Op: OpCheckpoint}, "checkpoint"},
		{Request{Op: OpRollback}, "rollback"},
		{Request{Op: 9}, "Op(9)"},
	} {
		if got := c.r.String(); got != c.want {
			t.Errorf("%#v.String() = %q; want %q", c.r, got, c.want)
		}
	}
}
