package p2p

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/logreg"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/dataset"
)

// lr returns logistic regression on n synthetic points of dimension d.
func lr(t testing.TB, n, d int) algorithms.Algorithm {
	t.Helper()
	data, _ := dataset.Logistic(rand.New(rand.NewPCG(1, 2)), n, d)
	alg, err := logreg.NewDense(data, logreg.Config{Lambda: 1e-4, Optim: optim.Config{Method: optim.SGD, LR: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	return alg
}

// traceText is the trace as text.
func traceText(t *Trace) string {
	var b bytes.Buffer
	t.WriteTo(&b)
	return b.String()
}
