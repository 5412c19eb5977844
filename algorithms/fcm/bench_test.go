package fcm

import (
	"fmt"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/internal/emtest"
	"github.com/syncmodels/syncmodels/algorithms/kmeans"
	"github.com/syncmodels/syncmodels/dataset"
)

// BenchmarkPass: one fuzzy c-means iteration (memberships of all points +
// M-step), m = 2, k = 10, on Fashion-MNIST train (60000×784; skipped when
// not installed) and on synthetic blobs of the same size.
func BenchmarkPass(b *testing.B) {
	for _, set := range []string{"fashion", "blobs"} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/k=10/workers=%d", set, workers), func(b *testing.B) {
				emtest.BenchPass(b, set, 0, workers, func(data *dataset.Dense) (algorithms.Algorithm, error) {
					return New(data, Config{K: 10, Init: kmeans.InitFirst})
				})
			})
		}
	}
}

// BenchmarkEvaluate: J (exact distances) over Fashion-MNIST train, k = 10,
// one worker.
func BenchmarkEvaluate(b *testing.B) {
	f, _ := New(emtest.FashionTrain(b), Config{K: 10, Init: kmeans.InitFirst})
	emtest.BenchEvaluate(b, f)
}
