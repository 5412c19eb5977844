package kernel

import "math"

// Pure-Go implementations. They are compiled into every build: they are the
// only implementations on non-amd64 targets and with the purego tag, and the
// fallback when the CPU lacks AVX2/FMA. Callers have already checked lengths.
//
// They give results bit-identical to the assembly kernels (asm_gen.go), so
// that a computation rounds the same on every machine: they perform the same
// floating-point operations in the same order, lane by lane:
//
//   - vector lanes: an asm accumulator register of v lanes (v = 4 float64 or
//     8 float32) is v scalar accumulators here; lane l sums elements l, l+v,
//     l+2v, … of the vector it is assigned;
//   - a multiply-add of the asm (VFMADD…) is a fused multiply-add here:
//     math.FMA for float64, fma32 for float32; a separate multiply or add
//     (VMULPD, VSUBPS, …) stays separate, so nothing here may be written as
//     a*b + c (Go may fuse that on some targets, e.g. arm64);
//   - masked tails: the asm loads the last len mod v elements with a lane
//     mask, the other lanes reading as zero, so those lanes compute
//     fma(0, 0, acc) = acc + 0 (which turns −0 into +0, and so does acc += 0);
//   - horizontal reductions combine the lanes in the order of the asm's
//     VHADD/VEXTRACTF128/VPERM2F128 sequence, which for the blocked kernels
//     depends on the centroid's place in its kernel call (hsum64, hsum32);
//   - DotsNT*: d is split into the same chunks and k into the same column
//     blocks as the asm driver (blocking.go), each chunk's sum being added to
//     out in chunk order, starting from +0.

// fma32 returns a·b + c rounded once to float32, as VFMADD…SS/PS does.
//
// The product of two float32 is exact in float64, so s = p + c in float64 is
// the exact result rounded once to 53 bits; converting s to float32 rounds a
// second time, which is wrong only if s lands exactly on a midpoint between
// two float32 values while the exact sum does not (e.g. 1 + 2⁻²⁴ + 2⁻⁵⁶ is
// rounded to 1 + 2⁻²⁴ and then, ties to even, to 1 instead of 1 + 2⁻²³).
// Rounding to float64 is monotone and float32 midpoints are float64 values,
// so s and the exact sum fall between the same two midpoints unless s is one;
// the fast path checks that s cannot be a midpoint (tie32), and otherwise
// fma32Slow redoes the sum with an error-free TwoSum and rounding to odd,
// which is then rounded correctly to float32 (53 ≥ 24 + 2 bits). Random
// sums take the slow path about once in 2²⁸.
func fma32(a, b, c float32) float32 {
	s := float64(a)*float64(b) + float64(c) // fpdet:exact: fusing this into a float64 FMA changes nothing, the product is exact
	if tie32(s) {
		return fma32Slow(float64(a)*float64(b), float64(c), s) // fpdet:exact (float32·float32 in float64)
	}
	return float32(s)
}

// tie32 reports whether float32(s) might round differently from the exact
// value s was rounded from: s is a float32 midpoint (low 29 bits 1000…0) or
// below float32's normal range (exponent < −126; there, midpoints have at
// least their low 29 bits zero), but not ±0. Either way its low 28 bits are
// zero, which is tested first: most sums fail that test at once. Hot loops
// inline this and call fma32 only when it holds.
func tie32(s float64) bool {
	u := math.Float64bits(s)
	return u&(1<<28-1) == 0 && (u&(1<<29-1) == 1<<28 || u<<1-1 < 897<<53-1)
}

// fma32Slow returns float32(p + c) rounded correctly, given s = p + c
// rounded to float64 (p and c exact float64 values of float32 range).
func fma32Slow(p, c, s float64) float32 {
	if s == 0 || math.IsInf(s, 0) || math.IsNaN(s) {
		return float32(s)
	}
	// TwoSum: e = (p + c) − s exactly.
	t := s - p
	e := (p - (s - t)) + (c - t)
	if e != 0 {
		if u := math.Float64bits(s); u&1 == 0 {
			// Round to odd: take the other neighbour of the exact sum.
			if (e > 0) == (s > 0) {
				u++
			} else {
				u--
			}
			s = math.Float64frombits(u)
		}
	}
	return float32(s)
}

// Horizontal sums of one 4-lane float64 accumulator (storeSums in asm_gen.go):
// in groups of 2 or 4 columns (VHADDPD, then the halves added) and alone
// (reduce1: the high half added to the low one, then VHADDPD).
func hsum64Pair(a *[4]float64) float64   { return (a[0] + a[1]) + (a[2] + a[3]) }
func hsum64Single(a *[4]float64) float64 { return (a[0] + a[2]) + (a[1] + a[3]) }

