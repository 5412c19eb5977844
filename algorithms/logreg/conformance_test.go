package logreg_test

import (
	"math/rand/v2"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms/algotest"
	"github.com/syncmodels/syncmodels/algorithms/logreg"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/dataset"
)

func TestConformance(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	dense, _ := dataset.Logistic(rng, 120, 6)
	sparse, _ := dataset.SparseLogistic(rng, 120, 50, 5)
	cfg := logreg.Config{Lambda: 0.01, InitStd: 0.1, Optim: optim.Config{Method: optim.Adam, LR: 0.05}}
	dn, err := logreg.NewDense(dense, cfg)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := logreg.NewSparse(sparse, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("dense", func(t *testing.T) { algotest.Check(t, dn, algotest.Options{RequireCheckpointer: true}) })
	t.Run("sparse", func(t *testing.T) { algotest.Check(t, sp, algotest.Options{RequireCheckpointer: true}) })
}
