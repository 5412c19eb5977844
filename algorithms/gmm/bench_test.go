package gmm

import (
	"fmt"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/internal/emtest"
	"github.com/syncmodels/syncmodels/algorithms/kmeans"
	"github.com/syncmodels/syncmodels/dataset"
)

// BenchmarkPass: one EM iteration (E-step over all points + M-step),
// k = 10, on the first 20000 Fashion-MNIST training images (skipped when
// not installed) and on synthetic blobs of the same size. Reference on this
// machine: scikit-learn 1.2 GaussianMixture(covariance_type="diag") +
// OpenBLAS, ≈ 0.68 s per EM iteration on these 20000 images.
func BenchmarkPass(b *testing.B) {
	for _, set := range []string{"fashion", "blobs"} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/n=20000/k=10/workers=%d", set, workers), func(b *testing.B) {
				emtest.BenchPass(b, set, 20000, workers, func(data *dataset.Dense) (algorithms.Algorithm, error) {
					return New(data, Config{K: 10, Init: kmeans.InitFirst})
				})
			})
		}
	}
}

// BenchmarkEvaluate: the log-likelihood over the first 20000 Fashion-MNIST
// training images, k = 10, one worker.
func BenchmarkEvaluate(b *testing.B) {
	g, _ := New(emtest.BenchData(b, "fashion", 20000), Config{K: 10, Init: kmeans.InitFirst})
	emtest.BenchEvaluate(b, g)
}
