package logreg

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

// variants returns the dense and the sparse algorithm on the reference data.
func variants(t *testing.T, ref *refLR, cfg Config) map[string]algorithms.Algorithm {
	t.Helper()
	dm := ref.dense()
	dn, err := NewDense(dm, cfg)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := NewSparse(toSparse(dm), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]algorithms.Algorithm{"dense": dn, "sparse": sp}
}

// One worker, full-batch updates, SGD: textbook gradient descent, checked
// against the numpy recomputation for 1 and 20 steps from zeros.
func TestGDMatchesNumpy(t *testing.T) {
	ref := gdtest.LoadJSON[refLR](t, "logreg.json")
	cfg := Config{Lambda: ref.Lambda, Optim: optim.Config{Method: optim.SGD, LR: ref.GD.LR}}
	for name, alg := range variants(t, ref, cfg) {
		t.Run(name, func(t *testing.T) {
			theta0, _ := alg.Init(nil)
			r := gdtest.NewTrainer(t, alg, theta0, 1)
			if e := relErr1(r.Objective(), ref.GD.Objective[0]); e > 1e-12 {
				t.Errorf("f(0) = %v; want %v", r.Objective(), ref.GD.Objective[0])
			}
			worstθ, worstF := 0.0, 0.0
			for s := 1; s <= 20; s++ {
				r.Step(t, 0)
				f := r.Objective()
				e := relErr1(f, ref.GD.Objective[s])
				worstF = max(worstF, e)
				if e > 1e-12 {
					t.Errorf("step %d: f = %.17g; want %.17g", s, f, ref.GD.Objective[s])
				}
				if want, ok := ref.GD.Theta[strconv.Itoa(s)]; ok {
					e := gdtest.RelErr(r.Server.Params(), want)
					worstθ = max(worstθ, e)
					if e > 1e-12 {
						t.Errorf("step %d: θ = %v; want %v (rel err %.3g)", s, r.Server.Params(), want, e)
					}
				}
			}
			t.Logf("max rel err: θ %.3g, objective %.3g", worstθ, worstF)
		})
	}
}

// Adam (ε 1e-9, η/√(epoch+1), the MLLess setting) and Nesterov momentum,
// five full-batch steps against numpy.
func TestOptimizersMatchNumpy(t *testing.T) {
	ref := gdtest.LoadJSON[refLR](t, "logreg.json")
	cases := map[string]struct {
		cfg  optim.Config
		want [][]float64
	}{
		"adam":     {optim.Config{Method: optim.Adam, LR: ref.Adam.LR, Epsilon: ref.Adam.Eps, Schedule: optim.InvSqrtEpoch}, ref.Adam.Theta},
		"nesterov": {optim.Config{Method: optim.Nesterov, LR: ref.Nesterov.LR, Momentum: ref.Nesterov.Mu}, ref.Nesterov.Theta},
	}
	for oname, c := range cases {
		for vname, alg := range variants(t, ref, Config{Lambda: ref.Lambda, Optim: c.cfg}) {
			t.Run(oname+"/"+vname, func(t *testing.T) {
				r := gdtest.NewTrainer(t, alg, make([]float64, ref.D+1), 1)
				worst := 0.0
				for s, want := range c.want {
					r.Step(t, 0)
					e := gdtest.RelErr(r.Server.Params(), want)
					worst = max(worst, e)
					if e > 1e-12 {
						t.Errorf("step %d: θ = %v; want %v (rel err %.3g)", s+1, r.Server.Params(), want, e)
					}
				}
				t.Logf("max rel err over %d steps: %.3g", len(c.want), worst)
			})
		}
	}
}

// Full-batch GD run to convergence reaches scikit-learn's optimum.
func TestConvergesToSklearn(t *testing.T) {
	ref := gdtest.LoadJSON[refLR](t, "logreg.json")
	want := append(slices.Clone(ref.Sklearn.Coef), ref.Sklearn.Intercept)
	cfg := Config{Lambda: ref.Lambda, Optim: optim.Config{Method: optim.SGD, LR: 2}}
	for name, alg := range variants(t, ref, cfg) {
		t.Run(name, func(t *testing.T) {
			r := gdtest.NewTrainer(t, alg, make([]float64, ref.D+1), 1).Run(t, 1500, 0)
			got := r.Server.Params()
			worst := 0.0
			for i := range want {
				e := math.Abs(got[i] - want[i])
				worst = max(worst, e)
			}
			if worst > 1e-6 {
				t.Errorf("θ = %v; want %v (max abs err %.3g)", got, want, worst)
			}
			f := r.Objective()
			if e := relErr1(f, ref.Sklearn.Objective); e > 1e-9 {
				t.Errorf("f = %.17g; want %.17g (rel err %.3g)", f, ref.Sklearn.Objective, e)
			}
			t.Logf("vs %s: max abs coef err %.3g, objective rel err %.3g",
				ref.Sklearn.Estimator, worst, relErr1(f, ref.Sklearn.Objective))
		})
	}
}

