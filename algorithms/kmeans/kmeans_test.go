package kmeans

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/internal/emtest"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/internal/kernel"
)

// kmRef is the layout of kmeans_blobs.json, kmeans_fashion.json and
// kmeans_fashion_head.json.
type kmRef struct {
	Source      string  `json:"source"`
	K           int     `json:"k"`
	InertiaInit float64 `json:"inertia_init"`
	Runs        []struct {
		MaxIter  int       `json:"max_iter"`
		NIter    int       `json:"n_iter"`
		Inertia  float64   `json:"inertia"`
		Counts   []int     `json:"counts"`
		Centers  []float64 `json:"centers"`
		Checksum struct {
			RowSums     []float64 `json:"row_sums"`
			WeightedSum float64   `json:"weighted_sum"`
		} `json:"centers_checksum"`
	} `json:"runs"`
}

// naiveLloyd is a deliberately plain Lloyd step: exact distances, ties to
// the lowest index, an empty cluster keeps its centroid. It returns the new
// centroids and the statistics S, C of the E-step.
func naiveLloyd(data *dataset.Dense, c []float64, k int) (next, S, C []float64) {
	d := data.D
	S, C = make([]float64, k*d), make([]float64, k)
	for i := 0; i < data.N; i++ {
		x := data.Row(i)
		best, bv := 0, math.Inf(1)
		for j := 0; j < k; j++ {
			s := 0.0
			for t := range x {
				e := x[t] - c[j*d+t]
				s += e * e
			}
			if s < bv {
				best, bv = j, s
			}
		}
		for t := range x {
			S[best*d+t] += x[t]
		}
		C[best]++
	}
	next = slices.Clone(c)
	for j := 0; j < k; j++ {
		if C[j] > 0 {
			for t := 0; t < d; t++ {
				next[j*d+t] = S[j*d+t] / C[j]
			}
		}
	}
	return next, S, C
}

func naiveInertia(data *dataset.Dense, c []float64, k int) float64 {
	tot := 0.0
	for i := 0; i < data.N; i++ {
		best := math.Inf(1)
		for j := 0; j < k; j++ {
			best = min(best, kernel.SqDist(data.Row(i), c[j*data.D:(j+1)*data.D]))
		}
		tot += best
	}
	return tot
}

func TestSklearnBlobs(t *testing.T) {
	data := emtest.ReadBlobs(t)
	var ref kmRef
	emtest.ReadJSON(t, "kmeans_blobs.json", &ref)
	km, err := New(data, Config{K: ref.K, Init: InitFirst})
	if err != nil {
		t.Fatal(err)
	}
	theta0, err := km.Init(nil)
	if err != nil {
		t.Fatal(err)
	}
	maxIter := 0
	for _, r := range ref.Runs {
		maxIter = max(maxIter, r.MaxIter)
	}
	thetas, objs := emtest.BatchRun(t, km, [][]int{emtest.Shards(data.N, 1)[0]}, theta0, maxIter, false, nil)
	if e := emtest.RelErr(objs[0], ref.InertiaInit); e > 1e-12 {
		t.Errorf("inertia(θ0) = %v; want %v (rel err %.3g)", objs[0], ref.InertiaInit, e)
	}
	for _, r := range ref.Runs {
		if e := emtest.RelErr(objs[r.MaxIter], r.Inertia); e > 1e-9 {
			t.Errorf("inertia after %d iterations = %.17g; want %.17g (rel err %.3g)", r.MaxIter, objs[r.MaxIter], r.Inertia, e)
		} else {
			t.Logf("inertia after %d iterations: rel err %.3g", r.MaxIter, e)
		}
		if e := emtest.MaxRelVec(thetas[r.MaxIter], r.Centers); e > 1e-9 {
			t.Errorf("centers after %d iterations: max rel err %.3g; want ≤ 1e-9", r.MaxIter, e)
		}
	}
}

// TestSklearnFashion matches scikit-learn's Lloyd on the first 2000
// Fashion-MNIST train images (2000×784) from the first 10 points, after 1
// and 20 iterations, to 1e-9 relative in inertia and in each centroid's
// sum. It runs two workers in two goroutines (full-batch, so the result is
// that of one worker up to summation order). TestLongSklearnFashion does
// the same on all 60000 images.
func TestSklearnFashion(t *testing.T) {
	var ref kmRef
	emtest.ReadJSON(t, "kmeans_fashion_head.json", &ref)
	checkSklearnFashion(t, &ref, emtest.FashionHead(t, 2000))
}