// hsumMode is the horizontal-reduction order for the centroid at place pos
// of a kernel call over c centroids, which stores groups of 4, then of 2,
// then one alone: 4, 2 or 1.
func hsumMode(pos, c int) int {
	switch {
	case pos < c&^3:
		return 4
	case pos < c&^1:
		return 2
	}
	return 1
}

// hsum64 reduces a float64 accumulator in the order of mode: groups of 4
// and of 2 reduce alike.
func hsum64(a *[4]float64, mode int) float64 {
	if mode > 1 {
		return hsum64Pair(a)
	}
	return hsum64Single(a)
}

// hsum32 is hsum64 for 8-lane float32 accumulators, where groups of 4
// (two VHADDPS, then the halves added), of 2 (VHADDPS, halves added,
// VHADDPS) and single columns (reduce1) all differ.
func hsum32(a *[8]float32, mode int) float32 {
	switch mode {
	case 4:
		return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]))
	case 2:
		return ((a[0] + a[1]) + (a[4] + a[5])) + ((a[2] + a[3]) + (a[6] + a[7]))
	}
	return hsum32Single(a)
}

func hsum32Single(a *[8]float32) float32 {
	return ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]))
}

// Lane accumulation. accDot64 adds x[t+l]·y[t+l] into lane l of *a for
// t = t0, t0+step, … < t1 (t1−t0 a multiple of step), by FMA; accSq64 does
// the same for ‖x−y‖² (the float64 difference, then its FMA with itself).
// The float32 versions handle 4 lanes at a time (half an 8-lane register;
// the callers make two passes, which keeps fewer values live in registers).

func accDot64(a *[4]float64, x, y []float64, t0, t1, step int) {
	a0, a1, a2, a3 := a[0], a[1], a[2], a[3]
	for t := t0; t < t1; t += step {
		xv, yv := x[t:t+4:t+4], y[t:t+4:t+4]
		a0 = math.FMA(xv[0], yv[0], a0)
		a1 = math.FMA(xv[1], yv[1], a1)
		a2 = math.FMA(xv[2], yv[2], a2)
		a3 = math.FMA(xv[3], yv[3], a3)
	}
	a[0], a[1], a[2], a[3] = a0, a1, a2, a3
}

func accSq64(a *[4]float64, x, y []float64, t0, t1, step int) {
	a0, a1, a2, a3 := a[0], a[1], a[2], a[3]
	for t := t0; t < t1; t += step {
		xv, yv := x[t:t+4:t+4], y[t:t+4:t+4]
		d0, d1, d2, d3 := xv[0]-yv[0], xv[1]-yv[1], xv[2]-yv[2], xv[3]-yv[3]
		a0 = math.FMA(d0, d0, a0)
		a1 = math.FMA(d1, d1, a1)
		a2 = math.FMA(d2, d2, a2)
		a3 = math.FMA(d3, d3, a3)
	}
	a[0], a[1], a[2], a[3] = a0, a1, a2, a3
}

// In the float32 loops, fma32 is inlined by hand: its fast path is one
// float64 multiply-add (exact product) and the tie32 test. The products of
// two float32 in float64 are exact, so fusing them changes nothing
// (fpdet:exact marks them for internal/fpdet's guard).

func accDot32(a *[4]float32, x, y []float32, t0, t1, step int) {
	a0, a1, a2, a3 := a[0], a[1], a[2], a[3]
	for t := t0; t < t1; t += step {
		xv, yv := x[t:t+4:t+4], y[t:t+4:t+4]
		if s := float64(xv[0])*float64(yv[0]) + float64(a0); tie32(s) { // fpdet:exact
			a0 = fma32(xv[0], yv[0], a0)
		} else {
			a0 = float32(s)
		}
		if s := float64(xv[1])*float64(yv[1]) + float64(a1); tie32(s) { // fpdet:exact
			a1 = fma32(xv[1], yv[1], a1)
		} else {
			a1 = float32(s)
		}
		if s := float64(xv[2])*float64(yv[2]) + float64(a2); tie32(s) { // fpdet:exact
			a2 = fma32(xv[2], yv[2], a2)
		} else {
			a2 = float32(s)
		}
		if s := float64(xv[3])*float64(yv[3]) + float64(a3); tie32(s) { // fpdet:exact
			a3 = fma32(xv[3], yv[3], a3)
		} else {
			a3 = float32(s)
		}
	}
	a[0], a[1], a[2], a[3] = a0, a1, a2, a3
}

