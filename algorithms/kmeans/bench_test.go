package kmeans

import (
	"fmt"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/internal/emtest"
	"github.com/syncmodels/syncmodels/dataset"
)

// BenchmarkPass: one Lloyd iteration (E-step over all points + M-step),
// k = 10, on Fashion-MNIST train (60000×784; skipped when not installed)
// and on synthetic blobs of the same size, after a warm-up pass that
// assigns every point (so few points change cluster in the timed passes).
// Reference on this machine: scikit-learn 1.2 + OpenBLAS, ≈ 0.10 s per
// iteration on Fashion-MNIST.
func BenchmarkPass(b *testing.B) {
	for _, set := range []string{"fashion", "blobs"} {
		for _, f32 := range []bool{false, true} {
			for _, workers := range []int{1, 2} {
				name := fmt.Sprintf("%s/k=10/float32=%v/workers=%d", set, f32, workers)
				b.Run(name, func(b *testing.B) {
					emtest.BenchPass(b, set, 0, workers, func(data *dataset.Dense) (algorithms.Algorithm, error) {
						return New(data, Config{K: 10, Init: InitFirst, Float32: f32})
					})
				})
			}
		}
	}
}

// BenchmarkEvaluate: the inertia (exact distances) over Fashion-MNIST
// train, k = 10, one worker.
func BenchmarkEvaluate(b *testing.B) {
	km, _ := New(emtest.FashionTrain(b), Config{K: 10, Init: InitFirst})
	emtest.BenchEvaluate(b, km)
}
