//go:build amd64 && !purego

package kernel

import (
	"sync"
	"unsafe"
)

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

//go:noescape
func axpyTo64AVX2(a float64, x *float32, y *float64, n int)

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

func axpyTo64(a float64, x []float32, y []float64) {
	if useAsm {
		axpyTo64AVX2(a, &x[0], &y[0], len(x))
		return
	}
	axpyTo64Generic(a, x, y)
}

// Kernel tables, indexed [rows][columns]: entry [r][c] adds to
// out[i*ldo+j] the dot products of rows i < r of x with rows j < c of c over
// d > 0 elements (strides in elements). See asm_gen.go.
type (
	kernTab[T float32 | float64] [maxRows + 1][maxCols + 1]func(x *T, ldx int, c *T, ldc int, d int, out *T, ldo int, pf uintptr)
	kern2Tab                     [maxRows + 1][maxCols + 1]func(x *float64, ldx int, a, b *float64, ldc int, d int, out *float64, ldo int, pf uintptr)
)

const maxRows = 2 // must match asm_gen.go (maxCols: blocking.go)

// Blocking of the DotsNT drivers (l1Budget, panelMax, chunkLen and the
// column-block split are in blocking.go, shared with the pure-Go code, which
// must follow the same d-chunks and column blocks to round identically).
// X is walked in blocks of rowBlock rows; within a block, centroids in
// panels of at most panelMax rows and d in chunks short enough that the
// panel's slice of C (l1Budget bytes, both A and B for DotsNT2) stays in L1
// while the block's rows stream past it two at a time. Each kernel call
// covers 2 rows × ≤5 centroids: every vector of x feeds up to five FMAs and
// every vector of C two.
//
// When d is chunked and there are enough rows to amortise it, C is first
// copied (packC) so that each panel×chunk block is contiguous: with a row
// stride that is a multiple of 4 KiB the rows of C would otherwise all map
// to the same L1 sets and thrash it.
var (
	rowBlock    = 32
	packMinRows = 16
)

// ntPlan describes the panels and chunks of one DotsNT call.
type ntPlan struct {
	k, d, np   int
	lanes, per int // per: bytes of coefficient data per centroid per element
	packed     bool
}

func newPlan(n, k, d, lanes, per int) ntPlan {
	pl := ntPlan{k: k, d: d, np: (k + panelMax - 1) / panelMax, lanes: lanes, per: per}
	widest := (k + pl.np - 1) / pl.np // panels are near-even
	pl.packed = n >= packMinRows && pl.chunk(widest) < d
	return pl
}

// chunk is the chunk length for a panel of kp centroids.
func (pl *ntPlan) chunk(kp int) int { return chunkLen(pl.d, l1Budget/(kp*pl.per), pl.lanes) }

// cOff returns the offset and row stride of coefficient row j0+j, element
// t0, in the chunk of length dl of the panel [j0, j0+kp).
func (pl *ntPlan) cOff(j0, kp, t0, dl, j int) (off, ld int) {
	if pl.packed {
		return j0*pl.d + kp*t0 + j*dl, dl
	}
	return (j0+j)*pl.d + t0, pl.d
}

// pack copies the k×d matrix C into dst in the packed layout of cOff.
func packC[T float32 | float64](pl *ntPlan, dst, C []T) {
	for j0, p := 0, pl.np; p > 0; p-- {
		kp := (pl.k - j0) / p
		ch := pl.chunk(kp)
		for t0 := 0; t0 < pl.d; t0 += ch {
			dl := min(ch, pl.d-t0)
			for j := 0; j < kp; j++ {
				off, _ := pl.cOff(j0, kp, t0, dl, j)
				copy(dst[off:off+dl], C[(j0+j)*pl.d+t0:])
			}
		}
		j0 += kp
	}
}

var pool64, pool32 sync.Pool

// getBuf returns a pooled scratch slice of length n; release with putBuf.
func getBuf[T float32 | float64](n int) *[]T {
	pool := &pool64
	if unsafe.Sizeof(T(0)) == 4 {
		pool = &pool32
	}
	b, _ := pool.Get().(*[]T)
	if b == nil {
		b = new([]T)
	}
	if cap(*b) < n {
		*b = make([]T, n)
	}
	*b = (*b)[:n]
	return b
}

func putBuf[T float32 | float64](b *[]T) {
	pool := &pool64
	if unsafe.Sizeof(T(0)) == 4 {
		pool = &pool32
	}
	pool.Put(b)
}

