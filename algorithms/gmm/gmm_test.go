package gmm

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/internal/emtest"
	"github.com/syncmodels/syncmodels/algorithms/kmeans"
	"github.com/syncmodels/syncmodels/dataset"
)

type checksum struct {
	RowSums     []float64 `json:"row_sums"`
	WeightedSum float64   `json:"weighted_sum"`
}

// gmmRef is the layout of gmm_blobs.json and gmm_fashion.json.
type gmmRef struct {
	Source   string  `json:"source"`
	K        int     `json:"k"`
	RegCovar float64 `json:"reg_covar"`
	Init     struct {
		Weights          []float64 `json:"weights"`
		Means            []float64 `json:"means"`
		Variances        []float64 `json:"variances"`
		VariancesRow0Sum float64   `json:"variances_row0_sum"`
	} `json:"init_params"`
	Runs []struct {
		MaxIter    int       `json:"max_iter"`
		NIter      int       `json:"n_iter"`
		LowerBound float64   `json:"lower_bound"`
		Score      float64   `json:"score"`
		Weights    []float64 `json:"weights"`
		Means      []float64 `json:"means"`
		Variances  []float64 `json:"variances"`
		MeansSum   checksum  `json:"means_checksum"`
		VarSum     checksum  `json:"variances_checksum"`
		LogVarSum  float64   `json:"log_variances_sum"`
	} `json:"runs"`
}

func TestSklearnBlobs(t *testing.T) {
	data := emtest.ReadBlobs(t)
	var ref gmmRef
	emtest.ReadJSON(t, "gmm_blobs.json", &ref)
	g, err := New(data, Config{K: ref.K, Init: kmeans.InitFirst, RegCovar: ref.RegCovar})
	if err != nil {
		t.Fatal(err)
	}
	theta0, err := g.Init(nil)
	if err != nil {
		t.Fatal(err)
	}
	want0 := slices.Concat(ref.Init.Weights, ref.Init.Means, ref.Init.Variances)
	if e := emtest.MaxRelVec(theta0, want0); e > 1e-14 {
		t.Errorf("Init(first) differs from the script's θ0 by %.3g", e)
	}
	// Start from exactly the script's θ0.
	g, _ = New(data, Config{K: ref.K, RegCovar: ref.RegCovar, Theta0: want0})
	theta0, _ = g.Init(nil)
	maxIter := 0
	for _, r := range ref.Runs {
		maxIter = max(maxIter, r.MaxIter)
	}
	thetas, objs := emtest.BatchRun(t, g, emtest.Shards(data.N, 1), theta0, maxIter, false, nil)
	for _, r := range ref.Runs {
		w, mu, v := g.split(thetas[r.MaxIter])
		for _, c := range []struct {
			name      string
			got, want []float64
		}{{"weights", w, r.Weights}, {"means", mu, r.Means}, {"variances", v, r.Variances}} {
			if e := emtest.MaxRelVec(c.got, c.want); e > 1e-9 {
				t.Errorf("%s after %d iterations: max rel err %.3g; want ≤ 1e-9", c.name, r.MaxIter, e)
			}
		}
		if e := emtest.RelErr(objs[r.MaxIter], r.Score); e > 1e-9 {
			t.Errorf("score after %d iterations = %.17g; want %.17g (rel err %.3g)", r.MaxIter, objs[r.MaxIter], r.Score, e)
		} else {
			t.Logf("score after %d iterations: rel err %.3g", r.MaxIter, e)
		}
		// lower_bound_ is the mean log-likelihood before the last M-step.
		if e := emtest.RelErr(objs[r.MaxIter-1], r.LowerBound); e > 1e-9 {
			t.Errorf("objective after %d iterations = %v; want lower_bound_ %v of max_iter=%d (rel err %.3g)",
				r.MaxIter-1, objs[r.MaxIter-1], r.LowerBound, r.MaxIter, e)
		}
	}
}

