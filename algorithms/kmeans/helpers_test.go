package kmeans

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/dataset"
)

// refDir holds the reference outputs written by make_refs.py.
var refDir = filepath.Join("..", "..", "testdata", "sklearn")

// readBlobs reads testdata/sklearn/blobs.csv (300×4).
func readBlobs(t testing.TB) *dataset.Dense {
	t.Helper()
	f, err := os.Open(filepath.Join(refDir, "blobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	m := &dataset.Dense{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		m.D = len(rec)
		for _, s := range rec {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				t.Fatal(err)
			}
			m.X = append(m.X, v)
		}
		m.N++
	}
	return m
}

func readJSON(t testing.TB, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(refDir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

var (
	fashionOnce sync.Once
	fashion     *dataset.Dense
	fashionErr  error
)

// fashionTrain returns the Fashion-MNIST training images or skips the test.
func fashionTrain(t testing.TB) *dataset.Dense {
	t.Helper()
	fashionOnce.Do(func() {
		fashion, fashionErr = dataset.ReadIDXImages(filepath.Join(dataset.FashionMNISTDir, "train-images-idx3-ubyte.gz"))
	})
	if fashionErr != nil {
		if os.IsNotExist(fashionErr) || strings.Contains(fashionErr.Error(), "no such file") {
			t.Skipf("Fashion-MNIST not installed (apt-get install dataset-fashion-mnist): %v", fashionErr)
		}
		t.Fatal(fashionErr)
	}
	return fashion
}

func relErr(got, want float64) float64 {
	if got == want {
		return 0
	}
	return math.Abs(got-want) / math.Max(math.Abs(want), 1e-300)
}

// maxRelVec returns max_i |got_i − want_i| / max_i |want_i|.
func maxRelVec(got, want []float64) float64 {
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

// shards splits 0..n-1 into w consecutive ranges.
func shards(n, w int) [][]int {
	out := make([][]int, w)
	for s := range out {
		lo, hi := s*n/w, (s+1)*n/w
		for i := lo; i < hi; i++ {
			out[s] = append(out[s], i)
		}
	}
	return out
}

// batchRun runs full-batch iterations: every worker processes all its
// points under the same θ (in goroutines when parallel), the deltas are
// merged in worker order and applied once. It returns θ after each
// iteration (thetas[0] = θ0) and the objective for each (NaN where
// evalAt is non-nil and false).
func batchRun(t testing.TB, alg algorithms.Algorithm, parts [][]int, theta0 []float64, iters int, parallel bool, evalAt func(it int) bool) (thetas [][]float64, objs []float64) {
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
