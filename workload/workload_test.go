package workload_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/kmeans"
	"github.com/syncmodels/syncmodels/consistency"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/harness"
	"github.com/syncmodels/syncmodels/workload"
)

func ptr[T any](v T) *T { return &v }

// small are specs of every built-in algorithm on small data, with every
// kind of field set somewhere.
var small = []workload.Spec{
	{Algo: "kmeans", N: 300, Dim: 5, K: 4, Seed: 3},
	{Algo: "kmeans", N: 300, Dim: 5, K: 4, Init: "random", Float32: true, Seed: 3},
	{Algo: "gmm", N: 300, Dim: 3, K: 3, Init: "first", Seed: 4},
	{Algo: "fcm", N: 300, Dim: 3, K: 3, Seed: 5},
	{Algo: "lr", N: 400, Dim: 6, Seed: 6},
	{Algo: "lr", Data: "synthetic:sparse-logistic", N: 400, Dim: 200, Optimizer: "momentum", LR: 0.3, L2: ptr(0.0), Seed: 7},
	{Algo: "lr", Data: "synthetic:blobs", N: 300, Dim: 4, Positive: ptr(2), L2: ptr(1e-3), Seed: 8},
	{Algo: "pmf", N: 3000, Rank: 3, Optimizer: "adam", LR: 0.01, Seed: 9},
	{Algo: "nmf", N: 60, Dim: 20, Rank: 4, Seed: 10},
}

func TestSpecJSONRoundTrip(t *testing.T) {
	for _, s := range small {
		for _, s := range []workload.Spec{s, s.WithDefaults()} {
			b, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			var got workload.Spec
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, s) {
				t.Errorf("json round trip of %+v = %+v (via %s)", s, got, b)
			}
		}
	}
	// The keys are snake case and the flags' names; zero positive and
	// l2 survive (they are not "the algorithm's").
	b, _ := json.Marshal(workload.Spec{Algo: "lr", Data: "csv:x.csv", N: 1, Dim: 2, K: 3, Rank: 4, Init: "first", Optimizer: "sgd",
		LR: 0.5, L2: ptr(0.0), Positive: ptr(0), Seed: 0, Float32: true})
	const want = `{"algo":"lr","data":"csv:x.csv","n":1,"dim":2,"k":3,"rank":4,"init":"first","optimizer":"sgd","lr":0.5,"l2":0,"positive":0,"seed":0,"float32":true}`
	if string(b) != want {
		t.Errorf("json.Marshal = %s; want %s", b, want)
	}
}

func TestWithDefaults(t *testing.T) {
	got := workload.Spec{Algo: "pmf", Seed: 2}.WithDefaults()
	want := workload.Spec{Algo: "pmf", Data: "synthetic:ratings", K: 10, Rank: 10, Init: "kmeans++", Seed: 2}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("WithDefaults = %+v; want %+v", got, want)
	}
	// Set fields stay.
	s := workload.Spec{Algo: "kmeans", Data: "csv:a", K: 3, Rank: 2, Init: "first"}
	if got := s.WithDefaults(); !reflect.DeepEqual(got, s) {
		t.Errorf("WithDefaults(%+v) = %+v; want it unchanged", s, got)
	}
	if err := (workload.Spec{Algo: "kmeans"}).Validate(); err == nil {
		t.Error("Validate of a Spec without K, Rank and Init: nil error; want -k")
	}
	if err := (workload.Spec{Algo: "kmeans"}).WithDefaults().Validate(); err != nil {
		t.Errorf("Validate after WithDefaults: %v", err)
	}
}

// run takes θ0 from Init with a fixed rng and one worker's delta over its
// whole shard, the second of three.
func run(t *testing.T, alg algorithms.Algorithm) (theta0 []float64, d *algorithms.Delta) {
	t.Helper()
	theta0, err := alg.Init(rand.New(rand.NewPCG(11, 12)))
	if err != nil {
		t.Fatal(err)
	}
	shards, err := workload.Sharding{Workers: 3, Shuffle: true, Seed: 5}.Shards(alg.NumPoints())
	if err != nil {
		t.Fatal(err)
	}
	w, err := alg.NewWorker(shards[1])
	if err != nil {
		t.Fatal(err)
	}
	w.SetParams(theta0)
	d = algorithms.NewDelta(alg.Layout())
	w.Process(0, w.Len(), d)
	return theta0, d
}

