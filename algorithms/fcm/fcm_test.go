package fcm

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/kmeans"
	"github.com/syncmodels/syncmodels/dataset"
)

// fcmRef is the layout of the fcm_*.json reference files.
type fcmRef struct {
	Source        string  `json:"source"`
	K             int     `json:"k"`
	M             float64 `json:"m"`
	ObjectiveInit float64 `json:"objective_init"`
	Runs          []struct {
		Iters     int       `json:"iters"`
		Objective float64   `json:"objective"`
		Centers   []float64 `json:"centers"`
		Checksum  struct {
			RowSums []float64 `json:"row_sums"`
		} `json:"centers_checksum"`
	} `json:"runs"`
}

func TestNumpyBlobs(t *testing.T) {
	data := readBlobs(t)
	for _, file := range []string{"fcm_blobs.json", "fcm_blobs_m1.5.json"} {
		var ref fcmRef
		readJSON(t, file, &ref)
		f, err := New(data, Config{K: ref.K, M: ref.M, Init: kmeans.InitFirst})
		if err != nil {
			t.Fatal(err)
		}
		theta0, _ := f.Init(nil)
		maxIter := 0
		for _, r := range ref.Runs {
			maxIter = max(maxIter, r.Iters)
		}
		thetas, objs := batchRun(t, f, shards(data.N, 1), theta0, maxIter, false, nil)
		if e := relErr(objs[0], ref.ObjectiveInit); e > 1e-12 {
			t.Errorf("%s: J(θ0) = %v; want %v (rel err %.3g)", file, objs[0], ref.ObjectiveInit, e)
		}
		for _, r := range ref.Runs {
			if e := relErr(objs[r.Iters], r.Objective); e > 1e-9 {
				t.Errorf("%s: J after %d iterations = %.17g; want %.17g (rel err %.3g)", file, r.Iters, objs[r.Iters], r.Objective, e)
			} else {
				t.Logf("%s: J after %d iterations: rel err %.3g", file, r.Iters, e)
			}
			if e := maxRelVec(thetas[r.Iters], r.Centers); e > 1e-9 {
				t.Errorf("%s: centers after %d iterations: max rel err %.3g", file, r.Iters, e)
			}
		}
	}
}

// TestNumpyFashion matches the numpy textbook FCM on the first 2000
// Fashion-MNIST training images (c = 10, m = 2, centers0 = the first 10
// images, which coincide with a centroid in the first iteration).
func TestNumpyFashion(t *testing.T) {
	var ref fcmRef
	readJSON(t, "fcm_fashion.json", &ref)
	const n = 2000
	data := fashionHead(t, n)
	f, err := New(data, Config{K: ref.K, M: ref.M, Init: kmeans.InitFirst})
	if err != nil {
		t.Fatal(err)
	}
	theta0, _ := f.Init(nil)
	maxIter := 0
	for _, r := range ref.Runs {
		maxIter = max(maxIter, r.Iters)
	}
	start := time.Now()
	thetas, objs := batchRun(t, f, shards(n, 2), theta0, maxIter, true, nil)
	t.Logf("%d iterations in %v", maxIter, time.Since(start))
	if e := relErr(objs[0], ref.ObjectiveInit); e > 1e-12 {
		t.Errorf("J(θ0) = %v; want %v (rel err %.3g)", objs[0], ref.ObjectiveInit, e)
	}
	for _, r := range ref.Runs {
		if e := relErr(objs[r.Iters], r.Objective); e > 1e-9 {
			t.Errorf("J after %d iterations = %.17g; want %.17g (rel err %.3g)", r.Iters, objs[r.Iters], r.Objective, e)
		} else {
			t.Logf("J after %d iterations = %.17g, numpy %.17g, rel err %.3g", r.Iters, objs[r.Iters], r.Objective, e)
		}
		for j, want := range r.Checksum.RowSums {
			got := 0.0
			for _, v := range thetas[r.Iters][j*data.D : (j+1)*data.D] {
				got += v
			}
			if e := relErr(got, want); e > 1e-9 {
				t.Errorf("iteration %d: centroid %d sums to %v; want %v (rel err %.3g)", r.Iters, j, got, want, e)
			}
		}
	}
}

