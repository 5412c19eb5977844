package nmf

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/dataset"
)

var fashion = sync.OnceValues(func() (*dataset.Dense, error) {
	train, _, err := dataset.FashionMNIST(dataset.FashionMNISTDir)
	return train, err
})

// benchEpochs runs one epoch per iteration of mini-batch projected GD with
// k workers (one goroutine each) that process batch/k rows per step.
func benchEpochs(b *testing.B, data *dataset.Dense, rank, k, batch int) {
	alg, err := New(data, Config{Rank: rank, Optim: optim.Config{LR: 0.01}, HScale: 5})
	if err != nil {
		b.Fatal(err)
	}
	theta0, _ := alg.Init(rand.New(rand.NewPCG(1, 1)))
	srv, _ := alg.NewServer(theta0)
	n := data.N
	var workers []algorithms.Worker
	var deltas []*algorithms.Delta
	for s := range k {
		w, _ := alg.NewWorker(seq(s*n/k, (s+1)*n/k))
		workers = append(workers, w)
		deltas = append(deltas, algorithms.NewDelta(alg.Layout()))
	}
	merged := algorithms.NewDelta(alg.Layout())
	per := batch / k
	points := 0
	var wg sync.WaitGroup
	for b.Loop() {
		for lo := 0; lo < n/k; lo += per {
			hi := min(lo+per, n/k)
			theta := srv.Params()
			for i := 1; i < k; i++ {
				wg.Go(func() {
					deltas[i].Reset()
					workers[i].SetParams(theta)
					workers[i].Process(lo, hi, deltas[i])
				})
			}
			deltas[0].Reset()
			workers[0].SetParams(theta)
			workers[0].Process(lo, hi, deltas[0])
			wg.Wait()
			apply := deltas[0]
			if k > 1 {
				merged.Reset()
				for _, d := range deltas {
					merged.Merge(d)
				}
				apply = merged
			}
			if err := srv.Apply(apply); err != nil {
				b.Fatal(err)
			}
			points += apply.Count
		}
	}
	b.ReportMetric(float64(points)/b.Elapsed().Seconds(), "points/s")
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
			data, err := fashion()
			if err != nil {
				b.Skipf("Fashion-MNIST not installed (apt-get install dataset-fashion-mnist): %v", err)
			}
			benchEpochs(b, data, 10, k, 256)
		})
	}
}
