package dataset

import (
	"fmt"
	"math/rand/v2"
)

// Shard splits the indices 0..n-1 into parts shards whose sizes differ by at
// most one (the first n%parts shards get the extra index). With rng nil the
// shards are contiguous blocks in order: shard 0 is 0..k-1, and so on. With
// rng non-nil the indices are first permuted by rng.Perm(n), so the same
// seed gives the same shards. Each shard is a slice of one shared backing
// array with its capacity clipped, so appending to one shard never changes
// another.
//
// Shard returns an error if parts < 1 or parts > n.
func Shard(n, parts int, rng *rand.Rand) (shards [][]int, err error) {
	if parts < 1 || parts > n {
		return nil, fmt.Errorf("dataset: cannot split %d points into %d shards (want 1 <= parts <= n)", n, parts)
	}
	var idx []int
	if rng != nil {
		idx = rng.Perm(n)
	} else {
		idx = make([]int, n)
		for i := range idx {
			idx[i] = i
		}
	}
	shards = make([][]int, parts)
	size, extra := n/parts, n%parts
	lo := 0
	for p := range shards {
		hi := lo + size
		if p < extra {
			hi++
		}
		shards[p] = idx[lo:hi:hi]
		lo = hi
	}
	return shards, nil
}

// Subset returns a new Dense holding copies of the rows idx, in that order
// (indices may repeat), with their labels if m has labels. It panics if an
// index is out of range.
func (m *Dense) Subset(idx []int) *Dense {
	s := &Dense{N: len(idx), D: m.D, X: make([]float64, len(idx)*m.D)}
	for k, i := range idx {
		copy(s.X[k*m.D:(k+1)*m.D], m.Row(i))
	}
	if m.Labels != nil {
		s.Labels = make([]float64, len(idx))
		for k, i := range idx {
			s.Labels[k] = m.Labels[i]
		}
	}
	return s
}

// Subset returns a new Sparse holding copies of the rows idx, in that order
// (indices may repeat), with their labels if m has labels. D is unchanged.
// It panics if an index is out of range.
func (m *Sparse) Subset(idx []int) *Sparse {
	nnz := 0
	for _, i := range idx {
		nnz += m.Indptr[i+1] - m.Indptr[i]
	}
	s := &Sparse{N: len(idx), D: m.D, Indptr: make([]int, 1, len(idx)+1),
		Indices: make([]int32, 0, nnz), Values: make([]float64, 0, nnz)}
	for _, i := range idx {
		cols, vals := m.Row(i)
		s.Indices = append(s.Indices, cols...)
		s.Values = append(s.Values, vals...)
		s.Indptr = append(s.Indptr, len(s.Indices))
	}
	if m.Labels != nil {
		s.Labels = make([]float64, len(idx))
		for k, i := range idx {
			s.Labels[k] = m.Labels[i]
		}
	}
	return s
}

// Subset returns a new Ratings holding copies of the ratings idx, in that
// order. NumUsers, NumItems, UserIDs and ItemIDs are kept (shared, not
// copied), so ids mean the same in the subset. It panics if an index is out
// of range.
func (r *Ratings) Subset(idx []int) *Ratings {
	s := &Ratings{NumUsers: r.NumUsers, NumItems: r.NumItems,
		User: make([]int32, len(idx)), Item: make([]int32, len(idx)), Value: make([]float64, len(idx)),
		UserIDs: r.UserIDs, ItemIDs: r.ItemIDs}
	for k, i := range idx {
		s.User[k], s.Item[k], s.Value[k] = r.User[i], r.Item[i], r.Value[i]
	}
	return s
}
