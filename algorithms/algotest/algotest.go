package algotest

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
)

// Options tunes Check.
type Options struct {
	// Seed for Init and the random cuts. Default 1.
	Seed uint64
	// Tol is the relative tolerance for comparing deltas, parameters and
	// objectives computed in different summation orders. Default 1e-10.
	Tol float64
	// RequireCheckpointer makes Check fail unless the Server and the
	// Workers implement algorithms.Checkpointer. Without it the rollback
	// test runs on whichever of them implements it, and is skipped when
	// neither does. Every workload of this module sets it.
	RequireCheckpointer bool
}

// Check runs the conformance suite on alg, which must have at least 4 points.
func Check(t *testing.T, alg algorithms.Algorithm, opt Options) {
	t.Helper()
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	if opt.Tol == 0 {
		opt.Tol = 1e-10
	}
	n := alg.NumPoints()
	if n < 4 {
		t.Fatalf("algotest: %s has %d points, need ≥ 4", alg.Name(), n)
	}
	l := alg.Layout()
	theta0 := initTheta(t, alg, opt.Seed)
	if again := initTheta(t, alg, opt.Seed); !slices.Equal(theta0, again) {
		t.Errorf("%s: Init with the same seed gave different θ0", alg.Name())
	}
	if err := algorithms.CheckParams(l, theta0); err != nil {
		t.Fatalf("%s: θ0 invalid: %v", alg.Name(), err)
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 7))

	// One worker, one call over all points.
	whole := newWorker(t, alg, all, theta0)
	dWhole := algorithms.NewDelta(l)
	whole.Process(0, n, dWhole)
	if dWhole.Count != n {
		t.Errorf("%s: Process(0,%d) added Count %d, want %d", alg.Name(), n, dWhole.Count, n)
	}
	if err := dWhole.CheckFinite(); err != nil {
		t.Fatalf("%s: full-batch delta: %v", alg.Name(), err)
	}

	t.Run("cut-anywhere", func(t *testing.T) {
		w := newWorker(t, alg, all, theta0)
		d := algorithms.NewDelta(l)
		for lo := 0; lo < n; {
			hi := min(n, lo+1+rng.IntN(max(1, n/3)))
			part := algorithms.NewDelta(l)
			w.Process(lo, hi, part)
			if err := d.Merge(part); err != nil {
				t.Fatal(err)
			}
			lo = hi
		}
		compareDelta(t, "batch cut at random points", d, dWhole, opt.Tol)
	})

	t.Run("split-invariant", func(t *testing.T) {
		// Consecutive calls into one delta are one call, bit for bit: the
		// goroutine runtime processes a batch in chunks (to notice FSP's
		// interrupts) and must compute what the simulator computes.
		w := newWorker(t, alg, all, theta0)
		d := algorithms.NewDelta(l)
		cuts := rand.New(rand.NewPCG(opt.Seed, 11))
		for lo := 0; lo < n; {
			hi := min(n, lo+1+cuts.IntN(max(1, n/3)))
			w.Process(lo, hi, d)
			lo = hi
		}
		if d.Count != dWhole.Count || !slices.Equal(d.Vec, dWhole.Vec) {
			t.Errorf("%s: Process in pieces into one delta differs from one call (Worker.Process must be split-invariant)", alg.Name())
		}
	})

	t.Run("shards-merge", func(t *testing.T) {
		cuts := []int{0, n / 4, n / 2, n}
		merged := algorithms.NewDelta(l)
		var parts []algorithms.Partial
		// Merge in reverse order to exercise commutativity.
		for s := len(cuts) - 2; s >= 0; s-- {
			w := newWorker(t, alg, all[cuts[s]:cuts[s+1]], theta0)
			d := algorithms.NewDelta(l)
			w.Process(0, w.Len(), d)
			if err := merged.Merge(d); err != nil {
				t.Fatal(err)
			}
			parts = append(parts, w.Evaluate())
		}
		compareDelta(t, "3 shards merged", merged, dWhole, opt.Tol)
		one := whole.Evaluate()
		sum := algorithms.SumPartials(parts)
		if !close(sum.Sum, one.Sum, opt.Tol) || sum.N != one.N {
			t.Errorf("%s: shard partials sum to %+v; one worker %+v", alg.Name(), sum, one)
		}
		o1 := alg.Objective(theta0, one)
		o2 := alg.Objective(theta0, parts...)
		if math.IsNaN(o1) || math.IsInf(o1, 0) || !close(o1, o2, opt.Tol) {
			t.Errorf("%s: objective one worker %v, shards %v", alg.Name(), o1, o2)
		}

		s1, s2 := newServer(t, alg, theta0), newServer(t, alg, theta0)
		if err := s1.Apply(dWhole); err != nil {
			t.Fatalf("%s: Apply(full batch): %v", alg.Name(), err)
		}
		if err := s2.Apply(merged); err != nil {
			t.Fatalf("%s: Apply(merged): %v", alg.Name(), err)
		}
		if s1.Steps() != 1 {
			t.Errorf("%s: Steps after one Apply = %d; want 1", alg.Name(), s1.Steps())
		}
		compareVec(t, "params after applying merged vs whole", s2.Params(), s1.Params(), opt.Tol)
		if err := algorithms.CheckParams(l, s1.Params()); err != nil {
			t.Errorf("%s: params after one step: %v", alg.Name(), err)
		}
	})

	t.Run("refuse-bad-delta", func(t *testing.T) {
		s := newServer(t, alg, theta0)
		if err := s.Apply(dWhole); err != nil {
			t.Fatal(err)
		}
		before := slices.Clone(s.Params())
		steps := s.Steps()
		for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			d := dWhole.Clone()
			idx := -1
			d.Range(func(i int, _ float64) bool { idx = i; return false })
			if idx < 0 {
				d.Touch(0)
				idx = 0
			}
			d.Vec[idx] = bad
			err := s.Apply(d)
			var nf *algorithms.NonFiniteError
			if !errors.As(err, &nf) {
				t.Errorf("%s: Apply(delta with %v at %d) = %v; want *NonFiniteError", alg.Name(), bad, idx, err)
			}
		}
		wrong := algorithms.NewDelta(algorithms.Layout{Params: l.Params, Delta: l.Delta + 1, Block: l.Block})
		wrong.Count = 1
		if err := s.Apply(wrong); !errors.Is(err, algorithms.ErrLayout) {
			t.Errorf("%s: Apply(delta of len %d) = %v; want ErrLayout", alg.Name(), l.Delta+1, err)
		}
		if err := s.Apply(nil); !errors.Is(err, algorithms.ErrLayout) {
			t.Errorf("%s: Apply(nil) = %v; want ErrLayout", alg.Name(), err)
		}
		empty := algorithms.NewDelta(l)
		if err := s.Apply(empty); err != nil {
			t.Errorf("%s: Apply(empty delta) = %v; want nil", alg.Name(), err)
		}
		if !slices.Equal(s.Params(), before) || s.Steps() != steps {
			t.Errorf("%s: refused or empty deltas changed the server state", alg.Name())
		}
	})

	t.Run("rollback", func(t *testing.T) { checkRollback(t, alg, theta0, opt) })

	t.Run("bad-theta0", func(t *testing.T) {
		bad := slices.Clone(theta0)
		bad[len(bad)/2] = math.NaN()
		if _, err := alg.NewServer(bad); err == nil {
			t.Errorf("%s: NewServer(θ0 with NaN) = nil error", alg.Name())
		}
		if _, err := alg.NewServer(theta0[:len(theta0)-1]); err == nil {
			t.Errorf("%s: NewServer(short θ0) = nil error", alg.Name())
		}
	})
}

