package kernel

// Pure-Go reference implementations. They are compiled into every build:
// they are the only implementations on non-amd64 targets and with the
// purego tag, the fallback when the CPU lacks AVX2/FMA, and the reference the
// assembly kernels are tested against. Callers have already checked lengths.
//
// Each is written once, generic over the element type; float32 and float64
// have different GC shapes, so each instantiation is compiled separately and
// computes in its own precision.

type float interface{ ~float32 | ~float64 }

func dotG[T float](x, y []T) T {
	y = y[:len(x)]
	var s0, s1, s2, s3 T
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

func sqDistG[T float](x, y []T) T {
	y = y[:len(x)]
	var s0, s1 T
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

func axpyG[T float](a T, x, y []T) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += a * v
	}
}

func scaleG[T float](a T, x []T) {
	for i := range x {
		x[i] *= a
	}
}

func addG[T float](x, y []T) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += v
	}
}

// dotsNTG blocks one row of X against four rows of C so that every load of
// x feeds four multiply-adds.
func dotsNTG[T float](X []T, n int, C []T, k, d int, out []T) {
	for i := 0; i < n; i++ {
		x := X[i*d : i*d+d]
		o := out[i*k : i*k+k]
		j := 0
		for ; j+4 <= k; j += 4 {
			c0 := C[j*d:][:len(x)]
			c1 := C[(j+1)*d:][:len(x)]
			c2 := C[(j+2)*d:][:len(x)]
			c3 := C[(j+3)*d:][:len(x)]
			var s0, s1, s2, s3 T
			for t, v := range x {
				s0 += v * c0[t]
				s1 += v * c1[t]
				s2 += v * c2[t]
				s3 += v * c3[t]
			}
			o[j], o[j+1], o[j+2], o[j+3] = s0, s1, s2, s3
		}
		for ; j < k; j++ {
			o[j] = dotG(x, C[j*d:j*d+d])
		}
	}
}

func dotGeneric(x, y []float64) float64     { return dotG(x, y) }
func sqDistGeneric(x, y []float64) float64  { return sqDistG(x, y) }
func axpyGeneric(a float64, x, y []float64) { axpyG(a, x, y) }
func scaleGeneric(a float64, x []float64)   { scaleG(a, x) }
func addGeneric(x, y []float64)             { addG(x, y) }
func dotsNTGeneric(X []float64, n int, C []float64, k, d int, out []float64) {
	dotsNTG(X, n, C, k, d, out)
}
func dot32Generic(x, y []float32) float32     { return dotG(x, y) }
func sqDist32Generic(x, y []float32) float32  { return sqDistG(x, y) }
func axpy32Generic(a float32, x, y []float32) { axpyG(a, x, y) }
func scale32Generic(a float32, x []float32)   { scaleG(a, x) }
func add32Generic(x, y []float32)             { addG(x, y) }
func dotsNT32Generic(X []float32, n int, C []float32, k, d int, out []float32) {
	dotsNTG(X, n, C, k, d, out)
}

func dotsNT2Generic(X []float64, n int, A, B []float64, k, d int, out []float64) {
	for i := 0; i < n; i++ {
		x := X[i*d : i*d+d]
		o := out[i*k : i*k+k]
		j := 0
		for ; j+2 <= k; j += 2 {
			a0, b0 := A[j*d:][:len(x)], B[j*d:][:len(x)]
			a1, b1 := A[(j+1)*d:][:len(x)], B[(j+1)*d:][:len(x)]
			var s0, s1, t0, t1 float64
			for t, v := range x {
				w := v * v
				s0 += w * a0[t]
				t0 += v * b0[t]
				s1 += w * a1[t]
				t1 += v * b1[t]
			}
			o[j], o[j+1] = s0+t0, s1+t1
		}
		if j < k {
			a0, b0 := A[j*d:][:len(x)], B[j*d:][:len(x)]
			var s0, t0 float64
			for t, v := range x {
				s0 += v * v * a0[t]
				t0 += v * b0[t]
			}
			o[j] = s0 + t0
		}
	}
}

func addTo64Generic(x []float32, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += float64(v)
	}
}

func axpyTo64Generic(a float64, x []float32, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += a * float64(v)
	}
}
