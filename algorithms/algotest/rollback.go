package algotest

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
)

// rig is a server and two workers over the halves of the points, all
// built from θ0 and warmed up (see rollback.warm).
type rig struct {
	s  algorithms.Server
	ws []algorithms.Worker
}

// trace records a run of rollback.steps: every delta, and θ and Steps after
// every Apply; then the objective under the final θ.
type trace struct {
	deltas []*algorithms.Delta
	params [][]float64
	steps  []int
	obj    float64
}

// batch is one step: worker w processes its points lo..hi-1.
type batch struct{ w, lo, hi int }

// rollback checks the Checkpointer property of alg's Server and Workers.
type rollback struct {
	alg    algorithms.Algorithm
	theta0 []float64
	shards [][]int
	steps  []batch
}

func checkRollback(t *testing.T, alg algorithms.Algorithm, theta0 []float64, opt Options) {
	n := alg.NumPoints()
	rb := &rollback{alg: alg, theta0: theta0, shards: [][]int{seq(0, n/2), seq(n/2, n)}}
	rng := rand.New(rand.NewPCG(opt.Seed, 11))
	for i := range 4 {
		m := len(rb.shards[i%2])
		lo := rng.IntN(m)
		rb.steps = append(rb.steps, batch{w: i % 2, lo: lo, hi: lo + 1 + rng.IntN(m-lo)})
	}

	r := rb.build(t, true)
	sc, sok := r.s.(algorithms.Checkpointer)
	wok := true
	for _, w := range r.ws {
		_, ok := w.(algorithms.Checkpointer)
		wok = wok && ok
	}
	switch {
	case opt.RequireCheckpointer && !(sok && wok):
		t.Fatalf("%s: server %T or worker %T does not implement algorithms.Checkpointer (Options.RequireCheckpointer)",
			alg.Name(), r.s, r.ws[0])
	case !sok && !wok:
		t.Skipf("%s: neither server %T nor worker %T implements algorithms.Checkpointer", alg.Name(), r.s, r.ws[0])
	}
	var cs algorithms.Checkpoint
	if sok {
		cs = sc.Checkpoint()
	}
	cws := make([]algorithms.Checkpoint, len(r.ws))
	if wok {
		for i, w := range r.ws {
			cws[i] = w.(algorithms.Checkpointer).Checkpoint()
		}
	}
	theta, steps := slices.Clone(r.s.Params()), r.s.Steps()

	// restore returns r restored from the checkpoints; a side that is not a
	// Checkpointer is replaced by a new one warmed up the same way.
	restore := func(r rig, what string) rig {
		t.Helper()
		var fresh rig
		if !sok || !wok {
			fresh = rb.build(t, true)
		}
		if sok {
			if err := r.s.(algorithms.Checkpointer).Restore(cs); err != nil {
				t.Fatalf("%s: %s: server Restore: %v", alg.Name(), what, err)
			}
			if !sameBits(r.s.Params(), theta) || r.s.Steps() != steps {
				t.Errorf("%s: %s: server Restore gave θ %v, Steps %d; want θ %v, Steps %d",
					alg.Name(), what, head64(r.s.Params()), r.s.Steps(), head64(theta), steps)
			}
		} else {
			r.s = fresh.s
		}
		for i := range r.ws {
			if !wok {
				r.ws[i] = fresh.ws[i]
			} else if err := r.ws[i].(algorithms.Checkpointer).Restore(cws[i]); err != nil {
				t.Fatalf("%s: %s: worker Restore: %v", alg.Name(), what, err)
			}
		}
		return r
	}

	want := rb.run(t, r)
	what := "after Restore"
	rb.compare(t, what, rb.run(t, restore(r, what)), want)

	// Restoring again works: the run above changed neither checkpoint.
	what = "after a second Restore and refused ones"
	r = restore(r, what)
	before, beforeSteps := slices.Clone(r.s.Params()), r.s.Steps()
	// Checkpoints of other objects are refused and change nothing.
	foreign := &Quadratic{X: Dyadic(rand.New(rand.NewPCG(opt.Seed, 12)), 4, alg.Layout().Params+1)}
	fr := (&rollback{alg: foreign, theta0: make([]float64, len(foreign.X[0])), shards: [][]int{{0, 1}, {2, 3}}}).build(t, false)
	others := []struct {
		from string
		cp   algorithms.Checkpoint
	}{
		{"nothing (the zero Checkpoint)", algorithms.Checkpoint{}},
		{"another workload's server", fr.s.(algorithms.Checkpointer).Checkpoint()},
		{"another workload's worker", fr.ws[0].(algorithms.Checkpointer).Checkpoint()},
	}
	refuse := func(who string, c algorithms.Checkpointer, from string, cp algorithms.Checkpoint) {
		t.Helper()
		if err := c.Restore(cp); !errors.Is(err, algorithms.ErrLayout) {
			t.Errorf("%s: %s Restore(checkpoint of %s) = %v; want ErrLayout", alg.Name(), who, from, err)
		}
	}
	for _, o := range others {
		if sok {
			refuse("server", sc, o.from, o.cp)
		}
		if wok {
			refuse("worker", r.ws[0].(algorithms.Checkpointer), o.from, o.cp)
		}
	}
	if sok && wok {
		refuse("server", sc, "a worker", cws[0])
		refuse("worker", r.ws[0].(algorithms.Checkpointer), "the server", cs)
	}
	if wok {
		refuse("worker", r.ws[0].(algorithms.Checkpointer), "the worker over other points", cws[1])
	}
	if !sameBits(r.s.Params(), before) || r.s.Steps() != beforeSteps {
		t.Errorf("%s: refused Restores changed the server", alg.Name())
	}
	rb.compare(t, what, rb.run(t, r), want)

	// A server and workers built identically take the checkpoints too.
	what = "restored into new objects"
	rb.compare(t, what, rb.run(t, restore(rb.build(t, false), what)), want)
}

