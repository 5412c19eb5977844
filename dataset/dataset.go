package dataset

import (
	"fmt"
	"math"
)

// Dense is an N×D matrix of float64 features stored row-major, with an
// optional label per row.
//
// X[i*D:(i+1)*D] is row i. Labels is nil or has length N. The zero value is
// an empty data set.
type Dense struct {
	N, D   int
	X      []float64
	Labels []float64
}

// Row returns row i (a view, not a copy).
func (m *Dense) Row(i int) []float64 { return m.X[i*m.D : (i+1)*m.D : (i+1)*m.D] }

// Validate reports an error when the sizes of the fields disagree.
func (m *Dense) Validate() error {
	if m.N < 0 || m.D < 0 {
		return fmt.Errorf("dataset: negative size %d×%d", m.N, m.D)
	}
	if m.D != 0 && m.N > math.MaxInt/m.D {
		return fmt.Errorf("dataset: dense size %d×%d overflows", m.N, m.D)
	}
	if len(m.X) != m.N*m.D {
		return fmt.Errorf("dataset: dense %d×%d has %d values, want %d", m.N, m.D, len(m.X), m.N*m.D)
	}
	if m.Labels != nil && len(m.Labels) != m.N {
		return fmt.Errorf("dataset: dense has %d labels for %d rows", len(m.Labels), m.N)
	}
	return nil
}

// Sparse is an N×D matrix in compressed sparse row (CSR) form, with an
// optional label per row.
//
// Row i has the column indices Indices[Indptr[i]:Indptr[i+1]] (strictly
// increasing, each in [0, D)) and the values Values[Indptr[i]:Indptr[i+1]].
type Sparse struct {
	N, D    int
	Indptr  []int
	Indices []int32
	Values  []float64
	Labels  []float64
}

// Row returns the indices and values of row i (views, not copies).
func (m *Sparse) Row(i int) ([]int32, []float64) {
	lo, hi := m.Indptr[i], m.Indptr[i+1]
	return m.Indices[lo:hi:hi], m.Values[lo:hi:hi]
}

// NNZ returns the number of stored entries.
func (m *Sparse) NNZ() int { return len(m.Values) }

// Validate reports an error when the structure is inconsistent: sizes,
// monotone Indptr, column indices in range and strictly increasing per row.
func (m *Sparse) Validate() error {
	if m.N < 0 || m.D < 0 {
		return fmt.Errorf("dataset: negative size %d×%d", m.N, m.D)
	}
	if len(m.Indptr) != m.N+1 || m.Indptr[0] != 0 {
		return fmt.Errorf("dataset: sparse indptr has length %d, want %d starting at 0", len(m.Indptr), m.N+1)
	}
	if len(m.Indices) != len(m.Values) || m.Indptr[m.N] != len(m.Values) {
		return fmt.Errorf("dataset: sparse has %d indices, %d values, indptr end %d", len(m.Indices), len(m.Values), m.Indptr[m.N])
	}
	for i := 0; i < m.N; i++ {
		lo, hi := m.Indptr[i], m.Indptr[i+1]
		if hi < lo {
			return fmt.Errorf("dataset: sparse indptr decreases at row %d", i)
		}
		if hi > len(m.Values) {
			return fmt.Errorf("dataset: sparse indptr %d at row %d beyond %d values", hi, i, len(m.Values))
		}
		for p := lo; p < hi; p++ {
			c := m.Indices[p]
			if c < 0 || int(c) >= m.D {
				return fmt.Errorf("dataset: sparse row %d column %d out of range [0,%d)", i, c, m.D)
			}
			if p > lo && c <= m.Indices[p-1] {
				return fmt.Errorf("dataset: sparse row %d columns not strictly increasing at %d", i, c)
			}
		}
	}
	if m.Labels != nil && len(m.Labels) != m.N {
		return fmt.Errorf("dataset: sparse has %d labels for %d rows", len(m.Labels), m.N)
	}
	return nil
}

// Ratings is a list of observed (user, item, rating) triples of a
// NumUsers × NumItems matrix, for matrix factorisation. Users and items are
// dense 0-based ids; loaders remap the ids found in files and keep the
// original ids in UserIDs and ItemIDs (UserIDs[u] is the file's id of user u).
type Ratings struct {
	NumUsers, NumItems int
	User, Item         []int32
	Value              []float64
	UserIDs, ItemIDs   []int64
}

// Len returns the number of ratings.
func (r *Ratings) Len() int { return len(r.Value) }

// Validate reports an error when the fields disagree or an id is out of range.
func (r *Ratings) Validate() error {
	if len(r.User) != len(r.Value) || len(r.Item) != len(r.Value) {
		return fmt.Errorf("dataset: ratings have %d users, %d items, %d values", len(r.User), len(r.Item), len(r.Value))
	}
	for i := range r.Value {
		if r.User[i] < 0 || int(r.User[i]) >= r.NumUsers {
			return fmt.Errorf("dataset: rating %d user %d out of range [0,%d)", i, r.User[i], r.NumUsers)
		}
		if r.Item[i] < 0 || int(r.Item[i]) >= r.NumItems {
			return fmt.Errorf("dataset: rating %d item %d out of range [0,%d)", i, r.Item[i], r.NumItems)
		}
	}
	return nil
}
