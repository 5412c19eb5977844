// Ported from the Go standard library (src/math/log.go, log_amd64.s,
// log10.go and log1p.go, Go 1.26). Copyright 2009–2010 The Go Authors. Use
// of this source code is governed by a BSD-style license that can be found
// in LICENSE-GO beside this file. The algorithms are FreeBSD's msun
// (fdlibm), with Sun's notice, kept below.

package fpdet

import "math"

// The original C code, the long comment, and the constants
// below are from FreeBSD's /usr/src/lib/msun/src/e_log.c
// and came with this notice. The go code is a simpler
// version of the original C.
//
// ====================================================
// Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
//
// Developed at SunPro, a Sun Microsystems, Inc. business.
// Permission to use, copy, modify, and distribute this
// software is freely granted, provided that this notice
// is preserved.
// ====================================================

// Log returns the natural logarithm of x.
//
// Special cases: Log(+Inf) = +Inf, Log(±0) = −Inf, Log(x < 0) = NaN,
// Log(NaN) = NaN.
//
// It is fdlibm's e_log.c in the operation order of Go's amd64 assembly
// (log_amd64.s, what math.Log runs on amd64): x = 2ᵏ·(1+f) with
// √2/2 < 1+f ≤ √2 (the assembly's reduction keeps 1+f = √2/2 exactly in the
// lower half), s = f/(2+f), a degree-14 polynomial in s. Every product is
// rounded before it is added, so the result equals amd64's math.Log bit for
// bit on every architecture, for every normal x. For subnormal x the
// amd64 assembly reads the exponent field as if x were normal (and is off
// by orders of magnitude); Log normalizes x first, like the pure-Go
// math.Log. The error is below 1 ulp.
func Log(x float64) float64 {
	const (
		hSqrt2 = 7.07106781186547524401e-01 // √2/2
		Ln2Hi  = 6.93147180369123816490e-01 /* 3fe62e42 fee00000 */
		Ln2Lo  = 1.90821492927058770002e-10 /* 3dea39ef 35793c76 */
		L1     = 6.666666666666735130e-01   /* 3FE55555 55555593 */
		L2     = 3.999999999940941908e-01   /* 3FD99999 9997FA04 */
		L3     = 2.857142874366239149e-01   /* 3FD24924 94229359 */
		L4     = 2.222219843214978396e-01   /* 3FCC71C5 1D8E78AF */
		L5     = 1.818357216161805012e-01   /* 3FC74664 96CB03DE */
		L6     = 1.531383769920937332e-01   /* 3FC39A09 D078C69F */
		L7     = 1.479819860511658591e-01   /* 3FC2F112 DF3E5244 */
	)
	b := math.Float64bits(x)
	switch {
	case b&^(1<<63) == 0:
		return math.Inf(-1)
	case b>>63 != 0: // negative, −Inf, or a NaN with the sign bit
		return math.NaN()
	case b >= 0x7FF0000000000000: // +Inf or NaN
		return x
	}
	e := int(b >> 52)
	if e == 0 { // subnormal: scale by 2⁵² (exact)
		b = math.Float64bits(x * (1 << 52))
		e = int(b>>52) - 52
	}
	// reduce: f1 ∈ [0.5, 1), x = f1·2ᵏ
	f1 := math.Float64frombits(b&(1<<52-1) | 0x3FE0000000000000)
	k := float64(e - 0x3FE)
	if f1 <= hSqrt2 {
		k--
		f1 = float64(f1 * 2)
	}
	f := f1 - 1

	// compute
	s := f / (2 + f)
	s2 := float64(s * s)
	s4 := float64(s2 * s2)
	t1 := float64(s2 * madd(s4, madd(s4, madd(s4, L7, L5), L3), L1))
	t2 := float64(s4 * madd(s4, madd(s4, L6, L4), L2))
	R := t1 + t2
	hfsq := float64(0.5 * f * f)
	return float64(k*Ln2Hi) - ((hfsq - (float64(s*(hfsq+R)) + float64(k*Ln2Lo))) - f)
}

// Log2 returns the binary logarithm of x, as math.Log2 computes it
// (log10.go): exact for powers of two, otherwise Log(frac)/ln2 + exp.
// Special cases as Log.
func Log2(x float64) float64 {
	frac, exp := math.Frexp(x)
	// Make sure exact powers of two give an exact answer.
	// Don't depend on Log(0.5)*(1/Ln2)+exp being exactly exp-1.
	if frac == 0.5 {
		return float64(exp - 1)
	}
	return float64(Log(frac)*(1/math.Ln2)) + float64(exp)
}

