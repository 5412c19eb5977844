package fcm

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/kmeans"
	"github.com/syncmodels/syncmodels/dataset"
)

// benchPasses times full-batch FCM iterations: every worker (one
// goroutine each) processes its whole shard under the same θ, the deltas
// are merged and applied once. One op is one pass over all points. A
// warm-up pass first sets every membership, so the timed passes are steady
// state iterations. It reports points/s.
func benchPasses(b *testing.B, alg algorithms.Algorithm, n, workers int, theta0 []float64) {
	srv, err := alg.NewServer(theta0)
	if err != nil {
		b.Fatal(err)
	}
	ws := make([]algorithms.Worker, workers)
	ds := make([]*algorithms.Delta, workers)
	for i, p := range shards(n, workers) {
		ws[i], _ = alg.NewWorker(p)
		ds[i] = algorithms.NewDelta(alg.Layout())
	}
	pass := func() {
		theta := srv.Params()
		var wg sync.WaitGroup
		for i := range ws {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ds[i].Reset()
				ws[i].SetParams(theta)
				ws[i].Process(0, ws[i].Len(), ds[i])
			}()
		}
		wg.Wait()
		for _, d := range ds[1:] {
			ds[0].Merge(d)
		}
		if err := srv.Apply(ds[0]); err != nil {
			b.Fatal(err)
		}
	}
	pass()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		pass()
	}
	el := time.Since(start)
	b.ReportMetric(float64(n)*float64(b.N)/el.Seconds(), "points/s")
	b.ReportMetric(el.Seconds()/float64(b.N), "s/pass")
}

func benchData(b *testing.B, name string) *dataset.Dense {
	switch name {
	case "fashion":
		return fashionTrain(b)
	case "blobs":
		return dataset.Blobs(rand.New(rand.NewPCG(1, 1)), 60000, 784, 10, 3)
	}
	panic(name)
}

// BenchmarkPass: one fuzzy c-means iteration (memberships of all points +
// M-step), m = 2, k = 10, on Fashion-MNIST train (60000×784; skipped when
// not installed) and on synthetic blobs of the same size.
func BenchmarkPass(b *testing.B) {
	for _, set := range []string{"fashion", "blobs"} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/k=10/workers=%d", set, workers), func(b *testing.B) {
				data := benchData(b, set)
				f, err := New(data, Config{K: 10, Init: kmeans.InitFirst})
				if err != nil {
					b.Fatal(err)
				}
				theta0, _ := f.Init(nil)
				benchPasses(b, f, data.N, workers, theta0)
			})
		}
	}
}

// BenchmarkEvaluate: J (exact distances) over Fashion-MNIST train, k = 10,
// one worker.
func BenchmarkEvaluate(b *testing.B) {
	data := benchData(b, "fashion")
	f, _ := New(data, Config{K: 10, Init: kmeans.InitFirst})
	theta0, _ := f.Init(nil)
	w, _ := f.NewWorker(shards(data.N, 1)[0])
	w.SetParams(theta0)
	b.ResetTimer()
	for range b.N {
		w.Evaluate()
	}
	b.ReportMetric(float64(data.N)*float64(b.N)/b.Elapsed().Seconds(), "points/s")
}
