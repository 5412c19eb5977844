package fcm_test

import (
	"math/rand/v2"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms/algotest"
	"github.com/syncmodels/syncmodels/algorithms/fcm"
	"github.com/syncmodels/syncmodels/dataset"
)

func TestConformance(t *testing.T) {
	x := dataset.Blobs(rand.New(rand.NewPCG(21, 22)), 150, 5, 4, 2)
	for _, init := range []string{"first", "random", "kmeans++"} {
		alg, err := fcm.New(x, fcm.Config{K: 4, Init: init})
		if err != nil {
			t.Fatal(err)
		}
		t.Run(init, func(t *testing.T) { algotest.Check(t, alg, algotest.Options{}) })
	}
}
