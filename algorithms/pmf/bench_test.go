package pmf

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
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
			srv, _ := alg.NewServer(theta0)
			n := data.Len()
			var workers []algorithms.Worker
			var deltas []*algorithms.Delta
			for s := range k {
				w, _ := alg.NewWorker(seq(s*n/k, (s+1)*n/k))
				workers = append(workers, w)
				deltas = append(deltas, algorithms.NewDelta(alg.Layout()))
			}
			merged := algorithms.NewDelta(alg.Layout())
			per := 6250 / k
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
		})
	}
}

// BenchmarkProcess is the worker kernel alone: 1M ratings at rank 20.
func BenchmarkProcess(b *testing.B) {
	data := bigRatings()
	alg, _ := New(data, Config{Rank: 20})
	theta0, _ := alg.Init(rand.New(rand.NewPCG(3, 4)))
	w, _ := alg.NewWorker(seq(0, data.Len()))
	w.SetParams(theta0)
	d := algorithms.NewDelta(alg.Layout())
	for b.Loop() {
		d.Reset()
		w.Process(0, data.Len(), d)
	}
	b.ReportMetric(float64(data.Len())*float64(b.N)/b.Elapsed().Seconds(), "points/s")
}