// TestSklearnFashion matches scikit-learn's diagonal EM on the first 2000
// Fashion-MNIST training images, k = 10, from the first 10 points, after 1
// and 10 iterations. This is a hard case for rounding: 11% (after 1
// iteration) to 16% (after 10) of the component-by-pixel variances are
// below 2·reg_covar (precisions up to 1e6), and the weighted
// log-densities reach 7e7 in magnitude (median 4e4), so the log-density
// differences that set the responsibilities carry absolute rounding errors
// far above 1e-16. Near-hard responsibilities make that harmless: the
// measured agreement is about 1e-14 relative, well inside 1e-9.
func TestSklearnFashion(t *testing.T) {
	var ref gmmRef
	emtest.ReadJSON(t, "gmm_fashion.json", &ref)
	const n = 2000
	data := emtest.FashionHead(t, n)
	g, err := New(data, Config{K: ref.K, Init: kmeans.InitFirst, RegCovar: ref.RegCovar})
	if err != nil {
		t.Fatal(err)
	}
	theta0, _ := g.Init(nil)
	_, _, v0 := g.split(theta0)
	if e := emtest.RelErr(emtest.Sum(v0[:data.D]), ref.Init.VariancesRow0Sum); e > 1e-13 {
		t.Errorf("Σ initial variances = %v; want %v (rel err %.3g)", emtest.Sum(v0[:data.D]), ref.Init.VariancesRow0Sum, e)
	}
	maxIter := 0
	for _, r := range ref.Runs {
		maxIter = max(maxIter, r.MaxIter)
	}
	start := time.Now()
	thetas, objs := emtest.BatchRun(t, g, emtest.Shards(n, 2), theta0, maxIter, true, nil)
	t.Logf("%d EM iterations on %d×%d in %v", maxIter, n, data.D, time.Since(start))
	for _, r := range ref.Runs {
		w, mu, v := g.split(thetas[r.MaxIter])
		if e := emtest.MaxRelVec(w, r.Weights); e > 1e-9 {
			t.Errorf("weights after %d iterations: max rel err %.3g", r.MaxIter, e)
		}
		logv := 0.0
		for _, x := range v {
			logv += math.Log(x)
		}
		checks := []struct {
			name      string
			got, want float64
		}{
			{"score", objs[r.MaxIter], r.Score},
			{"lower_bound", objs[r.MaxIter-1], r.LowerBound},
			{"Σ log variances", logv, r.LogVarSum},
		}
		for j := 0; j < g.k; j++ {
			checks = append(checks,
				struct {
					name      string
					got, want float64
				}{"Σ means of a component", emtest.Sum(mu[j*g.d : (j+1)*g.d]), r.MeansSum.RowSums[j]},
				struct {
					name      string
					got, want float64
				}{"Σ variances of a component", emtest.Sum(v[j*g.d : (j+1)*g.d]), r.VarSum.RowSums[j]})
		}
		worst := 0.0
		for _, c := range checks {
			e := emtest.RelErr(c.got, c.want)
			worst = max(worst, e)
			if e > 1e-9 {
				t.Errorf("%s after %d iterations = %.17g; want %.17g (rel err %.3g)", c.name, r.MaxIter, c.got, c.want, e)
			}
		}
		t.Logf("after %d iterations: score %.17g (sklearn %.17g), worst rel err %.3g", r.MaxIter, objs[r.MaxIter], r.Score, worst)
	}
}

// naiveEM is a deliberately plain diagonal EM step: exact (x−μ)²/σ² terms,
// log-sum-exp, the scikit-learn M-step written out. It returns θ after the
// step, the E-step statistics [N | S1 | S2] and the mean log-likelihood of
// θ (before the step).
func naiveEM(data *dataset.Dense, theta []float64, k int, reg float64) (next, stats []float64, ll float64) {
	d := data.D
	w, mu, v := theta[:k], theta[k:k+k*d], theta[k+k*d:]
	stats = make([]float64, len(theta))
	N, S1, S2 := stats[:k], stats[k:k+k*d], stats[k+k*d:]
	lp := make([]float64, k)
	for i := 0; i < data.N; i++ {
		x := data.Row(i)
		for j := 0; j < k; j++ {
			s := math.Log(w[j])
			for t := range x {
				e := x[t] - mu[j*d+t]
				s -= 0.5 * (math.Log(2*math.Pi*v[j*d+t]) + e*e/v[j*d+t])
			}
			lp[j] = s
		}
		m := slices.Max(lp)
		z := 0.0
		for _, s := range lp {
			z += math.Exp(s - m)
		}
		lse := m + math.Log(z)
		ll += lse
		for j := 0; j < k; j++ {
			r := math.Exp(lp[j] - lse)
			N[j] += r
			for t := range x {
				S1[j*d+t] += r * x[t]
				S2[j*d+t] += r * x[t] * x[t]
			}
		}
	}
	next = make([]float64, len(theta))
	nw, nmu, nv := next[:k], next[k:k+k*d], next[k+k*d:]
	tot := 0.0
	for j := 0; j < k; j++ {
		nk := N[j] + 10*2.220446049250313e-16
		nw[j] = nk
		tot += nk
		for t := 0; t < d; t++ {
			m := S1[j*d+t] / nk
			nmu[j*d+t] = m
			nv[j*d+t] = S2[j*d+t]/nk - m*m + reg
		}
	}
	for j := range nw {
		nw[j] /= tot
	}
	return next, stats, ll / float64(data.N)
}

