package kernel

// Dot returns x·y over len(x) entries; len(y) must be ≥ len(x).
func Dot(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// SqDist returns ‖x − y‖² over len(x) entries.
func SqDist(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1 float64
	i := 0
	for ; i+2 <= len(x); i += 2 {
		a, b := x[i]-y[i], x[i+1]-y[i+1]
		s0 += a * a
		s1 += b * b
	}
	for ; i < len(x); i++ {
		a := x[i] - y[i]
		s0 += a * a
	}
	return s0 + s1
}

// Axpy sets y += a·x over len(x) entries.
func Axpy(a float64, x, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += a * v
	}
}

// DotsNT sets out[i*k+j] = X_i · C_j for the n rows X_i of the row-major
// n×d matrix X and the k rows C_j of the row-major k×d matrix C.
func DotsNT(X []float64, n int, C []float64, k, d int, out []float64) {
	for i := 0; i < n; i++ {
		x := X[i*d : (i+1)*d]
		o := out[i*k : (i+1)*k]
		for j := 0; j < k; j++ {
			o[j] = Dot(x, C[j*d:(j+1)*d])
		}
	}
}
