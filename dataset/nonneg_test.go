package dataset

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestNonNegLowRank(t *testing.T) {
	a := NonNegLowRank(rand.New(rand.NewPCG(1, 2)), 50, 7, 3, 0.1)
	b := NonNegLowRank(rand.New(rand.NewPCG(1, 2)), 50, 7, 3, 0.1)
	c := NonNegLowRank(rand.New(rand.NewPCG(1, 3)), 50, 7, 3, 0.1)
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.X, b.X) {
		t.Error("same seed gave different matrices")
	}
	if slices.Equal(a.X, c.X) {
		t.Error("different seeds gave the same matrix")
	}
	for i, v := range a.X {
		if v < 0 {
			t.Fatalf("X[%d] = %v; want ≥ 0", i, v)
		}
	}
	// Noise-free: entries are sums of rank products of [0,1) numbers.
	z := NonNegLowRank(rand.New(rand.NewPCG(4, 4)), 20, 5, 2, 0)
	for i, v := range z.X {
		if v < 0 || v >= 2 {
			t.Fatalf("noise-free X[%d] = %v; want in [0, 2)", i, v)
		}
	}
}
