package kmeans

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/internal/emcore"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/internal/fpdet"
	"github.com/syncmodels/syncmodels/internal/kernel"
)

// Initialisation methods for Config.Init and Seed.
const (
	InitFirst    = emcore.InitFirst    // "first": the first K points
	InitRandom   = emcore.InitRandom   // "random": K distinct points drawn uniformly
	InitKMeansPP = emcore.InitKMeansPP // "kmeans++": greedy k-means++ (the default)
)

// Seed returns K initial centroids (K×D, row-major) chosen from the rows of
// data by method: InitFirst, InitRandom or InitKMeansPP ("" means
// InitKMeansPP). InitFirst ignores rng; the others need it.
//
// InitKMeansPP is scikit-learn's greedy k-means++: the first centroid is a
// uniformly drawn point; each further one is the best of 2+⌊ln K⌋
// candidates drawn with probability proportional to the squared distance to
// the nearest centroid so far, "best" meaning the smallest resulting
// potential Σ_i min_j ‖x_i − c_j‖². It draws from rng, not numpy's
// generator, so it picks different points than scikit-learn does.
func Seed(data *dataset.Dense, k int, method string, rng *rand.Rand) ([]float64, error) {
	if err := emcore.CheckShape(data, k, "kmeans"); err != nil {
		return nil, err
	}
	method, err := emcore.CheckInit(method, "kmeans")
	if err != nil {
		return nil, err
	}
	n, d := data.N, data.D
	var idx []int
	switch method {
	case InitFirst:
		idx = make([]int, k)
		for i := range idx {
			idx[i] = i
		}
	case InitRandom:
		if rng == nil {
			return nil, fmt.Errorf("kmeans: init %q needs a *rand.Rand: %w", method, algorithms.ErrConfig)
		}
		idx = sampleDistinct(rng, n, k)
	case InitKMeansPP:
		if rng == nil {
			return nil, fmt.Errorf("kmeans: init %q needs a *rand.Rand: %w", method, algorithms.ErrConfig)
		}
		idx = plusPlus(data, k, rng)
	}
	c := make([]float64, k*d)
	for j, i := range idx {
		copy(c[j*d:(j+1)*d], data.Row(i))
	}
	return c, nil
}

// sampleDistinct returns k distinct indices in [0, n), drawn uniformly
// (Floyd's algorithm), in the order drawn.
func sampleDistinct(rng *rand.Rand, n, k int) []int {
	seen := make(map[int]bool, k)
	out := make([]int, 0, k)
	for j := n - k; j < n; j++ {
		t := rng.IntN(j + 1)
		if seen[t] {
			t = j
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}

// plusPlus is greedy k-means++ seeding; it returns the chosen row indices.
func plusPlus(data *dataset.Dense, k int, rng *rand.Rand) []int {
	n := data.N
	trials := 2 + int(fpdet.Log(float64(k)))
	xx := make([]float64, n)
	for i := range xx {
		x := data.Row(i)
		xx[i] = kernel.Dot(x, x)
	}
	idx := make([]int, 0, k)
	first := rng.IntN(n)
	idx = append(idx, first)
	closest := make([]float64, n)
	sqDistsTo(data, xx, []int{first}, closest)
	pot := sum(closest)

	cand := make([]int, trials)
	candDist := make([]float64, trials*n)
	cum := make([]float64, n)
	for len(idx) < k {
		s := 0.0
		for i, v := range closest {
			s += v
			cum[i] = s
		}
		for t := range cand {
			r := rng.Float64() * pot
			c := sort.SearchFloat64s(cum, r) // first i with cum[i] >= r
			cand[t] = min(c, n-1)
		}
		sqDistsTo(data, xx, cand, candDist)
		best, bestPot := 0, math.Inf(1)
		for t := range cand {
			row := candDist[t*n : (t+1)*n]
			p := 0.0
			for i, v := range row {
				if c := closest[i]; c < v {
					v = c
				}
				row[i] = v
				p += v
			}
			if p < bestPot {
				best, bestPot = t, p
			}
		}
		copy(closest, candDist[best*n:(best+1)*n])
		pot = bestPot
		idx = append(idx, cand[best])
	}
	return idx
}

// sqDistsTo sets out[t*n+i] = ‖x_i − x_{rows[t]}‖² for every point i, by the
// expansion ‖x‖² − 2x·c + ‖c‖² clamped at 0 (as scikit-learn does).
func sqDistsTo(data *dataset.Dense, xx []float64, rows []int, out []float64) {
	n, d, m := data.N, data.D, len(rows)
	c := make([]float64, m*d)
	for t, r := range rows {
		copy(c[t*d:(t+1)*d], data.Row(r))
	}
	dots := make([]float64, blockRows*m)
	for lo := 0; lo < n; lo += blockRows {
		b := min(blockRows, n-lo)
		kernel.DotsNT(data.X[lo*d:(lo+b)*d], b, c, m, d, dots)
		for i := 0; i < b; i++ {
			for t, r := range rows {
				v := xx[lo+i] - float64(2*dots[i*m+t]) + xx[r]
				out[t*n+lo+i] = max(v, 0)
			}
		}
	}
}

func sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}
