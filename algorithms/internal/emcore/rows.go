package emcore

// Rows gathers rows of a row-major matrix, selected by index, into one
// contiguous block, as the kernels (kernel.DotsNT and friends) want them.
// The zero value is not usable; make one with NewRows. A Rows is not safe
// for concurrent use: each worker has its own.
type Rows[T float32 | float64] struct {
	x    []T // the matrix, row-major
	dim  int // its number of columns
	rows int // the rows buf is first allocated for
	buf  []T // gathered rows
}

// NewRows returns a Rows over the row-major matrix x with dim columns.
// x is read, never written. rows is the number of rows a Block call
// usually asks for at most (the workload's kernel block size): the buffer
// for gathered rows is allocated once, with room for that many, on the
// first call that needs it, and grows only for a larger call.
func NewRows[T float32 | float64](x []T, dim, rows int) Rows[T] {
	return Rows[T]{x: x, dim: dim, rows: rows}
}

// Block returns the rows with the given indices as a len(points)×dim
// row-major slice: a view of the matrix when the indices are consecutive
// (points[i] = points[0]+i), else a copy. The copy is in a buffer of r,
// allocated on first use and reused; it is valid until the next Block
// call. The caller must not write to the result.
func (r *Rows[T]) Block(points []int) []T {
	n, dim := len(points), r.dim
	if n == 0 {
		return nil
	}
	p0 := points[0]
	if consecutive(points) {
		return r.x[p0*dim : (p0+n)*dim]
	}
	if len(r.buf) < n*dim {
		r.buf = make([]T, max(n, r.rows)*dim)
	}
	for i, p := range points {
		copy(r.buf[i*dim:(i+1)*dim], r.x[p*dim:(p+1)*dim])
	}
	return r.buf[:n*dim]
}

// consecutive reports whether p[i] = p[0]+i for all i.
func consecutive(p []int) bool {
	for i := 1; i < len(p); i++ {
		if p[i] != p[0]+i {
			return false
		}
	}
	return true
}
