package algotest_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/algotest"
)

// Quadratic's deltas are exact with dyadic data: two shards merged give the
// same delta as one worker, bit for bit.
func ExampleQuadratic() {
	q := &algotest.Quadratic{X: algotest.Dyadic(rand.New(rand.NewPCG(1, 2)), 8, 2)}
	theta, _ := q.Init(nil)
	delta := func(pts ...int) *algorithms.Delta {
		w, _ := q.NewWorker(pts)
		w.SetParams(theta)
		d := algorithms.NewDelta(q.Layout())
		w.Process(0, w.Len(), d)
		return d
	}
	whole := delta(0, 1, 2, 3, 4, 5, 6, 7)
	merged := delta(4, 5, 6, 7)
	if err := merged.Merge(delta(0, 1, 2, 3)); err != nil {
		panic(err)
	}
	fmt.Println(merged.Count, whole.Vec[0] == merged.Vec[0] && whole.Vec[1] == merged.Vec[1])
	// Output: 8 true
}
