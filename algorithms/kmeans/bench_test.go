package kmeans

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/dataset"
)

// benchPasses times full-batch Lloyd iterations: every worker (one
// goroutine each) processes its whole shard under the same θ, the deltas
// are merged and applied once. One op is one pass over all points. A
// warm-up pass first assigns every point, so the timed passes are steady
// state iterations (few points change cluster). It reports points/s.
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

// BenchmarkPass: one Lloyd iteration (E-step over all points + M-step),
// k = 10, on Fashion-MNIST train (60000×784; skipped when not installed)
// and on synthetic blobs of the same size. Reference on this machine:
// scikit-learn 1.2 + OpenBLAS, ≈ 0.10 s per iteration on Fashion-MNIST.
func BenchmarkPass(b *testing.B) {
	for _, set := range []string{"fashion", "blobs"} {
		for _, f32 := range []bool{false, true} {
			for _, workers := range []int{1, 2} {
				name := fmt.Sprintf("%s/k=10/float32=%v/workers=%d", set, f32, workers)
				b.Run(name, func(b *testing.B) {
					data := benchData(b, set)
					km, err := New(data, Config{K: 10, Init: InitFirst, Float32: f32})
					if err != nil {
						b.Fatal(err)
					}
					theta0, _ := km.Init(nil)
					benchPasses(b, km, data.N, workers, theta0)
				})
			}
		}
	}
}

// BenchmarkEvaluate: the inertia (exact distances) over Fashion-MNIST
// train, k = 10, one worker.
func BenchmarkEvaluate(b *testing.B) {
	data := fashionTrain(b)
	km, _ := New(data, Config{K: 10, Init: InitFirst})
	theta0, _ := km.Init(nil)
	w, _ := km.NewWorker(shards(data.N, 1)[0])
	w.SetParams(theta0)
	b.ResetTimer()
	for range b.N {
		w.Evaluate()
	}
	b.ReportMetric(float64(data.N)*float64(b.N)/b.Elapsed().Seconds(), "points/s")
}