// build returns a new rig, warmed up if warm: each worker in turn
// processes the first half of its points under the server's θ and the
// server applies the delta. EM workers then hold per-point state, the
// server has stepped, and sparse workloads have touched some blocks only.
func (rb *rollback) build(t *testing.T, warm bool) rig {
	t.Helper()
	r := rig{s: newServer(t, rb.alg, rb.theta0)}
	for _, p := range rb.shards {
		r.ws = append(r.ws, newWorker(t, rb.alg, p, rb.theta0))
	}
	if warm {
		for _, w := range r.ws {
			rb.step(t, r.s, w, 0, w.Len()/2+1)
		}
	}
	return r
}

// step sets w's parameters to a copy of the server's, processes lo..hi-1
// and applies the delta, which it returns.
func (rb *rollback) step(t *testing.T, s algorithms.Server, w algorithms.Worker, lo, hi int) *algorithms.Delta {
	t.Helper()
	w.SetParams(slices.Clone(s.Params()))
	d := algorithms.NewDelta(rb.alg.Layout())
	w.Process(lo, hi, d)
	if err := s.Apply(d); err != nil {
		t.Fatalf("%s: Apply: %v", rb.alg.Name(), err)
	}
	return d
}

// run runs rb.steps on r and records them.
func (rb *rollback) run(t *testing.T, r rig) trace {
	t.Helper()
	var tr trace
	for _, b := range rb.steps {
		tr.deltas = append(tr.deltas, rb.step(t, r.s, r.ws[b.w], b.lo, b.hi))
		tr.params = append(tr.params, slices.Clone(r.s.Params()))
		tr.steps = append(tr.steps, r.s.Steps())
	}
	theta := slices.Clone(r.s.Params())
	var parts []algorithms.Partial
	for _, w := range r.ws {
		w.SetParams(theta)
		parts = append(parts, w.Evaluate())
	}
	tr.obj = rb.alg.Objective(theta, parts...)
	return tr
}

// compare requires got to equal want bit for bit.
func (rb *rollback) compare(t *testing.T, what string, got, want trace) {
	t.Helper()
	name := rb.alg.Name()
	for i, b := range rb.steps {
		g, w := got.deltas[i], want.deltas[i]
		switch {
		case g.Count != w.Count || !slices.Equal(g.Blocks(), w.Blocks()):
			t.Errorf("%s: %s, step %d (worker %d, points %d..%d): delta Count %d, blocks %v; first run %d, %v",
				name, what, i, b.w, b.lo, b.hi-1, g.Count, head(g.Blocks()), w.Count, head(w.Blocks()))
		case !sameBits(g.Vec, w.Vec):
			j := firstDiff(g.Vec, w.Vec)
			t.Errorf("%s: %s, step %d (worker %d, points %d..%d): delta entry %d = %v; first run %v (want bit-identical)",
				name, what, i, b.w, b.lo, b.hi-1, j, g.Vec[j], w.Vec[j])
		case !sameBits(got.params[i], want.params[i]):
			j := firstDiff(got.params[i], want.params[i])
			t.Errorf("%s: %s, step %d: θ[%d] = %v; first run %v (want bit-identical)",
				name, what, i, j, got.params[i][j], want.params[i][j])
		case got.steps[i] != want.steps[i]:
			t.Errorf("%s: %s, step %d: Steps = %d; first run %d", name, what, i, got.steps[i], want.steps[i])
		default:
			continue
		}
		return
	}
	if math.Float64bits(got.obj) != math.Float64bits(want.obj) {
		t.Errorf("%s: %s: objective %v; first run %v (want bit-identical)", name, what, got.obj, want.obj)
	}
}

func sameBits(a, b []float64) bool { return len(a) == len(b) && firstDiff(a, b) == len(a) }

// firstDiff returns the first index where a and b differ in their bits,
// len(a) if none.
func firstDiff(a, b []float64) int {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	return len(a)
}

func seq(lo, hi int) []int {
	s := make([]int, hi-lo)
	for i := range s {
		s[i] = lo + i
	}
	return s
}

func head64(v []float64) []float64 { return v[:min(len(v), 4)] }
