package provision

import (
	"fmt"
	"testing"
)

// BenchmarkOptimalHeterogeneous times Theorem 5's scan on U(1, 250) rates
// (§V-B) at §V-B's α = 0.8, θ/θ0 = 1.05 and §V-A's prices, by N_tot; it
// reports the N_s found.
func BenchmarkOptimalHeterogeneous(b *testing.B) {
	for _, n := range []int{64, 10_000, 100_000} {
		b.Run(fmt.Sprintf("ntot=%d", n), func(b *testing.B) {
			rates, err := UniformRates(n, 1, 250)
			if err != nil {
				b.Fatal(err)
			}
			p := Problem{Ntot: n, Updates: 10000, K: 20, Batch: 256, Lambdas: rates, Alpha: 0.8,
				DeadlineRatio: 1.05, PriceSpot: 0.158, PriceOnDemand: 0.286}
			var plan Plan
			for b.Loop() {
				if plan, err = p.Optimal(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(plan.Ns), "N_s")
		})
	}
}
