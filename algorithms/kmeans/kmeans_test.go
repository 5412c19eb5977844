package kmeans

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/internal/kernel"
)

// kmRef is the layout of kmeans_blobs.json and kmeans_fashion.json.
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
	data := readBlobs(t)
	var ref kmRef
	readJSON(t, "kmeans_blobs.json", &ref)
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
	thetas, objs := batchRun(t, km, [][]int{shards(data.N, 1)[0]}, theta0, maxIter, false, nil)
	if e := relErr(objs[0], ref.InertiaInit); e > 1e-12 {
		t.Errorf("inertia(θ0) = %v; want %v (rel err %.3g)", objs[0], ref.InertiaInit, e)
	}
	for _, r := range ref.Runs {
		if e := relErr(objs[r.MaxIter], r.Inertia); e > 1e-9 {
			t.Errorf("inertia after %d iterations = %.17g; want %.17g (rel err %.3g)", r.MaxIter, objs[r.MaxIter], r.Inertia, e)
		} else {
			t.Logf("inertia after %d iterations: rel err %.3g", r.MaxIter, e)
		}
		if e := maxRelVec(thetas[r.MaxIter], r.Centers); e > 1e-9 {
			t.Errorf("centers after %d iterations: max rel err %.3g; want ≤ 1e-9", r.MaxIter, e)
		}
	}
}

// TestSklearnFashion matches scikit-learn's Lloyd on Fashion-MNIST train
// (60000×784) from the first 10 points, after 1 and 20 iterations, to 1e-9
// relative in inertia. It runs two workers in two goroutines (full-batch,
// so the result is that of one worker up to summation order).
func TestSklearnFashion(t *testing.T) {
	var ref kmRef
	readJSON(t, "kmeans_fashion.json", &ref)
	start := time.Now()
	data := fashionTrain(t)
	t.Logf("loaded Fashion-MNIST in %v", time.Since(start))
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
	start = time.Now()
	thetas, objs := batchRun(t, km, shards(data.N, 2), theta0, maxIter, true, func(it int) bool { return want[it] })
	t.Logf("%d iterations in %v", maxIter, time.Since(start))
	for _, r := range ref.Runs {
		if e := relErr(objs[r.MaxIter], r.Inertia); e > 1e-9 {
			t.Errorf("inertia after %d iterations = %.17g; want %.17g (rel err %.3g)", r.MaxIter, objs[r.MaxIter], r.Inertia, e)
		} else {
			t.Logf("inertia after %d iterations = %.17g, sklearn %.17g, rel err %.3g", r.MaxIter, objs[r.MaxIter], r.Inertia, e)
		}
		th := thetas[r.MaxIter]
		for j, want := range r.Checksum.RowSums {
			got := 0.0
			for _, v := range th[j*data.D : (j+1)*data.D] {
				got += v
			}
			if e := relErr(got, want); e > 1e-9 {
				t.Errorf("iteration %d: centroid %d sums to %v; want %v (rel err %.3g)", r.MaxIter, j, got, want, e)
			}
		}
	}
}

