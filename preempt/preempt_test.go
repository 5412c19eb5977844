package preempt_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/preempt"
)

// doll is DOLL §V-A's chain with availability alpha.
func doll(alpha float64) preempt.Config {
	return preempt.Config{Alpha: alpha, MeanCycle: 1000 * time.Second, Step: 2 * time.Second}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg  preempt.Config
		want string // "" for valid
	}{
		{preempt.Config{Alpha: 0.9, MeanCycle: time.Second, Step: 100 * time.Millisecond}, ""},
		{preempt.Config{Alpha: 1}, ""},
		{preempt.Config{Alpha: 0}, ""},
		{preempt.Config{Alpha: 0.5, MeanCycle: 4 * time.Second}, ""}, // exactly two default steps
		{preempt.Config{Alpha: 1.5, MeanCycle: time.Hour}, "preempt: Config.Alpha = 1.5: availability must be in [0, 1]"},
		{preempt.Config{Alpha: -0.1, MeanCycle: time.Hour}, "Config.Alpha = -0.1"},
		{preempt.Config{Alpha: math.NaN(), MeanCycle: time.Hour}, "Config.Alpha = NaN"},
		{preempt.Config{Alpha: 0.5, MeanCycle: time.Hour, Step: -time.Second}, "Config.Step = -1s: sampling interval must be positive"},
		{preempt.Config{Alpha: 0.5}, "Config.MeanCycle = 0s: mean on-off cycle must be positive when 0 < α < 1"},
		{preempt.Config{Alpha: 1, MeanCycle: -time.Second}, "Config.MeanCycle = -1s: mean cycle must not be negative"},
		{preempt.Config{Alpha: 0.5, MeanCycle: 3 * time.Second}, "Config.MeanCycle = 3s: mean on-off cycle must be at least two steps (2×2s)"},
		{preempt.Config{Alpha: 0.9, MeanCycle: 10 * time.Second}, "(1−α)·MeanCycle = 1s is shorter than one step 2s"},
		{preempt.Config{Alpha: 0.1, MeanCycle: 10 * time.Second}, "α·MeanCycle = 1s is shorter than one step 2s"},
	} {
		cfg := tc.cfg
		err := cfg.Validate()
		if tc.want == "" {
			if err != nil {
				t.Errorf("Validate(%+v) = %v; want nil", tc.cfg, err)
			} else if tc.cfg.Step == 0 && cfg.Step != preempt.DefaultStep {
				t.Errorf("Validate(%+v) left Step %v; want the default %v", tc.cfg, cfg.Step, preempt.DefaultStep)
			}
			continue
		}
		var ie *preempt.InputError
		switch {
		case err == nil:
			t.Errorf("Validate(%+v) = nil; want %q", tc.cfg, tc.want)
		case !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n"):
			t.Errorf("Validate(%+v) = %q; want one line containing %q", tc.cfg, err, tc.want)
		case !errors.Is(err, preempt.ErrConfig) || !errors.As(err, &ie):
			t.Errorf("Validate(%+v) = %v; want an *InputError wrapping ErrConfig", tc.cfg, err)
		}
		if !(cfg == tc.cfg || (math.IsNaN(cfg.Alpha) && math.IsNaN(tc.cfg.Alpha))) {
			t.Errorf("Validate(%+v) refused the config but changed it to %+v", tc.cfg, cfg)
		}
	}
	if _, err := preempt.Schedule(doll(0.9), 1, -1, time.Hour); !errors.Is(err, preempt.ErrConfig) {
		t.Errorf("Schedule(worker -1) = %v; want ErrConfig", err)
	}
	if _, err := preempt.Schedule(doll(0.9), 1, 0, -time.Hour); !errors.Is(err, preempt.ErrConfig) {
		t.Errorf("Schedule(horizon -1h) = %v; want ErrConfig", err)
	}
}

