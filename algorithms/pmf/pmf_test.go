package pmf

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/internal/gdtest"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/dataset"
)

// refPMF mirrors testdata/gd/pmf.json.
type refPMF struct {
	Users, Items, Rank int
	User, Item         []int32
	Value              []float64
	Theta0             []float64
	Lambda             float64
	Momentum           float64
	SGD                refRun `json:"sgd"`
	Nesterov           refRun `json:"nesterov"`
}

type refRun struct {
	LR    float64
	Theta [][]float64
	RMSE  []float64
}

func (r *refPMF) ratings() *dataset.Ratings {
	return &dataset.Ratings{NumUsers: r.Users, NumItems: r.Items, User: r.User, Item: r.Item, Value: r.Value}
}

// One worker, full-batch updates: textbook gradient descent (plain and
// Nesterov), checked step by step against numpy.
func TestFullBatchMatchesNumpy(t *testing.T) {
	ref := gdtest.LoadJSON[refPMF](t, "pmf.json")
	for name, c := range map[string]struct {
		run refRun
		opt optim.Config
	}{
		"sgd":      {ref.SGD, optim.Config{Method: optim.SGD, LR: ref.SGD.LR}},
		"nesterov": {ref.Nesterov, optim.Config{Method: optim.Nesterov, LR: ref.Nesterov.LR, Momentum: ref.Momentum}},
	} {
		t.Run(name, func(t *testing.T) {
			alg, err := New(ref.ratings(), Config{Rank: ref.Rank, Lambda: ref.Lambda, Optim: c.opt})
			if err != nil {
				t.Fatal(err)
			}
			tr := gdtest.NewTrainer(t, alg, ref.Theta0, 1)
			worstθ, worstF := 0.0, 0.0
			for s, want := range c.run.Theta {
				f := tr.Objective()
				worstF = max(worstF, math.Abs(f-c.run.RMSE[s])/c.run.RMSE[s])
				tr.Step(t, 0)
				e := gdtest.RelErr(tr.Server.Params(), want)
				worstθ = max(worstθ, e)
				if e > 1e-12 {
					t.Fatalf("step %d: θ = %v\nwant %v (rel err %.3g)", s+1, tr.Server.Params(), want, e)
				}
			}
			f, want := tr.Objective(), c.run.RMSE[len(c.run.Theta)]
			worstF = max(worstF, math.Abs(f-want)/want)
			if worstF > 1e-12 {
				t.Errorf("RMSE rel err %.3g > 1e-12", worstF)
			}
			// User 6 has no ratings: its row is never touched.
			r := ref.Rank
			if !slices.Equal(tr.Server.Params()[6*r:7*r], ref.Theta0[6*r:7*r]) {
				t.Errorf("unrated user's row moved: %v → %v", ref.Theta0[6*r:7*r], tr.Server.Params()[6*r:7*r])
			}
			t.Logf("max rel err over %d steps: θ %.3g, RMSE %.3g", len(c.run.Theta), worstθ, worstF)
		})
	}
}

// Mini-batch training on low-rank synthetic ratings brings the RMSE down to
// near the noise level (noise sd 0.5, slightly less after clipping to 1..5).
func TestConvergesToNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	data := dataset.LowRankRatings(rng, 300, 200, 5, 30000, 0.5)
	// Rank 8 > 5: U·Mᵀ has no bias term, one factor carries the mean 3.
	alg, err := New(data, Config{Rank: 8, Lambda: 0.02, Optim: optim.Config{Method: optim.Nesterov, Momentum: 0.8, LR: 10}})
	if err != nil {
		t.Fatal(err)
	}
	theta0, _ := alg.Init(rng)
	tr := gdtest.NewTrainer(t, alg, theta0, 2)
	prev := tr.Objective()
	first := prev
	for epoch := range 12 {
		for range 30 { // 2 workers × 500 = batch 1000
			tr.Step(t, 500)
		}
		f := tr.Objective()
		if f > prev*1.02 {
			t.Errorf("epoch %d: RMSE rose from %.4f to %.4f", epoch, prev, f)
		}
		prev = f
	}
	t.Logf("RMSE %.4f → %.4f after 12 epochs", first, prev)
	if prev > 0.52 {
		t.Errorf("RMSE after 12 epochs = %.4f; want < 0.52 (noise sd 0.5)", prev)
	}
}

func TestMultiWorkerEqualsSingle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	data := dataset.LowRankRatings(rng, 40, 30, 3, 600, 1)
	alg, err := New(data, Config{Rank: 4, Lambda: 0.1, Optim: optim.Config{Method: optim.Adam, LR: 0.05}})
	if err != nil {
		t.Fatal(err)
	}
	theta0, _ := alg.Init(rng)
	one := gdtest.NewTrainer(t, alg, theta0, 1).Run(t, 15, 0)
	five := gdtest.NewTrainer(t, alg, theta0, 5).Run(t, 15, 0)
	if e := gdtest.RelErr(five.Server.Params(), one.Server.Params()); e > 1e-12 {
		t.Errorf("5 workers differ from 1 by %.3g", e)
	}
	if a, b := one.Objective(), five.Objective(); math.Abs(a-b) > 1e-12*a {
		t.Errorf("RMSE 1 worker %v, 5 workers %v", a, b)
	}
}

func TestDeterminism(t *testing.T) {
	train := func() []float64 {
		rng := rand.New(rand.NewPCG(5, 5))
		data := dataset.LowRankRatings(rng, 50, 40, 3, 2000, 1)
		alg, _ := New(data, Config{Rank: 6})
		theta0, _ := alg.Init(rng)
		return slices.Clone(gdtest.NewTrainer(t, alg, theta0, 3).Run(t, 40, 64).Params())
	}
	if a, b := train(), train(); !slices.Equal(a, b) {
		t.Error("two runs with one seed differ")
	}
}