// naiveFCM is a deliberately plain FCM step with exact distances and the
// textbook membership formula u_ij = 1/Σ_l (d_ij/d_il)^(1/(m−1)). It
// returns the next centroids, the statistics [S | W] and J(c).
func naiveFCM(data *dataset.Dense, c []float64, k int, m float64) (next, stats []float64, J float64) {
	d := data.D
	stats = make([]float64, k*d+k)
	S, W := stats[:k*d], stats[k*d:]
	d2 := make([]float64, k)
	for i := 0; i < data.N; i++ {
		x := data.Row(i)
		zero := 0
		for j := 0; j < k; j++ {
			s := 0.0
			for t := range x {
				e := x[t] - c[j*d+t]
				s += e * e
			}
			d2[j] = s
			if s == 0 {
				zero++
			}
		}
		for j := 0; j < k; j++ {
			var u float64
			switch {
			case zero > 0 && d2[j] == 0:
				u = 1 / float64(zero)
			case zero > 0:
				u = 0
			default:
				s := 0.0
				for l := 0; l < k; l++ {
					s += math.Pow(d2[j]/d2[l], 1/(m-1))
				}
				u = 1 / s
			}
			um := math.Pow(u, m)
			J += um * d2[j]
			W[j] += um
			for t := range x {
				S[j*d+t] += um * x[t]
			}
		}
	}
	next = make([]float64, k*d)
	for j := 0; j < k; j++ {
		for t := 0; t < d; t++ {
			next[j*d+t] = S[j*d+t] / W[j]
		}
	}
	return next, stats, J
}