// TestLongSklearnFashion is TestSklearnFashion on Fashion-MNIST train
// (60000×784), a long check (SYNCMODELS_LONG=1): reading the 60000 images
// alone takes 5–15 s under -race.
func TestLongSklearnFashion(t *testing.T) {
	long(t)
	var ref kmRef
	emtest.ReadJSON(t, "kmeans_fashion.json", &ref)
	start := time.Now()
	data := emtest.FashionTrain(t)
	t.Logf("loaded Fashion-MNIST in %v", time.Since(start))
	checkSklearnFashion(t, &ref, data)
}

func checkSklearnFashion(t *testing.T, ref *kmRef, data *dataset.Dense) {
	km, err := New(data, Config{K: ref.K, Init: InitFirst})
	if err != nil {
		t.Fatal(err)
	}
	theta0, _ := km.Init(nil)
	want := map[int]bool{}
	maxIter := 0
	for _, r := range ref.Runs {
		want[r.MaxIter] = true
		maxIter = max(maxIter, r.MaxIter)
	}
	start := time.Now()
	thetas, objs := emtest.BatchRun(t, km, emtest.Shards(data.N, 2), theta0, maxIter, true, func(it int) bool { return want[it] })
	t.Logf("%d iterations on %d×%d in %v", maxIter, data.N, data.D, time.Since(start))
	for _, r := range ref.Runs {
		if e := emtest.RelErr(objs[r.MaxIter], r.Inertia); e > 1e-9 {
			t.Errorf("inertia after %d iterations = %.17g; want %.17g (rel err %.3g)", r.MaxIter, objs[r.MaxIter], r.Inertia, e)
		} else {
			t.Logf("inertia after %d iterations = %.17g, sklearn %.17g, rel err %.3g", r.MaxIter, objs[r.MaxIter], r.Inertia, e)
		}
		emtest.CheckRowSums(t, r.MaxIter, thetas[r.MaxIter], data.D, r.Checksum.RowSums, 1e-9)
	}
}

// long skips t unless $SYNCMODELS_LONG is 1 (as cmd/syncbench's long
// checks do).
func long(t *testing.T) {
	t.Helper()
	if os.Getenv("SYNCMODELS_LONG") != "1" {
		t.Skip("a long check: run with SYNCMODELS_LONG=1")
	}
}

func TestNaiveLloyd(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	data := emtest.RandomBlobs(rng, 500, 7, 4, 5, 0)
	km, err := New(data, Config{K: 5, Init: InitRandom})
	if err != nil {
		t.Fatal(err)
	}
	theta0, err := km.Init(rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	thetas, objs := emtest.BatchRun(t, km, emtest.Shards(data.N, 1), theta0, 8, false, nil)
	c := theta0
	for it := 1; it <= 8; it++ {
		c, _, _ = naiveLloyd(data, c, 5)
		if e := emtest.MaxRelVec(thetas[it], c); e > 1e-12 {
			t.Fatalf("iteration %d: centroids differ from naive Lloyd by %.3g", it, e)
		}
		if e := emtest.RelErr(objs[it], naiveInertia(data, c, 5)); e > 1e-12 {
			t.Fatalf("iteration %d: inertia differs from naive by %.3g", it, e)
		}
	}
}

type statser interface{ Stats() (S, C []float64) }
type assigner interface{ Assignments() []int32 }

// TestIncrementalInvariant drives workers with stale parameters through
// batches cut at random points, merges their deltas in random groupings at
// random times, and checks that the server's S and C always equal the sum
// of every point's latest contribution.
func TestIncrementalInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	data := emtest.RandomBlobs(rng, 400, 5, 4, 5, 0)
	km, _ := New(data, Config{K: 4, Init: InitKMeansPP})
	theta0, _ := km.Init(rng)
	perm := rng.Perm(data.N)
	parts := [][]int{perm[:50], perm[50:210], perm[210:]}
	check := func(step int, srv algorithms.Server, ws []algorithms.Worker) {
		S, C := srv.(statser).Stats()
		wantS, wantC := make([]float64, len(S)), make([]float64, len(C))
		for w, p := range parts {
			for i, a := range ws[w].(assigner).Assignments() {
				if a < 0 {
					continue
				}
				kernel.Axpy(1, data.Row(p[i]), wantS[int(a)*data.D:(int(a)+1)*data.D])
				wantC[a]++
			}
		}
		if !slices.Equal(C, wantC) {
			t.Fatalf("step %d: C = %v; want %v", step, C, wantC)
		}
		if e := emtest.MaxRelVec(S, wantS); e > 1e-12 {
			t.Fatalf("step %d: S differs from recomputation by %.3g", step, e)
		}
	}
	emtest.Incremental{Steps: 400, MaxBatch: 60, HoldBack: true}.Run(t, rng, km, parts, theta0, check)
}

