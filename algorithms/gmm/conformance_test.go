package gmm_test

import (
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/gmm"
	"github.com/syncmodels/syncmodels/algorithms/internal/emtest"
	"github.com/syncmodels/syncmodels/dataset"
)

func TestConformance(t *testing.T) {
	emtest.Conformance(t, func(x *dataset.Dense, init string) (algorithms.Algorithm, error) {
		return gmm.New(x, gmm.Config{K: 4, Init: init})
	})
}
