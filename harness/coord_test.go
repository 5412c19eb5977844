package harness

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/algotest"
	"github.com/syncmodels/syncmodels/consistency"
)

// A bad delta (NaN, wrong layout) or a duplicate commit is refused with an
// error naming the worker, and leaves the coordinator as it was: the good
// commits that follow produce what they would have without it.
func TestCoordinatorRefusesBadCommits(t *testing.T) {
	q := &algotest.Quadratic{X: algotest.Dyadic(rand.New(rand.NewPCG(1, 1)), 40, 3), LR: 0.5}
	e := &Experiment{Algorithm: q, Sync: consistency.MustParse("bsp"), Workers: 2, Theta0: make([]float64, 3)}
	if err := e.validate(); err != nil {
		t.Fatal(err)
	}
	st, err := setup(e)
	if err != nil {
		t.Fatal(err)
	}
	c := st.coord
	effs, err := c.step(0, consistency.Event{Kind: consistency.EvStart})
	if err != nil || len(effs) != 2 {
		t.Fatalf("start: %v, %v", effs, err)
	}
	for _, eff := range effs {
		c.read(0, eff)
	}
	good := func(w int) *algorithms.Delta {
		d := c.newDelta()
		st.shards[w].process(c.params, 20, d)
		return d
	}
	nan := good(0)
	nan.Vec[1] = math.NaN()
	wrong := algorithms.NewDelta(algorithms.Layout{Params: 3, Delta: 4})
	wrong.Count = 1
	for _, bad := range []*algorithms.Delta{nan, wrong, nil} {
		before := c.rec.Len()
		if _, err := c.commit(1, 0, 1, 0, 0, 0, bad); err == nil {
			t.Fatal("bad delta accepted")
		} else if want := "worker 0 commit 1"; !strings.Contains(err.Error(), want) {
			t.Fatalf("error %q does not name %q", err, want)
		}
		if c.rec.Len() != before || len(c.deltas) != 0 {
			t.Fatal("a refused delta changed the coordinator")
		}
	}
	st.shards[0].cursor = 0
	if _, err := c.commit(1, 0, 1, 0, 0, 0, good(0)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.commit(1, 0, 1, 0, 0, 0, good(0)); !errors.Is(err, consistency.ErrDuplicate) {
		t.Fatalf("duplicate commit: %v", err)
	}
	effs, err = c.commit(2, 1, 1, 0, 0, 0, good(1))
	if err != nil {
		t.Fatal(err)
	}
	if c.model.Version() != 1 || len(effs) != 2 {
		t.Fatalf("after both commits: version %d, effects %v", c.model.Version(), effs)
	}
	// θ1 = θ0 − (LR/n)·Σ(θ0 − x) over the 40 points: the sum is exact with
	// dyadic data, so any merge order gives this value.
	for j := range 3 {
		var sum float64
		for _, x := range q.X {
			sum += st.theta0[j] - x[j]
		}
		if want := st.theta0[j] - 0.5/40*sum; c.params[j] != want {
			t.Fatalf("θ1[%d] = %v; want %v", j, c.params[j], want)
		}
	}
}
