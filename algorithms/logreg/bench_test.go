package logreg

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/internal/gdtest"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/dataset"
)

// Reference on the 2-core development machine: scikit-learn 1.2
// SGDClassifier(loss='log_loss') takes about 0.19 s per epoch on
// Fashion-MNIST (60000 × 784), i.e. about 3.2e5 points/s.

// fashion returns Fashion-MNIST with the binary task label < 5, or skips b.
func fashion(b *testing.B) *dataset.Dense {
	train := gdtest.FashionMNIST(b)
	y := make([]float64, train.N)
	for i, l := range train.Labels {
		if l < 5 {
			y[i] = 1
		}
	}
	return &dataset.Dense{N: train.N, D: train.D, X: train.X, Labels: y}
}

// benchEpochs runs mini-batch epochs of alg from θ0 = Init(PCG(1, 1)) with
// k workers (gdtest.BenchEpochs).
func benchEpochs(b *testing.B, alg algorithms.Algorithm, k, batch int) {
	theta0, err := alg.Init(rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	gdtest.BenchEpochs(b, alg, theta0, k, batch)
}

// BenchmarkDenseEpoch is one epoch of mini-batch SGD (batch 256) on dense
// LR; ns/op is the time per epoch.
func BenchmarkDenseEpoch(b *testing.B) {
	cfg := Config{Lambda: 1e-4, Optim: optim.Config{Method: optim.SGD, LR: 0.01}}
	synth, _ := dataset.Logistic(rand.New(rand.NewPCG(1, 2)), 16384, 784)
	for _, k := range []int{1, 2} {
		b.Run(fmt.Sprintf("data=synthetic-16384x784/workers=%d", k), func(b *testing.B) {
			alg, err := NewDense(synth, cfg)
			if err != nil {
				b.Fatal(err)
			}
			benchEpochs(b, alg, k, 256)
		})
	}
	for _, k := range []int{1, 2} {
		b.Run(fmt.Sprintf("data=fashion-mnist-60000x784/workers=%d", k), func(b *testing.B) {
			alg, err := NewDense(fashion(b), cfg)
			if err != nil {
				b.Fatal(err)
			}
			benchEpochs(b, alg, k, 256)
		})
	}
}

// BenchmarkSparseEpoch is one epoch of mini-batch Adam on hashed-style
// sparse LR (2^17 features, 39 nonzeros per row, as Criteo's 13 + 26
// fields), with MLLess's batch of 6250.
func BenchmarkSparseEpoch(b *testing.B) {
	data, _ := dataset.SparseLogistic(rand.New(rand.NewPCG(3, 4)), 50000, 1<<17, 39)
	cfg := Config{Lambda: 1e-5, Optim: optim.Config{Method: optim.Adam, LR: 1e-3, Epsilon: 1e-9}}
	for _, k := range []int{1, 2} {
		b.Run(fmt.Sprintf("n=50000/d=131072/nnz=39/workers=%d", k), func(b *testing.B) {
			alg, err := NewSparse(data, cfg)
			if err != nil {
				b.Fatal(err)
			}
			benchEpochs(b, alg, k, 6250)
		})
	}
}

// BenchmarkProcess is the worker kernel alone: one pass of Process over
// 4096 dense points of 784 features.
func BenchmarkProcess(b *testing.B) {
	data, _ := dataset.Logistic(rand.New(rand.NewPCG(5, 6)), 4096, 784)
	alg, _ := NewDense(data, Config{})
	gdtest.BenchProcess(b, alg, make([]float64, 785))
}
