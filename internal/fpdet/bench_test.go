package fpdet_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/syncmodels/syncmodels/internal/fpdet"
)

// Benchmarks against package math over the same inputs (1024 values in
// each function's usual range): go test -bench . ./internal/fpdet

var sink float64

func benchInputs(lo, hi float64) []float64 {
	r := rand.New(rand.NewPCG(1, 1))
	v := make([]float64, 1024)
	for i := range v {
		v[i] = lo + float64((hi-lo)*r.Float64())
	}
	return v
}

func bench1(b *testing.B, f func(float64) float64, lo, hi float64) {
	in := benchInputs(lo, hi)
	s := 0.0
	for i := 0; b.Loop(); i++ {
		s += f(in[i&1023])
	}
	sink = s
}

func BenchmarkExp(b *testing.B) {
	b.Run("math", func(b *testing.B) { bench1(b, math.Exp, -20, 20) })
	b.Run("fpdet", func(b *testing.B) { bench1(b, fpdet.Exp, -20, 20) })
}

func BenchmarkLog(b *testing.B) {
	b.Run("math", func(b *testing.B) { bench1(b, math.Log, 1e-3, 1e3) })
	b.Run("fpdet", func(b *testing.B) { bench1(b, fpdet.Log, 1e-3, 1e3) })
}

func BenchmarkLog1p(b *testing.B) {
	b.Run("math", func(b *testing.B) { bench1(b, math.Log1p, 0, 1) })
	b.Run("fpdet", func(b *testing.B) { bench1(b, fpdet.Log1p, 0, 1) })
}

func BenchmarkPow(b *testing.B) {
	pow := func(f func(x, y float64) float64) func(float64) float64 {
		return func(x float64) float64 { return f(x, 0.37) }
	}
	b.Run("math", func(b *testing.B) { bench1(b, pow(math.Pow), 0.01, 100) })
	b.Run("fpdet", func(b *testing.B) { bench1(b, pow(fpdet.Pow), 0.01, 100) })
}

func BenchmarkNormFloat64(b *testing.B) {
	b.Run("math/rand/v2", func(b *testing.B) {
		r := rand.New(rand.NewPCG(1, 2))
		s := 0.0
		for b.Loop() {
			s += r.NormFloat64()
		}
		sink = s
	})
	b.Run("fpdet", func(b *testing.B) {
		r := rand.New(rand.NewPCG(1, 2))
		s := 0.0
		for b.Loop() {
			s += fpdet.NormFloat64(r)
		}
		sink = s
	})
}
