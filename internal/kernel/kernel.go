package kernel

// Exported API. Each function checks its arguments (slices that are too
// short panic, as indexing would) and hands over to the implementation
// selected for this build and CPU (see kernel_amd64.go, kernel_noasm.go);
// all implementations return bit-identical results (see doc.go).

// Dot returns x·y over len(x) entries; len(y) must be ≥ len(x).
func Dot(x, y []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	return dot(x, y[:checkLen(len(x), len(y))])
}

// SqDist returns ‖x − y‖² over len(x) entries; len(y) must be ≥ len(x).
func SqDist(x, y []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	return sqDist(x, y[:checkLen(len(x), len(y))])
}

// Axpy sets y += a·x over len(x) entries; len(y) must be ≥ len(x).
// Each entry is one fused multiply-add (one rounding), on every path.
func Axpy(a float64, x, y []float64) {
	if len(x) == 0 {
		return
	}
	axpy(a, x, y[:checkLen(len(x), len(y))])
}

// Scale sets x *= a.
func Scale(a float64, x []float64) {
	if len(x) == 0 {
		return
	}
	scale(a, x)
}

// Add sets y += x over len(x) entries; len(y) must be ≥ len(x).
func Add(x, y []float64) {
	if len(x) == 0 {
		return
	}
	add(x, y[:checkLen(len(x), len(y))])
}

// DotsNT sets out[i*k+j] = X_i · C_j for the n rows X_i of the row-major
// n×d matrix X and the k rows C_j of the row-major k×d matrix C
// (out = X·Cᵀ, row-major n×k). Any n, k, d ≥ 0 are accepted; len(X) ≥ n·d,
// len(C) ≥ k·d, len(out) ≥ n·k. Rows are independent, so callers may split
// X into row blocks across goroutines.
func DotsNT(X []float64, n int, C []float64, k, d int, out []float64) {
	if !checkDims(n, k, d) {
		return
	}
	X, C, out = X[:checkLen(n*d, len(X))], C[:checkLen(k*d, len(C))], out[:checkLen(n*k, len(out))]
	if d == 0 {
		clear(out)
		return
	}
	dotsNT(X, n, C, k, d, out)
}

// DotsNT2 sets out[i*k+j] = Σ_t X[i,t]²·A[j,t] + X[i,t]·B[j,t] for the n
// rows of the row-major n×d matrix X and the k rows of the row-major k×d
// matrices A and B. It is DotsNT of the rows [x², x] against [A_j, B_j]
// without materialising x².
//
// Diagonal GMM: with precisions P[j,t] = 1/σ²_jt and means M[j,t],
// Σ_t (x_t − M_jt)²·P_jt = DotsNT2 with A = P, B = −2·M∘P, plus the
// per-component constant Σ_t M_jt²·P_jt, which the caller adds.
func DotsNT2(X []float64, n int, A, B []float64, k, d int, out []float64) {
	if !checkDims(n, k, d) {
		return
	}
	X, A, B, out = X[:checkLen(n*d, len(X))], A[:checkLen(k*d, len(A))], B[:checkLen(k*d, len(B))], out[:checkLen(n*k, len(out))]
	if d == 0 {
		clear(out)
		return
	}
	dotsNT2(X, n, A, B, k, d, out)
}

// Dot32 returns x·y over len(x) entries, accumulated in float32.
func Dot32(x, y []float32) float32 {
	if len(x) == 0 {
		return 0
	}
	return dot32(x, y[:checkLen(len(x), len(y))])
}

// SqDist32 returns ‖x − y‖² over len(x) entries, accumulated in float32.
func SqDist32(x, y []float32) float32 {
	if len(x) == 0 {
		return 0
	}
	return sqDist32(x, y[:checkLen(len(x), len(y))])
}

// Axpy32 sets y += a·x over len(x) entries.
func Axpy32(a float32, x, y []float32) {
	if len(x) == 0 {
		return
	}
	axpy32(a, x, y[:checkLen(len(x), len(y))])
}

// Scale32 sets x *= a.
func Scale32(a float32, x []float32) {
	if len(x) == 0 {
		return
	}
	scale32(a, x)
}

// Add32 sets y += x over len(x) entries.
func Add32(x, y []float32) {
	if len(x) == 0 {
		return
	}
	add32(x, y[:checkLen(len(x), len(y))])
}

// AddTo64 sets y += float64(x) over len(x) entries (e.g. accumulating
// float32 rows into float64 centroid sums).
func AddTo64(x []float32, y []float64) {
	if len(x) == 0 {
		return
	}
	addTo64(x, y[:checkLen(len(x), len(y))])
}

// AxpyTo64 sets y += a·float64(x) over len(x) entries. With a = ±1 it is
// exact up to the one rounding of the sum (K-means moving a float32 point
// between float64 centroid sums: AxpyTo64(-1, x, old); AddTo64(x, new)).
func AxpyTo64(a float64, x []float32, y []float64) {
	if len(x) == 0 {
		return
	}
	axpyTo64(a, x, y[:checkLen(len(x), len(y))])
}

// DotsNT32 is DotsNT for float32 storage; the sums are accumulated in
// float32 (relative error grows like d·2⁻²⁴ in the worst case).
func DotsNT32(X []float32, n int, C []float32, k, d int, out []float32) {
	if !checkDims(n, k, d) {
		return
	}
	X, C, out = X[:checkLen(n*d, len(X))], C[:checkLen(k*d, len(C))], out[:checkLen(n*k, len(out))]
	if d == 0 {
		clear(out)
		return
	}
	dotsNT32(X, n, C, k, d, out)
}

func checkDims(n, k, d int) bool {
	if n < 0 || k < 0 || d < 0 {
		panic("kernel: negative dimension")
	}
	return n > 0 && k > 0
}

// checkLen returns need, panicking if a slice of length have is shorter.
func checkLen(need, have int) int {
	if have < need {
		panic("kernel: slice too short")
	}
	return need
}
