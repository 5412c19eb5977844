package algorithms_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
)

func TestSparseDeltaTracksBlocks(t *testing.T) {
	l := algorithms.Layout{Params: 10, Delta: 10, Block: 3} // blocks 0..3, last has width 1
	d := algorithms.NewDelta(l)
	d.Touch(3)
	d.Vec[9] = 2
	d.Touch(1)
	d.Vec[4] = 1
	d.Touch(3) // again: no duplicate
	if got, want := d.Blocks(), []int32{1, 3}; !slices.Equal(got, want) {
		t.Errorf("Blocks() = %v; want %v", got, want)
	}
	if got := d.Live(); got != 4 {
		t.Errorf("Live() = %d; want 4 (block 1 width 3 + block 3 width 1)", got)
	}
	var idx []int
	d.Range(func(i int, v float64) bool { idx = append(idx, i); return true })
	if want := []int{3, 4, 5, 9}; !slices.Equal(idx, want) {
		t.Errorf("Range visited %v; want %v", idx, want)
	}

	o := algorithms.NewDelta(l)
	o.Touch(0)
	o.Vec[0] = 5
	o.Touch(1)
	o.Vec[4] = 1
	o.Count = 2
	d.Count = 1
	if err := d.Merge(o); err != nil {
		t.Fatal(err)
	}
	if got, want := d.Blocks(), []int32{0, 1, 3}; !slices.Equal(got, want) {
		t.Errorf("after Merge Blocks() = %v; want %v", got, want)
	}
	if d.Vec[0] != 5 || d.Vec[4] != 2 || d.Vec[9] != 2 || d.Count != 3 {
		t.Errorf("after Merge Vec = %v Count %d", d.Vec, d.Count)
	}
	c := d.Clone()
	d.Reset()
	if d.Count != 0 || d.Live() != 0 || slices.ContainsFunc(d.Vec, func(v float64) bool { return v != 0 }) {
		t.Errorf("after Reset: Count %d Live %d Vec %v", d.Count, d.Live(), d.Vec)
	}
	if c.Vec[4] != 2 || c.Live() != 7 {
		t.Errorf("Clone shares state with the original: %v live %d", c.Vec, c.Live())
	}
}

func TestMergeLayoutMismatch(t *testing.T) {
	a := algorithms.NewDelta(algorithms.Layout{Delta: 4})
	for _, l := range []algorithms.Layout{{Delta: 5}, {Delta: 4, Block: 2}} {
		b := algorithms.NewDelta(l)
		b.Count = 1
		if err := a.Merge(b); !errors.Is(err, algorithms.ErrLayout) {
			t.Errorf("Merge(%+v into len 4) = %v; want ErrLayout", l, err)
		}
	}
	if a.Count != 0 {
		t.Errorf("refused Merge changed Count to %d", a.Count)
	}
}

func TestCheckApply(t *testing.T) {
	l := algorithms.Layout{Params: 3, Delta: 3}
	d := algorithms.NewDelta(l)
	d.Vec[1] = math.Inf(-1)
	var nf *algorithms.NonFiniteError
	if err := algorithms.CheckApply(l, d); !errors.As(err, &nf) || nf.Index != 1 {
		t.Errorf("CheckApply(-Inf at 1) = %v; want NonFiniteError at index 1", err)
	}
	// A NaN outside the live blocks of a sparse delta is not live data, but
	// entries in live blocks are checked.
	ls := algorithms.Layout{Params: 4, Delta: 4, Block: 2}
	s := algorithms.NewDelta(ls)
	s.Touch(1)
	s.Vec[3] = math.NaN()
	if err := algorithms.CheckApply(ls, s); !errors.As(err, &nf) || nf.Index != 3 {
		t.Errorf("CheckApply(NaN at 3 in live block) = %v; want NonFiniteError at 3", err)
	}
	if err := algorithms.CheckParams(l, []float64{0, math.NaN(), 0}); !errors.As(err, &nf) {
		t.Errorf("CheckParams(NaN) = %v; want NonFiniteError", err)
	}
	if err := algorithms.CheckParams(l, []float64{0, 0}); !errors.Is(err, algorithms.ErrLayout) {
		t.Errorf("CheckParams(len 2) = %v; want ErrLayout", err)
	}
}

// A sparse delta records which blocks (here rows of width 2) a worker
// touched; merging adds only live blocks.
func ExampleDelta() {
	l := algorithms.Layout{Params: 6, Delta: 6, Block: 2}
	a := algorithms.NewDelta(l)
	a.Touch(2)
	a.Vec[4], a.Vec[5] = 1, 2
	a.Count = 1

	b := algorithms.NewDelta(l)
	b.Touch(0)
	b.Vec[0] = 3
	b.Touch(2)
	b.Vec[4] = 0.5
	b.Count = 1

	if err := a.Merge(b); err != nil {
		panic(err)
	}
	fmt.Println("blocks", a.Blocks(), "count", a.Count)
	a.Range(func(i int, v float64) bool {
		fmt.Printf("%d:%g ", i, v)
		return true
	})
	fmt.Println()
	// Output:
	// blocks [0 2] count 2
	// 0:3 1:0 4:1.5 5:2
}

func TestBlocksSortedFewAndMany(t *testing.T) {
	l := algorithms.Layout{Params: 1000, Delta: 1000, Block: 1}
	d := algorithms.NewDelta(l)
	for _, b := range []int{900, 5, 3} { // few live blocks: sorted in place
		d.Touch(b)
	}
	if got, want := d.Blocks(), []int32{3, 5, 900}; !slices.Equal(got, want) {
		t.Errorf("few blocks: Blocks() = %v; want %v", got, want)
	}
	d.Touch(1)
	for b := 999; b >= 500; b-- { // many: rebuilt from the marks
		d.Touch(b)
	}
	got := d.Blocks()
	if len(got) != 503 || !slices.IsSorted(got) || got[0] != 1 || got[1] != 3 || got[502] != 999 {
		t.Errorf("many blocks: Blocks() has %d entries, sorted %v, starts %v", len(got), slices.IsSorted(got), got[:3])
	}
}
