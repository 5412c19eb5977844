package emtest

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
)

// RelErr returns |got − want| / |want| (0 when they are equal).
func RelErr(got, want float64) float64 {
	if got == want {
		return 0
	}
	return math.Abs(got-want) / math.Max(math.Abs(want), 1e-300)
}

// MaxRelVec returns max_i |got_i − want_i| / max_i |want_i|.
func MaxRelVec(got, want []float64) float64 {
	scale, diff := 0.0, 0.0
	for i := range want {
		scale = math.Max(scale, math.Abs(want[i]))
		diff = math.Max(diff, math.Abs(got[i]-want[i]))
	}
	if diff == 0 {
		return 0
	}
	return diff / scale
}

// Sum returns Σ v_i, added in order.
func Sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

// Shards splits 0..n-1 into w consecutive ranges.
func Shards(n, w int) [][]int {
	out := make([][]int, w)
	for s := range out {
		lo, hi := s*n/w, (s+1)*n/w
		for i := lo; i < hi; i++ {
			out[s] = append(out[s], i)
		}
	}
	return out
}

// BatchRun runs full-batch iterations: every worker processes all its
// points under the same θ (in goroutines when parallel), the deltas are
// merged in worker order and applied once. It returns θ after each
// iteration (thetas[0] = θ0) and the objective for each (NaN where
// evalAt is non-nil and false).
func BatchRun(t testing.TB, alg algorithms.Algorithm, parts [][]int, theta0 []float64, iters int, parallel bool, evalAt func(it int) bool) (thetas [][]float64, objs []float64) {
	t.Helper()
	srv, err := alg.NewServer(theta0)
	if err != nil {
		t.Fatal(err)
	}
	ws := make([]algorithms.Worker, len(parts))
	ds := make([]*algorithms.Delta, len(parts))
	for i, p := range parts {
		if ws[i], err = alg.NewWorker(p); err != nil {
			t.Fatal(err)
		}
		ds[i] = algorithms.NewDelta(alg.Layout())
	}
	each := func(f func(i int)) {
		if !parallel {
			for i := range ws {
				f(i)
			}
			return
		}
		var wg sync.WaitGroup
		for i := range ws {
			wg.Add(1)
			go func() { defer wg.Done(); f(i) }()
		}
		wg.Wait()
	}
	eval := func() float64 {
		if evalAt != nil && !evalAt(len(objs)) {
			return math.NaN()
		}
		theta := srv.Params()
		parts := make([]algorithms.Partial, len(ws))
		each(func(i int) { ws[i].SetParams(theta); parts[i] = ws[i].Evaluate() })
		return alg.Objective(theta, parts...)
	}
	thetas = append(thetas, append([]float64(nil), srv.Params()...))
	objs = append(objs, eval())
	for it := 0; it < iters; it++ {
		theta := srv.Params()
		each(func(i int) {
			ds[i].Reset()
			ws[i].SetParams(theta)
			ws[i].Process(0, ws[i].Len(), ds[i])
		})
		for i := 1; i < len(ds); i++ {
			if err := ds[0].Merge(ds[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := srv.Apply(ds[0]); err != nil {
			t.Fatal(err)
		}
		thetas = append(thetas, append([]float64(nil), srv.Params()...))
		objs = append(objs, eval())
	}
	return thetas, objs
}

// FullPass processes every shard of parts once under theta0, in batches of
// 1 to maxBatch points cut at random by rng, applying each batch's delta to
// a new server from theta0 as soon as it is computed. Since every worker
// keeps θ0, the server ends one batch EM step from θ0; it is returned.
func FullPass(t testing.TB, rng *rand.Rand, alg algorithms.Algorithm, parts [][]int, theta0 []float64, maxBatch int) algorithms.Server {
	t.Helper()
	srv, err := alg.NewServer(theta0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		w, err := alg.NewWorker(p)
		if err != nil {
			t.Fatal(err)
		}
		w.SetParams(theta0)
		for lo := 0; lo < len(p); {
			hi := min(len(p), lo+1+rng.IntN(maxBatch))
			d := algorithms.NewDelta(alg.Layout())
			w.Process(lo, hi, d)
			if err := srv.Apply(d); err != nil {
				t.Fatal(err)
			}
			lo = hi
		}
	}
	return srv
}
