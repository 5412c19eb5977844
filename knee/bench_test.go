package knee

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// noisyLoss is a seeded noisy exponential loss curve of n points.
func noisyLoss(n int, seed uint64) (x, y []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x, y = make([]float64, n), make([]float64, n)
	tau := float64(n) / 10
	for i := range n {
		x[i] = float64(i)
		y[i] = 0.3 + 0.7*math.Exp(-x[i]/tau) + 0.002*rng.NormFloat64()
	}
	return x, y
}

func BenchmarkKneedle(b *testing.B) {
	for _, n := range []int{100, 1000, 10000, 100000} {
		x, y := noisyLoss(n, 1)
		for _, c := range []struct {
			name string
			opt  Options
		}{
			{"none", Options{Curve: Convex, Direction: Decreasing}},
			{"online", Options{Curve: Convex, Direction: Decreasing, Online: true}},
			{"poly7", Options{Curve: Convex, Direction: Decreasing, Interp: poly}},
		} {
			b.Run(fmt.Sprintf("n=%d/%s", n, c.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Kneedle(x, y, c.opt); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/point")
			})
		}
	}
}

// OnlineKneedle against the naive baseline that calls Kneedle on every
// prefix (allocating every time). Stable is set high so that the whole
// curve is fed.
func BenchmarkOnlineKneedle(b *testing.B) {
	opt := Options{Curve: Convex, Direction: Decreasing}
	for _, n := range []int{100, 1000, 4000} {
		x, y := noisyLoss(n, 2)
		b.Run(fmt.Sprintf("n=%d/detector", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d := OnlineKneedle{Options: opt, Stable: n + 1}
				for i := range x {
					d.Add(x[i], y[i])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/Add")
		})
		b.Run(fmt.Sprintf("n=%d/naive", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for i := range x {
					if _, err := Kneedle(x[:i+1], y[:i+1], opt); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/Add")
		})
	}
}

func BenchmarkThreshold(b *testing.B) {
	x, y := noisyLoss(10000, 3)
	b.ReportAllocs()
	for b.Loop() {
		d := Threshold{Stable: len(x) + 1} // never accepts: every Add does the full work
		for i := range x {
			d.Add(x[i], y[i])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(x)), "ns/Add")
}