// Sparse LR on the CSR form of a data set equals dense LR with full-batch
// Adam from zeros (features that never occur stay at zero in both).
func TestSparseEqualsDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sp, _ := dataset.SparseLogistic(rng, 300, 64, 6)
	cfg := Config{Lambda: 0.01, Optim: optim.Config{Method: optim.Adam, LR: 0.05}}
	a, err := NewSparse(sp, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewDense(toDense(sp), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ra := gdtest.NewTrainer(t, a, make([]float64, 65), 1).Run(t, 25, 0)
	rb := gdtest.NewTrainer(t, b, make([]float64, 65), 1).Run(t, 25, 0)
	if e := gdtest.RelErr(ra.Server.Params(), rb.Server.Params()); e > 1e-12 {
		t.Errorf("sparse θ = %v\ndense θ = %v (rel err %.3g)", ra.Server.Params(), rb.Server.Params(), e)
	}
	if e := relErr1(ra.Objective(), rb.Objective()); e > 1e-12 {
		t.Errorf("objective sparse %v, dense %v", ra.Objective(), rb.Objective())
	}
}

// Several workers whose shards together make the batch equal one worker,
// to rounding.
func TestMultiWorkerEqualsSingle(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	dm, _ := dataset.Logistic(rng, 240, 12)
	cfg := Config{Lambda: 0.01, Optim: optim.Config{Method: optim.Nesterov, LR: 0.5, Momentum: 0.8}}
	for name, alg := range map[string]func() algorithms.Algorithm{
		"dense":  func() algorithms.Algorithm { a, _ := NewDense(dm, cfg); return a },
		"sparse": func() algorithms.Algorithm { a, _ := NewSparse(toSparse(dm), cfg); return a },
	} {
		t.Run(name, func(t *testing.T) {
			one := gdtest.NewTrainer(t, alg(), make([]float64, 13), 1).Run(t, 10, 0)
			four := gdtest.NewTrainer(t, alg(), make([]float64, 13), 4).Run(t, 10, 0)
			if e := gdtest.RelErr(four.Server.Params(), one.Server.Params()); e > 1e-12 {
				t.Errorf("4 workers θ = %v\n1 worker θ = %v (rel err %.3g)", four.Server.Params(), one.Server.Params(), e)
			}
			if e := relErr1(four.Objective(), one.Objective()); e > 1e-12 {
				t.Errorf("objective 4 workers %v, 1 worker %v", four.Objective(), one.Objective())
			}
		})
	}
}

// Same seed ⇒ same θ, bit for bit, through random init and mini-batches.
func TestDeterminism(t *testing.T) {
	train := func() []float64 {
		rng := rand.New(rand.NewPCG(9, 9))
		dm, _ := dataset.Logistic(rng, 200, 8)
		alg, err := NewDense(dm, Config{Lambda: 0.1, InitStd: 0.1, Optim: optim.Config{Method: optim.Adam, LR: 0.05, Schedule: optim.InvSqrtEpoch}})
		if err != nil {
			t.Fatal(err)
		}
		theta0, err := alg.Init(rng)
		if err != nil {
			t.Fatal(err)
		}
		return slices.Clone(gdtest.NewTrainer(t, alg, theta0, 3).Run(t, 30, 16).Params())
	}
	a, b := train(), train()
	if !slices.Equal(a, b) {
		t.Errorf("two runs with one seed differ:\n%v\n%v", a, b)
	}
	if a[0] == 0 {
		t.Error("InitStd > 0 gave no random init")
	}
}

func TestApplyRefusesBadDeltas(t *testing.T) {
	ref := gdtest.LoadJSON[refLR](t, "logreg.json")
	for name, alg := range variants(t, ref, Config{Lambda: ref.Lambda, Optim: optim.Config{Method: optim.Adam}}) {
		t.Run(name, func(t *testing.T) {
			r := gdtest.NewTrainer(t, alg, make([]float64, ref.D+1), 1)
			r.Step(t, 0)
			before := slices.Clone(r.Server.Params())
			l := alg.Layout()
			d := algorithms.NewDelta(l)
			r.Workers[0].Process(0, 10, d)
			d.Vec[l.Delta-1] = math.NaN() // the bias is always live
			var nf *algorithms.NonFiniteError
			if err := r.Server.Apply(d); !errors.As(err, &nf) {
				t.Errorf("Apply(NaN) = %v; want *NonFiniteError", err)
			}
			d.Vec[l.Delta-1] = math.Inf(1)
			if err := r.Server.Apply(d); !errors.As(err, &nf) {
				t.Errorf("Apply(+Inf) = %v; want *NonFiniteError", err)
			}
			wrong := algorithms.NewDelta(algorithms.Layout{Params: l.Params + 1, Delta: l.Delta + 1, Block: l.Block})
			wrong.Count = 1
			if err := r.Server.Apply(wrong); !errors.Is(err, algorithms.ErrLayout) {
				t.Errorf("Apply(wrong length) = %v; want ErrLayout", err)
			}
			other := algorithms.NewDelta(algorithms.Layout{Params: l.Params, Delta: l.Delta, Block: 1 - l.Block})
			other.Count = 1
			if err := r.Server.Apply(other); !errors.Is(err, algorithms.ErrLayout) {
				t.Errorf("Apply(wrong block) = %v; want ErrLayout", err)
			}
			if !slices.Equal(r.Server.Params(), before) || r.Server.Steps() != 1 {
				t.Errorf("refused deltas changed θ: %v → %v (steps %d)", before, r.Server.Params(), r.Server.Steps())
			}
		})
	}
}

// A sparse delta touches exactly the features of its points and the bias.
func TestSparseDeltaBlocks(t *testing.T) {
	sp := &dataset.Sparse{
		N: 3, D: 10,
		Indptr:  []int{0, 2, 3, 5},
		Indices: []int32{1, 7, 3, 1, 8},
		Values:  []float64{1, 2, 3, 4, 5},
		Labels:  []float64{1, 0, 1},
	}
	alg, err := NewSparse(sp, Config{})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := alg.NewWorker([]int{0, 1, 2})
	w.SetParams(make([]float64, 11))
	d := algorithms.NewDelta(alg.Layout())
	w.Process(0, 1, d)
	w.Process(2, 3, d)
	if got, want := d.Blocks(), []int32{1, 7, 8, 10}; !slices.Equal(got, want) {
		t.Errorf("rows 0 and 2 touch blocks %v; want %v", got, want)
	}
	// θ = 0: residual σ(0) − y = −0.5 for y = 1.
	if d.Vec[1] != -0.5*1-0.5*4 || d.Vec[10] != -1 || d.Vec[3] != 0 || d.Count != 2 {
		t.Errorf("delta %v count %d", d.Vec, d.Count)
	}
}

func TestLabels(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 6}
	pm, err := NewDense(&dataset.Dense{N: 3, D: 2, X: x, Labels: []float64{1, -1, 1}}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	zo, _ := NewDense(&dataset.Dense{N: 3, D: 2, X: x, Labels: []float64{1, 0, 1}}, Config{})
	theta := []float64{0.3, -0.2, 0.1}
	ev := func(a *Dense) algorithms.Partial {
		w, _ := a.NewWorker([]int{0, 1, 2})
		w.SetParams(theta)
		return w.Evaluate()
	}
	if ev(pm) != ev(zo) {
		t.Errorf("labels ±1 give %v, labels 0/1 %v", ev(pm), ev(zo))
	}
	_, err = NewDense(&dataset.Dense{N: 3, D: 2, X: x, Labels: []float64{1, 2, 0}}, Config{})
	var le *LabelError
	if !errors.As(err, &le) || le.Row != 1 || le.Label != 2 {
		t.Errorf("label 2 in row 1: %v; want *LabelError{Row: 1}", err)
	}
	_, err = NewSparse(&dataset.Sparse{N: 1, D: 1, Indptr: []int{0, 0}, Labels: []float64{0.5}}, Config{})
	if !errors.As(err, &le) || le.Row != 0 {
		t.Errorf("sparse label 0.5: %v; want *LabelError", err)
	}
	if _, err := NewDense(&dataset.Dense{N: 3, D: 2, X: x}, Config{}); err == nil {
		t.Error("nil labels accepted")
	}
}

func TestBadInput(t *testing.T) {
	good := &dataset.Dense{N: 2, D: 2, X: []float64{1, 2, 3, 4}, Labels: []float64{0, 1}}
	nan := &dataset.Dense{N: 2, D: 2, X: []float64{1, 2, math.NaN(), 4}, Labels: []float64{0, 1}}
	for name, tc := range map[string]struct {
		data *dataset.Dense
		cfg  Config
	}{
		"nil":          {nil, Config{}},
		"nan feature":  {nan, Config{}},
		"short X":      {&dataset.Dense{N: 2, D: 2, X: []float64{1}, Labels: []float64{0, 1}}, Config{}},
		"neg lambda":   {good, Config{Lambda: -1}},
		"nan lambda":   {good, Config{Lambda: math.NaN()}},
		"neg init std": {good, Config{InitStd: -1}},
		"bad optim":    {good, Config{Optim: optim.Config{LR: -2}}},
	} {
		if _, err := NewDense(tc.data, tc.cfg); err == nil {
			t.Errorf("%s: NewDense succeeded", name)
		}
	}
	alg, _ := NewDense(good, Config{})
	if _, err := alg.NewWorker([]int{0, 2}); !errors.Is(err, algorithms.ErrLayout) {
		t.Errorf("NewWorker(point 2 of 2) = %v; want ErrLayout", err)
	}
	if _, err := alg.NewServer([]float64{0, 0}); !errors.Is(err, algorithms.ErrLayout) {
		t.Errorf("NewServer(short θ0) = %v; want ErrLayout", err)
	}
	if f := alg.Objective([]float64{0, 0, 0}); !math.IsNaN(f) {
		t.Errorf("Objective of no points = %v; want NaN", f)
	}
	// Data errors wrap ErrConfig and name the row, the feature and the value.
	_, err := NewDense(nan, Config{})
	if !errors.Is(err, algorithms.ErrConfig) || !strings.Contains(err.Error(), "row 1 feature 0 is NaN") {
		t.Errorf("NewDense(NaN at row 1 feature 0) = %v", err)
	}
	sp := &dataset.Sparse{N: 1, D: 2, Indptr: []int{0, 1}, Indices: []int32{1}, Values: []float64{math.Inf(1)}, Labels: []float64{1}}
	if _, err := NewSparse(sp, Config{}); !errors.Is(err, algorithms.ErrConfig) || !strings.Contains(err.Error(), "row 0 feature 1 is +Inf") {
		t.Errorf("NewSparse(+Inf at row 0 feature 1) = %v", err)
	}
	// Empty rows before the bad value: the row is still found.
	sp = &dataset.Sparse{N: 4, D: 3, Indptr: []int{0, 1, 1, 1, 3}, Indices: []int32{2, 0, 2}, Values: []float64{1, 2, math.NaN()}, Labels: []float64{1, 0, 1, 0}}
	if _, err := NewSparse(sp, Config{}); !errors.Is(err, algorithms.ErrConfig) || !strings.Contains(err.Error(), "row 3 feature 2 is NaN") {
		t.Errorf("NewSparse(NaN at row 3 feature 2) = %v", err)
	}
	if _, err := NewSparse(nil, Config{}); err == nil {
		t.Error("NewSparse accepted nil")
	}
	if _, err := (&model{cfg: Config{InitStd: 1}, d: 1}).Init(nil); err == nil {
		t.Error("Init with InitStd and no rng succeeded")
	}
}

func TestLogLossStable(t *testing.T) {
	for _, c := range []struct{ z, y, want float64 }{
		{0, 1, math.Ln2},
		{0, 0, math.Ln2},
		{800, 1, 0},
		{-800, 0, 0},
		{800, 0, 800},
		{-800, 1, 800},
		{40, 1, math.Exp(-40)},
	} {
		got := logLoss(c.z, c.y)
		if math.Abs(got-c.want) > 1e-15*max(1, c.want) {
			t.Errorf("logLoss(%v, %v) = %v; want %v", c.z, c.y, got, c.want)
		}
	}
	if s := sigmoid(-800); s != 0 || math.IsNaN(s) {
		t.Errorf("sigmoid(-800) = %v", s)
	}
	if s := sigmoid(800); s != 1 {
		t.Errorf("sigmoid(800) = %v", s)
	}
}

func TestProb(t *testing.T) {
	if p := Prob([]float64{1, 2, -1}, []float64{0.5, 0.25}); math.Abs(p-0.5) > 1e-16 {
		t.Errorf("Prob = %v; want 0.5", p)
	}
}