func accSq32(a *[4]float32, x, y []float32, t0, t1, step int) {
	a0, a1, a2, a3 := a[0], a[1], a[2], a[3]
	for t := t0; t < t1; t += step {
		xv, yv := x[t:t+4:t+4], y[t:t+4:t+4]
		d0, d1, d2, d3 := xv[0]-yv[0], xv[1]-yv[1], xv[2]-yv[2], xv[3]-yv[3]
		if s := float64(d0)*float64(d0) + float64(a0); tie32(s) { // fpdet:exact
			a0 = fma32(d0, d0, a0)
		} else {
			a0 = float32(s)
		}
		if s := float64(d1)*float64(d1) + float64(a1); tie32(s) { // fpdet:exact
			a1 = fma32(d1, d1, a1)
		} else {
			a1 = float32(s)
		}
		if s := float64(d2)*float64(d2) + float64(a2); tie32(s) { // fpdet:exact
			a2 = fma32(d2, d2, a2)
		} else {
			a2 = float32(s)
		}
		if s := float64(d3)*float64(d3) + float64(a3); tie32(s) { // fpdet:exact
			a3 = fma32(d3, d3, a3)
		} else {
			a3 = float32(s)
		}
	}
	a[0], a[1], a[2], a[3] = a0, a1, a2, a3
}

// accNT2 is the DotsNT2 step: per lane, w = x·x (rounded), then
// acc = fma(w, p, acc) and acc = fma(x, q, acc); step 4.
func accNT2(a *[4]float64, x, p, q []float64, t0, t1 int) {
	a0, a1, a2, a3 := a[0], a[1], a[2], a[3]
	for t := t0; t < t1; t += 4 {
		xv, pv, qv := x[t:t+4:t+4], p[t:t+4:t+4], q[t:t+4:t+4]
		x0, x1, x2, x3 := xv[0], xv[1], xv[2], xv[3]
		w0, w1, w2, w3 := float64(x0*x0), float64(x1*x1), float64(x2*x2), float64(x3*x3)
		a0 = math.FMA(w0, pv[0], a0)
		a1 = math.FMA(w1, pv[1], a1)
		a2 = math.FMA(w2, pv[2], a2)
		a3 = math.FMA(w3, pv[3], a3)
		a0 = math.FMA(x0, qv[0], a0)
		a1 = math.FMA(x1, qv[1], a1)
		a2 = math.FMA(x2, qv[2], a2)
		a3 = math.FMA(x3, qv[3], a3)
	}
	a[0], a[1], a[2], a[3] = a0, a1, a2, a3
}

// Masked tails: the last r < lanes elements from t0 go to lanes 0..r−1 of
// a; the other lanes add fma(0, 0, ·) = +0.

func tailDot64(a *[4]float64, x, y []float64, t0 int) {
	x, y = x[t0:], y[t0:len(x)]
	for l := range a {
		if l < len(x) {
			a[l] = math.FMA(x[l], y[l], a[l])
		} else {
			a[l] += 0
		}
	}
}

func tailSq64(a *[4]float64, x, y []float64, t0 int) {
	x, y = x[t0:], y[t0:len(x)]
	for l := range a {
		if l < len(x) {
			d := x[l] - y[l]
			a[l] = math.FMA(d, d, a[l])
		} else {
			a[l] += 0
		}
	}
}

func tailDot32(a *[8]float32, x, y []float32, t0 int) {
	r := len(x) - t0
	for l := range a {
		if l < r {
			a[l] = fma32(x[t0+l], y[t0+l], a[l])
		} else {
			a[l] += 0
		}
	}
}

func tailSq32(a *[8]float32, x, y []float32, t0 int) {
	r := len(x) - t0
	for l := range a {
		if l < r {
			d := x[t0+l] - y[t0+l]
			a[l] = fma32(d, d, a[l])
		} else {
			a[l] += 0
		}
	}
}

// tailNT2: masked lanes add +0 twice (the second is exact).
func tailNT2(a *[4]float64, x, p, q []float64, t0 int) {
	r := len(x) - t0
	for l := range a {
		if l < r {
			t := t0 + l
			w := float64(x[t] * x[t])
			a[l] = math.FMA(w, p[t], a[l])
			a[l] = math.FMA(x[t], q[t], a[l])
		} else {
			a[l] += 0
		}
	}
}

// Level-1 reductions (genDot): four vector accumulators acc[0..3]. Whole
// blocks of 4 vectors (4v elements) feed acc[0], acc[1], acc[2], acc[3] in
// turn; the remaining whole vectors go to acc[0], the masked tail to acc[1];
// then s = (acc[0] + acc[1]) + (acc[2] + acc[3]) lane by lane and s is
// reduced as a single column.
//
// Here the four accumulators are updated one at a time over a stretch of
// sbLen elements (which stays in L1 for the four passes), so that only v of
// them need registers.

