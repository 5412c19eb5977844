package algotest_test

import (
	"math/rand/v2"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/algotest"
)

func TestQuadraticConforms(t *testing.T) {
	q := &algotest.Quadratic{X: algotest.Dyadic(rand.New(rand.NewPCG(1, 2)), 40, 5), LR: 0.5}
	algotest.Check(t, q, algotest.Options{RequireCheckpointer: true})
}

func TestQuadraticFullBatchLandsOnMean(t *testing.T) {
	x := algotest.Dyadic(rand.New(rand.NewPCG(3, 4)), 64, 3)
	q := &algotest.Quadratic{X: x}
	theta, _ := q.Init(nil)
	s, err := q.NewServer(theta)
	if err != nil {
		t.Fatal(err)
	}
	pts := make([]int, 64)
	for i := range pts {
		pts[i] = i
	}
	w, _ := q.NewWorker(pts)
	w.SetParams(s.Params())
	d := algorithms.NewDelta(q.Layout())
	w.Process(0, w.Len(), d)
	if err := s.Apply(d); err != nil {
		t.Fatal(err)
	}
	for j := 0; j < 3; j++ {
		var mean float64
		for _, p := range x {
			mean += p[j]
		}
		mean /= 64 // exact: dyadic sum divided by a power of two
		if got := s.Params()[j]; got != mean {
			t.Errorf("θ[%d] = %v; want mean %v exactly", j, got, mean)
		}
	}
}
