package nmf

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms/internal/gdtest"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/dataset"
)

// benchEpochs runs one epoch per iteration of mini-batch projected GD
// (rank, SGD with LR 0.01, HScale 5) with k workers that process batch/k
// rows per step (gdtest.BenchEpochs).
func benchEpochs(b *testing.B, data *dataset.Dense, rank, k, batch int) {
	alg, err := New(data, Config{Rank: rank, Optim: optim.Config{LR: 0.01}, HScale: 5})
	if err != nil {
		b.Fatal(err)
	}
	theta0, _ := alg.Init(rand.New(rand.NewPCG(1, 1)))
	gdtest.BenchEpochs(b, alg, theta0, k, batch)
}

// BenchmarkEpoch is one epoch of NMF (rank 10, batch 256); ns/op is the
// time per epoch.
func BenchmarkEpoch(b *testing.B) {
	synth := lowRank(rand.New(rand.NewPCG(5, 6)), 8192, 784, 10, 0.1)
	for _, k := range []int{1, 2} {
		b.Run(fmt.Sprintf("data=synthetic-8192x784/rank=10/workers=%d", k), func(b *testing.B) {
			benchEpochs(b, synth, 10, k, 256)
		})
	}
	for _, k := range []int{1, 2} {
		b.Run(fmt.Sprintf("data=fashion-mnist-60000x784/rank=10/workers=%d", k), func(b *testing.B) {
			benchEpochs(b, gdtest.FashionMNIST(b), 10, k, 256)
		})
	}
}