func TestNaiveLloyd(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	data := randomBlobs(rng, 500, 7, 4)
	km, err := New(data, Config{K: 5, Init: InitRandom})
	if err != nil {
		t.Fatal(err)
	}
	theta0, err := km.Init(rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	thetas, objs := batchRun(t, km, shards(data.N, 1), theta0, 8, false, nil)
	c := theta0
	for it := 1; it <= 8; it++ {
		c, _, _ = naiveLloyd(data, c, 5)
		if e := maxRelVec(thetas[it], c); e > 1e-12 {
			t.Fatalf("iteration %d: centroids differ from naive Lloyd by %.3g", it, e)
		}
		if e := relErr(objs[it], naiveInertia(data, c, 5)); e > 1e-12 {
			t.Fatalf("iteration %d: inertia differs from naive by %.3g", it, e)
		}
	}
}

// randomBlobs returns n points in d dimensions around k random centres.
func randomBlobs(rng *rand.Rand, n, d, k int) *dataset.Dense {
	centres := make([]float64, k*d)
	for i := range centres {
		centres[i] = rng.NormFloat64() * 5
	}
	m := &dataset.Dense{N: n, D: d, X: make([]float64, n*d)}
	for i := 0; i < n; i++ {
		c := rng.IntN(k)
		for t := 0; t < d; t++ {
			m.X[i*d+t] = centres[c*d+t] + rng.NormFloat64()
		}
	}
	return m
}

type statser interface{ Stats() (S, C []float64) }
type assigner interface{ Assignments() []int32 }

// TestIncrementalInvariant drives workers with stale parameters through
// batches cut at random points, merges their deltas in random groupings at
// random times, and checks that the server's S and C always equal the sum
// of every point's latest contribution.
func TestIncrementalInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	data := randomBlobs(rng, 400, 5, 4)
	km, _ := New(data, Config{K: 4, Init: InitKMeansPP})
	theta0, _ := km.Init(rng)
	srv, _ := km.NewServer(theta0)
	perm := rng.Perm(data.N)
	parts := [][]int{perm[:50], perm[50:210], perm[210:]}
	ws := make([]algorithms.Worker, len(parts))
	cursor := make([]int, len(parts))
	for i, p := range parts {
		ws[i], _ = km.NewWorker(p)
		ws[i].SetParams(theta0)
	}
	var pending []*algorithms.Delta
	flush := func() {
		if len(pending) == 0 {
			return
		}
		rng.Shuffle(len(pending), func(i, j int) { pending[i], pending[j] = pending[j], pending[i] })
		var groups []*algorithms.Delta
		for len(pending) > 0 {
			g := 1 + rng.IntN(len(pending))
			acc := pending[0]
			for _, d := range pending[1:g] {
				if err := acc.Merge(d); err != nil {
					t.Fatal(err)
				}
			}
			groups = append(groups, acc)
			pending = pending[g:]
		}
		for _, g := range groups {
			if rng.IntN(2) == 0 {
				if err := srv.Apply(g); err != nil {
					t.Fatal(err)
				}
			} else {
				pending = append(pending, g)
			}
		}
		for _, g := range pending {
			if err := srv.Apply(g); err != nil {
				t.Fatal(err)
			}
		}
		pending = nil
	}
	check := func(step int) {
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
		if e := maxRelVec(S, wantS); e > 1e-12 {
			t.Fatalf("step %d: S differs from recomputation by %.3g", step, e)
		}
	}
	for step := 0; step < 400; step++ {
		w := rng.IntN(len(ws))
		if rng.IntN(4) == 0 {
			ws[w].SetParams(srv.Params())
		}
		n := ws[w].Len()
		lo := cursor[w]
		hi := min(n, lo+1+rng.IntN(60))
		d := algorithms.NewDelta(km.Layout())
		ws[w].Process(lo, hi, d)
		if d.Count != hi-lo {
			t.Fatalf("Count = %d; want %d", d.Count, hi-lo)
		}
		pending = append(pending, d)
		cursor[w] = hi % n
		if rng.IntN(5) == 0 {
			flush()
			check(step)
		}
	}
	flush()
	check(-1)
}

// TestFullPassIsLloyd cuts one pass into random batches, applied at random
// times while every worker keeps θ0: the result is one batch Lloyd step.
func TestFullPassIsLloyd(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	data := randomBlobs(rng, 300, 3, 3)
	km, _ := New(data, Config{K: 3, Init: InitRandom})
	theta0, _ := km.Init(rng)
	srv, _ := km.NewServer(theta0)
	perm := rng.Perm(data.N)
	parts := [][]int{perm[:100], perm[100:120], perm[120:]}
	for _, p := range parts {
		w, _ := km.NewWorker(p)
		w.SetParams(theta0)
		for lo := 0; lo < len(p); {
			hi := min(len(p), lo+1+rng.IntN(40))
			d := algorithms.NewDelta(km.Layout())
			w.Process(lo, hi, d)
			if err := srv.Apply(d); err != nil {
				t.Fatal(err)
			}
			lo = hi
		}
	}
	next, wantS, wantC := naiveLloyd(data, theta0, 3)
	S, C := srv.(statser).Stats()
	if !slices.Equal(C, wantC) {
		t.Errorf("C = %v; want %v", C, wantC)
	}
	if e := maxRelVec(S, wantS); e > 1e-13 {
		t.Errorf("S differs from batch by %.3g", e)
	}
	if e := maxRelVec(srv.Params(), next); e > 1e-13 {
		t.Errorf("θ differs from batch Lloyd by %.3g", e)
	}
}

func TestWorkersEqualSingle(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	data := randomBlobs(rng, 2000, 16, 6)
	for _, f32 := range []bool{false, true} {
		km, _ := New(data, Config{K: 6, Init: InitKMeansPP, Float32: f32})
		theta0, _ := km.Init(rand.New(rand.NewPCG(1, 1)))
		one, objOne := batchRun(t, km, shards(data.N, 1), theta0, 6, false, nil)
		perm := rand.New(rand.NewPCG(2, 2)).Perm(data.N)
		parts := [][]int{perm[:300], perm[300:1000], perm[1000:1500], perm[1500:]}
		many, objMany := batchRun(t, km, parts, theta0, 6, true, nil)
		for it := range one {
			if e := maxRelVec(many[it], one[it]); e > 1e-12 {
				t.Errorf("float32=%v iteration %d: 4 workers differ from 1 by %.3g", f32, it, e)
			}
			if e := relErr(objMany[it], objOne[it]); e > 1e-12 {
				t.Errorf("float32=%v iteration %d: objective differs by %.3g", f32, it, e)
			}
		}
	}
}