func initTheta(t *testing.T, alg algorithms.Algorithm, seed uint64) []float64 {
	t.Helper()
	theta, err := alg.Init(rand.New(rand.NewPCG(seed, 0)))
	if err != nil {
		t.Fatalf("%s: Init: %v", alg.Name(), err)
	}
	return theta
}

func newWorker(t *testing.T, alg algorithms.Algorithm, pts []int, theta []float64) algorithms.Worker {
	t.Helper()
	w, err := alg.NewWorker(slices.Clone(pts))
	if err != nil {
		t.Fatalf("%s: NewWorker: %v", alg.Name(), err)
	}
	if w.Len() != len(pts) {
		t.Fatalf("%s: worker Len = %d; want %d", alg.Name(), w.Len(), len(pts))
	}
	w.SetParams(theta)
	return w
}

func newServer(t *testing.T, alg algorithms.Algorithm, theta []float64) algorithms.Server {
	t.Helper()
	s, err := alg.NewServer(slices.Clone(theta))
	if err != nil {
		t.Fatalf("%s: NewServer: %v", alg.Name(), err)
	}
	return s
}

func compareDelta(t *testing.T, what string, got, want *algorithms.Delta, tol float64) {
	t.Helper()
	if got.Count != want.Count {
		t.Errorf("%s: Count = %d; want %d", what, got.Count, want.Count)
	}
	if got.Sparse() && !slices.Equal(got.Blocks(), want.Blocks()) {
		t.Errorf("%s: live blocks %v; want %v", what, head(got.Blocks()), head(want.Blocks()))
	}
	compareVec(t, what, got.Vec, want.Vec, tol)
}

func head(b []int32) []int32 { return b[:min(len(b), 10)] }

// compareVec compares with a tolerance relative to the largest magnitude,
// because summation-order rounding scales with it.
func compareVec(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: len %d; want %d", what, len(got), len(want))
	}
	scale := 0.0
	for _, v := range want {
		scale = max(scale, math.Abs(v))
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > tol*max(scale, 1e-300) {
			t.Errorf("%s: entry %d = %v; want %v (tol %g × %g)", what, i, got[i], want[i], tol, scale)
			return
		}
	}
}

func close(a, b, tol float64) bool {
	return a == b || math.Abs(a-b) <= tol*max(math.Abs(a), math.Abs(b))
}
