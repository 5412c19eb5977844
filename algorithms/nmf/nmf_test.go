package nmf

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/internal/gdtest"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/dataset"
)

// refNMF mirrors testdata/gd/nmf.json.
type refNMF struct {
	N, D, Rank int
	X          [][]float64
	Theta0     []float64
	LR         float64
	Theta      map[string][]float64
	Objective  []float64
}

func (r *refNMF) data() *dataset.Dense {
	m := &dataset.Dense{N: r.N, D: r.D}
	for _, row := range r.X {
		m.X = append(m.X, row...)
	}
	return m
}

// One worker, full-batch updates: the simultaneous projected GD update,
// checked against numpy for 1 and 10 steps.
func TestFullBatchMatchesNumpy(t *testing.T) {
	ref := gdtest.LoadJSON[refNMF](t, "nmf.json")
	alg, err := New(ref.data(), Config{Rank: ref.Rank, Optim: optim.Config{LR: ref.LR}})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{1, 3} {
		tr := gdtest.NewTrainer(t, alg, ref.Theta0, k)
		worstθ, worstF := 0.0, 0.0
		for s := 0; s <= 10; s++ {
			if s > 0 {
				tr.Step(t, 0)
			}
			f := tr.Objective()
			worstF = max(worstF, math.Abs(f-ref.Objective[s])/ref.Objective[s])
			if want, ok := ref.Theta[strconv.Itoa(s)]; ok {
				e := gdtest.RelErr(tr.Server.Params(), want)
				worstθ = max(worstθ, e)
				if e > 1e-12 {
					t.Errorf("%d workers, step %d: θ = %v\nwant %v (rel err %.3g)", k, s, tr.Server.Params(), want, e)
				}
			}
		}
		if worstF > 1e-12 {
			t.Errorf("%d workers: objective rel err %.3g > 1e-12", k, worstF)
		}
		t.Logf("%d workers: max rel err θ %.3g, objective %.3g", k, worstθ, worstF)
	}
}

// lowRank returns max(0, W·H + noise) for random non-negative W (n×r) and
// H (r×d).
func lowRank(rng *rand.Rand, n, d, r int, noise float64) *dataset.Dense {
	W := make([]float64, n*r)
	H := make([]float64, r*d)
	for i := range W {
		W[i] = math.Abs(rng.NormFloat64())
	}
	for i := range H {
		H[i] = math.Abs(rng.NormFloat64())
	}
	m := &dataset.Dense{N: n, D: d, X: make([]float64, n*d)}
	for i := range n {
		for j := range d {
			s := 0.0
			for k := range r {
				s += W[i*r+k] * H[k*d+j]
			}
			m.X[i*d+j] = max(0, s+noise*rng.NormFloat64())
		}
	}
	return m
}

// Projected mini-batch GD on rank-4 data drives the objective down to the
// noise level (½·d·σ² per row) and keeps θ non-negative.
func TestConvergesOnLowRank(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const n, d, r, sigma = 400, 30, 4, 0.1
	data := lowRank(rng, n, d, r, sigma)
	for _, oc := range []optim.Config{
		{Method: optim.SGD, LR: 0.01},
		{Method: optim.Nesterov, LR: 0.01, Momentum: 0.5},
	} {
		t.Run(oc.Method.String(), func(t *testing.T) {
			alg, err := New(data, Config{Rank: r, Optim: oc, HScale: 5})
			if err != nil {
				t.Fatal(err)
			}
			theta0, _ := alg.Init(rand.New(rand.NewPCG(1, 1)))
			tr := gdtest.NewTrainer(t, alg, theta0, 2)
			first := tr.Objective()
			prev := first
			for epoch := range 100 {
				for range 4 { // 2 workers × 50 rows = batch 100
					tr.Step(t, 50)
				}
				if epoch%10 == 9 {
					f := tr.Objective()
					if f > prev*1.01 {
						t.Errorf("epoch %d: objective rose from %.5f to %.5f", epoch, prev, f)
					}
					prev = f
				}
			}
			noise := 0.5 * d * sigma * sigma
			t.Logf("objective %.4f → %.5f after 100 epochs (noise level %.5f)", first, prev, noise)
			if prev > 1.5*noise {
				t.Errorf("objective %.5f; want < 1.5 × noise level %.5f", prev, noise)
			}
			for i, v := range tr.Server.Params() {
				if v < 0 {
					t.Fatalf("θ[%d] = %v < 0", i, v)
				}
			}
		})
	}
}

func TestMultiWorkerEqualsSingle(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	data := lowRank(rng, 60, 12, 3, 0.1)
	alg, _ := New(data, Config{Rank: 3, Optim: optim.Config{Method: optim.Nesterov, LR: 0.005, Momentum: 0.5}, HScale: 5})
	theta0, _ := alg.Init(rng)
	one := gdtest.NewTrainer(t, alg, theta0, 1).Run(t, 20, 0)
	four := gdtest.NewTrainer(t, alg, theta0, 4).Run(t, 20, 0)
	if e := gdtest.RelErr(four.Server.Params(), one.Server.Params()); e > 1e-12 {
		t.Errorf("4 workers differ from 1 by %.3g", e)
	}
}

func TestDeterminism(t *testing.T) {
	train := func() []float64 {
		rng := rand.New(rand.NewPCG(8, 8))
		data := lowRank(rng, 50, 10, 2, 0.2)
		alg, _ := New(data, Config{Rank: 3, Optim: optim.Config{Method: optim.Adam, LR: 0.01}})
		theta0, _ := alg.Init(rng)
		return slices.Clone(gdtest.NewTrainer(t, alg, theta0, 2).Run(t, 30, 7).Params())
	}
	if a, b := train(), train(); !slices.Equal(a, b) {
		t.Error("two runs with one seed differ")
	}
}

