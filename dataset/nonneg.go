package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/syncmodels/syncmodels/internal/fpdet"
)

// NonNegLowRank returns an n×d nonnegative matrix X = W·H + noise for NMF:
// W (n×rank) and H (rank×d) have entries drawn uniformly from [0, 1), the
// noise is N(0, noise²) and negative results are clipped to 0. W and H are
// drawn first (W row by row, then H), then the noise, so the same seed gives
// the same matrix. Labels is nil.
//
// NonNegLowRank panics if n < 0, d < 1, rank < 1 or noise is negative or not
// finite.
func NonNegLowRank(rng *rand.Rand, n, d, rank int, noise float64) *Dense {
	if n < 0 || d < 1 || rank < 1 || !(noise >= 0) || math.IsInf(noise, 0) {
		panic(fmt.Sprintf("dataset: NonNegLowRank(n=%d, d=%d, rank=%d, noise=%g): invalid arguments", n, d, rank, noise))
	}
	w := make([]float64, n*rank)
	for i := range w {
		w[i] = rng.Float64()
	}
	h := make([]float64, rank*d)
	for i := range h {
		h[i] = rng.Float64()
	}
	m := &Dense{N: n, D: d, X: make([]float64, n*d)}
	for i := range n {
		row := m.Row(i)
		for r := range rank {
			a := w[i*rank+r]
			for j, v := range h[r*d : (r+1)*d] {
				row[j] += float64(a * v)
			}
		}
		for j := range row {
			row[j] = max(0, row[j]+float64(noise*fpdet.NormFloat64(rng)))
		}
	}
	return m
}
