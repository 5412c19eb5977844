package scalein

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"
)

// clone copies a tuner deeply enough for one decision to run on the copy
// without touching the original.
func clone(t *Tuner) *Tuner {
	c := *t
	c.workers = slices.Clone(t.workers)
	c.decisions = slices.Clone(t.decisions)
	c.evictions = slices.Clone(t.evictions)
	return &c
}

// BenchmarkDecision times one scheduling decision with 200 observations
// to fit: the decision at the knee (L_P, Eq. 2: an exponent search over
// NNLS fits, and d_P) and a decision by Eq. 1 (ℓ_p, Eq. 3), each with its
// eviction; and, for scale, an ordinary Observe between decisions.
func BenchmarkDecision(b *testing.B) {
	const n = 200
	s := defaultSim()
	s.noise = 0.01

	// 200 observations before any decision: the first decision's input.
	s.steps = n
	pre := mustNew(b, Config{Workers: s.ids()})
	s.run(pre)
	if pre.phase != waitKnee || len(pre.hist.t) != n {
		b.Fatalf("phase %v with %d points", pre.phase, len(pre.hist.t))
	}
	b.Run(fmt.Sprintf("L_P/n=%d", n), func(b *testing.B) {
		for b.Loop() {
			if a := clone(pre).first(pre.lastTime); a.Op != Evict {
				b.Fatal(a.Decision)
			}
		}
	})

	// The knee, the first eviction, then 200 observations without a
	// decision (a long Interval): the input of a decision by Eq. 1.
	s.steps = 1000
	s.target = 0
	post := mustNew(b, Config{Workers: s.ids(), Interval: time.Hour})
	ev := s.run(post)
	for i, e := range ev {
		if e.action.Op == Evict {
			s.steps = i + 1 + n
			break
		}
	}
	post = mustNew(b, Config{Workers: s.ids(), Interval: time.Hour})
	s.run(post)
	if post.phase != schedule || len(post.seg.t) != n {
		b.Fatalf("phase %v with %d points", post.phase, len(post.seg.t))
	}
	b.Run(fmt.Sprintf("eq1/n=%d", n), func(b *testing.B) {
		for b.Loop() {
			if a := clone(post).decide(post.lastTime); a.Decision.Outcome == Failed {
				b.Fatal(a.Decision)
			}
		}
	})

	b.Run("observe", func(b *testing.B) {
		tu := mustNew(b, Config{Workers: s.ids()})
		o := Observation{Loss: 1}
		for id := range s.P {
			o.Workers = append(o.Workers, Report{ID: id, Quality: 1, Duration: time.Millisecond})
		}
		for b.Loop() {
			o.Time += time.Millisecond
			if _, err := tu.Observe(o); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSmoothingBias measures how far the tuner's s_Δ(t) is from the
// generating model's on the synthetic runs, for several EWMA spans before
// the fits: the numbers behind the package documentation's "Fitting and
// smoothing". Run it once:
//
//	go test -run '^$' -bench SmoothingBias -benchtime 1x ./scalein
//
// mean-err-pp and max-err-pp are the mean and largest error of s_Δ, in
// percentage points, over every decision by Eq. 1 of 4 seeded runs.
func BenchmarkSmoothingBias(b *testing.B) {
	for _, fam := range []struct {
		name string
		a    float64
	}{{"knee400", 0.01}, {"knee230", 0.04}} {
		for _, noise := range []float64{0, 0.01, 0.03} {
			for _, span := range []float64{1, 5, 20} {
				b.Run(fmt.Sprintf("curve=%s/noise=%v/span=%v", fam.name, noise, span), func(b *testing.B) {
					var sum, worst float64
					var n int
					for b.Loop() {
						sum, worst, n = 0, 0, 0
						for seed := uint64(1); seed <= 4; seed++ {
							s := defaultSim()
							s.a, s.noise, s.seed, s.steps = fam.a, noise, seed, 900
							tu := mustNew(b, Config{Workers: s.ids(), Span: span})
							for _, e := range s.run(tu) {
								if d := e.action.Decision; d != nil && !d.First && d.Outcome != Failed {
									err := d.S - s.trueS(*d, e.u, d.Workers, tu.cfg.Delta)
									sum += err
									worst = max(worst, math.Abs(err))
									n++
								}
							}
						}
					}
					b.ReportMetric(100*sum/float64(n), "mean-err-pp")
					b.ReportMetric(100*worst, "max-err-pp")
				})
			}
		}
	}
}