const sbLen = 1024 // multiple of 4v for v = 4 and 8

func dotGeneric(x, y []float64) float64      { return reduce64(x, y, false) }
func sqDistGeneric(x, y []float64) float64   { return reduce64(x, y, true) }
func dot32Generic(x, y []float32) float32    { return reduce32(x, y, false) }
func sqDist32Generic(x, y []float32) float32 { return reduce32(x, y, true) }

// reduce64 is dot (sq false) or ‖x−y‖² (sq true) as genDot computes it.
func reduce64(x, y []float64, sq bool) float64 {
	const v = 4
	y = y[:len(x)]
	n := len(x)
	nb := n / (4 * v) * (4 * v)
	nv := n / v * v
	var a [4][4]float64
	if sq {
		for s0 := 0; s0 < nb; s0 += sbLen {
			s1 := min(s0+sbLen, nb)
			for i := range a {
				accSq64(&a[i], x, y, s0+i*v, s1, 4*v)
			}
		}
		accSq64(&a[0], x, y, nb, nv, v)
		if nv < n {
			tailSq64(&a[1], x, y, nv)
		}
	} else {
		for s0 := 0; s0 < nb; s0 += sbLen {
			s1 := min(s0+sbLen, nb)
			for i := range a {
				accDot64(&a[i], x, y, s0+i*v, s1, 4*v)
			}
		}
		accDot64(&a[0], x, y, nb, nv, v)
		if nv < n {
			tailDot64(&a[1], x, y, nv)
		}
	}
	var s [4]float64
	for l := range s {
		s[l] = (a[0][l] + a[1][l]) + (a[2][l] + a[3][l])
	}
	return hsum64Single(&s)
}

// reduce32 is reduce64 for float32 (8 lanes, each accumulator in halves).
func reduce32(x, y []float32, sq bool) float32 {
	const v = 8
	y = y[:len(x)]
	n := len(x)
	nb := n / (4 * v) * (4 * v)
	nv := n / v * v
	acc := func(a *[4]float32, t0, t1, step int) { // inlined: a direct call
		if sq {
			accSq32(a, x, y, t0, t1, step)
		} else {
			accDot32(a, x, y, t0, t1, step)
		}
	}
	var a [4][8]float32 // accumulators, updated 4 lanes at a time
	for s0 := 0; s0 < nb; s0 += sbLen {
		s1 := min(s0+sbLen, nb)
		for i := range a {
			for h := 0; h < v; h += 4 {
				acc((*[4]float32)(a[i][h:]), s0+i*v+h, s1, 4*v)
			}
		}
	}
	for h := 0; h < v; h += 4 {
		acc((*[4]float32)(a[0][h:]), nb+h, nv, v)
	}
	if nv < n {
		if sq {
			tailSq32(&a[1], x, y, nv)
		} else {
			tailDot32(&a[1], x, y, nv)
		}
	}
	var s [8]float32
	for l := range s {
		s[l] = (a[0][l] + a[1][l]) + (a[2][l] + a[3][l])
	}
	return hsum32Single(&s)
}

// Element-wise updates (genMap, genTo64): every element, vector or scalar
// tail, is one instruction of the same kind.

func axpyGeneric(a float64, x, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] = math.FMA(a, v, y[i])
	}
}

func axpy32Generic(a float32, x, y []float32) {
	y = y[:len(x)]
	a64 := float64(a)
	for i, v := range x {
		if s := a64*float64(v) + float64(y[i]); tie32(s) { // fpdet:exact
			y[i] = fma32(a, v, y[i])
		} else {
			y[i] = float32(s)
		}
	}
}

func scaleG[T float32 | float64](a T, x []T) {
	for i := range x {
		x[i] *= a
	}
}

func addG[T float32 | float64](x, y []T) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += v
	}
}

func scaleGeneric(a float64, x []float64)   { scaleG(a, x) }
func addGeneric(x, y []float64)             { addG(x, y) }
func scale32Generic(a float32, x []float32) { scaleG(a, x) }
func add32Generic(x, y []float32)           { addG(x, y) }

func addTo64Generic(x []float32, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += float64(v)
	}
}

func axpyTo64Generic(a float64, x []float32, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] = math.FMA(a, float64(v), y[i])
	}
}