// A delta touches the W rows of its points and all of H, nothing else.
func TestDeltaBlocks(t *testing.T) {
	ref := gdtest.LoadJSON[refNMF](t, "nmf.json")
	alg, _ := New(ref.data(), Config{Rank: ref.Rank})
	w, _ := alg.NewWorker([]int{5, 2, 7})
	w.SetParams(ref.Theta0)
	d := algorithms.NewDelta(alg.Layout())
	w.Process(0, 2, d) // rows 5 and 2
	want := []int32{2, 5}
	for b := ref.N; b < ref.N+ref.D; b++ {
		want = append(want, int32(b))
	}
	if got := d.Blocks(); !slices.Equal(got, want) {
		t.Errorf("blocks %v; want %v", got, want)
	}
	for i, v := range d.Vec[:ref.N*ref.Rank] {
		if row := i / ref.Rank; v != 0 && row != 2 && row != 5 {
			t.Errorf("W entry %d (row %d) is %v", i, row, v)
		}
	}
	if d.Count != 2 {
		t.Errorf("count %d", d.Count)
	}
	// An empty range touches nothing.
	e := algorithms.NewDelta(alg.Layout())
	w.Process(1, 1, e)
	if len(e.Blocks()) != 0 || e.Count != 0 {
		t.Errorf("empty Process touched %v", e.Blocks())
	}
}

func TestApplyRefusesBadDeltas(t *testing.T) {
	ref := gdtest.LoadJSON[refNMF](t, "nmf.json")
	alg, _ := New(ref.data(), Config{Rank: ref.Rank, Optim: optim.Config{Method: optim.Adam}})
	tr := gdtest.NewTrainer(t, alg, ref.Theta0, 1)
	tr.Step(t, 0)
	before := slices.Clone(tr.Server.Params())
	d := algorithms.NewDelta(alg.Layout())
	tr.Workers[0].Process(0, 2, d)
	d.Vec[len(d.Vec)-1] = math.Inf(1)
	var nf *algorithms.NonFiniteError
	if err := tr.Server.Apply(d); !errors.As(err, &nf) {
		t.Errorf("Apply(Inf) = %v; want *NonFiniteError", err)
	}
	bad := algorithms.NewDelta(algorithms.Layout{Params: alg.Layout().Params, Delta: alg.Layout().Delta, Block: 1})
	bad.Count = 1
	if err := tr.Server.Apply(bad); !errors.Is(err, algorithms.ErrLayout) {
		t.Errorf("Apply(block 1) = %v; want ErrLayout", err)
	}
	if !slices.Equal(before, tr.Server.Params()) || tr.Server.Steps() != 1 {
		t.Error("refused deltas changed the server")
	}
}

func TestBadInput(t *testing.T) {
	good := &dataset.Dense{N: 2, D: 2, X: []float64{1, 0, 2, 3}}
	for name, c := range map[string]struct {
		data *dataset.Dense
		cfg  Config
	}{
		"nil":      {nil, Config{}},
		"negative": {&dataset.Dense{N: 2, D: 2, X: []float64{1, 0, -2, 3}}, Config{}},
		"nan":      {&dataset.Dense{N: 1, D: 2, X: []float64{1, math.NaN()}}, Config{}},
		"no cols":  {&dataset.Dense{N: 2, D: 0}, Config{}},
		"rank":     {good, Config{Rank: -1}},
		"hscale":   {good, Config{HScale: -1}},
		"optim":    {good, Config{Optim: optim.Config{Epsilon: -1}}},
	} {
		if _, err := New(c.data, c.cfg); err == nil {
			t.Errorf("%s: New succeeded", name)
		}
	}
	_, err := New(&dataset.Dense{N: 2, D: 2, X: []float64{1, 0, -2, 3}}, Config{})
	if err == nil || !errors.Is(err, algorithms.ErrConfig) {
		t.Errorf("negative entry: %v", err)
	} else if want := "row 1 column 0 is -2"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name %q", err, want)
	}
	alg, _ := New(good, Config{Rank: 2})
	if c := alg.Config(); c.Rank != 2 || c.HScale != 1 {
		t.Errorf("config %+v", c)
	}
	if _, err := alg.NewServer([]float64{1, 1, 1, 1, 1, 1, 1, -1}); !errors.Is(err, algorithms.ErrConfig) || !strings.Contains(err.Error(), "θ0[7] = -1") {
		t.Errorf("NewServer(negative θ0) = %v; want ErrConfig", err)
	}
	if _, err := alg.NewServer([]float64{1}); !errors.Is(err, algorithms.ErrLayout) {
		t.Errorf("NewServer(short θ0) = %v; want ErrLayout", err)
	}
	if _, err := alg.NewWorker([]int{-1}); !errors.Is(err, algorithms.ErrLayout) {
		t.Errorf("NewWorker(-1) = %v", err)
	}
	if _, err := alg.Init(nil); err == nil {
		t.Error("Init(nil) succeeded")
	}
	if f := alg.Objective(nil); !math.IsNaN(f) {
		t.Errorf("Objective() = %v; want NaN", f)
	}
	theta, _ := alg.Init(rand.New(rand.NewPCG(1, 1)))
	if len(alg.W(theta)) != 4 || len(alg.H(theta)) != 4 {
		t.Error("W/H views have the wrong size")
	}
}
