package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/syncmodels/syncmodels/internal/fpdet"
)

// The generators below draw every random number from the rng they are given,
// in a fixed order, so the same seed gives identical output. They panic on
// nonsensical sizes (programmer errors), as documented on each.

// Blobs returns n points in d dimensions drawn from k isotropic Gaussian
// clusters. The k centers are drawn uniformly from [-10, 10]^d first; then
// each point picks a cluster uniformly at random and adds N(0, spread²)
// noise to its center. Labels holds the cluster id 0..k-1.
//
// Blobs panics if n < 0, d < 0, k < 1 or spread is negative or not finite.
func Blobs(rng *rand.Rand, n, d, k int, spread float64) *Dense {
	if n < 0 || d < 0 || k < 1 || !(spread >= 0) || math.IsInf(spread, 0) {
		panic(fmt.Sprintf("dataset: Blobs(n=%d, d=%d, k=%d, spread=%g): invalid arguments", n, d, k, spread))
	}
	centers := make([]float64, k*d)
	for i := range centers {
		centers[i] = -10 + float64(20*rng.Float64())
	}
	m := &Dense{N: n, D: d, X: make([]float64, n*d), Labels: make([]float64, n)}
	for i := range n {
		c := rng.IntN(k)
		m.Labels[i] = float64(c)
		row, ctr := m.Row(i), centers[c*d:(c+1)*d]
		for j := range row {
			row[j] = ctr[j] + float64(spread*fpdet.NormFloat64(rng))
		}
	}
	return m
}

// Logistic returns n points with d features drawn from N(0, 1) and labels 0
// or 1 drawn from a logistic model, together with the true weights w (length
// d+1, bias last): P(y = 1 | x) = σ(w[:d]·x + w[d]). The weights are drawn
// first, w[j] ~ N(0, 4/d) for the features and w[d] ~ N(0, 1/4), so the
// logit has a standard deviation of about 2 whatever d is.
//
// Logistic panics if n < 0 or d < 1.
func Logistic(rng *rand.Rand, n, d int) (*Dense, []float64) {
	if n < 0 || d < 1 {
		panic(fmt.Sprintf("dataset: Logistic(n=%d, d=%d): invalid arguments", n, d))
	}
	w := make([]float64, d+1)
	scale := 2 / math.Sqrt(float64(d))
	for j := range d {
		w[j] = scale * fpdet.NormFloat64(rng)
	}
	w[d] = float64(0.5 * fpdet.NormFloat64(rng))
	m := &Dense{N: n, D: d, X: make([]float64, n*d), Labels: make([]float64, n)}
	for i := range n {
		row := m.Row(i)
		z := w[d]
		for j := range row {
			row[j] = fpdet.NormFloat64(rng)
			z += float64(w[j] * row[j])
		}
		if rng.Float64() < sigmoid(z) {
			m.Labels[i] = 1
		}
	}
	return m, w
}

// SparseLogistic returns n rows of a hashed-feature-style sparse design in d
// columns, with labels 0 or 1 from a sparse logistic model, and the true
// weights w (length d+1, bias last).
//
// Each row has nnz distinct columns chosen uniformly (sorted). Even columns
// are indicator features with value 1; odd columns are numeric features with
// value N(0, 1). The weights are drawn first: max(1, d/10) columns chosen
// uniformly get weight N(0, c²), the rest 0, and the bias is N(0, 1/4), with
// c chosen so the logit has a standard deviation of about 2
// (c = 2/sqrt(max(1, nnz·s/d)) for s nonzero weights).
//
// SparseLogistic panics if n < 0, d < 1, d > math.MaxInt32, nnz < 0 or
// nnz > d.
func SparseLogistic(rng *rand.Rand, n, d, nnz int) (*Sparse, []float64) {
	if n < 0 || d < 1 || d > math.MaxInt32 || nnz < 0 || nnz > d {
		panic(fmt.Sprintf("dataset: SparseLogistic(n=%d, d=%d, nnz=%d): invalid arguments", n, d, nnz))
	}
	s := max(1, d/10)
	c := 2 / math.Sqrt(max(1, float64(nnz)*float64(s)/float64(d)))
	w := make([]float64, d+1)
	var cols []int32
	cols = sampleDistinct(rng, d, s, cols)
	for _, j := range cols {
		w[j] = c * fpdet.NormFloat64(rng)
	}
	w[d] = float64(0.5 * fpdet.NormFloat64(rng))
	m := &Sparse{
		N: n, D: d,
		Indptr:  make([]int, n+1),
		Indices: make([]int32, 0, n*nnz),
		Values:  make([]float64, 0, n*nnz),
		Labels:  make([]float64, n),
	}
	for i := range n {
		cols = sampleDistinct(rng, d, nnz, cols[:0])
		z := w[d]
		for _, j := range cols {
			v := 1.0
			if j%2 == 1 {
				v = fpdet.NormFloat64(rng)
			}
			m.Indices = append(m.Indices, j)
			m.Values = append(m.Values, v)
			z += float64(w[j] * v)
		}
		m.Indptr[i+1] = len(m.Indices)
		if rng.Float64() < sigmoid(z) {
			m.Labels[i] = 1
		}
	}
	return m, w
}

