package emcore

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/dataset"
)

func TestRowsBlock(t *testing.T) {
	x := []float64{0, 1, 10, 11, 20, 21, 30, 31} // 4×2
	r := NewRows(x, 2, 2)
	if got := r.Block([]int{1, 2}); !slices.Equal(got, x[2:6]) || &got[0] != &x[2] {
		t.Errorf("consecutive rows: %v; want a view of %v", got, x[2:6])
	}
	if got := r.Block([]int{3, 0}); !slices.Equal(got, []float64{30, 31, 0, 1}) || &got[0] == &x[6] {
		t.Errorf("gathered rows: %v; want a copy of rows 3, 0", got)
	}
	if got := r.Block([]int{2, 0, 2}); !slices.Equal(got, []float64{20, 21, 0, 1, 20, 21}) {
		t.Errorf("3 gathered rows (more than the hint): %v", got)
	}
	if got := r.Block(nil); len(got) != 0 {
		t.Errorf("no rows: %v", got)
	}
	r32 := NewRows([]float32{1, 2, 3}, 1, 64)
	if got := r32.Block([]int{2, 0}); !slices.Equal(got, []float32{3, 1}) || len(r32.buf) != 64 {
		t.Errorf("float32 gathered rows: %v (buffer %d); want [3 1] (64)", got, len(r32.buf))
	}
}

func TestChecks(t *testing.T) {
	if m, err := CheckInit("", "x"); m != InitKMeansPP || err != nil {
		t.Errorf(`CheckInit("") = %q, %v`, m, err)
	}
	if _, err := CheckInit("forgy", "x"); !errors.Is(err, algorithms.ErrConfig) {
		t.Errorf("CheckInit(forgy) = %v; want ErrConfig", err)
	}
	bad := &dataset.Dense{N: 2, D: 1, X: []float64{1, math.NaN()}}
	if err := CheckShape(bad, 2, "x"); err != nil {
		t.Errorf("CheckShape(NaN data) = %v; want nil", err)
	}
	if err := CheckData(bad, 2, "x"); err == nil || err.Error() != "x: data row 1 column 0 is NaN: algorithms: invalid config" {
		t.Errorf("CheckData(NaN data) = %v", err)
	}
	if err := CheckPoints([]int{0, 2}, 2, "x"); !errors.Is(err, algorithms.ErrConfig) {
		t.Errorf("CheckPoints(out of range) = %v; want ErrConfig", err)
	}
	defer func() {
		if r := recover(); r != "x: Process(1, 3) on a worker with 2 points" {
			t.Errorf("CheckProcess panicked with %v", r)
		}
	}()
	CheckProcess("x", true, 1, 3, 2, nil, 0)
}

func TestServerCheckpoint(t *testing.T) {
	l := algorithms.Layout{Params: 2, Delta: 2}
	mean := func(st, _, theta []float64) { theta[0], theta[1] = st[0], st[0]+st[1] }
	s := NewServer("x", l, []float64{1, 1}, mean)
	d := algorithms.NewDelta(l)
	d.Vec[0], d.Vec[1], d.Count = 2, 3, 1
	s.Apply(d)
	cp := s.Checkpoint()
	held := s.Params()
	s.Apply(d)
	if err := s.Restore(cp); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Params(), []float64{2, 5}) || !slices.Equal(s.Stats(), []float64{2, 3}) || s.Steps() != 1 {
		t.Errorf("restored θ %v, stats %v, steps %d; want [2 5], [2 3], 1", s.Params(), s.Stats(), s.Steps())
	}
	if &s.Params()[0] == &held[0] {
		t.Error("Restore reused the checkpoint's or an earlier θ slice")
	}
	s.Apply(d)
	if !slices.Equal(held, []float64{2, 5}) {
		t.Errorf("an earlier Params slice changed to %v", held)
	}
	for _, other := range []*Server{NewServer("y", l, []float64{1, 1}, mean), NewServer("x", algorithms.Layout{Params: 2, Delta: 3}, []float64{1, 1}, mean)} {
		if err := s.Restore(other.Checkpoint()); !errors.Is(err, algorithms.ErrLayout) {
			t.Errorf("Restore(checkpoint of %s) = %v; want ErrLayout", other.owner, err)
		}
	}
}
