package gdtest

import (
	"sync"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/dataset"
)

// BenchEpochs runs one epoch of mini-batch training per b.Loop iteration,
// from theta0, with k workers over contiguous shards. Each step every
// worker processes its next batch/k points under the current θ, concurrently
// (one goroutine per worker beyond the first); the deltas merge in worker
// order (a single worker's delta is applied as it is) and the server
// applies the merge. An epoch is one pass over the shortest shard. It
// reports points/s; ns/op is the time per epoch.
func BenchEpochs(b *testing.B, alg algorithms.Algorithm, theta0 []float64, k, batch int) {
	b.Helper()
	srv, err := alg.NewServer(theta0)
	if err != nil {
		b.Fatal(err)
	}
	merged := algorithms.NewDelta(alg.Layout())
	var workers []algorithms.Worker
	var deltas []*algorithms.Delta
	for _, p := range Shards(alg.NumPoints(), k) {
		w, err := alg.NewWorker(p)
		if err != nil {
			b.Fatal(err)
		}
		workers = append(workers, w)
		deltas = append(deltas, algorithms.NewDelta(alg.Layout()))
	}
	n := workers[0].Len()
	for _, w := range workers {
		n = min(n, w.Len())
	}
	per := batch / k
	points := 0
	var wg sync.WaitGroup
	for b.Loop() {
		for lo := 0; lo < n; lo += per {
			hi := min(lo+per, n)
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

// BenchProcess times the worker kernel alone: per b.Loop iteration, one
// pass of Process over all of alg's points under theta by a single worker.
// It reports points/s.
func BenchProcess(b *testing.B, alg algorithms.Algorithm, theta []float64) {
	b.Helper()
	n := alg.NumPoints()
	w, err := alg.NewWorker(Seq(0, n))
	if err != nil {
		b.Fatal(err)
	}
	w.SetParams(theta)
	d := algorithms.NewDelta(alg.Layout())
	for b.Loop() {
		d.Reset()
		w.Process(0, n, d)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "points/s")
}

var fashion = sync.OnceValues(func() (*dataset.Dense, error) {
	train, _, err := dataset.FashionMNIST(dataset.FashionMNISTDir)
	return train, err
})

// FashionMNIST returns the Fashion-MNIST training set (60000 × 784, labels
// 0–9), read once per test binary and shared: callers must not modify it.
// It skips tb when the data set cannot be read (usually: not installed).
func FashionMNIST(tb testing.TB) *dataset.Dense {
	tb.Helper()
	train, err := fashion()
	if err != nil {
		tb.Skipf("Fashion-MNIST not installed (apt-get install dataset-fashion-mnist): %v", err)
	}
	return train
}
