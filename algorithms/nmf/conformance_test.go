package nmf_test

import (
	"math/rand/v2"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms/algotest"
	"github.com/syncmodels/syncmodels/algorithms/nmf"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/dataset"
)

func TestConformance(t *testing.T) {
	x := dataset.NonNegLowRank(rand.New(rand.NewPCG(15, 16)), 60, 9, 3, 0.05)
	alg, err := nmf.New(x, nmf.Config{Rank: 3, Optim: optim.Config{Method: optim.SGD, LR: 0.01}})
	if err != nil {
		t.Fatal(err)
	}
	algotest.Check(t, alg, algotest.Options{RequireCheckpointer: true})
}