func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// TestDecodedSpecBuildsTheSame is what a worker relies on: Open of the
// JSON copy of a Spec gives the same θ0 and the same deltas, bit for bit.
func TestDecodedSpecBuildsTheSame(t *testing.T) {
	for _, s := range small {
		alg, _, err := workload.Open(s)
		if err != nil {
			t.Fatalf("Open(%+v): %v", s, err)
		}
		b, _ := json.Marshal(s)
		var dec workload.Spec
		if err := json.Unmarshal(b, &dec); err != nil {
			t.Fatal(err)
		}
		walg, _, err := workload.Open(dec)
		if err != nil {
			t.Fatalf("Open(%s): %v", b, err)
		}
		th, d := run(t, alg)
		wth, wd := run(t, walg)
		if walg.Name() != alg.Name() || walg.Layout() != alg.Layout() || walg.NumPoints() != alg.NumPoints() {
			t.Errorf("%s: decoded spec builds %s %+v %d points; want %s %+v %d", b, walg.Name(), walg.Layout(), walg.NumPoints(), alg.Name(), alg.Layout(), alg.NumPoints())
		}
		if !sameBits(wth, th) {
			t.Errorf("%s: θ0 differs between the spec and its JSON copy", b)
		}
		if wd.Count != d.Count || d.Count == 0 || !sameBits(wd.Vec, d.Vec) {
			t.Errorf("%s: delta (count %d) differs from the original's (count %d)", b, wd.Count, d.Count)
		}
		// The comparison can fail: another data seed changes the delta.
		other := s
		other.Seed++
		oalg, _, err := workload.Open(other)
		if err != nil {
			t.Fatal(err)
		}
		if _, od := run(t, oalg); sameBits(od.Vec, d.Vec) {
			t.Errorf("%s: seed %d gives the same delta as seed %d", b, other.Seed, s.Seed)
		}
	}
}

// TestSettingsReachTheAlgorithm checks that Spec fields change what is
// built: the learning rate, L2 and Positive of lr, Float32 of kmeans.
func TestSettingsReachTheAlgorithm(t *testing.T) {
	step := func(s workload.Spec) []float64 {
		alg, _, err := workload.Open(s)
		if err != nil {
			t.Fatal(err)
		}
		// Two full-batch steps (θ0 of lr is 0, where L2 has no gradient).
		th, err := alg.Init(rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		srv, err := alg.NewServer(th)
		if err != nil {
			t.Fatal(err)
		}
		all, err := workload.Sharding{Workers: 1}.Shard(alg.NumPoints(), 0)
		if err != nil {
			t.Fatal(err)
		}
		w, err := alg.NewWorker(all)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			w.SetParams(srv.Params())
			d := algorithms.NewDelta(alg.Layout())
			w.Process(0, w.Len(), d)
			if err := srv.Apply(d); err != nil {
				t.Fatal(err)
			}
		}
		return slices.Clone(srv.Params())
	}
	// Under SGD (Adam's first step is about ±LR whatever the gradient).
	base := workload.Spec{Algo: "lr", Data: "synthetic:blobs", N: 300, Dim: 4, Positive: ptr(2), Optimizer: "sgd", Seed: 8}
	ref := step(base)
	for _, mod := range []func(*workload.Spec){
		func(s *workload.Spec) { s.LR = 0.2 },
		func(s *workload.Spec) { s.Optimizer = "adam" },
		func(s *workload.Spec) { s.L2 = ptr(0.5) },
		func(s *workload.Spec) { s.Positive = ptr(3) },
	} {
		s := base
		mod(&s)
		if sameBits(step(s), ref) {
			t.Errorf("%+v steps to the same θ as %+v", s, base)
		}
	}
	// The algorithm's defaults, given explicitly, are the same as none.
	e, _ := workload.Lookup("lr")
	base.Optimizer = ""
	ref = step(base)
	s := base
	s.LR, s.Optimizer, s.L2 = e.Optim.LR, e.Optim.Method.String(), ptr(e.L2)
	if !sameBits(step(s), ref) {
		t.Errorf("lr with its defaults written out (lr %g, %s, l2 %g) steps elsewhere than with none", e.Optim.LR, e.Optim.Method, e.L2)
	}
}

