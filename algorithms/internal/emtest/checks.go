package emtest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/algotest"
	"github.com/syncmodels/syncmodels/dataset"
)

// Conformance runs algotest.Check on the workload that newAlg makes, with
// K = 4, for each initialisation method ("first", "random", "kmeans++"),
// over 150 points in 5 dimensions around 4 centres.
func Conformance(t *testing.T, newAlg func(data *dataset.Dense, init string) (algorithms.Algorithm, error)) {
	x := dataset.Blobs(rand.New(rand.NewPCG(21, 22)), 150, 5, 4, 2)
	for _, init := range []string{"first", "random", "kmeans++"} {
		alg, err := newAlg(x, init)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(init, func(t *testing.T) { algotest.Check(t, alg, algotest.Options{RequireCheckpointer: true}) })
	}
}

// CheckRowSums checks that row j of θ (K×d, row-major) sums to want[j]
// within the relative tolerance tol, for every j; iter names the
// iteration in messages.
func CheckRowSums(t testing.TB, iter int, theta []float64, d int, want []float64, tol float64) {
	t.Helper()
	for j, w := range want {
		got := 0.0
		for _, v := range theta[j*d : (j+1)*d] {
			got += v
		}
		if e := RelErr(got, w); e > tol {
			t.Errorf("iteration %d: centroid %d sums to %v; want %v (rel err %.3g)", iter, j, got, w, e)
		}
	}
}

// CheckWorkersEqualSingle runs iters full-batch iterations from theta0
// with one worker, then with the shards parts in parallel, and checks that
// θ and the objective agree to 1e-12 relative at every iteration. It
// returns the one-worker objectives (objs[0] under θ0). prefix starts
// every message.
func CheckWorkersEqualSingle(t testing.TB, prefix string, alg algorithms.Algorithm, theta0 []float64, parts [][]int, iters int) []float64 {
	t.Helper()
	one, objOne := BatchRun(t, alg, Shards(alg.NumPoints(), 1), theta0, iters, false, nil)
	many, objMany := BatchRun(t, alg, parts, theta0, iters, true, nil)
	for it := range one {
		if e := MaxRelVec(many[it], one[it]); e > 1e-12 {
			t.Errorf("%siteration %d: %d workers differ from 1 by %.3g", prefix, it, len(parts), e)
		}
		if e := RelErr(objMany[it], objOne[it]); e > 1e-12 {
			t.Errorf("%siteration %d: objective differs by %.3g", prefix, it, e)
		}
	}
	return objOne
}

// CheckDeterminism checks that Init from a generator seeded 1 followed by
// iters full-batch iterations over 3 shards in parallel gives the same θ
// twice, and a different θ from a generator seeded 2. prefix starts every
// message.
func CheckDeterminism(t testing.TB, prefix string, alg algorithms.Algorithm, iters int) {
	t.Helper()
	run := func(seed uint64) []float64 {
		theta0, err := alg.Init(rand.New(rand.NewPCG(seed, 0)))
		if err != nil {
			t.Fatal(err)
		}
		th, _ := BatchRun(t, alg, Shards(alg.NumPoints(), 3), theta0, iters, true, nil)
		return th[len(th)-1]
	}
	a, b, c := run(1), run(1), run(2)
	if !slices.Equal(a, b) {
		t.Errorf("%ssame seed gave different θ", prefix)
	}
	if slices.Equal(a, c) {
		t.Errorf("%sseeds 1 and 2 gave the same θ", prefix)
	}
}