// The transition probabilities solve q/(p+q) = α and Step·(1/p + 1/q) =
// MeanCycle; for DOLL's α = 0.9, C = 1,000 s, Step = 2 s they are
// p = 2/900 and q = 2/100 (worked by hand: mean on 900 s, mean off 100 s).
func TestProbabilities(t *testing.T) {
	p, q, err := doll(0.9).Probabilities()
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(p-2.0/900) > 1e-15 || math.Abs(q-2.0/100) > 1e-15 {
		t.Errorf("Probabilities(α=0.9, C=1000s, Step=2s) = %v, %v; want 1/450, 1/50", p, q)
	}
	for _, a := range []float64{0.01, 0.2, 0.5, 0.8, 0.99} {
		cfg := preempt.Config{Alpha: a, MeanCycle: 1000 * time.Second, Step: time.Second}
		p, q, err := cfg.Probabilities()
		if err != nil {
			t.Fatal(err)
		}
		if got := q / (p + q); math.Abs(got-a) > 1e-12 {
			t.Errorf("α = %v: q/(p+q) = %v", a, got)
		}
		if got := 1/p + 1/q; math.Abs(got-1000) > 1e-9 {
			t.Errorf("α = %v: 1/p + 1/q = %v steps; want 1000", a, got)
		}
	}
	if p, q, _ := (preempt.Config{Alpha: 1}).Probabilities(); p != 0 || q != 1 {
		t.Errorf("α = 1: p, q = %v, %v; want 0, 1", p, q)
	}
	if p, q, _ := (preempt.Config{Alpha: 0}).Probabilities(); p != 1 || q != 0 {
		t.Errorf("α = 0: p, q = %v, %v; want 1, 0", p, q)
	}
}

func TestEdgeCases(t *testing.T) {
	ts, err := preempt.Schedule(preempt.Config{Alpha: 1}, 7, 0, 1000*time.Hour)
	if err != nil || len(ts) != 0 {
		t.Errorf("α = 1: %v, %v; want no transition", ts, err)
	}
	ts, err = preempt.Schedule(preempt.Config{Alpha: 0}, 7, 0, 1000*time.Hour)
	if want := []preempt.Transition{{At: preempt.DefaultStep}}; err != nil || !slices.Equal(ts, want) {
		t.Errorf("α = 0: %v, %v; want %v", ts, err, want)
	}
	// The first sample is at Step: a horizon of one step holds none.
	if ts, _ := preempt.Schedule(preempt.Config{Alpha: 0}, 7, 0, preempt.DefaultStep); len(ts) != 0 {
		t.Errorf("α = 0 over one step: %v; want none", ts)
	}
	if up, n := preempt.Uptime(nil, time.Hour); up != time.Hour || n != 0 {
		t.Errorf("Uptime(no transitions, 1h) = %v, %d", up, n)
	}
}

// Schedules alternate, start with a preemption, fall on multiples of Step
// before the horizon; the same (seed, worker) gives the same schedule, a
// shorter horizon a prefix, and a chain driven in chunks the same
// transitions.
func TestDeterministic(t *testing.T) {
	cfg := preempt.Config{Alpha: 0.7, MeanCycle: 200 * time.Millisecond, Step: 20 * time.Millisecond}
	const h = 100 * time.Second
	a, err := preempt.Schedule(cfg, 11, 5, h)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) < 100 {
		t.Fatalf("%d transitions in %v with a 200ms cycle", len(a), h)
	}
	for i, tr := range a {
		if tr.Available != (i%2 == 1) || tr.At%cfg.Step != 0 || tr.At <= 0 || tr.At >= h || (i > 0 && tr.At <= a[i-1].At) {
			t.Fatalf("transition %d: %v (after %v)", i, tr, a[max(i-1, 0)])
		}
	}
	b, _ := preempt.Schedule(cfg, 11, 5, h)
	if !slices.Equal(a, b) {
		t.Fatal("same seed and worker, different schedules")
	}
	short, _ := preempt.Schedule(cfg, 11, 5, h/3)
	if len(short) == 0 || !slices.Equal(short, a[:len(short)]) || (len(short) < len(a) && a[len(short)].At < h/3) {
		t.Fatal("the schedule of a shorter horizon is not a prefix")
	}
	c, _ := preempt.NewChain(cfg, 11, 5)
	var chunked []preempt.Transition
	for hz := time.Duration(0); hz <= h; hz += 777 * time.Millisecond {
		for {
			tr, ok := c.Next(min(hz, h))
			if !ok {
				break
			}
			chunked = append(chunked, tr)
		}
	}
	for {
		tr, ok := c.Next(h)
		if !ok {
			break
		}
		chunked = append(chunked, tr)
	}
	if !slices.Equal(chunked, a) {
		t.Fatal("a chain driven in chunks differs from one call")
	}
	if c.Available() != (len(a)%2 == 0) {
		t.Fatal("Available disagrees with the schedule")
	}
	other, _ := preempt.Schedule(cfg, 12, 5, h)
	next, _ := preempt.Schedule(cfg, 11, 6, h)
	if slices.Equal(a, other) || slices.Equal(a, next) {
		t.Fatal("another seed or worker gives the same schedule")
	}
}

