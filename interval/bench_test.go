package interval

import (
	"testing"
	"time"
)

// BenchmarkStep is one Next + Observe exchange, the synthetic process's
// one iteration included: Fixed, FSPB once η is fixed, FSPV while
// monitoring a stage, and FSPV over a whole stage start (checkpoint, two
// probes, rollback, fit, Restart: five exchanges per op).
func BenchmarkStep(b *testing.B) {
	ms := time.Millisecond
	for _, c := range []struct {
		name string
		t    Tuner
	}{
		{"Fixed", must(NewFixed(100 * ms))(b)},
		{"BinarySearch", must(NewBinarySearch(BinarySearchConfig{Window: 1}))(b)},
		{"LinearFit", must(NewLinearFit(LinearFitConfig{Window: 1}))(b)},
	} {
		b.Run(c.name, func(b *testing.B) {
			p := steady(true, 50*ms, linear(-20, 10))
			drive(b, c.t, p, 20) // past the search, into a stage
			b.ReportAllocs()
			for b.Loop() {
				req, err := c.t.Next()
				if err != nil {
					b.Fatal(err)
				}
				if err := c.t.Observe(p.do(req)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("LinearFit/stage", func(b *testing.B) {
		t := must(NewLinearFit(LinearFitConfig{}))(b)
		p := steady(true, 50*ms, linear(-20, 10))
		b.ReportAllocs()
		for b.Loop() {
			for range 5 {
				req, err := t.Next()
				if err != nil {
					b.Fatal(err)
				}
				if err := t.Observe(p.do(req)); err != nil {
					b.Fatal(err)
				}
			}
			if err := t.Restart(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkOptimum(b *testing.B) {
	l := Line{A: -20, B: 10}
	for b.Loop() {
		Optimum(l, 50*time.Millisecond, time.Millisecond, time.Hour)
	}
}