func TestFloat32CloseToFloat64(t *testing.T) {
	data := readBlobs(t)
	var objs [2][]float64
	for i, f32 := range []bool{false, true} {
		km, _ := New(data, Config{K: 3, Init: InitFirst, Float32: f32})
		theta0, _ := km.Init(nil)
		_, objs[i] = batchRun(t, km, shards(data.N, 1), theta0, 5, false, nil)
	}
	for it := range objs[0] {
		if e := relErr(objs[1][it], objs[0][it]); e > 1e-6 {
			t.Errorf("iteration %d: float32 inertia %v, float64 %v (rel %.3g)", it, objs[1][it], objs[0][it], e)
		}
	}
}

func TestApplyRefuses(t *testing.T) {
	data := readBlobs(t)
	km, _ := New(data, Config{K: 3, Init: InitFirst})
	theta0, _ := km.Init(nil)
	srv, _ := km.NewServer(theta0)
	w, _ := km.NewWorker(shards(data.N, 1)[0])
	w.SetParams(theta0)
	good := algorithms.NewDelta(km.Layout())
	w.Process(0, 100, good)
	if err := srv.Apply(good); err != nil {
		t.Fatal(err)
	}
	theta := slices.Clone(srv.Params())
	S0, C0 := srv.(statser).Stats()

	l := km.Layout()
	nan := algorithms.NewDelta(l)
	nan.Count = 1
	nan.Vec[5] = math.NaN()
	inf := algorithms.NewDelta(l)
	inf.Count = 1
	inf.Vec[l.Delta-1] = math.Inf(-1)
	short := algorithms.NewDelta(algorithms.Layout{Params: l.Params, Delta: l.Delta - 1})
	short.Count = 1
	sparse := algorithms.NewDelta(algorithms.Layout{Params: l.Params, Delta: l.Delta, Block: 4})
	sparse.Count = 1
	negative := algorithms.NewDelta(l)
	negative.Count = 1
	negative.Vec[l.Params] = -1000 // C_0 − 1000 < 0
	for _, tc := range []struct {
		name string
		d    *algorithms.Delta
		is   error
	}{
		{"nil", nil, algorithms.ErrLayout},
		{"NaN", nan, nil},
		{"-Inf", inf, nil},
		{"short", short, algorithms.ErrLayout},
		{"sparse", sparse, algorithms.ErrLayout},
		{"negative count", negative, ErrInconsistent},
	} {
		err := srv.Apply(tc.d)
		if err == nil {
			t.Errorf("Apply(%s) = nil; want error", tc.name)
			continue
		}
		var nf *algorithms.NonFiniteError
		if tc.is != nil && !errors.Is(err, tc.is) || tc.is == nil && !errors.As(err, &nf) {
			t.Errorf("Apply(%s) = %v; want %v", tc.name, err, tc.is)
		}
		S, C := srv.(statser).Stats()
		if !slices.Equal(srv.Params(), theta) || !slices.Equal(S, S0) || !slices.Equal(C, C0) || srv.Steps() != 1 {
			t.Errorf("Apply(%s) changed the server", tc.name)
		}
	}
	if err := srv.Apply(algorithms.NewDelta(l)); err != nil || srv.Steps() != 1 {
		t.Errorf("Apply(empty) = %v, Steps %d; want nil, 1", err, srv.Steps())
	}
}

func TestDeterminism(t *testing.T) {
	data := readBlobs(t)
	for _, init := range []string{InitRandom, InitKMeansPP} {
		run := func(seed uint64) []float64 {
			km, _ := New(data, Config{K: 4, Init: init})
			theta0, err := km.Init(rand.New(rand.NewPCG(seed, 0)))
			if err != nil {
				t.Fatal(err)
			}
			th, _ := batchRun(t, km, shards(data.N, 3), theta0, 3, true, nil)
			return th[len(th)-1]
		}
		a, b, c := run(1), run(1), run(2)
		if !slices.Equal(a, b) {
			t.Errorf("init %s: same seed gave different θ", init)
		}
		if slices.Equal(a, c) {
			t.Errorf("init %s: seeds 1 and 2 gave the same θ", init)
		}
	}
}

func TestSeed(t *testing.T) {
	data := readBlobs(t)
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
	data := readBlobs(t)
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
	th, objs := batchRun(t, km, shards(4, 1), theta0, 2, false, nil)
	if want := []float64{0.5, 10.5, 1000}; !slices.Equal(th[2], want) {
		t.Errorf("θ = %v; want %v", th[2], want)
	}
	if objs[2] != 1 {
		t.Errorf("inertia = %v; want 1", objs[2])
	}
}