func TestShardingMatchesDataset(t *testing.T) {
	got, err := workload.Sharding{Workers: 3}.Shards(10)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]int{{0, 1, 2, 3}, {4, 5, 6}, {7, 8, 9}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Shards(10) of 3 workers = %v; want %v", got, want)
	}
	got, _ = workload.Sharding{Workers: 3, Shuffle: true, Seed: 9}.Shards(10)
	want, _ := dataset.Shard(10, 3, rand.New(rand.NewPCG(9, 0x5a4d)))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("shuffled Shards(10) = %v; want %v", got, want)
	}
	one, err := workload.Sharding{Workers: 3, Shuffle: true, Seed: 9}.Shard(10, 2)
	if err != nil || !slices.Equal(one, want[2]) {
		t.Errorf("Shard(10, 2) = %v, %v; want %v", one, err, want[2])
	}
	for _, tc := range []struct {
		s         workload.Sharding
		n, index  int
		wantMsg   string
		wantField string
	}{
		{workload.Sharding{Workers: 0}, 10, 0, "workload: worker index 0", "index"},
		{workload.Sharding{Workers: 11}, 10, 0, "workload: -workers 11", "workers"},
		{workload.Sharding{Workers: 2}, 10, 2, "workload: worker index 2", "index"},
		{workload.Sharding{Workers: 2}, 10, -1, "workload: worker index -1", "index"},
	} {
		_, err := tc.s.Shard(tc.n, tc.index)
		var se *workload.SpecError
		if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), tc.wantMsg) || se.Field != tc.wantField || !errors.Is(err, workload.ErrConfig) {
			t.Errorf("%+v.Shard(%d, %d) = %v; want a SpecError about %s starting %q", tc.s, tc.n, tc.index, err, tc.wantField, tc.wantMsg)
		}
	}
}

// recorder records the shards harness gives its workers.
type recorder struct {
	algorithms.Algorithm
	mu     sync.Mutex
	shards [][]int
}

func (r *recorder) NewWorker(points []int) (algorithms.Worker, error) {
	r.mu.Lock()
	r.shards = append(r.shards, slices.Clone(points))
	r.mu.Unlock()
	return r.Algorithm.NewWorker(points)
}

