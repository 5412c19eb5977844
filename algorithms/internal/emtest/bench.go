package emtest

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/dataset"
)

// BenchPass times full-batch iterations of the algorithm that newAlg makes
// over BenchData(b, set, n), from θ0 = Init(nil): every worker (one
// goroutine each, over consecutive shards of the points) processes its
// whole shard under the same θ, the deltas are merged and applied once.
// One op is one pass over all points. A warm-up pass first sets every
// point's state (assignment, responsibilities, memberships), so the timed
// passes are steady-state iterations. It reports points/s and s/pass.
func BenchPass(b *testing.B, set string, n, workers int, newAlg func(*dataset.Dense) (algorithms.Algorithm, error)) {
	data := BenchData(b, set, n)
	alg, err := newAlg(data)
	if err != nil {
		b.Fatal(err)
	}
	theta0, err := alg.Init(nil)
	if err != nil {
		b.Fatal(err)
	}
	benchPasses(b, alg, data.N, workers, theta0)
}

// BenchEvaluate times Evaluate by one worker over all points of alg under
// θ0 = Init(nil). It reports points/s.
func BenchEvaluate(b *testing.B, alg algorithms.Algorithm) {
	theta0, err := alg.Init(nil)
	if err != nil {
		b.Fatal(err)
	}
	n := alg.NumPoints()
	w, err := alg.NewWorker(Shards(n, 1)[0])
	if err != nil {
		b.Fatal(err)
	}
	w.SetParams(theta0)
	b.ResetTimer()
	for range b.N {
		w.Evaluate()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "points/s")
}

// benchPasses is BenchPass on alg over n points from theta0.
func benchPasses(b *testing.B, alg algorithms.Algorithm, n, workers int, theta0 []float64) {
	srv, err := alg.NewServer(theta0)
	if err != nil {
		b.Fatal(err)
	}
	ws := make([]algorithms.Worker, workers)
	ds := make([]*algorithms.Delta, workers)
	for i, p := range Shards(n, workers) {
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

// BenchData returns a benchmark data set: for set "fashion" the first n
// Fashion-MNIST training images, all 60000 (read once per test binary)
// when n is 0, skipping when they are not installed; for "blobs" n
// synthetic points (60000 when n is 0) in 784 dimensions around 10
// centres, the same for every call.
func BenchData(b *testing.B, set string, n int) *dataset.Dense {
	switch set {
	case "fashion":
		if n == 0 {
			return FashionTrain(b)
		}
		return FashionHead(b, n)
	case "blobs":
		if n == 0 {
			n = 60000
		}
		return dataset.Blobs(rand.New(rand.NewPCG(1, 1)), n, 784, 10, 3)
	}
	panic("emtest: unknown benchmark data set " + set)
}
