package logreg

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/dataset"
)

func loadJSON(t testing.TB, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "gd", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// relErr returns max_i |got_i − want_i| / max(1e-300, max_i |want_i|).
func relErr(got, want []float64) float64 {
	scale, e := 1e-300, 0.0
	for _, w := range want {
		scale = max(scale, math.Abs(w))
	}
	for i := range want {
		e = max(e, math.Abs(got[i]-want[i]))
	}
	return e / scale
}

func relErr1(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

// shards splits 0..n-1 into k contiguous shards.
func shards(n, k int) [][]int {
	out := make([][]int, k)
	for s := range k {
		lo, hi := s*n/k, (s+1)*n/k
		for i := lo; i < hi; i++ {
			out[s] = append(out[s], i)
		}
	}
	return out
}

// run is a minimal BSP driver: k workers over contiguous shards, each step
// every worker processes its next batch points (0: its whole shard) under
// the current θ, the deltas merge in shard order and the server applies
// them. It returns the server and the workers (holding the final θ).
type run struct {
	alg     algorithms.Algorithm
	srv     algorithms.Server
	workers []algorithms.Worker
	cursor  []int
	deltas  []*algorithms.Delta
	merged  *algorithms.Delta
}

func newRun(t testing.TB, alg algorithms.Algorithm, theta0 []float64, k int) *run {
	t.Helper()
	srv, err := alg.NewServer(theta0)
	if err != nil {
		t.Fatal(err)
	}
	r := &run{alg: alg, srv: srv, merged: algorithms.NewDelta(alg.Layout()), cursor: make([]int, k)}
	for _, p := range shards(alg.NumPoints(), k) {
		w, err := alg.NewWorker(p)
		if err != nil {
			t.Fatal(err)
		}
		r.workers = append(r.workers, w)
		r.deltas = append(r.deltas, algorithms.NewDelta(alg.Layout()))
	}
	return r
}

func (r *run) step(t testing.TB, batch int) {
	t.Helper()
	r.merged.Reset()
	for i, w := range r.workers {
		w.SetParams(r.srv.Params())
		d := r.deltas[i]
		d.Reset()
		if batch == 0 {
			w.Process(0, w.Len(), d)
		} else {
			lo := r.cursor[i]
			hi := min(lo+batch, w.Len())
			w.Process(lo, hi, d)
			r.cursor[i] = hi % w.Len()
		}
		if err := r.merged.Merge(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.srv.Apply(r.merged); err != nil {
		t.Fatal(err)
	}
}

func (r *run) objective() float64 {
	parts := make([]algorithms.Partial, len(r.workers))
	for i, w := range r.workers {
		w.SetParams(r.srv.Params())
		parts[i] = w.Evaluate()
	}
	return r.alg.Objective(r.srv.Params(), parts...)
}

// refLR mirrors testdata/gd/logreg.json.
type refLR struct {
	N      int         `json:"n"`
	D      int         `json:"d"`
	X      [][]float64 `json:"X"`
	Y      []float64   `json:"y"`
	Lambda float64     `json:"lambda"`
	GD     struct {
		LR        float64              `json:"lr"`
		Theta     map[string][]float64 `json:"theta"`
		Objective []float64            `json:"objective"`
	} `json:"gd"`
	Adam     refOpt `json:"adam"`
	Nesterov refOpt `json:"nesterov"`
	Sklearn  struct {
		Estimator string    `json:"estimator"`
		Coef      []float64 `json:"coef"`
		Intercept float64   `json:"intercept"`
		Objective float64   `json:"objective"`
	} `json:"sklearn"`
	Source map[string]string `json:"source"`
}

type refOpt struct {
	LR    float64     `json:"lr"`
	Mu    float64     `json:"mu"`
	Eps   float64     `json:"eps"`
	Theta [][]float64 `json:"theta"`
}

func (r *refLR) dense() *dataset.Dense {
	m := &dataset.Dense{N: r.N, D: r.D, Labels: r.Y}
	for _, row := range r.X {
		m.X = append(m.X, row...)
	}
	return m
}

// toSparse returns the CSR form of m without its zero entries.
func toSparse(m *dataset.Dense) *dataset.Sparse {
	s := &dataset.Sparse{N: m.N, D: m.D, Indptr: []int{0}, Labels: m.Labels}
	for i := range m.N {
		for j, v := range m.Row(i) {
			if v != 0 {
				s.Indices = append(s.Indices, int32(j))
				s.Values = append(s.Values, v)
			}
		}
		s.Indptr = append(s.Indptr, len(s.Values))
	}
	return s
}

// toDense returns the dense form of s.
func toDense(s *dataset.Sparse) *dataset.Dense {
	m := &dataset.Dense{N: s.N, D: s.D, X: make([]float64, s.N*s.D), Labels: s.Labels}
	for i := range s.N {
		idx, val := s.Row(i)
		for k, j := range idx {
			m.X[i*s.D+int(j)] = val[k]
		}
	}
	return m
}