func randomBlobs(rng *rand.Rand, n, d, k int) *dataset.Dense {
	centres := make([]float64, k*d)
	for i := range centres {
		centres[i] = rng.NormFloat64() * 4
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

func TestNaiveFCM(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	data := randomBlobs(rng, 300, 5, 3)
	for _, m := range []float64{2, 1.3, 3.5} {
		f, _ := New(data, Config{K: 4, M: m, Init: kmeans.InitKMeansPP})
		theta0, _ := f.Init(rng)
		thetas, objs := batchRun(t, f, shards(data.N, 1), theta0, 6, false, nil)
		c := theta0
		for it := 1; it <= 6; it++ {
			next, _, J := naiveFCM(data, c, 4, m)
			if e := relErr(objs[it-1], J); e > 1e-12 {
				t.Errorf("m=%v iteration %d: J %v; naive %v (rel %.3g)", m, it-1, objs[it-1], J, e)
			}
			if e := maxRelVec(thetas[it], next); e > 1e-11 {
				t.Fatalf("m=%v iteration %d: centroids differ from naive FCM by %.3g", m, it, e)
			}
			c = next
		}
		for it := 1; it < len(objs); it++ {
			if objs[it] > objs[it-1]*(1+1e-12) {
				t.Errorf("m=%v: J increased at iteration %d: %v → %v", m, it, objs[it-1], objs[it])
			}
		}
	}
}

// TestCoincidingPoint: a point equal to one centroid belongs to it alone;
// a point equal to two coinciding centroids is split between them.
func TestCoincidingPoint(t *testing.T) {
	data := &dataset.Dense{N: 3, D: 2, X: []float64{1, 2, 5, 5, 1, 2}}
	f, _ := New(data, Config{K: 3})
	w, _ := f.NewWorker([]int{0, 1, 2})
	w.SetParams([]float64{1, 2, 1, 2, 9, 9})
	d := algorithms.NewDelta(f.Layout())
	w.Process(0, 3, d)
	um := w.(*worker).Weights()
	for _, i := range []int{0, 2} {
		if got, want := um[i*3:i*3+3], []float64{0.25, 0.25, 0}; !slices.Equal(got, want) {
			t.Errorf("point %d: u^m = %v; want %v", i, got, want)
		}
	}
	if p := w.Evaluate(); p.Sum <= 0 || math.IsNaN(p.Sum) {
		t.Errorf("J = %v; want the finite positive contribution of point 1", p.Sum)
	}
	w.SetParams([]float64{1, 2, 0, 0, 9, 9})
	d.Reset()
	w.Process(0, 1, d)
	if got, want := w.(*worker).Weights()[:3], []float64{1, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("u^m = %v; want %v", got, want)
	}
}

type statser interface{ Stats() []float64 }

func recompute(f *FCM, parts [][]int, ws []algorithms.Worker) []float64 {
	k, d := f.k, f.d
	st := make([]float64, f.layout.Delta)
	for w, p := range parts {
		um := ws[w].(*worker).Weights()
		for i, idx := range p {
			x := f.data.Row(idx)
			for j := 0; j < k; j++ {
				st[k*d+j] += um[i*k+j]
				for t := range x {
					st[j*d+t] += um[i*k+j] * x[t]
				}
			}
		}
	}
	return st
}

// TestIncrementalInvariant: workers with stale parameters, batches cut at
// random points, deltas merged in random groupings: the running statistics
// always equal the sum of every point's latest contribution.
func TestIncrementalInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	data := randomBlobs(rng, 300, 4, 3)
	f, _ := New(data, Config{K: 3, M: 1.7, Init: kmeans.InitKMeansPP})
	theta0, _ := f.Init(rng)
	srv, _ := f.NewServer(theta0)
	perm := rng.Perm(data.N)
	parts := [][]int{perm[:40], perm[40:170], perm[170:]}
	ws := make([]algorithms.Worker, len(parts))
	cursor := make([]int, len(parts))
	for i, p := range parts {
		ws[i], _ = f.NewWorker(p)
		ws[i].SetParams(theta0)
	}
	var pending []*algorithms.Delta
	flush := func() {
		rng.Shuffle(len(pending), func(i, j int) { pending[i], pending[j] = pending[j], pending[i] })
		for len(pending) > 0 {
			n := 1 + rng.IntN(len(pending))
			acc := pending[0]
			for _, d := range pending[1:n] {
				if err := acc.Merge(d); err != nil {
					t.Fatal(err)
				}
			}
			if err := srv.Apply(acc); err != nil {
				t.Fatal(err)
			}
			pending = pending[n:]
		}
	}
	check := func(step int) {
		if e := maxRelVec(srv.(statser).Stats(), recompute(f, parts, ws)); e > 1e-12 {
			t.Fatalf("step %d: running statistics differ from recomputation by %.3g", step, e)
		}
	}
	for step := 0; step < 300; step++ {
		w := rng.IntN(len(ws))
		if rng.IntN(4) == 0 {
			ws[w].SetParams(srv.Params())
		}
		n := ws[w].Len()
		lo := cursor[w]
		hi := min(n, lo+1+rng.IntN(50))
		d := algorithms.NewDelta(f.Layout())
		ws[w].Process(lo, hi, d)
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

// TestFullPassIsFCM cuts one pass into random batches applied at random
// times while every worker keeps θ0: the result is one batch FCM step.
func TestFullPassIsFCM(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	data := randomBlobs(rng, 300, 3, 3)
	f, _ := New(data, Config{K: 3, Init: kmeans.InitRandom})
	theta0, _ := f.Init(rng)
	srv, _ := f.NewServer(theta0)
	perm := rng.Perm(data.N)
	for _, p := range [][]int{perm[:100], perm[100:120], perm[120:]} {
		w, _ := f.NewWorker(p)
		w.SetParams(theta0)
		for lo := 0; lo < len(p); {
			hi := min(len(p), lo+1+rng.IntN(40))
			d := algorithms.NewDelta(f.Layout())
			w.Process(lo, hi, d)
			if err := srv.Apply(d); err != nil {
				t.Fatal(err)
			}
			lo = hi
		}
	}
	next, stats, _ := naiveFCM(data, theta0, 3, 2)
	if e := maxRelVec(srv.(statser).Stats(), stats); e > 1e-13 {
		t.Errorf("statistics differ from batch by %.3g", e)
	}
	if e := maxRelVec(srv.Params(), next); e > 1e-13 {
		t.Errorf("θ differs from batch FCM by %.3g", e)
	}
}

func TestWorkersEqualSingle(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	data := randomBlobs(rng, 1500, 12, 5)
	f, _ := New(data, Config{K: 5, Init: kmeans.InitKMeansPP})
	theta0, _ := f.Init(rand.New(rand.NewPCG(1, 1)))
	one, objOne := batchRun(t, f, shards(data.N, 1), theta0, 6, false, nil)
	perm := rand.New(rand.NewPCG(2, 2)).Perm(data.N)
	parts := [][]int{perm[:200], perm[200:900], perm[900:1400], perm[1400:]}
	many, objMany := batchRun(t, f, parts, theta0, 6, true, nil)
	for it := range one {
		if e := maxRelVec(many[it], one[it]); e > 1e-12 {
			t.Errorf("iteration %d: 4 workers differ from 1 by %.3g", it, e)
		}
		if e := relErr(objMany[it], objOne[it]); e > 1e-12 {
			t.Errorf("iteration %d: objective differs by %.3g", it, e)
		}
	}
}

func TestApplyRefuses(t *testing.T) {
	data := readBlobs(t)
	f, _ := New(data, Config{K: 3, Init: kmeans.InitFirst})
	theta0, _ := f.Init(nil)
	srv, _ := f.NewServer(theta0)
	w, _ := f.NewWorker(shards(data.N, 1)[0])
	w.SetParams(theta0)
	good := algorithms.NewDelta(f.Layout())
	w.Process(0, 100, good)
	if err := srv.Apply(good); err != nil {
		t.Fatal(err)
	}
	theta := slices.Clone(srv.Params())
	st := srv.(statser).Stats()
	l := f.Layout()
	nan := algorithms.NewDelta(l)
	nan.Count = 1
	nan.Vec[2] = math.NaN()
	inf := algorithms.NewDelta(l)
	inf.Count = 1
	inf.Vec[l.Delta-1] = math.Inf(1)
	huge := algorithms.NewDelta(l)
	huge.Count = 1
	huge.Vec[0] = math.MaxFloat64 - st[0]
	huge.Vec[l.Params] = 0.5 - st[l.Params] // W_0 → 0.5: c = S/W overflows
	long := algorithms.NewDelta(algorithms.Layout{Params: l.Params, Delta: l.Delta + 1})
	long.Count = 1
	sparse := algorithms.NewDelta(algorithms.Layout{Params: l.Params, Delta: l.Delta, Block: 3})
	sparse.Count = 1
	for _, tc := range []struct {
		name   string
		d      *algorithms.Delta
		layout bool
	}{
		{"nil", nil, true}, {"NaN", nan, false}, {"+Inf", inf, false}, {"overflow", huge, false},
		{"long", long, true}, {"sparse", sparse, true},
	} {
		err := srv.Apply(tc.d)
		var nf *algorithms.NonFiniteError
		switch {
		case err == nil:
			t.Errorf("Apply(%s) = nil; want an error", tc.name)
		case tc.layout && !errors.Is(err, algorithms.ErrLayout):
			t.Errorf("Apply(%s) = %v; want ErrLayout", tc.name, err)
		case !tc.layout && !errors.As(err, &nf):
			t.Errorf("Apply(%s) = %v; want a NonFiniteError", tc.name, err)
		}
		if !slices.Equal(srv.Params(), theta) || !slices.Equal(srv.(statser).Stats(), st) || srv.Steps() != 1 {
			t.Errorf("Apply(%s) changed the server", tc.name)
		}
	}
}

func TestDeterminism(t *testing.T) {
	data := readBlobs(t)
	run := func(seed uint64) []float64 {
		f, _ := New(data, Config{K: 3, Init: kmeans.InitKMeansPP})
		theta0, _ := f.Init(rand.New(rand.NewPCG(seed, 0)))
		th, _ := batchRun(t, f, shards(data.N, 3), theta0, 4, true, nil)
		return th[len(th)-1]
	}
	a, b, c := run(1), run(1), run(2)
	if !slices.Equal(a, b) {
		t.Error("same seed gave different θ")
	}
	if slices.Equal(a, c) {
		t.Error("seeds 1 and 2 gave the same θ")
	}
}

func TestConfigErrors(t *testing.T) {
	data := readBlobs(t)
	for _, tc := range []struct {
		name string
		data *dataset.Dense
		cfg  Config
	}{
		{"nil data", nil, Config{K: 1}},
		{"K=0", data, Config{K: 0}},
		{"K>N", data, Config{K: 301}},
		{"m=1", data, Config{K: 2, M: 1}},
		{"m<1", data, Config{K: 2, M: 0.5}},
		{"m=Inf", data, Config{K: 2, M: math.Inf(1)}},
		{"init", data, Config{K: 2, Init: "forgy"}},
		{"NaN data", &dataset.Dense{N: 1, D: 1, X: []float64{math.Inf(1)}}, Config{K: 1}},
	} {
		if _, err := New(tc.data, tc.cfg); !errors.Is(err, algorithms.ErrConfig) {
			t.Errorf("New(%s) = %v; want ErrConfig", tc.name, err)
		}
	}
	f, _ := New(data, Config{K: 2})
	if _, err := f.NewServer(make([]float64, 7)); !errors.Is(err, algorithms.ErrLayout) {
		t.Errorf("NewServer(short) = %v; want ErrLayout", err)
	}
	if _, err := f.NewWorker([]int{300}); !errors.Is(err, algorithms.ErrConfig) {
		t.Errorf("NewWorker(300) = %v; want ErrConfig", err)
	}
}