// The original C code, the long comment, and the constants
// below are from FreeBSD's /usr/src/lib/msun/src/s_log1p.c
// and came with this notice. The go code is a simplified
// version of the original C.
//
// ====================================================
// Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
//
// Developed at SunPro, a Sun Microsystems, Inc. business.
// Permission to use, copy, modify, and distribute this
// software is freely granted, provided that this notice
// is preserved.
// ====================================================

// Log1p returns the natural logarithm of 1 + x, accurate also when x is
// near zero, as math.Log1p computes it in pure Go (fdlibm's s_log1p.c).
// Special cases: Log1p(+Inf) = +Inf, Log1p(±0) = ±0, Log1p(−1) = −Inf,
// Log1p(x < −1) = NaN, Log1p(NaN) = NaN.
func Log1p(x float64) float64 {
	const (
		Sqrt2M1     = 4.142135623730950488017e-01  // Sqrt(2)-1 = 0x3fda827999fcef34
		Sqrt2HalfM1 = -2.928932188134524755992e-01 // Sqrt(2)/2-1 = 0xbfd2bec333018866
		Small       = 1.0 / (1 << 29)              // 2**-29 = 0x3e20000000000000
		Tiny        = 1.0 / (1 << 54)              // 2**-54
		Two53       = 1 << 53                      // 2**53
		Ln2Hi       = 6.93147180369123816490e-01   // 3fe62e42fee00000
		Ln2Lo       = 1.90821492927058770002e-10   // 3dea39ef35793c76
		Lp1         = 6.666666666666735130e-01     // 3FE5555555555593
		Lp2         = 3.999999999940941908e-01     // 3FD999999997FA04
		Lp3         = 2.857142874366239149e-01     // 3FD2492494229359
		Lp4         = 2.222219843214978396e-01     // 3FCC71C51D8E78AF
		Lp5         = 1.818357216161805012e-01     // 3FC7466496CB03DE
		Lp6         = 1.531383769920937332e-01     // 3FC39A09D078C69F
		Lp7         = 1.479819860511658591e-01     // 3FC2F112DF3E5244
	)

	// special cases
	switch {
	case x < -1 || math.IsNaN(x): // includes -Inf
		return math.NaN()
	case x == -1:
		return math.Inf(-1)
	case math.IsInf(x, 1):
		return math.Inf(1)
	}

	absx := math.Abs(x)

	var f float64
	var iu uint64
	k := 1
	if absx < Sqrt2M1 { //  |x| < Sqrt(2)-1
		if absx < Small { // |x| < 2**-29
			if absx < Tiny { // |x| < 2**-54
				return x
			}
			return x - float64(x*x*0.5)
		}
		if x > Sqrt2HalfM1 { // Sqrt(2)/2-1 < x
			// (Sqrt(2)/2-1) < x < (Sqrt(2)-1)
			k = 0
			f = x
			iu = 1
		}
	}
	var c float64
	if k != 0 {
		var u float64
		if absx < Two53 { // 1<<53
			u = 1.0 + x
			iu = math.Float64bits(u)
			k = int((iu >> 52) - 1023)
			// correction term
			if k > 0 {
				c = 1.0 - (u - x)
			} else {
				c = x - (u - 1.0)
			}
			c /= u
		} else {
			u = x
			iu = math.Float64bits(u)
			k = int((iu >> 52) - 1023)
			c = 0
		}
		iu &= 0x000fffffffffffff
		if iu < 0x0006a09e667f3bcd { // mantissa of Sqrt(2)
			u = math.Float64frombits(iu | 0x3ff0000000000000) // normalize u
		} else {
			k++
			u = math.Float64frombits(iu | 0x3fe0000000000000) // normalize u/2
			iu = (0x0010000000000000 - iu) >> 2
		}
		f = u - 1.0 // Sqrt(2)/2 < u < Sqrt(2)
	}
	hfsq := float64(0.5 * f * f)
	var s, R, z float64
	if iu == 0 { // |f| < 2**-20
		if f == 0 {
			if k == 0 {
				return 0
			}
			c += float64(float64(k) * Ln2Lo)
			return float64(float64(k)*Ln2Hi) + c
		}
		R = float64(hfsq * (1.0 - float64(0.66666666666666666*f))) // avoid division
		if k == 0 {
			return f - R
		}
		return float64(float64(k)*Ln2Hi) - ((R - (float64(float64(k)*Ln2Lo) + c)) - f)
	}
	s = f / (2.0 + f)
	z = float64(s * s)
	R = float64(z * madd(z, madd(z, madd(z, madd(z, madd(z, madd(z, Lp7, Lp6), Lp5), Lp4), Lp3), Lp2), Lp1))
	if k == 0 {
		return f - (hfsq - float64(s*(hfsq+R)))
	}
	return float64(float64(k)*Ln2Hi) - ((hfsq - (float64(s*(hfsq+R)) + (float64(float64(k)*Ln2Lo) + c))) - f)
}
