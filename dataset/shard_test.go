package dataset

import (
	"reflect"
	"slices"
	"testing"
)

func TestShardSizes(t *testing.T) {
	tests := []struct {
		n, parts int
		want     []int
	}{
		{1, 1, []int{1}},
		{10, 1, []int{10}},
		{10, 3, []int{4, 3, 3}},
		{10, 4, []int{3, 3, 2, 2}},
		{10, 10, []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
		{7, 2, []int{4, 3}},
	}
	for _, tt := range tests {
		for _, seeded := range []bool{false, true} {
			rngName := "nil"
			var shards [][]int
			var err error
			if seeded {
				rngName = "seeded"
				shards, err = Shard(tt.n, tt.parts, newRNG(1))
			} else {
				shards, err = Shard(tt.n, tt.parts, nil)
			}
			if err != nil {
				t.Errorf("Shard(%d, %d, %s): %v", tt.n, tt.parts, rngName, err)
				continue
			}
			var sizes, all []int
			for _, s := range shards {
				sizes = append(sizes, len(s))
				all = append(all, s...)
			}
			if !slices.Equal(sizes, tt.want) {
				t.Errorf("Shard(%d, %d, %s) sizes = %v; want %v", tt.n, tt.parts, rngName, sizes, tt.want)
			}
			// Without rng the concatenation is 0..n-1 in order; with
			// rng it is a permutation of it.
			if seeded {
				slices.Sort(all)
			}
			for i, v := range all {
				if v != i {
					t.Errorf("Shard(%d, %d, %s) = %v; want a partition of 0..%d", tt.n, tt.parts, rngName, shards, tt.n-1)
					break
				}
			}
		}
	}
}

func TestShardSeeded(t *testing.T) {
	a, _ := Shard(100, 7, newRNG(42))
	b, _ := Shard(100, 7, newRNG(42))
	c, _ := Shard(100, 7, newRNG(43))
	if !reflect.DeepEqual(a, b) {
		t.Errorf("Shard with seed 42 twice differs")
	}
	if reflect.DeepEqual(a, c) {
		t.Errorf("Shard with seeds 42 and 43 is the same")
	}
	contiguous, _ := Shard(100, 7, nil)
	if reflect.DeepEqual(a, contiguous) {
		t.Errorf("seeded Shard equals the contiguous split")
	}
}

func TestShardAppendIsolated(t *testing.T) {
	s, _ := Shard(6, 3, nil)
	s[0] = append(s[0], 99)
	if s[1][0] != 2 {
		t.Errorf("appending to shard 0 changed shard 1 to %v", s[1])
	}
}

func TestShardErrors(t *testing.T) {
	for _, tt := range []struct{ n, parts int }{{0, 1}, {5, 0}, {5, -1}, {5, 6}, {-1, 1}} {
		if s, err := Shard(tt.n, tt.parts, nil); err == nil {
			t.Errorf("Shard(%d, %d) = %v; want an error", tt.n, tt.parts, s)
		}
	}
}

func TestDenseSubset(t *testing.T) {
	m := &Dense{N: 3, D: 2, X: []float64{0, 1, 10, 11, 20, 21}, Labels: []float64{0, 1, 2}}
	got := m.Subset([]int{2, 0, 2})
	want := &Dense{N: 3, D: 2, X: []float64{20, 21, 0, 1, 20, 21}, Labels: []float64{2, 0, 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Subset([2 0 2]) = %+v; want %+v", got, want)
	}
	got.X[0] = -1
	if m.X[4] != 20 {
		t.Errorf("Subset shares storage with the original")
	}
	m.Labels = nil
	if s := m.Subset([]int{1}); s.Labels != nil || s.Validate() != nil {
		t.Errorf("Subset of unlabelled data = %+v; want no labels", s)
	}
}

func TestSparseSubset(t *testing.T) {
	m := &Sparse{N: 3, D: 5, Indptr: []int{0, 2, 2, 3}, Indices: []int32{0, 4, 2}, Values: []float64{1, 2, 3}, Labels: []float64{1, 0, 1}}
	got := m.Subset([]int{2, 1, 0})
	want := &Sparse{N: 3, D: 5, Indptr: []int{0, 1, 1, 3}, Indices: []int32{2, 0, 4}, Values: []float64{3, 1, 2}, Labels: []float64{1, 0, 1}}
	if !reflect.DeepEqual(got, want) || got.Validate() != nil {
		t.Errorf("Subset([2 1 0]) = %+v; want %+v", got, want)
	}
}

func TestRatingsSubset(t *testing.T) {
	r := LowRankRatings(newRNG(1), 5, 5, 2, 10, 1)
	s := r.Subset([]int{9, 0})
	if s.Len() != 2 || s.User[0] != r.User[9] || s.Item[1] != r.Item[0] || s.Value[0] != r.Value[9] || s.NumItems != 5 || s.Validate() != nil {
		t.Errorf("Subset([9 0]) = %+v; want ratings 9 and 0 of %+v", s, r)
	}
}