// TestFullPassIsLloyd cuts one pass into random batches, applied at random
// times while every worker keeps θ0: the result is one batch Lloyd step.
func TestFullPassIsLloyd(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	data := emtest.RandomBlobs(rng, 300, 3, 3, 5, 0)
	km, _ := New(data, Config{K: 3, Init: InitRandom})
	theta0, _ := km.Init(rng)
	perm := rng.Perm(data.N)
	srv := emtest.FullPass(t, rng, km, [][]int{perm[:100], perm[100:120], perm[120:]}, theta0, 40)
	next, wantS, wantC := naiveLloyd(data, theta0, 3)
	S, C := srv.(statser).Stats()
	if !slices.Equal(C, wantC) {
		t.Errorf("C = %v; want %v", C, wantC)
	}
	if e := emtest.MaxRelVec(S, wantS); e > 1e-13 {
		t.Errorf("S differs from batch by %.3g", e)
	}
	if e := emtest.MaxRelVec(srv.Params(), next); e > 1e-13 {
		t.Errorf("θ differs from batch Lloyd by %.3g", e)
	}
}

func TestWorkersEqualSingle(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	data := emtest.RandomBlobs(rng, 2000, 16, 6, 5, 0)
	for _, f32 := range []bool{false, true} {
		km, _ := New(data, Config{K: 6, Init: InitKMeansPP, Float32: f32})
		theta0, _ := km.Init(rand.New(rand.NewPCG(1, 1)))
		perm := rand.New(rand.NewPCG(2, 2)).Perm(data.N)
		parts := [][]int{perm[:300], perm[300:1000], perm[1000:1500], perm[1500:]}
		emtest.CheckWorkersEqualSingle(t, fmt.Sprintf("float32=%v ", f32), km, theta0, parts, 6)
	}
}

func TestFloat32CloseToFloat64(t *testing.T) {
	data := emtest.ReadBlobs(t)
	var objs [2][]float64
	for i, f32 := range []bool{false, true} {
		km, _ := New(data, Config{K: 3, Init: InitFirst, Float32: f32})
		theta0, _ := km.Init(nil)
		_, objs[i] = emtest.BatchRun(t, km, emtest.Shards(data.N, 1), theta0, 5, false, nil)
	}
	for it := range objs[0] {
		if e := emtest.RelErr(objs[1][it], objs[0][it]); e > 1e-6 {
			t.Errorf("iteration %d: float32 inertia %v, float64 %v (rel %.3g)", it, objs[1][it], objs[0][it], e)
		}
	}
}

func TestApplyRefuses(t *testing.T) {
	km, _ := New(emtest.ReadBlobs(t), Config{K: 3, Init: InitFirst})
	srv := emtest.PrimedServer(t, km)
	l := km.Layout()
	negative := emtest.DeltaOfOne(l)
	negative.Vec[l.Params] = -1000 // C_0 − 1000 < 0
	stats := func() []float64 { S, C := srv.(statser).Stats(); return slices.Concat(S, C) }
	emtest.CheckRefusals(t, srv, stats, append(emtest.ContractRefusals(l, 5, math.Inf(-1), 4),
		emtest.Refusal{Name: "negative count", D: negative, Is: ErrInconsistent}))
	if err := srv.Apply(algorithms.NewDelta(l)); err != nil || srv.Steps() != 1 {
		t.Errorf("Apply(empty) = %v, Steps %d; want nil, 1", err, srv.Steps())
	}
}

