//go:build amd64 && !purego

package kernel

//go:generate go run asm_gen.go

// hasAsm reports whether the CPU and OS support the AVX2+FMA kernels.
var hasAsm = cpuHasAVX2FMA()

// useAsm selects the assembly kernels; tests clear it to force the
// pure-Go path.
var useAsm = hasAsm

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax, edx uint32)

func cpuHasAVX2FMA() bool {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if ecx1&(fma|osxsave|avx) != fma|osxsave|avx {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 { // OS saves XMM and YMM state
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	const avx2 = 1 << 5
	return ebx7&avx2 != 0
}

// Level-1 kernels, n > 0 elements.

//go:noescape
func dotAVX2(x, y *float64, n int) float64

//go:noescape
func sqDistAVX2(x, y *float64, n int) float64

//go:noescape
func dot32AVX2(x, y *float32, n int) float32

//go:noescape
func sqDist32AVX2(x, y *float32, n int) float32

//go:noescape
func axpyAVX2(a float64, x, y *float64, n int)

//go:noescape
func scaleAVX2(a float64, x *float64, n int)

//go:noescape
func addAVX2(x, y *float64, n int)

//go:noescape
func axpy32AVX2(a float32, x, y *float32, n int)

//go:noescape
func scale32AVX2(a float32, x *float32, n int)

//go:noescape
func add32AVX2(x, y *float32, n int)

//go:noescape
func addTo64AVX2(x *float32, y *float64, n int)

// The callers below guarantee len(x) > 0 and len(y) == len(x).

func dot(x, y []float64) float64 {
	if useAsm {
		return dotAVX2(&x[0], &y[0], len(x))
	}
	return dotGeneric(x, y)
}

func sqDist(x, y []float64) float64 {
	if useAsm {
		return sqDistAVX2(&x[0], &y[0], len(x))
	}
	return sqDistGeneric(x, y)
}

func axpy(a float64, x, y []float64) {
	if useAsm {
		axpyAVX2(a, &x[0], &y[0], len(x))
		return
	}
	axpyGeneric(a, x, y)
}

func scale(a float64, x []float64) {
	if useAsm {
		scaleAVX2(a, &x[0], len(x))
		return
	}
	scaleGeneric(a, x)
}

func add(x, y []float64) {
	if useAsm {
		addAVX2(&x[0], &y[0], len(x))
		return
	}
	addGeneric(x, y)
}

func dot32(x, y []float32) float32 {
	if useAsm {
		return dot32AVX2(&x[0], &y[0], len(x))
	}
	return dot32Generic(x, y)
}

func sqDist32(x, y []float32) float32 {
	if useAsm {
		return sqDist32AVX2(&x[0], &y[0], len(x))
	}
	return sqDist32Generic(x, y)
}

func axpy32(a float32, x, y []float32) {
	if useAsm {
		axpy32AVX2(a, &x[0], &y[0], len(x))
		return
	}
	axpy32Generic(a, x, y)
}

func scale32(a float32, x []float32) {
	if useAsm {
		scale32AVX2(a, &x[0], len(x))
		return
	}
	scale32Generic(a, x)
}

func add32(x, y []float32) {
	if useAsm {
		add32AVX2(&x[0], &y[0], len(x))
		return
	}
	add32Generic(x, y)
}

func addTo64(x []float32, y []float64) {
	if useAsm {
		addTo64AVX2(&x[0], &y[0], len(x))
		return
	}
	addTo64Generic(x, y)
}

// Kernel tables, indexed [rows][columns]: entry [r][c] adds to
// out[i*ldo+j] the dot products of rows i < r of x with rows j < c of c over
// d > 0 elements (strides in elements). See asm_gen.go.
type (
	kernTab[T float32 | float64] [maxRows + 1][maxCols + 1]func(x *T, ldx int, c *T, ldc int, d int, out *T, ldo int)
	kern2Tab                     [maxRows + 1][maxCols + 1]func(x *float64, ldx int, a, b *float64, ldc int, d int, out *float64, ldo int)
)

const maxRows, maxCols = 2, 5 // must match asm_gen.go

// Blocking of the DotsNT drivers. X is walked in blocks of rowBlock rows;
// within a block, centroids in panels of at most panelMax rows and d in
// chunks short enough that the panel's slice of C (l1Budget bytes) stays in
// L1 while the block's rows stream past it two at a time. Each kernel call
// covers 2 rows × ≤5 centroids: every vector of x feeds up to five FMAs and
// every vector of C two. Panels are split into ⌈kp/5⌉ near-even column
// blocks (k=10 runs as 5+5, k=7 as 3+4 rather than 5+2), and chunks are
// near-even too (d=784 in float64 runs as 4×196).
var (
	l1Budget = 20 << 10
	panelMax = 3 * maxCols
	rowBlock = 32
)

// chunkLen returns the chunk length for splitting d into near-equal parts
// of at most max elements (at least 8 vectors), rounded up to whole vectors.
func chunkLen(d, max, lanes int) int {
	max = (max / lanes) * lanes
	if max < 8*lanes {
		max = 8 * lanes
	}
	if d <= max {
		return d
	}
	m := (d + max - 1) / max
	c := (d + m - 1) / m
	return (c + lanes - 1) / lanes * lanes
}

func dotsNTBlocked[T float32 | float64](X []T, n int, C []T, k, d int, out []T, tab *kernTab[T], lanes, size int) {
	np := (k + panelMax - 1) / panelMax
	for i0 := 0; i0 < n; i0 += rowBlock {
		i1 := min(i0+rowBlock, n)
		clear(out[i0*k : i1*k])
		for j0, p := 0, np; p > 0; p-- {
			kp := (k - j0) / p
			g := (kp + maxCols - 1) / maxCols
			chunk := chunkLen(d, l1Budget/(kp*size), lanes)
			for t0 := 0; t0 < d; t0 += chunk {
				dl := min(chunk, d-t0)
				i := i0
				for ; i+2 <= i1; i += 2 {
					x, o := &X[i*d+t0], out[i*k+j0:]
					for j, q := 0, g; q > 0; q-- {
						c := (kp - j) / q
						tab[2][c](x, d, &C[(j0+j)*d+t0], d, dl, &o[j], k)
						j += c
					}
				}
				if i < i1 {
					x, o := &X[i*d+t0], out[i*k+j0:]
					for j, q := 0, g; q > 0; q-- {
						c := (kp - j) / q
						tab[1][c](x, d, &C[(j0+j)*d+t0], d, dl, &o[j], k)
						j += c
					}
				}
			}
			j0 += kp
		}
	}
}

func dotsNT(X []float64, n int, C []float64, k, d int, out []float64) {
	if !useAsm {
		dotsNTGeneric(X, n, C, k, d, out)
		return
	}
	dotsNTBlocked(X, n, C, k, d, out, &kern64, 4, 8)
}

func dotsNT32(X []float32, n int, C []float32, k, d int, out []float32) {
	if !useAsm {
		dotsNT32Generic(X, n, C, k, d, out)
		return
	}
	dotsNTBlocked(X, n, C, k, d, out, &kern32, 8, 4)
}

// dotsNT2 is dotsNTBlocked for two coefficient matrices (both in the L1
// budget).
func dotsNT2(X []float64, n int, A, B []float64, k, d int, out []float64) {
	if !useAsm {
		dotsNT2Generic(X, n, A, B, k, d, out)
		return
	}
	tab := &kern2_64
	np := (k + panelMax - 1) / panelMax
	for i0 := 0; i0 < n; i0 += rowBlock {
		i1 := min(i0+rowBlock, n)
		clear(out[i0*k : i1*k])
		for j0, p := 0, np; p > 0; p-- {
			kp := (k - j0) / p
			g := (kp + maxCols - 1) / maxCols
			chunk := chunkLen(d, l1Budget/(2*kp*8), 4)
			for t0 := 0; t0 < d; t0 += chunk {
				dl := min(chunk, d-t0)
				i := i0
				for ; i+2 <= i1; i += 2 {
					x, o := &X[i*d+t0], out[i*k+j0:]
					for j, q := 0, g; q > 0; q-- {
						c := (kp - j) / q
						tab[2][c](x, d, &A[(j0+j)*d+t0], &B[(j0+j)*d+t0], d, dl, &o[j], k)
						j += c
					}
				}
				if i < i1 {
					x, o := &X[i*d+t0], out[i*k+j0:]
					for j, q := 0, g; q > 0; q-- {
						c := (kp - j) / q
						tab[1][c](x, d, &A[(j0+j)*d+t0], &B[(j0+j)*d+t0], d, dl, &o[j], k)
						j += c
					}
				}
			}
			j0 += kp
		}
	}
}
