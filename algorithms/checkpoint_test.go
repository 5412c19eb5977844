package algorithms_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/algotest"
	"github.com/syncmodels/syncmodels/algorithms/kmeans"
	"github.com/syncmodels/syncmodels/algorithms/logreg"
	"github.com/syncmodels/syncmodels/dataset"
)

func TestCheckpointState(t *testing.T) {
	c := algorithms.NewCheckpoint("a", []int{1, 2})
	if got, err := algorithms.CheckpointState[[]int](c, "a"); err != nil || !slices.Equal(got, []int{1, 2}) {
		t.Errorf("CheckpointState(own) = %v, %v; want [1 2], nil", got, err)
	}
	if c.Owner() != "a" || (algorithms.Checkpoint{}).Owner() != "" {
		t.Errorf("Owner() = %q, zero %q", c.Owner(), (algorithms.Checkpoint{}).Owner())
	}
	for _, tc := range []struct {
		c     algorithms.Checkpoint
		owner string
		want  string
	}{
		{algorithms.Checkpoint{}, "a", "algorithms: empty checkpoint restored into a: algorithms: layout mismatch"},
		{c, "b", "algorithms: checkpoint of a restored into b: algorithms: layout mismatch"},
	} {
		_, err := algorithms.CheckpointState[[]int](tc.c, tc.owner)
		if !errors.Is(err, algorithms.ErrLayout) || err.Error() != tc.want {
			t.Errorf("CheckpointState(%q into %q) = %v; want %q", tc.c.Owner(), tc.owner, err, tc.want)
		}
	}
	if _, err := algorithms.CheckpointState[[]float64](c, "a"); !errors.Is(err, algorithms.ErrLayout) {
		t.Errorf("CheckpointState of the wrong type = %v; want ErrLayout", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("NewCheckpoint with an empty owner did not panic")
		}
	}()
	algorithms.NewCheckpoint("", nil)
}

func TestShardOwner(t *testing.T) {
	l := algorithms.Layout{Params: 3, Delta: 4}
	a := algorithms.ShardOwner("w", l, []int{0, 1, 2})
	for name, other := range map[string]string{
		"reordered points": algorithms.ShardOwner("w", l, []int{0, 2, 1}),
		"other points":     algorithms.ShardOwner("w", l, []int{0, 1, 3}),
		"fewer points":     algorithms.ShardOwner("w", l, []int{0, 1}),
		"other layout":     algorithms.ShardOwner("w", algorithms.Layout{Params: 3, Delta: 4, Block: 1}, []int{0, 1, 2}),
		"other name":       algorithms.ShardOwner("v", l, []int{0, 1, 2}),
	} {
		if other == a {
			t.Errorf("%s: same owner %q", name, a)
		}
	}
	if b := algorithms.ShardOwner("w", l, []int{0, 1, 2}); b != a {
		t.Errorf("equal shards: owners %q and %q", a, b)
	}
	s := algorithms.NewStateless(a)
	if err := s.Restore(algorithms.NewStateless(a).Checkpoint()); err != nil {
		t.Errorf("Stateless.Restore(own) = %v", err)
	}
	if err := s.Restore(algorithms.NewStateless(algorithms.ShardOwner("w", l, []int{1})).Checkpoint()); !errors.Is(err, algorithms.ErrLayout) {
		t.Errorf("Stateless.Restore(other shard) = %v; want ErrLayout", err)
	}
}

// A runtime probes a training interval and rolls back: the server returns
// exactly to its checkpoint, and the same step taken again gives the same θ.
func ExampleCheckpointer() {
	q := &algotest.Quadratic{X: algotest.Dyadic(rand.New(rand.NewPCG(1, 2)), 8, 2), LR: 0.5}
	theta0, _ := q.Init(nil)
	srv, _ := q.NewServer(theta0)
	w, _ := q.NewWorker([]int{0, 1, 2, 3, 4, 5, 6, 7})
	step := func() {
		w.SetParams(srv.Params())
		d := algorithms.NewDelta(q.Layout())
		w.Process(0, w.Len(), d)
		srv.Apply(d)
	}
	cp := srv.(algorithms.Checkpointer).Checkpoint()
	step()
	probe := slices.Clone(srv.Params())
	step()
	fmt.Println(srv.Steps(), srv.(algorithms.Checkpointer).Restore(cp), srv.Steps())
	step()
	fmt.Println(slices.Equal(srv.Params(), probe))
	err := srv.(algorithms.Checkpointer).Restore(w.(algorithms.Checkpointer).Checkpoint())
	fmt.Println(errors.Is(err, algorithms.ErrLayout))
	// Output:
	// 2 <nil> 0
	// true
	// true
}

// EM workers keep each point's last contribution; gradient workers keep
// nothing.
func TestHasState(t *testing.T) {
	x := &dataset.Dense{N: 4, D: 2, X: []float64{0, 0, 1, 1, 5, 5, 6, 6}, Labels: []float64{0, 0, 1, 1}}
	km, err := kmeans.New(x, kmeans.Config{K: 2})
	if err != nil {
		t.Fatal(err)
	}
	lr, err := logreg.NewDense(x, logreg.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		alg  algorithms.Algorithm
		want bool
	}{{km, true}, {lr, false}} {
		w, err := c.alg.NewWorker([]int{0, 1})
		if err != nil {
			t.Fatal(err)
		}
		if got := algorithms.HasState(w); got != c.want {
			t.Errorf("HasState(%s worker) = %v, want %v", c.alg.Name(), got, c.want)
		}
	}
}