// TestShardingMatchesHarness runs harness and compares the shards its
// workers get with Sharding's.
func TestShardingMatchesHarness(t *testing.T) {
	alg, _, err := workload.Open(workload.Spec{Algo: "kmeans", N: 103, Dim: 2, K: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, shuffle := range []bool{false, true} {
		rec := &recorder{Algorithm: alg}
		e := harness.Experiment{Algorithm: rec, Sync: consistency.Spec{Kind: consistency.BSP}, Workers: 4, Batch: 10,
			Duration: time.Millisecond, Seed: 77, Shuffle: shuffle}
		if _, err := harness.Run(context.Background(), e); err != nil {
			t.Fatal(err)
		}
		want, err := workload.Sharding{Workers: 4, Shuffle: shuffle, Seed: 77}.Shards(alg.NumPoints())
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.shards) < 4 || !reflect.DeepEqual(rec.shards[:4], want) {
			t.Errorf("shuffle %t: harness's workers got %v; Sharding gives %v", shuffle, rec.shards, want)
		}
	}
}

func TestShardHash(t *testing.T) {
	spec := workload.Spec{Algo: "kmeans", N: 200, Dim: 3, K: 4, Seed: 2}
	alg, d, err := workload.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	points, _ := workload.Sharding{Workers: 4}.Shard(alg.NumPoints(), 1)
	hash := func(alg algorithms.Algorithm, d *workload.Data, p []int) string {
		t.Helper()
		h, err := workload.ShardHash(alg, d, p)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	ref := hash(alg, d, points)
	if len(ref) != 64 {
		t.Errorf("ShardHash = %q; want 64 hex digits", ref)
	}
	// Another process's Open of the same spec agrees.
	alg2, d2, _ := workload.Open(spec)
	if h := hash(alg2, d2, points); h != ref {
		t.Errorf("ShardHash of a second Open = %s; want %s", h, ref)
	}
	changed := func(what, h string) {
		t.Helper()
		if h == ref {
			t.Errorf("ShardHash unchanged when %s", what)
		}
	}
	p := slices.Clone(points)
	p[3]++
	changed("one index changes", hash(alg, d, p))
	p = slices.Clone(points)
	p[0], p[1] = p[1], p[0]
	changed("two points swap", hash(alg, d, p))
	changed("a point is dropped", hash(alg, d, points[1:]))
	changed("the data is not hashed", hash(alg, nil, points))
	gmmAlg, _ := workload.Build(workload.Spec{Algo: "gmm", N: 200, Dim: 3, K: 4, Seed: 2}, d)
	changed("the algorithm is gmm", hash(gmmAlg, d, points))
	k5, _ := workload.Build(workload.Spec{Algo: "kmeans", K: 5}, d)
	changed("k is 5", hash(k5, d, points))
	// One value of one point of the shard.
	x := *d.Dense
	x.X = slices.Clone(x.X)
	x.X[points[5]*x.D+1] += 1e-12
	changed("a feature changes", hash(alg, &workload.Data{Source: d.Source, Dense: &x}, points))
	x.X = d.Dense.X
	x.Labels = slices.Clone(x.Labels)
	x.Labels[points[7]]++
	changed("a label changes", hash(alg, &workload.Data{Source: d.Source, Dense: &x}, points))
	// A point outside the shard does not count.
	x.Labels = slices.Clone(d.Dense.Labels)
	x.Labels[(points[len(points)-1]+1)%200]++
	if h := hash(alg, &workload.Data{Source: d.Source, Dense: &x}, points); h != ref {
		t.Errorf("ShardHash changed with a point outside the shard")
	}

	if _, err := workload.ShardHash(alg, d, []int{0, 200}); err == nil || !strings.Contains(err.Error(), "point 200") {
		t.Errorf("ShardHash with point 200 of 200 = %v; want an error naming it", err)
	}
	small, _, _ := workload.Open(workload.Spec{Algo: "kmeans", N: 100, Dim: 3, K: 4, Seed: 2})
	if _, err := workload.ShardHash(small, d, []int{0}); err == nil {
		t.Error("ShardHash of a 100-point algorithm over 200-point data: nil error")
	}

	// Sparse data and ratings hash their points too.
	for _, s := range []workload.Spec{
		{Algo: "lr", Data: "synthetic:sparse-logistic", N: 100, Dim: 50, Seed: 1},
		{Algo: "pmf", N: 500, Rank: 2, Seed: 1},
	} {
		alg, d, err := workload.Open(s)
		if err != nil {
			t.Fatal(err)
		}
		if d.Sparse != nil {
			x := *d.Sparse
			x.Values = slices.Clone(x.Values)
			x.Values[x.Indptr[3]] *= 2
			if hash(alg, d, []int{2, 3}) == hash(alg, &workload.Data{Sparse: &x}, []int{2, 3}) {
				t.Errorf("%s: ShardHash unchanged when a sparse value changes", s.Algo)
			}
		} else {
			r := *d.Ratings
			r.Item = slices.Clone(r.Item)
			r.Item[3] = (r.Item[3] + 1) % int32(r.NumItems)
			if hash(alg, d, []int{2, 3}) == hash(alg, &workload.Data{Ratings: &r}, []int{2, 3}) {
				t.Errorf("%s: ShardHash unchanged when a rating's item changes", s.Algo)
			}
		}
	}
}

// TestBadSpecs: each error is one line, a SpecError matching ErrConfig,
// and names the field first.
func TestBadSpecs(t *testing.T) {
	dir := t.TempDir()
	tiny := filepath.Join(dir, "tiny.csv")
	if err := os.WriteFile(tiny, []byte("1,1,2\n1,3,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ok := workload.Spec{Algo: "kmeans", Data: "synthetic:blobs", N: 50, Dim: 2, K: 3, Seed: 1}
	for _, tc := range []struct {
		mod     func(*workload.Spec)
		prefix  string // the field, as the message starts
		contain string
	}{
		{func(s *workload.Spec) { s.Algo = "svm" }, `-algo "svm"`, "kmeans, gmm, fcm, lr, pmf or nmf"},
		{func(s *workload.Spec) { s.K = -1 }, "-k -1", "≥ 1"},
		{func(s *workload.Spec) { s.Rank = -2 }, "-rank -2", "≥ 1"},
		{func(s *workload.Spec) { s.N = -5 }, "-n -5", "≥ 0"},
		{func(s *workload.Spec) { s.LR = math.NaN() }, "-lr NaN", "finite"},
		{func(s *workload.Spec) { s.L2 = ptr(-1.0) }, "-l2 -1", "≥ 0"},
		{func(s *workload.Spec) { s.L2 = ptr(math.Inf(1)) }, "-l2 +Inf", "finite"},
		{func(s *workload.Spec) { s.Positive = ptr(-1) }, "-positive -1", "≥ 0"},
		{func(s *workload.Spec) { s.Init = "middle" }, `-init "middle"`, "kmeans++"},
		{func(s *workload.Spec) { s.Optimizer = "lbfgs" }, `-optimizer "lbfgs"`, "adam"},
		// Load's.
		{func(s *workload.Spec) { s.Data = "nope" }, `-data "nope"`, "KIND:PATH"},
		{func(s *workload.Spec) { s.Data = "zip:x" }, `-data "zip:x"`, `unknown kind "zip"`},
		{func(s *workload.Spec) { s.Data = "synthetic:cubes" }, "-data synthetic:cubes", "unknown generator"},
		{func(s *workload.Spec) { s.N, s.Dim = 1e9, 100 }, "-n 1000000000 -dim 100", "more than package workload generates"},
		// Build's: the spec does not fit the data.
		{func(s *workload.Spec) { s.K = 51 }, "-k 51", "want -k ≤ 50"},
		{func(s *workload.Spec) { s.Algo = "pmf" }, "-algo pmf", "needs ratings data"},
		{func(s *workload.Spec) { s.Algo, s.Data = "kmeans", "synthetic:ratings" }, "-algo kmeans", "needs dense data"},
		{func(s *workload.Spec) { s.Algo = "lr" }, "-algo lr", "choose the class that is 1 with -positive (e.g. -positive 0)"},
		{func(s *workload.Spec) { s.Algo, s.Positive = "lr", ptr(10) }, "-positive 10", "no label 10"},
		{func(s *workload.Spec) { s.Algo, s.Data, s.Positive = "lr", "csv:"+tiny, ptr(1) }, "-positive 1", "no negative class"},
		{func(s *workload.Spec) { s.Algo, s.Data, s.Rank = "nmf", "csv:"+tiny, 1e9 }, "-rank 1000000000", "more than package workload allocates"},
	} {
		s := ok
		tc.mod(&s)
		_, _, err := workload.Open(s)
		var se *workload.SpecError
		field := strings.TrimPrefix(strings.Fields(tc.prefix)[0], "-")
		switch {
		case err == nil:
			t.Errorf("Open(%+v): nil error; want %q…", s, tc.prefix)
		case !strings.HasPrefix(err.Error(), "workload: "+tc.prefix+":") && !strings.HasPrefix(err.Error(), "workload: "+tc.prefix+" "):
			t.Errorf("Open(%+v) = %q; want it to start %q", s, err, "workload: "+tc.prefix)
		case !errors.As(err, &se) || se.Field != field || "workload: "+se.Msg != err.Error():
			t.Errorf("Open(%+v) = %#v; want a *SpecError of Field %q", s, err, field)
		case !strings.Contains(err.Error(), tc.contain):
			t.Errorf("Open(%+v) = %q; want it to say %q", s, err, tc.contain)
		case strings.Contains(err.Error(), "\n"):
			t.Errorf("Open(%+v) = %q: more than one line", s, err)
		case !errors.Is(err, workload.ErrConfig):
			t.Errorf("Open(%+v) = %q: not an ErrConfig", s, err)
		case errors.Is(err, workload.ErrTooLarge) != strings.Contains(tc.contain, "more than"):
			t.Errorf("Open(%+v) = %q: ErrTooLarge %t", s, err, errors.Is(err, workload.ErrTooLarge))
		}
	}
	// A file's errors are the dataset package's, not ErrConfig.
	_, err := workload.Load(workload.Spec{Data: "csv:" + filepath.Join(dir, "missing.csv")})
	if err == nil || errors.Is(err, workload.ErrConfig) || !strings.Contains(err.Error(), "missing.csv") {
		t.Errorf("Load of a missing file = %v; want a file error naming it, not ErrConfig", err)
	}
	// Build refuses what Validate refuses, too.
	d, _ := workload.Load(ok)
	if _, err := workload.Build(workload.Spec{Algo: "kmeans", K: -3}, d); err == nil || !strings.HasPrefix(err.Error(), "workload: -k -3") {
		t.Errorf("Build with K -3 = %v; want -k -3", err)
	}
}

// constant is a registered algorithm of one parameter whose delta counts
// points: enough to show a registry builds what it holds.
type constant struct{ n int }

func (c constant) Name() string                                       { return "constant" }
func (c constant) Layout() algorithms.Layout                          { return algorithms.Layout{Params: 1, Delta: 1} }
func (c constant) NumPoints() int                                     { return c.n }
func (c constant) Init(*rand.Rand) ([]float64, error)                 { return []float64{0}, nil }
func (c constant) NewWorker([]int) (algorithms.Worker, error)         { return nil, errors.New("not used") }
func (c constant) NewServer([]float64) (algorithms.Server, error)     { return nil, errors.New("not used") }
func (c constant) Objective([]float64, ...algorithms.Partial) float64 { return 0 }
func (c constant) Minimize() bool                                     { return true }

func TestRegistry(t *testing.T) {
	if got, want := workload.Names(), []string{"kmeans", "gmm", "fcm", "lr", "pmf", "nmf"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %v; want %v", got, want)
	}
	r := workload.NewRegistry()
	err := r.Register(workload.Entry{Name: "constant", Data: "synthetic:blobs", Build: func(s workload.Spec, d *workload.Data) (algorithms.Algorithm, error) {
		n, _ := d.Shape()
		return constant{n}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	alg, d, err := r.Open(workload.Spec{Algo: "constant", N: 40, Dim: 2})
	if err != nil || alg.Name() != "constant" || alg.NumPoints() != 40 || d.Source != "synthetic:blobs" {
		t.Errorf("Open(constant) = %v, %v, %v; want the constant algorithm over 40 blobs", alg, d, err)
	}
	if got := r.Names(); !slices.Contains(got, "constant") || !slices.Contains(got, "kmeans") {
		t.Errorf("Names() after Register = %v; want the built-ins and constant", got)
	}
	// The package's registry is not the one registered into.
	if slices.Contains(workload.Names(), "constant") {
		t.Error("Register on NewRegistry() changed the package's Names()")
	}
	if err := (workload.Spec{Algo: "constant"}).WithDefaults().Validate(); err == nil || !strings.Contains(err.Error(), "constant") {
		t.Errorf("package Validate of constant = %v; want unknown -algo", err)
	}
	for _, e := range []workload.Entry{
		{Name: "kmeans", Build: func(workload.Spec, *workload.Data) (algorithms.Algorithm, error) { return nil, nil }},
		{Name: "", Build: func(workload.Spec, *workload.Data) (algorithms.Algorithm, error) { return nil, nil }},
		{Name: "nobuild"},
	} {
		if err := r.Register(e); err == nil {
			t.Errorf("Register(%q) = nil; want an error", e.Name)
		}
	}
	var empty workload.Registry
	if err := empty.Validate(workload.Spec{Algo: "kmeans"}.WithDefaults()); err == nil {
		t.Error("an empty registry validates kmeans")
	}
}

// TestBuildMatchesPackage checks that Build makes the algorithm the
// algorithms' own constructors make from the same data and settings.
func TestBuildMatchesPackage(t *testing.T) {
	s := workload.Spec{Algo: "kmeans", N: 120, Dim: 3, K: 5, Init: "kmeans++", Seed: 4}
	alg, d, err := workload.Open(s)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := kmeans.New(dataset.Blobs(rand.New(rand.NewPCG(4, 0xda7a)), 120, 3, 10, 1.5), kmeans.Config{K: 5, Init: "kmeans++"})
	if err != nil {
		t.Fatal(err)
	}
	if d.String() != "synthetic:blobs (120×3 dense)" {
		t.Errorf("Data.String() = %q", d.String())
	}
	th, delta := run(t, alg)
	rth, rdelta := run(t, ref)
	if !sameBits(th, rth) || !sameBits(delta.Vec, rdelta.Vec) {
		t.Error("workload's kmeans differs from kmeans.New over dataset.Blobs with the seed's stream")
	}
}
