package slsml

import (
	"testing"
)

func TestRunSmoke(t *testing.T) {
	alg := newLogreg(t, 400, 10)
	_, s := memStore(t)
	res := runOK(t, s, alg, smallConfig())
	t.Logf("time %v end %v counts %+v bill %.6f", res.Time, res.End, res.Counts, res.Bill.Total)
	for i, it := range res.Iterations {
		t.Logf("it %d: %v (quorum %v last %v) applied %d folded %d", i, it.Duration(), it.Quorum-it.Start, it.Last-it.Start, it.Applied, it.Folded)
	}
}