// sampleDistinct appends k distinct integers from [0, d), sorted, to dst
// using Floyd's algorithm (k draws, whatever d is).
func sampleDistinct(rng *rand.Rand, d, k int, dst []int32) []int32 {
	start := len(dst)
	var seen map[int32]struct{}
	if k > 32 {
		seen = make(map[int32]struct{}, k)
	}
	for j := d - k; j < d; j++ {
		t := int32(rng.IntN(j + 1))
		dup := false
		if seen != nil {
			_, dup = seen[t]
			seen[t] = struct{}{}
		} else {
			dup = slices.Contains(dst[start:], t)
		}
		if dup {
			t = int32(j) // j was not drawn before: all earlier draws are < j
			if seen != nil {
				seen[t] = struct{}{}
			}
		}
		dst = append(dst, t)
	}
	slices.Sort(dst[start:])
	return dst
}

func sigmoid(z float64) float64 { return 1 / (1 + fpdet.Exp(-z)) }

// LowRankRatings returns n ratings of a users × items matrix with a rank-r
// ground truth, on the MovieLens 1..5 scale.
//
// Draw order: user factors U (users × rank) then item factors M
// (items × rank), entries normal with standard deviation rank^(-1/4) so
// that a dot product has unit variance; then a random permutation assigning popularity ranks to items;
// then, per rating, a user uniformly, an item with probability proportional
// to 1/(popularity rank)^alpha (Zipf-like; alpha = 0 is uniform, alpha ≈ 1
// is MovieLens-like), and the value clip(3 + U[u]·M[i] + N(0, 0.25), 1, 5),
// not rounded. The same (user, item) pair may be drawn more than once.
// UserIDs and ItemIDs are the identity.
//
// LowRankRatings panics if users, items or rank < 1, n < 0, users or items
// > math.MaxInt32, or alpha is negative or not finite.
func LowRankRatings(rng *rand.Rand, users, items, rank, n int, alpha float64) *Ratings {
	if users < 1 || items < 1 || rank < 1 || n < 0 || users > math.MaxInt32 || items > math.MaxInt32 || !(alpha >= 0) || math.IsInf(alpha, 0) {
		panic(fmt.Sprintf("dataset: LowRankRatings(users=%d, items=%d, rank=%d, n=%d, alpha=%g): invalid arguments", users, items, rank, n, alpha))
	}
	sd := fpdet.Pow(float64(rank), -0.25)
	factors := func(k int) []float64 {
		f := make([]float64, k*rank)
		for i := range f {
			f[i] = sd * fpdet.NormFloat64(rng)
		}
		return f
	}
	U, M := factors(users), factors(items)
	byRank := rng.Perm(items)
	cdf := make([]float64, items)
	total := 0.0
	for r := range cdf {
		total += fpdet.Pow(float64(r+1), -alpha)
		cdf[r] = total
	}
	out := &Ratings{
		NumUsers: users, NumItems: items,
		User: make([]int32, n), Item: make([]int32, n), Value: make([]float64, n),
		UserIDs: make([]int64, users), ItemIDs: make([]int64, items),
	}
	for i := range out.UserIDs {
		out.UserIDs[i] = int64(i)
	}
	for i := range out.ItemIDs {
		out.ItemIDs[i] = int64(i)
	}
	for k := range n {
		u := rng.IntN(users)
		r := sort.SearchFloat64s(cdf, rng.Float64()*total)
		it := byRank[min(r, items-1)]
		z := 3.0
		for j := range rank {
			z += float64(U[u*rank+j] * M[it*rank+j])
		}
		z += float64(0.5 * fpdet.NormFloat64(rng))
		out.User[k], out.Item[k], out.Value[k] = int32(u), int32(it), min(max(z, 1), 5)
	}
	return out
}
