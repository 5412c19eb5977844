package arrival_test

import (
	"math/rand/v2"
	"testing"

	"github.com/syncmodels/syncmodels/arrival"
)

// BenchmarkNext times one batch of DOLL's b = 256 points (§V-A) at
// λ = 125 per distribution, beside a naive baseline that sums 256
// exponential interarrivals drawn with rand.ExpFloat64. A DOLL run calls
// Next about J·K = 200,000 times.
func BenchmarkNext(b *testing.B) {
	const batch = 256
	for _, d := range []arrival.Dist{
		{Kind: arrival.Poisson},
		{Kind: arrival.Fixed},
		{Kind: arrival.Gamma, Shape: 2},
		{Kind: arrival.LogNormal, Shape: 0.5},
		{Kind: arrival.Pareto, Shape: 2.5},
	} {
		b.Run(d.String(), func(b *testing.B) {
			st, err := arrival.NewStream(d, 125, batch, 1, 0)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				st.Next()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/batch")
		})
	}
	b.Run("naive-exp-sum", func(b *testing.B) {
		rng := rand.New(rand.NewPCG(1, 2))
		var t float64
		for b.Loop() {
			s := 0.0
			for range batch {
				s += rng.ExpFloat64()
			}
			t += s / 125
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/batch")
		if t < 0 {
			b.Fatal(t)
		}
	})
}