func TestNaiveEM(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	data := emtest.RandomBlobs(rng, 400, 6, 3, 3, 1)
	g, _ := New(data, Config{K: 3, Init: kmeans.InitKMeansPP})
	theta0, _ := g.Init(rng)
	thetas, objs := emtest.BatchRun(t, g, emtest.Shards(data.N, 1), theta0, 6, false, nil)
	th := theta0
	for it := 1; it <= 6; it++ {
		next, _, ll := naiveEM(data, th, 3, DefaultRegCovar)
		if e := emtest.RelErr(objs[it-1], ll); e > 1e-12 {
			t.Errorf("iteration %d: objective %v; naive %v (rel %.3g)", it-1, objs[it-1], ll, e)
		}
		if e := emtest.MaxRelVec(thetas[it], next); e > 1e-10 {
			t.Fatalf("iteration %d: θ differs from naive EM by %.3g", it, e)
		}
		th = next
	}
}

type statser interface{ Stats() []float64 }
type responder interface{ Responsibilities() []float64 }

// recompute returns [Σr | Σr·x | Σr·x²] over every point's latest
// responsibilities.
func recompute(g *GMM, parts [][]int, ws []algorithms.Worker) []float64 {
	k, d := g.k, g.d
	st := make([]float64, g.layout.Delta)
	N, S1, S2 := g.split(st)
	for w, p := range parts {
		r := ws[w].(responder).Responsibilities()
		for i, idx := range p {
			x := g.data.Row(idx)
			for j := 0; j < k; j++ {
				rv := r[i*k+j]
				N[j] += rv
				for t := range x {
					S1[j*d+t] += rv * x[t]
					S2[j*d+t] += rv * x[t] * x[t]
				}
			}
		}
	}
	return st
}

// TestIncrementalInvariant: workers with stale parameters, batches cut at
// random points, deltas merged in random groupings: the server's running
// statistics always equal the sum of every point's latest contribution.
func TestIncrementalInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	data := emtest.RandomBlobs(rng, 300, 4, 3, 3, 1)
	g, _ := New(data, Config{K: 3, Init: kmeans.InitKMeansPP})
	theta0, _ := g.Init(rng)
	perm := rng.Perm(data.N)
	parts := [][]int{perm[:40], perm[40:170], perm[170:]}
	recomputed := func(ws []algorithms.Worker) []float64 { return recompute(g, parts, ws) }
	emtest.Incremental{Steps: 300, MaxBatch: 50}.Run(t, rng, g, parts, theta0, emtest.StatsEqual(t, recomputed))
}

// TestFullPassIsEM cuts one pass into random batches applied at random
// times while every worker keeps θ0: the result is one batch EM step.
func TestFullPassIsEM(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	data := emtest.RandomBlobs(rng, 300, 3, 3, 3, 1)
	g, _ := New(data, Config{K: 3, Init: kmeans.InitRandom})
	theta0, _ := g.Init(rng)
	perm := rng.Perm(data.N)
	srv := emtest.FullPass(t, rng, g, [][]int{perm[:100], perm[100:120], perm[120:]}, theta0, 40)
	next, stats, _ := naiveEM(data, theta0, 3, DefaultRegCovar)
	if e := emtest.MaxRelVec(srv.(statser).Stats(), stats); e > 1e-13 {
		t.Errorf("statistics differ from batch E-step by %.3g", e)
	}
	if e := emtest.MaxRelVec(srv.Params(), next); e > 1e-12 {
		t.Errorf("θ differs from batch EM by %.3g", e)
	}
}

func TestWorkersEqualSingle(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	data := emtest.RandomBlobs(rng, 1500, 12, 5, 3, 1)
	g, _ := New(data, Config{K: 5, Init: kmeans.InitKMeansPP})
	theta0, _ := g.Init(rand.New(rand.NewPCG(1, 1)))
	perm := rand.New(rand.NewPCG(2, 2)).Perm(data.N)
	parts := [][]int{perm[:200], perm[200:900], perm[900:1400], perm[1400:]}
	objOne := emtest.CheckWorkersEqualSingle(t, "", g, theta0, parts, 6)
	for it := 1; it < len(objOne); it++ {
		if objOne[it] < objOne[it-1]-1e-9*math.Abs(objOne[it-1]) {
			t.Errorf("log-likelihood decreased at iteration %d: %v → %v", it, objOne[it-1], objOne[it])
		}
	}
}

