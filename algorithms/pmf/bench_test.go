package pmf

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms/internal/gdtest"
	"github.com/syncmodels/syncmodels/dataset"
)

var bigRatings = sync.OnceValue(func() *dataset.Ratings {
	// 1M ratings, MovieLens-like popularity skew.
	return dataset.LowRankRatings(rand.New(rand.NewPCG(1, 2)), 20000, 5000, 10, 1_000_000, 1)
})

// BenchmarkEpoch is one epoch of mini-batch PMF (rank 20, batch 6250 as in
// MLLess, default optimizer: Nesterov 0.8) over 1M synthetic ratings, with
// one or two workers (one goroutine each); ns/op is the time per epoch.
func BenchmarkEpoch(b *testing.B) {
	data := bigRatings()
	for _, k := range []int{1, 2} {
		b.Run(fmt.Sprintf("ratings=1M/rank=20/batch=6250/workers=%d", k), func(b *testing.B) {
			alg, err := New(data, Config{Rank: 20, Lambda: 0.01})
			if err != nil {
				b.Fatal(err)
			}
			theta0, _ := alg.Init(rand.New(rand.NewPCG(3, 4)))
			gdtest.BenchEpochs(b, alg, theta0, k, 6250)
		})
	}
}

// BenchmarkProcess is the worker kernel alone: 1M ratings at rank 20.
func BenchmarkProcess(b *testing.B) {
	data := bigRatings()
	alg, _ := New(data, Config{Rank: 20})
	theta0, _ := alg.Init(rand.New(rand.NewPCG(3, 4)))
	gdtest.BenchProcess(b, alg, theta0)
}
