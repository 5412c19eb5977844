package fcm

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
	data := emtest.ReadBlobs(t)
	for _, file := range []string{"fcm_blobs.json", "fcm_blobs_m1.5.json"} {
		var ref fcmRef
		emtest.ReadJSON(t, file, &ref)
		f, err := New(data, Config{K: ref.K, M: ref.M, Init: kmeans.InitFirst})
		if err != nil {
			t.Fatal(err)
		}
		theta0, _ := f.Init(nil)
		maxIter := 0
		for _, r := range ref.Runs {
			maxIter = max(maxIter, r.Iters)
		}
		thetas, objs := emtest.BatchRun(t, f, emtest.Shards(data.N, 1), theta0, maxIter, false, nil)
		if e := emtest.RelErr(objs[0], ref.ObjectiveInit); e > 1e-12 {
			t.Errorf("%s: J(θ0) = %v; want %v (rel err %.3g)", file, objs[0], ref.ObjectiveInit, e)
		}
		for _, r := range ref.Runs {
			if e := emtest.RelErr(objs[r.Iters], r.Objective); e > 1e-9 {
				t.Errorf("%s: J after %d iterations = %.17g; want %.17g (rel err %.3g)", file, r.Iters, objs[r.Iters], r.Objective, e)
			} else {
				t.Logf("%s: J after %d iterations: rel err %.3g", file, r.Iters, e)
			}
			if e := emtest.MaxRelVec(thetas[r.Iters], r.Centers); e > 1e-9 {
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
	emtest.ReadJSON(t, "fcm_fashion.json", &ref)
	const n = 2000
	data := emtest.FashionHead(t, n)
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
	thetas, objs := emtest.BatchRun(t, f, emtest.Shards(n, 2), theta0, maxIter, true, nil)
	t.Logf("%d iterations in %v", maxIter, time.Since(start))
	if e := emtest.RelErr(objs[0], ref.ObjectiveInit); e > 1e-12 {
		t.Errorf("J(θ0) = %v; want %v (rel err %.3g)", objs[0], ref.ObjectiveInit, e)
	}
	for _, r := range ref.Runs {
		if e := emtest.RelErr(objs[r.Iters], r.Objective); e > 1e-9 {
			t.Errorf("J after %d iterations = %.17g; want %.17g (rel err %.3g)", r.Iters, objs[r.Iters], r.Objective, e)
		} else {
			t.Logf("J after %d iterations = %.17g, numpy %.17g, rel err %.3g", r.Iters, objs[r.Iters], r.Objective, e)
		}
		emtest.CheckRowSums(t, r.Iters, thetas[r.Iters], data.D, r.Checksum.RowSums, 1e-9)
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

func TestNaiveFCM(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	data := emtest.RandomBlobs(rng, 300, 5, 3, 4, 0)
	for _, m := range []float64{2, 1.3, 3.5} {
		f, _ := New(data, Config{K: 4, M: m, Init: kmeans.InitKMeansPP})
		theta0, _ := f.Init(rng)
		thetas, objs := emtest.BatchRun(t, f, emtest.Shards(data.N, 1), theta0, 6, false, nil)
		c := theta0
		for it := 1; it <= 6; it++ {
			next, _, J := naiveFCM(data, c, 4, m)
			if e := emtest.RelErr(objs[it-1], J); e > 1e-12 {
				t.Errorf("m=%v iteration %d: J %v; naive %v (rel %.3g)", m, it-1, objs[it-1], J, e)
			}
			if e := emtest.MaxRelVec(thetas[it], next); e > 1e-11 {
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
	data := emtest.RandomBlobs(rng, 300, 4, 3, 4, 0)
	f, _ := New(data, Config{K: 3, M: 1.7, Init: kmeans.InitKMeansPP})
	theta0, _ := f.Init(rng)
	perm := rng.Perm(data.N)
	parts := [][]int{perm[:40], perm[40:170], perm[170:]}
	recomputed := func(ws []algorithms.Worker) []float64 { return recompute(f, parts, ws) }
	emtest.Incremental{Steps: 300, MaxBatch: 50}.Run(t, rng, f, parts, theta0, emtest.StatsEqual(t, recomputed))
}

// TestFullPassIsFCM cuts one pass into random batches applied at random
// times while every worker keeps θ0: the result is one batch FCM step.
func TestFullPassIsFCM(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	data := emtest.RandomBlobs(rng, 300, 3, 3, 4, 0)
	f, _ := New(data, Config{K: 3, Init: kmeans.InitRandom})
	theta0, _ := f.Init(rng)
	perm := rng.Perm(data.N)
	srv := emtest.FullPass(t, rng, f, [][]int{perm[:100], perm[100:120], perm[120:]}, theta0, 40)
	next, stats, _ := naiveFCM(data, theta0, 3, 2)
	if e := emtest.MaxRelVec(srv.(statser).Stats(), stats); e > 1e-13 {
		t.Errorf("statistics differ from batch by %.3g", e)
	}
	if e := emtest.MaxRelVec(srv.Params(), next); e > 1e-13 {
		t.Errorf("θ differs from batch FCM by %.3g", e)
	}
}

func TestWorkersEqualSingle(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	data := emtest.RandomBlobs(rng, 1500, 12, 5, 4, 0)
	f, _ := New(data, Config{K: 5, Init: kmeans.InitKMeansPP})
	theta0, _ := f.Init(rand.New(rand.NewPCG(1, 1)))
	perm := rand.New(rand.NewPCG(2, 2)).Perm(data.N)
	parts := [][]int{perm[:200], perm[200:900], perm[900:1400], perm[1400:]}
	emtest.CheckWorkersEqualSingle(t, "", f, theta0, parts, 6)
}

func TestApplyRefuses(t *testing.T) {
	f, _ := New(emtest.ReadBlobs(t), Config{K: 3, Init: kmeans.InitFirst})
	srv := emtest.PrimedServer(t, f)
	st := srv.(statser).Stats()
	l := f.Layout()
	huge := emtest.DeltaOfOne(l)
	huge.Vec[0] = math.MaxFloat64 - st[0]
	huge.Vec[l.Params] = 0.5 - st[l.Params] // W_0 → 0.5: c = S/W overflows
	emtest.CheckRefusals(t, srv, srv.(statser).Stats, append(emtest.ContractRefusals(l, 2, math.Inf(1), 3),
		emtest.Refusal{Name: "overflow", D: huge}))
}

func TestDeterminism(t *testing.T) {
	f, _ := New(emtest.ReadBlobs(t), Config{K: 3, Init: kmeans.InitKMeansPP})
	emtest.CheckDeterminism(t, "", f, 4)
}

func TestConfigErrors(t *testing.T) {
	data := emtest.ReadBlobs(t)
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