func TestApplyRefuses(t *testing.T) {
	g, _ := New(emtest.ReadBlobs(t), Config{K: 3, Init: kmeans.InitFirst})
	srv := emtest.PrimedServer(t, g)
	st := srv.(statser).Stats()
	l := g.Layout()
	huge := emtest.DeltaOfOne(l)
	huge.Vec[0] = -st[0] // N_0 → 0, n_k = 10·eps
	huge.Vec[3] = 1e300  // μ = S1/n_k overflows
	emtest.CheckRefusals(t, srv, srv.(statser).Stats, append(emtest.ContractRefusals(l, 7, math.Inf(1), 3),
		emtest.Refusal{Name: "overflow", D: huge}))
}

func TestDeterminism(t *testing.T) {
	g, _ := New(emtest.ReadBlobs(t), Config{K: 3, Init: kmeans.InitKMeansPP})
	emtest.CheckDeterminism(t, "", g, 4)
}

func TestConfigErrors(t *testing.T) {
	data := emtest.ReadBlobs(t)
	good, _ := New(data, Config{K: 2, Init: kmeans.InitFirst})
	theta0, _ := good.Init(nil)
	negVar := slices.Clone(theta0)
	negVar[len(negVar)-1] = -1
	negW := slices.Clone(theta0)
	negW[0] = -0.5
	zeroW := slices.Clone(theta0)
	zeroW[0], zeroW[1] = 0, 0
	sum2 := slices.Clone(theta0)
	sum2[0], sum2[1] = 1, 1
	for _, tc := range []struct {
		name string
		data *dataset.Dense
		cfg  Config
	}{
		{"nil data", nil, Config{K: 1}},
		{"K=0", data, Config{K: 0}},
		{"K>N", data, Config{K: 301}},
		{"init", data, Config{K: 2, Init: "forgy"}},
		{"reg", data, Config{K: 2, RegCovar: -1}},
		{"NaN data", &dataset.Dense{N: 1, D: 1, X: []float64{math.NaN()}}, Config{K: 1}},
		{"short θ0", data, Config{K: 2, Theta0: theta0[1:]}},
		{"negative variance", data, Config{K: 2, Theta0: negVar}},
		{"negative weight", data, Config{K: 2, Theta0: negW}},
		{"zero weights", data, Config{K: 2, Theta0: zeroW}},
		{"weights sum to 2", data, Config{K: 2, Theta0: sum2}},
	} {
		_, err := New(tc.data, tc.cfg)
		if !errors.Is(err, algorithms.ErrConfig) && !errors.Is(err, algorithms.ErrLayout) {
			t.Errorf("New(%s) = %v; want ErrConfig or ErrLayout", tc.name, err)
		}
	}
	if _, err := good.NewServer(negVar); !errors.Is(err, algorithms.ErrConfig) {
		t.Errorf("NewServer(negative variance) = %v; want ErrConfig", err)
	}
	if _, err := good.NewWorker([]int{-1}); !errors.Is(err, algorithms.ErrConfig) {
		t.Errorf("NewWorker(-1) = %v; want ErrConfig", err)
	}
}

// TestConstantFeature: a feature constant over the data gets variance
// reg_covar (up to the rounding of S2/n − μ², as in scikit-learn) and
// finite log-likelihoods.
func TestConstantFeature(t *testing.T) {
	data := &dataset.Dense{N: 6, D: 2, X: []float64{0, 5, 0.1, 5, 0.2, 5, 3, 5, 3.1, 5, 3.2, 5}}
	g, _ := New(data, Config{K: 2, Init: kmeans.InitKMeansPP})
	theta0, _ := g.Init(rand.New(rand.NewPCG(1, 2)))
	thetas, objs := emtest.BatchRun(t, g, emtest.Shards(6, 1), theta0, 5, false, nil)
	_, mu, v := g.split(thetas[5])
	for j := 0; j < 2; j++ {
		if math.Abs(mu[j*2+1]-5) > 1e-14 || math.Abs(v[j*2+1]-DefaultRegCovar) > 1e-12 {
			t.Errorf("component %d constant feature: μ %v σ² %v; want 5, %v", j, mu[j*2+1], v[j*2+1], DefaultRegCovar)
		}
	}
	for it, o := range objs {
		if math.IsNaN(o) || math.IsInf(o, 0) {
			t.Errorf("objective at iteration %d is %v", it, o)
		}
	}
}
