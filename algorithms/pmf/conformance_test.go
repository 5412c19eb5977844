package pmf_test

import (
	"math/rand/v2"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms/algotest"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/algorithms/pmf"
	"github.com/syncmodels/syncmodels/dataset"
)

func TestConformance(t *testing.T) {
	r := dataset.LowRankRatings(rand.New(rand.NewPCG(13, 14)), 30, 40, 3, 400, 1)
	alg, err := pmf.New(r, pmf.Config{Rank: 4, Lambda: 0.01, Optim: optim.Config{Method: optim.Nesterov, Momentum: 0.8, LR: 1}})
	if err != nil {
		t.Fatal(err)
	}
	algotest.Check(t, alg, algotest.Options{RequireCheckpointer: true})
}
