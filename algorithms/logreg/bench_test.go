package logreg

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/dataset"
)

// Reference on the 2-core development machine: scikit-learn 1.2
// SGDClassifier(loss='log_loss') takes about 0.19 s per epoch on
// Fashion-MNIST (60000 × 784), i.e. about 3.2e5 points/s.

// fashion loads Fashion-MNIST once, with the binary task label < 5.
var fashion = sync.OnceValues(func() (*dataset.Dense, error) {
	train, _, err := dataset.FashionMNIST(dataset.FashionMNISTDir)
	if err != nil {
		return nil, err
	}
	y := make([]float64, train.N)
	for i, l := range train.Labels {
		if l < 5 {
			y[i] = 1
		}
	}
	return &dataset.Dense{N: train.N, D: train.D, X: train.X, Labels: y}, nil
})

// epochRunner runs mini-batch epochs with k workers, each of which
// processes batch/k points of its shard per step, concurrently (one
// goroutine per worker beyond the first); deltas merge in worker order.
type epochRunner struct {
	srv     algorithms.Server
	workers []algorithms.Worker
	deltas  []*algorithms.Delta
	merged  *algorithms.Delta
	per     int
}

func newEpochRunner(b *testing.B, alg algorithms.Algorithm, k, batch int) *epochRunner {
	theta0, err := alg.Init(rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	srv, err := alg.NewServer(theta0)
	if err != nil {
		b.Fatal(err)
	}
	r := &epochRunner{srv: srv, merged: algorithms.NewDelta(alg.Layout()), per: batch / k}
	for _, p := range shards(alg.NumPoints(), k) {
		w, err := alg.NewWorker(p)
		if err != nil {
			b.Fatal(err)
		}
		r.workers = append(r.workers, w)
		r.deltas = append(r.deltas, algorithms.NewDelta(alg.Layout()))
	}
	return r
}

// epoch runs one pass over every shard; it returns the points processed.
func (r *epochRunner) epoch(b *testing.B) int {
	n := r.workers[0].Len()
	for _, w := range r.workers {
		n = min(n, w.Len())
	}
	points := 0
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += r.per {
		hi := min(lo+r.per, n)
		theta := r.srv.Params()
		for i := 1; i < len(r.workers); i++ {
			wg.Go(func() {
				r.deltas[i].Reset()
				r.workers[i].SetParams(theta)
				r.workers[i].Process(lo, hi, r.deltas[i])
			})
		}
		r.deltas[0].Reset()
		r.workers[0].SetParams(theta)
		r.workers[0].Process(lo, hi, r.deltas[0])
		wg.Wait()
		r.merged.Reset()
		for _, d := range r.deltas {
			r.merged.Merge(d)
		}
		if err := r.srv.Apply(r.merged); err != nil {
			b.Fatal(err)
		}
		points += r.merged.Count
	}
	return points
}

func benchEpochs(b *testing.B, alg algorithms.Algorithm, k, batch int) {
	r := newEpochRunner(b, alg, k, batch)
	points := 0
	for b.Loop() {
		points += r.epoch(b)
	}
	b.ReportMetric(float64(points)/b.Elapsed().Seconds(), "points/s")
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
			data, err := fashion()
			if err != nil {
				b.Skipf("Fashion-MNIST not installed (apt-get install dataset-fashion-mnist): %v", err)
			}
			alg, err := NewDense(data, cfg)
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
	w, _ := alg.NewWorker(shards(4096, 1)[0])
	w.SetParams(make([]float64, 785))
	d := algorithms.NewDelta(alg.Layout())
	for b.Loop() {
		d.Reset()
		w.Process(0, 4096, d)
	}
	b.ReportMetric(4096*float64(b.N)/b.Elapsed().Seconds(), "points/s")
}