func dotsNTBlocked[T float32 | float64](X []T, n int, C []T, k, d int, out []T, tab *kernTab[T], lanes int) {
	pl := newPlan(n, k, d, lanes, int(unsafe.Sizeof(T(0))))
	if pl.packed {
		buf := getBuf[T](k * d)
		defer putBuf(buf)
		packC(&pl, *buf, C)
		C = *buf
	}
	size := unsafe.Sizeof(X[0])
	base := uintptr(unsafe.Pointer(&X[0]))
	cur := base
	for i0 := 0; i0 < n; i0 += rowBlock {
		i1 := min(i0+rowBlock, n)
		cur = max(cur, base+uintptr(i1*d)*size)
		clear(out[i0*k : i1*k])
		for j0, p := 0, pl.np; p > 0; p-- {
			kp := (k - j0) / p
			g := (kp + maxCols - 1) / maxCols
			chunk := pl.chunk(kp)
			for t0 := 0; t0 < d; t0 += chunk {
				dl := min(chunk, d-t0)
				i := i0
				for ; i+2 <= i1; i += 2 {
					x, o := &X[i*d+t0], out[i*k+j0:]
					for j, q := 0, g; q > 0; q-- {
						c := (kp - j) / q
						off, ld := pl.cOff(j0, kp, t0, dl, j)
						tab[2][c](x, d, &C[off], ld, dl, &o[j], k, cur)
						cur += uintptr(dl/(2*lanes)) * 64
						j += c
					}
				}
				if i < i1 {
					x, o := &X[i*d+t0], out[i*k+j0:]
					for j, q := 0, g; q > 0; q-- {
						c := (kp - j) / q
						off, ld := pl.cOff(j0, kp, t0, dl, j)
						tab[1][c](x, d, &C[off], ld, dl, &o[j], k, 0)
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
	dotsNTBlocked(X, n, C, k, d, out, &kern64, 4)
}

func dotsNT32(X []float32, n int, C []float32, k, d int, out []float32) {
	if !useAsm {
		dotsNT32Generic(X, n, C, k, d, out)
		return
	}
	dotsNTBlocked(X, n, C, k, d, out, &kern32, 8)
}

// dotsNT2 is dotsNTBlocked for two coefficient matrices A and B, which
// share the L1 budget and the packed layout.
func dotsNT2(X []float64, n int, A, B []float64, k, d int, out []float64) {
	if !useAsm {
		dotsNT2Generic(X, n, A, B, k, d, out)
		return
	}
	pl := newPlan(n, k, d, 4, 2*8)
	if pl.packed {
		buf := getBuf[float64](2 * k * d)
		defer putBuf(buf)
		pa, pb := (*buf)[:k*d], (*buf)[k*d:]
		packC(&pl, pa, A)
		packC(&pl, pb, B)
		A, B = pa, pb
	}
	tab := &kern2_64
	size := unsafe.Sizeof(X[0])
	base := uintptr(unsafe.Pointer(&X[0]))
	cur := base
	for i0 := 0; i0 < n; i0 += rowBlock {
		i1 := min(i0+rowBlock, n)
		cur = max(cur, base+uintptr(i1*d)*size)
		clear(out[i0*k : i1*k])
		for j0, p := 0, pl.np; p > 0; p-- {
			kp := (k - j0) / p
			g := (kp + maxCols - 1) / maxCols
			chunk := pl.chunk(kp)
			for t0 := 0; t0 < d; t0 += chunk {
				dl := min(chunk, d-t0)
				i := i0
				for ; i+2 <= i1; i += 2 {
					x, o := &X[i*d+t0], out[i*k+j0:]
					for j, q := 0, g; q > 0; q-- {
						c := (kp - j) / q
						off, ld := pl.cOff(j0, kp, t0, dl, j)
						tab[2][c](x, d, &A[off], &B[off], ld, dl, &o[j], k, cur)
						cur += uintptr(dl/8) * 64
						j += c
					}
				}
				if i < i1 {
					x, o := &X[i*d+t0], out[i*k+j0:]
					for j, q := 0, g; q > 0; q-- {
						c := (kp - j) / q
						off, ld := pl.cOff(j0, kp, t0, dl, j)
						tab[1][c](x, d, &A[off], &B[off], ld, dl, &o[j], k, 0)
						j += c
					}
				}
			}
			j0 += kp
		}
	}
}
