package filter

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
)

// dyadic returns a random dyadic rational k/2^m with |k| ≤ 1024 and
// m ≤ 6, zero with probability pZero. Sums of a few million of them are
// exact in float64, so conservation can be checked with ==.
func dyadic(rng *rand.Rand, pZero float64) float64 {
	if rng.Float64() < pZero {
		return 0
	}
	k := rng.IntN(2049) - 1024
	return math.Ldexp(float64(k), -rng.IntN(7))
}

// randomLocal returns a local delta for l: dense layouts get every entry
// drawn (many zeros), sparse layouts touch a random set of blocks (some
// all-zero) and fill only those.
func randomLocal(rng *rand.Rand, l algorithms.Layout, count int) *algorithms.Delta {
	d := algorithms.NewDelta(l)
	d.Count = count
	if l.Block == 0 {
		for i := range d.Vec {
			d.Vec[i] = dyadic(rng, 0.3)
		}
		return d
	}
	nb := (l.Delta + l.Block - 1) / l.Block
	touch := 1 + rng.IntN(max(1, nb/2))
	for range touch {
		b := rng.IntN(nb)
		d.Touch(b)
		pZero := 0.2
		if rng.IntN(8) == 0 {
			pZero = 1 // a touched block whose entries are all zero
		}
		for i := b * l.Block; i < min((b+1)*l.Block, l.Delta); i++ {
			d.Vec[i] = dyadic(rng, pZero)
		}
	}
	return d
}

// randomReplica returns a replica with some zero entries.
func randomReplica(rng *rand.Rand, n int) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = dyadic(rng, 0.1)
	}
	return w
}

// heldVec returns what f holds as a dense vector.
func heldVec(f Filter) []float64 {
	h := make([]float64, f.Layout().Delta)
	f.RangeHeld(func(i int, v float64) bool { h[i] = v; return true })
	return h
}

// liveSet returns, per entry, whether it lies in a live block of d.
func liveSet(d *algorithms.Delta) []bool {
	live := make([]bool, d.Len())
	d.Range(func(i int, _ float64) bool { live[i] = true; return true })
	return live
}

func mustSignificance(t testing.TB, cfg SignificanceConfig) *Significance {
	t.Helper()
	f, err := NewSignificance(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// dense builds a dense delta of the given values.
func dense(count int, v ...float64) *algorithms.Delta {
	d := algorithms.NewDelta(algorithms.Layout{Params: len(v), Delta: len(v)})
	copy(d.Vec, v)
	d.Count = count
	return d
}

var testLayouts = []struct {
	name string
	l    algorithms.Layout
}{
	{"dense=1", algorithms.Layout{Params: 1, Delta: 1}},
	{"dense=17", algorithms.Layout{Params: 17, Delta: 17}},
	{"sparse=10/3", algorithms.Layout{Params: 10, Delta: 10, Block: 3}},
	{"sparse=64/1", algorithms.Layout{Params: 64, Delta: 64, Block: 1}},
	{"sparse=200/8", algorithms.Layout{Params: 200, Delta: 200, Block: 8}},
}