// A delta touches exactly the user rows and item rows of its ratings.
func TestDeltaTouchesRows(t *testing.T) {
	data := &dataset.Ratings{NumUsers: 4, NumItems: 3,
		User: []int32{2, 0, 2}, Item: []int32{1, 1, 0}, Value: []float64{5, 3, 1}}
	alg, err := New(data, Config{Rank: 2})
	if err != nil {
		t.Fatal(err)
	}
	theta0, _ := alg.Init(rand.New(rand.NewPCG(1, 2)))
	w, _ := alg.NewWorker([]int{0, 2})
	w.SetParams(theta0)
	d := algorithms.NewDelta(alg.Layout())
	w.Process(0, 2, d)
	// users 2; items 1 and 0 are blocks 4+1, 4+0
	if got, want := d.Blocks(), []int32{2, 4, 5}; !slices.Equal(got, want) {
		t.Errorf("blocks %v; want %v", got, want)
	}
	d.Range(func(i int, v float64) bool {
		if v == 0 {
			t.Errorf("live entry %d is zero", i)
		}
		return true
	})
	for i, v := range d.Vec {
		if b := int32(i / 2); v != 0 && !slices.Contains(d.Blocks(), b) {
			t.Errorf("entry %d outside the live blocks is %v", i, v)
		}
	}
	if d.Count != 2 {
		t.Errorf("count %d; want 2", d.Count)
	}
}

func TestApplyRefusesBadDeltas(t *testing.T) {
	ref := gdtest.LoadJSON[refPMF](t, "pmf.json")
	alg, _ := New(ref.ratings(), Config{Rank: ref.Rank, Optim: optim.Config{Method: optim.Nesterov, LR: 0.1}})
	tr := gdtest.NewTrainer(t, alg, ref.Theta0, 1)
	tr.Step(t, 0)
	before := slices.Clone(tr.Server.Params())
	d := algorithms.NewDelta(alg.Layout())
	tr.Workers[0].SetParams(tr.Server.Params())
	tr.Workers[0].Process(0, 3, d)
	d.Vec[int(ref.User[1])*ref.Rank] = math.NaN()
	var nf *algorithms.NonFiniteError
	if err := tr.Server.Apply(d); !errors.As(err, &nf) {
		t.Errorf("Apply(NaN) = %v; want *NonFiniteError", err)
	}
	for _, l := range []algorithms.Layout{
		{Params: alg.Layout().Params, Delta: alg.Layout().Delta},
		{Params: alg.Layout().Params, Delta: alg.Layout().Delta, Block: ref.Rank + 1},
		{Params: 6, Delta: 6, Block: ref.Rank},
	} {
		bad := algorithms.NewDelta(l)
		bad.Count = 1
		if err := tr.Server.Apply(bad); !errors.Is(err, algorithms.ErrLayout) {
			t.Errorf("Apply(layout %+v) = %v; want ErrLayout", l, err)
		}
	}
	if !slices.Equal(before, tr.Server.Params()) || tr.Server.Steps() != 1 {
		t.Error("refused deltas changed the server")
	}
}

func TestBadInput(t *testing.T) {
	good := &dataset.Ratings{NumUsers: 2, NumItems: 2, User: []int32{0, 1}, Item: []int32{1, 0}, Value: []float64{1, 2}}
	for name, c := range map[string]struct {
		data *dataset.Ratings
		cfg  Config
	}{
		"nil":        {nil, Config{}},
		"nan":        {&dataset.Ratings{NumUsers: 2, NumItems: 2, User: []int32{0}, Item: []int32{1}, Value: []float64{math.NaN()}}, Config{}},
		"user range": {&dataset.Ratings{NumUsers: 2, NumItems: 2, User: []int32{2}, Item: []int32{1}, Value: []float64{1}}, Config{}},
		"rank":       {good, Config{Rank: -3}},
		"lambda":     {good, Config{Lambda: -1}},
		"init":       {good, Config{InitStd: math.Inf(1)}},
		"optim":      {good, Config{Optim: optim.Config{Method: optim.Nesterov, Momentum: 1.5}}},
	} {
		if _, err := New(c.data, c.cfg); err == nil {
			t.Errorf("%s: New succeeded", name)
		}
	}
	// A bad rating wraps ErrConfig and names the rating, its user and item
	// and the value.
	bad := &dataset.Ratings{NumUsers: 2, NumItems: 2, User: []int32{0, 1}, Item: []int32{1, 0}, Value: []float64{1, math.Inf(-1)}}
	if _, err := New(bad, Config{}); !errors.Is(err, algorithms.ErrConfig) || !strings.Contains(err.Error(), "rating 1 (user 1, item 0) is -Inf") {
		t.Errorf("New(-Inf rating) = %v", err)
	}
	alg, err := New(good, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if c := alg.Config(); c.Rank != 20 || c.InitStd != 0.1 || c.Optim.Method != optim.Nesterov || c.Optim.Momentum != 0.8 {
		t.Errorf("defaults %+v", c)
	}
	if _, err := alg.NewWorker([]int{2}); !errors.Is(err, algorithms.ErrLayout) {
		t.Errorf("NewWorker(out of range) = %v", err)
	}
	if _, err := alg.Init(nil); err == nil {
		t.Error("Init(nil) succeeded")
	}
	if _, err := alg.NewServer(make([]float64, 3)); !errors.Is(err, algorithms.ErrLayout) {
		t.Errorf("NewServer(short) = %v", err)
	}
	if f := alg.Objective(nil); !math.IsNaN(f) {
		t.Errorf("Objective() = %v; want NaN", f)
	}
}