// stats holds what many long schedules showed.
type stats struct {
	avail         []float64 // per worker: available fraction
	on, off       []float64 // completed available and preempted periods, seconds
	both, samples float64   // pairs (2i, 2i+1): steps both available, steps
}

func collect(t *testing.T, cfg preempt.Config, workers int, h time.Duration) stats {
	t.Helper()
	var s stats
	scheds := make([][]preempt.Transition, workers)
	for w := range workers {
		ts, err := preempt.Schedule(cfg, 2024, w, h)
		if err != nil {
			t.Fatal(err)
		}
		scheds[w] = ts
		up, _ := preempt.Uptime(ts, h)
		s.avail = append(s.avail, float64(up)/float64(h))
		from := time.Duration(0)
		for _, tr := range ts {
			d := (tr.At - from).Seconds()
			if tr.Available {
				s.off = append(s.off, d)
			} else {
				s.on = append(s.on, d)
			}
			from = tr.At
		}
	}
	for w := 0; w+1 < workers; w += 2 {
		s.both += float64(bothUp(scheds[w], scheds[w+1], h) / cfg.Step)
		s.samples += float64(h / cfg.Step)
	}
	return s
}

// bothUp returns the time in [0, h) that two workers with schedules a and
// b are both available, merging the two schedules.
func bothUp(a, b []preempt.Transition, h time.Duration) time.Duration {
	var both, from time.Duration
	onA, onB := true, true
	for len(a) > 0 || len(b) > 0 {
		var tr preempt.Transition
		if len(b) == 0 || (len(a) > 0 && a[0].At <= b[0].At) {
			tr, a = a[0], a[1:]
			if onA && onB {
				both += tr.At - from
			}
			onA = tr.Available
		} else {
			tr, b = b[0], b[1:]
			if onA && onB {
				both += tr.At - from
			}
			onB = tr.Available
		}
		from = tr.At
	}
	if onA && onB {
		both += h - from
	}
	return both
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Over long horizons the chain's statistics match the configuration,
// within bounds computed from the chain (5 standard errors, plus the bias
// of starting available), for DOLL's setups and a few others:
//
//   - availability: the time average of the state X_k over n steps has
//     variance ≈ α(1−α)/n · (1+ρ)/(1−ρ), ρ = 1 − p − q, and expectation
//     α + (1−α)(1−ρⁿ)/((1−ρ)n) (every worker starts available);
//   - the mean available and preempted periods: geometric sojourns of
//     mean Step/p = α·C and Step/q = (1−α)·C, standard deviation
//     Step·√(1−p)/p and Step·√(1−q)/q; the completed periods of a fixed
//     horizon are a little shorter on average (the one cut off by the
//     horizon is dropped, and it is the longer one in expectation), which
//     an allowance of one mean period per worker covers;
//   - independence: two workers of the same seed are both available a
//     fraction α² of the time (α if they shared their draws). The product
//     Z_k = X_k·Y_k of independent chains has lag-k covariance
//     2α³(1−α)ρᵏ + α²(1−α)²ρ²ᵏ, which gives the variance of its average.
func TestStatistics(t *testing.T) {
	for _, tc := range []struct {
		cfg     preempt.Config
		workers int
		h       time.Duration
	}{
		{doll(0.9), 40, 200_000 * time.Second},
		{doll(0.8), 40, 200_000 * time.Second},
		{preempt.Config{Alpha: 0.7, MeanCycle: 200 * time.Millisecond, Step: 20 * time.Millisecond}, 40, 2000 * time.Second},
		{preempt.Config{Alpha: 0.3, MeanCycle: 100 * time.Second, Step: time.Second}, 40, 50_000 * time.Second},
	} {
		cfg := tc.cfg
		p, q, err := cfg.Probabilities()
		if err != nil {
			t.Fatal(err)
		}
		a, c := cfg.Alpha, cfg.MeanCycle.Seconds()
		step := cfg.Step.Seconds()
		n := float64(tc.h / cfg.Step)
		m := float64(tc.workers)
		rho := 1 - p - q
		s := collect(t, cfg, tc.workers, tc.h)

		// Availability.
		bias := (1 - a) * (1 - math.Pow(rho, n)) / ((1 - rho) * n)
		se := math.Sqrt(a*(1-a)/n*(1+rho)/(1-rho)) / math.Sqrt(m)
		if got := mean(s.avail); got < a-5*se || got > a+bias+5*se {
			t.Errorf("α = %v: mean availability %.5f over %d workers × %v; want in [%.5f, %.5f]",
				a, got, tc.workers, tc.h, a-5*se, a+bias+5*se)
		}

		// Mean available and preempted periods, and the cycle.
		for _, per := range []struct {
			name  string
			xs    []float64
			mu, p float64
		}{{"available", s.on, a * c, p}, {"preempted", s.off, (1 - a) * c, q}} {
			sd := step * math.Sqrt(1-per.p) / per.p
			se := sd / math.Sqrt(float64(len(per.xs)))
			allow := per.mu * m / float64(len(per.xs)) // one period per worker
			if got := mean(per.xs); got < per.mu-5*se-allow || got > per.mu+5*se {
				t.Errorf("α = %v: mean %s period %.2fs over %d periods; want %.2fs within [-%.2f, +%.2f]",
					a, per.name, got, len(per.xs), per.mu, 5*se+allow, 5*se)
			}
		}
		if got := mean(s.on) + mean(s.off); math.Abs(got-c) > 0.1*c {
			t.Errorf("α = %v: mean cycle %.1fs; want %.1fs ± 10%%", a, got, c)
		}

		// Independence of workers 2i and 2i+1.
		varZ := a * a * (1 - a*a)
		cov := 2*a*a*a*(1-a)*rho/(1-rho) + a*a*(1-a)*(1-a)*rho*rho/(1-rho*rho)
		seZ := math.Sqrt((varZ + 2*cov) / s.samples) // the pairs are independent: s.samples counts them all
		biasZ := (2*a*(1-a)/(1-rho) + (1-a)*(1-a)/(1-rho*rho)) / n
		if got := s.both / s.samples; got < a*a-5*seZ || got > a*a+biasZ+5*seZ {
			t.Errorf("α = %v: two workers both available %.5f of the time; want α² = %.5f (+%.5f start bias) ± %.5f",
				a, got, a*a, biasZ, 5*seZ)
		}
	}
}

// The estimator recovers α and the mean cycle from observed time: exactly
// the schedule's uptime fraction, and close to the configuration over a
// long run.
func TestEstimator(t *testing.T) {
	var e preempt.Estimator
	if a, ok := e.Alpha(); ok || !math.IsNaN(a) {
		t.Errorf("zero Estimator: Alpha = %v, %v; want NaN, false", a, ok)
	}
	if _, ok := e.MeanCycle(); ok {
		t.Error("zero Estimator has a mean cycle")
	}
	if err := e.Observe(true, -time.Second); !errors.Is(err, preempt.ErrInput) {
		t.Errorf("Observe(-1s) = %v; want ErrInput", err)
	}
	if up, down, n := e.Observed(); up != 0 || down != 0 || n != 0 {
		t.Error("a refused observation changed the estimator")
	}

	cfg := doll(0.8)
	const h = 500_000 * time.Second
	ts, err := preempt.Schedule(cfg, 3, 0, h)
	if err != nil {
		t.Fatal(err)
	}
	on, from := true, time.Duration(0)
	for _, tr := range ts {
		if err := e.Observe(on, tr.At-from); err != nil {
			t.Fatal(err)
		}
		on, from = tr.Available, tr.At
	}
	if err := e.Observe(on, h-from); err != nil {
		t.Fatal(err)
	}
	up, n := preempt.Uptime(ts, h)
	a, ok := e.Alpha()
	if !ok || a != float64(up)/float64(h) {
		t.Errorf("Alpha = %v; want the uptime fraction %v", a, float64(up)/float64(h))
	}
	if _, _, got := e.Observed(); got != n {
		t.Errorf("%d preemptions counted; the schedule has %d", got, n)
	}
	// One worker over 500 cycles: availability within 5 standard errors
	// (0.16·√(2·1000/500000) ≈ 0.010 each), the cycle within 15%.
	if math.Abs(a-0.8) > 0.05 {
		t.Errorf("Alpha = %.3f; want 0.8 ± 0.05", a)
	}
	if c, ok := e.MeanCycle(); !ok || math.Abs(c.Seconds()-1000) > 150 {
		t.Errorf("MeanCycle = %v, %v; want 1000s ± 15%%", c, ok)
	}
}
