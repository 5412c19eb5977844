package migrate

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// randomOp applies one random operation to p with the randomness of rng.
func randomOp(t *testing.T, p *Placement, rng *rand.Rand) {
	t.Helper()
	n := p.Workers()
	w := rng.IntN(n)
	switch r := rng.IntN(10); {
	case r < 4:
		got := next(t, p, w, rng.IntN(12))
		must(t, p.Advance(w, len(got)))
	case r < 5:
		must(t, p.BeginIteration(w))
	case r < 6:
		var tr []Transfer
		for range rng.IntN(4) {
			if from, to := rng.IntN(n), rng.IntN(n); from != to {
				tr = append(tr, Transfer{From: from, To: to, Points: rng.IntN(10), Pair: rng.IntN(2)})
			}
		}
		must(t, p.SetPlan(tr))
	case r < 8:
		_, _, err := p.OpenWindow(w)
		must(t, err)
	default:
		if ids := p.OpenWindows(); len(ids) > 0 {
			id := ids[rng.IntN(len(ids))]
			if rng.IntN(5) == 0 {
				must(t, p.Abort(id))
			} else {
				must(t, p.Deliver(id))
			}
		}
	}
}

// A clone continues exactly as the original would, and operations on one
// do not change the other.
func TestClone(t *testing.T) {
	for seed := range uint64(10) {
		rng := rand.New(rand.NewPCG(seed, 7))
		p := mustPlacement(t, 1+rng.IntN(8), 20, 5, 30, 12)
		for range 200 {
			randomOp(t, p, rng)
		}
		q := p.Clone()
		checked(t, q, "Clone")
		before := snapshot(t, p)
		if got := snapshot(t, q); got != before {
			t.Fatalf("seed %d: clone %s; original %s", seed, got, before)
		}
		// Diverge: q alone moves on; p is untouched.
		other := rand.New(rand.NewPCG(seed, 8))
		for range 200 {
			randomOp(t, q, other)
		}
		checked(t, q, "operations on the clone")
		if got := snapshot(t, p); got != before {
			t.Fatalf("seed %d: operations on the clone changed the original", seed)
		}
		// The same operations on p and on a fresh clone agree: their open
		// windows after every operation, their whole state (a snapshot,
		// the test's costly part) after every fifth.
		r := p.Clone()
		a, b := rand.New(rand.NewPCG(seed, 9)), rand.New(rand.NewPCG(seed, 9))
		for i := range 200 {
			randomOp(t, p, a)
			randomOp(t, r, b)
			if !slices.Equal(p.OpenWindows(), r.OpenWindows()) {
				t.Fatalf("seed %d op %d: open windows %v in the original, %v in the clone", seed, i, p.OpenWindows(), r.OpenWindows())
			}
			if i%5 != 4 {
				continue
			}
			if x, y := snapshot(t, p), snapshot(t, r); x != y {
				t.Fatalf("seed %d op %d: original %s, clone %s", seed, i, x, y)
			}
		}
	}
}