// Blocked products (genKernel, dotsNTBlocked): out[i,j] starts at +0; for
// each d-chunk of its column block, one vector accumulator (v lanes) sums
// x_t·c_jt over the chunk's whole vectors and its masked tail, is reduced
// by hsum for the centroid's place in the block, and is added to out[i,j].
// Rows are independent (the asm's 2-row and 1-row kernels round alike), and
// so are columns: one (row, column, chunk) is computed at a time, which in
// Go is faster than sharing loads between columns (fewer values live
// across the math.FMA calls).

const maxBlocks = 16 // column blocks of k ≤ 75 fit on the stack

// chunk64, chunk32 and chunkNT2 return the sum over one chunk: its vector
// accumulator, reduced in the order of mode. (The accumulators stay in
// the function: returning them as arrays would cost more than the sums.)

func chunk64(x, c []float64, mode int) float64 {
	c = c[:len(x)]
	nv := len(x) &^ 3
	var a [4]float64
	if nv > 0 {
		accDot64(&a, x, c, 0, nv, 4)
	}
	if nv < len(x) {
		tailDot64(&a, x, c, nv)
	}
	return hsum64(&a, mode)
}

func chunk32(x, c []float32, mode int) float32 {
	c = c[:len(x)]
	nv := len(x) &^ 7
	var a [8]float32
	if nv > 0 {
		accDot32((*[4]float32)(a[:4]), x, c, 0, nv, 8)
		accDot32((*[4]float32)(a[4:]), x, c, 4, nv, 8)
	}
	if nv < len(x) {
		tailDot32(&a, x, c, nv)
	}
	return hsum32(&a, mode)
}

func chunkNT2(x, p, q []float64, mode int) float64 {
	p, q = p[:len(x)], q[:len(x)]
	nv := len(x) &^ 3
	var a [4]float64
	if nv > 0 {
		accNT2(&a, x, p, q, 0, nv)
	}
	if nv < len(x) {
		tailNT2(&a, x, p, q, nv)
	}
	return hsum64(&a, mode)
}

// The drivers walk X in blocks of ntRows rows and, for each column block,
// d chunk by chunk, so that the chunk of the block's rows of C (sized by
// l1Budget for the asm) stays in L1 while the rows pass; each out[i,j]
// still receives its chunk sums in chunk order.
const ntRows = 16

func dotsNTGeneric(X []float64, n int, C []float64, k, d int, out []float64) {
	dotsNTReplay(X, n, C, k, d, out, 4, 8, chunk64)
}

func dotsNT32Generic(X []float32, n int, C []float32, k, d int, out []float32) {
	dotsNTReplay(X, n, C, k, d, out, 8, 4, chunk32)
}

// dotsNTReplay is the driver both precisions share: the column blocks and d
// chunks of the asm plan (lanes and per as in appendColBlocks), with chunk
// computing one chunk sum exactly as the asm does.
func dotsNTReplay[T float32 | float64](X []T, n int, C []T, k, d int, out []T, lanes, per int, chunk func(x, c []T, mode int) T) {
	var buf [maxBlocks]colBlock
	blocks := appendColBlocks(buf[:0], k, d, lanes, per)
	for i0 := 0; i0 < n; i0 += ntRows {
		i1 := min(i0+ntRows, n)
		clear(out[i0*k : i1*k])
		for _, b := range blocks {
			for t0 := 0; t0 < d; t0 += b.chunk {
				t1 := min(t0+b.chunk, d)
				for i := i0; i < i1; i++ {
					x, o := X[i*d+t0:i*d+t1], out[i*k:i*k+k]
					for pos := 0; pos < b.c; pos++ {
						j := b.j + pos
						o[j] += chunk(x, C[j*d+t0:j*d+t1], hsumMode(pos, b.c))
					}
				}
			}
		}
	}
}

func dotsNT2Generic(X []float64, n int, A, B []float64, k, d int, out []float64) {
	var buf [maxBlocks]colBlock
	blocks := appendColBlocks(buf[:0], k, d, 4, 16)
	for i0 := 0; i0 < n; i0 += ntRows {
		i1 := min(i0+ntRows, n)
		clear(out[i0*k : i1*k])
		for _, b := range blocks {
			for t0 := 0; t0 < d; t0 += b.chunk {
				t1 := min(t0+b.chunk, d)
				for i := i0; i < i1; i++ {
					x, o := X[i*d+t0:i*d+t1], out[i*k:i*k+k]
					for pos := 0; pos < b.c; pos++ {
						j := b.j + pos
						o[j] += chunkNT2(x, A[j*d+t0:j*d+t1], B[j*d+t0:j*d+t1], hsumMode(pos, b.c))
					}
				}
			}
		}
	}
}