func TestDeterminism(t *testing.T) {
	data := emtest.ReadBlobs(t)
	for _, init := range []string{InitRandom, InitKMeansPP} {
		km, _ := New(data, Config{K: 4, Init: init})
		emtest.CheckDeterminism(t, "init "+init+": ", km, 3)
	}
}

func TestSeed(t *testing.T) {
	data := emtest.ReadBlobs(t)
	c, err := Seed(data, 3, InitFirst, nil)
	if err != nil || !slices.Equal(c, data.X[:12]) {
		t.Errorf("Seed(first) = %v, %v; want the first 3 rows", c, err)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	c, _ = Seed(data, 50, InitRandom, rng)
	seen := map[[4]float64]bool{}
	for j := 0; j < 50; j++ {
		seen[[4]float64(c[j*4:(j+1)*4])] = true
	}
	if len(seen) != 50 {
		t.Errorf("Seed(random, 50) has %d distinct rows; want 50", len(seen))
	}
	// k-means++ on three well separated blobs puts one seed in each.
	far := &dataset.Dense{N: 90, D: 1, X: make([]float64, 90)}
	for i := range far.X {
		far.X[i] = float64(i/30)*1000 + rng.Float64()
	}
	for s := uint64(0); s < 20; s++ {
		c, _ := Seed(far, 3, InitKMeansPP, rand.New(rand.NewPCG(s, 1)))
		got := map[int]bool{}
		for _, v := range c {
			got[int(v/1000)] = true
		}
		if len(got) != 3 {
			t.Errorf("seed %d: k-means++ picked %v; want one per blob", s, c)
		}
	}
	if _, err := Seed(data, 3, InitKMeansPP, nil); !errors.Is(err, algorithms.ErrConfig) {
		t.Errorf("Seed(kmeans++, nil rng) = %v; want ErrConfig", err)
	}
}

func TestConfigErrors(t *testing.T) {
	data := emtest.ReadBlobs(t)
	bad := &dataset.Dense{N: 2, D: 2, X: []float64{0, 1, math.NaN(), 3}}
	for _, tc := range []struct {
		name string
		data *dataset.Dense
		cfg  Config
	}{
		{"nil data", nil, Config{K: 1}},
		{"K=0", data, Config{K: 0}},
		{"K>N", data, Config{K: 301}},
		{"init", data, Config{K: 2, Init: "forgy"}},
		{"NaN", bad, Config{K: 1}},
		{"shape", &dataset.Dense{N: 2, D: 2, X: []float64{1}}, Config{K: 1}},
		{"float32 overflow", &dataset.Dense{N: 1, D: 1, X: []float64{1e300}}, Config{K: 1, Float32: true}},
	} {
		if _, err := New(tc.data, tc.cfg); !errors.Is(err, algorithms.ErrConfig) {
			t.Errorf("New(%s) = %v; want ErrConfig", tc.name, err)
		}
	}
	km, _ := New(data, Config{K: 3})
	if _, err := km.NewWorker([]int{0, 300}); !errors.Is(err, algorithms.ErrConfig) {
		t.Errorf("NewWorker(out of range) = %v; want ErrConfig", err)
	}
	if _, err := km.NewServer(make([]float64, 11)); !errors.Is(err, algorithms.ErrLayout) {
		t.Errorf("NewServer(short θ) = %v; want ErrLayout", err)
	}
	th := make([]float64, 12)
	th[3] = math.Inf(1)
	var nf *algorithms.NonFiniteError
	if _, err := km.NewServer(th); !errors.As(err, &nf) {
		t.Errorf("NewServer(Inf θ) = %v; want NonFiniteError", err)
	}
}

// TestEmptyClusterKeepsCentroid: a centroid far from every point gets no
// points and stays where it is.
func TestEmptyClusterKeepsCentroid(t *testing.T) {
	data := &dataset.Dense{N: 4, D: 1, X: []float64{0, 1, 10, 11}}
	km, _ := New(data, Config{K: 3})
	theta0 := []float64{0, 10, 1000}
	th, objs := emtest.BatchRun(t, km, emtest.Shards(4, 1), theta0, 2, false, nil)
	if want := []float64{0.5, 10.5, 1000}; !slices.Equal(th[2], want) {
		t.Errorf("θ = %v; want %v", th[2], want)
	}
	if objs[2] != 1 {
		t.Errorf("inertia = %v; want 1", objs[2])
	}
}