// PrimedServer returns a server from alg.Init(nil) that has applied the
// delta of the first 100 points (Steps() = 1), a state for CheckRefusals.
func PrimedServer(t testing.TB, alg algorithms.Algorithm) algorithms.Server {
	t.Helper()
	theta0, err := alg.Init(nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := alg.NewServer(theta0)
	if err != nil {
		t.Fatal(err)
	}
	w, err := alg.NewWorker(Shards(alg.NumPoints(), 1)[0])
	if err != nil {
		t.Fatal(err)
	}
	w.SetParams(theta0)
	good := algorithms.NewDelta(alg.Layout())
	w.Process(0, 100, good)
	if err := srv.Apply(good); err != nil {
		t.Fatal(err)
	}
	return srv
}

// DeltaOfOne returns a zero delta of the layout l with Count 1, to be
// filled with values a server must refuse.
func DeltaOfOne(l algorithms.Layout) *algorithms.Delta {
	d := algorithms.NewDelta(l)
	d.Count = 1
	return d
}

// ContractRefusals returns the deltas that algorithms.CheckApply makes
// every server of layout l refuse: nil, a NaN at index nan, inf (±Inf) at
// the last index, one entry short, one entry long, and sparse with blocks
// of width block. Each but nil has Count 1.
func ContractRefusals(l algorithms.Layout, nan int, inf float64, block int) []Refusal {
	dn := DeltaOfOne(l)
	dn.Vec[nan] = math.NaN()
	di := DeltaOfOne(l)
	di.Vec[l.Delta-1] = inf
	return []Refusal{
		{Name: "nil", D: nil, Is: algorithms.ErrLayout},
		{Name: "NaN", D: dn},
		{Name: fmt.Sprint(inf), D: di},
		{Name: "short", D: DeltaOfOne(algorithms.Layout{Params: l.Params, Delta: l.Delta - 1}), Is: algorithms.ErrLayout},
		{Name: "long", D: DeltaOfOne(algorithms.Layout{Params: l.Params, Delta: l.Delta + 1}), Is: algorithms.ErrLayout},
		{Name: "sparse", D: DeltaOfOne(algorithms.Layout{Params: l.Params, Delta: l.Delta, Block: block}), Is: algorithms.ErrLayout},
	}
}

// Refusal is a delta a server must refuse.
type Refusal struct {
	Name string
	D    *algorithms.Delta
	// Is is the error the refusal must wrap; nil means it must be an
	// *algorithms.NonFiniteError.
	Is error
}

// CheckRefusals applies every refusal to srv and checks that Apply returns
// the error the refusal names and leaves the server unchanged: its
// parameters, its statistics as stats reports them, and Steps.
func CheckRefusals(t testing.TB, srv algorithms.Server, stats func() []float64, cases []Refusal) {
	t.Helper()
	theta, st, steps := slices.Clone(srv.Params()), stats(), srv.Steps()
	for _, tc := range cases {
		err := srv.Apply(tc.D)
		var nf *algorithms.NonFiniteError
		switch {
		case err == nil:
			t.Errorf("Apply(%s) = nil; want an error", tc.Name)
		case tc.Is != nil && !errors.Is(err, tc.Is):
			t.Errorf("Apply(%s) = %v; want %v", tc.Name, err, tc.Is)
		case tc.Is == nil && !errors.As(err, &nf):
			t.Errorf("Apply(%s) = %v; want a NonFiniteError", tc.Name, err)
		}
		if !slices.Equal(srv.Params(), theta) || !slices.Equal(stats(), st) || srv.Steps() != steps {
			t.Errorf("Apply(%s) changed the server", tc.Name)
		}
	}
}

// Incremental drives workers the way an asynchronous runtime may: with
// stale parameters, batches cut at random points, deltas held back and
// merged in random groupings. Its Run checks, through a callback, the
// invariant of incremental EM: the server's running statistics equal the
// sum of every point's latest contribution.
type Incremental struct {
	Steps    int  // number of batches
	MaxBatch int  // a batch has 1 to MaxBatch points
	HoldBack bool // a flush applies a random half of the merged groups first and the rest after
}

// StatsEqual returns a check for Incremental.Run that compares the
// server's running statistics (its Stats() []float64) with those that
// recompute derives from the workers' per-point state, to 1e-12 relative.
func StatsEqual(t testing.TB, recompute func(ws []algorithms.Worker) []float64) func(int, algorithms.Server, []algorithms.Worker) {
	type statser interface{ Stats() []float64 }
	return func(step int, srv algorithms.Server, ws []algorithms.Worker) {
		t.Helper()
		if e := MaxRelVec(srv.(statser).Stats(), recompute(ws)); e > 1e-12 {
			t.Fatalf("step %d: running statistics differ from recomputation by %.3g", step, e)
		}
	}
}

// Run makes a server from theta0 and one worker per shard of parts, all
// with parameters theta0, and runs o.Steps batches drawn from rng. At
// each, a random worker takes the server's current parameters with
// probability 1/4 (else it keeps stale ones) and processes its next 1 to
// o.MaxBatch points, wrapping around its shard; the delta is held. After a
// batch with probability 1/5, and once at the end, the held deltas are
// flushed (shuffled, merged in random groups and applied) and check runs
// with the step (-1 at the end), the server and the workers.
func (o Incremental) Run(t testing.TB, rng *rand.Rand, alg algorithms.Algorithm, parts [][]int, theta0 []float64,
	check func(step int, srv algorithms.Server, ws []algorithms.Worker)) {
	t.Helper()
	srv, err := alg.NewServer(theta0)
	if err != nil {
		t.Fatal(err)
	}
	ws := make([]algorithms.Worker, len(parts))
	cursor := make([]int, len(parts))
	for i, p := range parts {
		if ws[i], err = alg.NewWorker(p); err != nil {
			t.Fatal(err)
		}
		ws[i].SetParams(theta0)
	}
	apply := func(d *algorithms.Delta) {
		if err := srv.Apply(d); err != nil {
			t.Fatal(err)
		}
	}
	var pending []*algorithms.Delta
	flush := func() {
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
		var held []*algorithms.Delta
		for _, g := range groups {
			if o.HoldBack && rng.IntN(2) != 0 {
				held = append(held, g)
			} else {
				apply(g)
			}
		}
		for _, g := range held {
			apply(g)
		}
		pending = nil
	}
	for step := 0; step < o.Steps; step++ {
		w := rng.IntN(len(ws))
		if rng.IntN(4) == 0 {
			ws[w].SetParams(srv.Params())
		}
		n := ws[w].Len()
		lo := cursor[w]
		hi := min(n, lo+1+rng.IntN(o.MaxBatch))
		d := algorithms.NewDelta(alg.Layout())
		ws[w].Process(lo, hi, d)
		if d.Count != hi-lo {
			t.Fatalf("Count = %d; want %d", d.Count, hi-lo)
		}
		pending = append(pending, d)
		cursor[w] = hi % n
		if rng.IntN(5) == 0 {
			flush()
			check(step, srv, ws)
		}
	}
	flush()
	check(-1, srv, ws)
}
