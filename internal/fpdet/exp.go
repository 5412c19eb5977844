// Ported from the Go standard library (src/math/exp.go, expm1.go and
// exp_amd64.s, Go 1.26). Copyright 2009–2010 The Go Authors. Use of this
// source code is governed by a BSD-style license that can be found in
// LICENSE-GO beside this file. Parts come from FreeBSD's msun (fdlibm) with
// Sun's notice, kept below, and from SLEEF (public domain).

package fpdet

import "math"

// Exp returns eˣ.
//
// Special cases: Exp(+Inf) = +Inf, Exp(NaN) = NaN, Exp(−Inf) = 0; very
// large x overflow to +Inf and very small x underflow to 0.
//
// It is the algorithm of Go's amd64 assembly with FMA (exp_amd64.s, the
// path math.Exp takes on x86 CPUs with AVX and FMA): Naoki Shibata's
// method from SLEEF ("Efficient evaluation methods of elementary functions
// suitable for SIMD computation", ISC 2010): x = k·ln2 + r with
// k = round(x·log₂e), a Taylor series of degree 8 for e^(r/16) − 1, four
// doublings y ← y·(y+2) back to e^r − 1, and a scaling by 2ᵏ. Its fused
// multiply-adds are math.FMA (one correctly rounded operation everywhere,
// in hardware or software), its other operations are single roundings in
// the same order, so the result is that of math.Exp on such an amd64 CPU,
// bit for bit, on every architecture. The error is below 1 ulp.
func Exp(x float64) float64 {
	const (
		log2e    = 1.4426950408889634073599246810018920 // 1/ln2
		ln2U     = 0.69314718055966295651160180568695068359375
		ln2L     = 0.28235290563031577122588448175013436025525412068e-12
		overflow = 7.09782712893384e+02
		c2       = 0.5
		c3       = 1.6666666666666666667e-1
		c4       = 4.1666666666666666667e-2
		c5       = 8.3333333333333333333e-3
		c6       = 1.3888888888888888889e-3
		c7       = 1.9841269841269841270e-4
		c8       = 2.4801587301587301587e-5
	)
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case math.IsInf(x, -1):
		return 0
	case x > overflow:
		return math.Inf(1)
	}
	// k = x·log₂e rounded to nearest even (CVTSD2SL); the assembly's
	// 2ᵏ underflows to 0 below k = −1075 and overflows from k = 1024.
	k := math.RoundToEven(float64(log2e * x))
	if k < -1075 {
		return 0
	}
	if k >= 1024 {
		return math.Inf(1)
	}
	r := math.FMA(-k, ln2U, x)
	r = math.FMA(-k, ln2L, r)
	r = float64(r * 0.0625)
	p := math.FMA(c8, r, c7)
	p = math.FMA(p, r, c6)
	p = math.FMA(p, r, c5)
	p = math.FMA(p, r, c4)
	p = math.FMA(p, r, c3)
	p = math.FMA(p, r, c2)
	p = math.FMA(p, r, 1)
	y := float64(r * p) // e^(r/16) − 1
	y = float64(y * (y + 2))
	y = float64(y * (y + 2))
	y = float64(y * (y + 2))
	y = math.FMA(y, y+2, 1) // e^r
	ki := int(k)
	if ki > -1023 {
		return float64(y * math.Float64frombits(uint64(ki+1023)<<52))
	}
	// Subnormal result: two scalings, as the assembly does.
	y = float64(y * math.Float64frombits(uint64(ki+1023+1022)<<52))
	return float64(y * math.Float64frombits(1<<52))
}

// Exp2 returns 2ˣ, as math.Exp2 computes it in pure Go (exp.go): x = k + t,
// 2ᵗ = e^(t·ln2) by fdlibm's exp kernel. Special cases as math.Exp2.
func Exp2(x float64) float64 {
	const (
		ln2Hi = 6.93147180369123816490e-01
		ln2Lo = 1.90821492927058770002e-10

		overflow  = 1.0239999999999999e+03
		underflow = -1.0740e+03
	)
	switch {
	case math.IsNaN(x):
		return x
	case x > overflow: // handles case where x is +∞
		return math.Inf(1)
	case x < underflow: // handles case where x is -∞
		return 0
	}
	// argument reduction; x = r×lg(e) + k with |r| ≤ ln(2)/2.
	// computed as r = hi - lo for extra precision.
	var k int
	switch {
	case x > 0:
		k = int(x + 0.5)
	case x < 0:
		k = int(x - 0.5)
	}
	t := x - float64(k)
	hi := float64(t * ln2Hi)
	lo := float64(-t * ln2Lo)
	return expmulti(hi, lo, k)
}

// expmulti returns e**r × 2**k where r = hi - lo and |r| ≤ ln(2)/2.
func expmulti(hi, lo float64, k int) float64 {
	const (
		P1 = 1.66666666666666657415e-01  /* 0x3FC55555; 0x55555555 */
		P2 = -2.77777777770155933842e-03 /* 0xBF66C16C; 0x16BEBD93 */
		P3 = 6.61375632143793436117e-05  /* 0x3F11566A; 0xAF25DE2C */
		P4 = -1.65339022054652515390e-06 /* 0xBEBBBD41; 0xC5D26BF1 */
		P5 = 4.13813679705723846039e-08  /* 0x3E663769; 0x72BEA4D0 */
	)
	r := hi - lo
	t := float64(r * r)
	c := r - float64(t*madd(t, madd(t, madd(t, madd(t, P5, P4), P3), P2), P1))
	y := 1 - ((lo - float64(r*c)/(2-c)) - hi)
	return math.Ldexp(y, k)
}

// madd returns a·b + c rounded twice (product, then sum), never fused.
func madd(a, b, c float64) float64 { return float64(a*b) + c }

// The original C code, the long comment, and the constants
// below are from FreeBSD's /usr/src/lib/msun/src/s_expm1.c
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

// Expm1 returns eˣ − 1, accurate also when x is near zero, as math.Expm1
// computes it in pure Go (fdlibm's s_expm1.c). Special cases as
// math.Expm1.
func Expm1(x float64) float64 {
	const (
		Othreshold = 7.09782712893383973096e+02 // 0x40862E42FEFA39EF
		Ln2X56     = 3.88162421113569373274e+01 // 0x4043687a9f1af2b1
		Ln2HalfX3  = 1.03972077083991796413e+00 // 0x3ff0a2b23f3bab73
		Ln2Half    = 3.46573590279972654709e-01 // 0x3fd62e42fefa39ef
		Ln2Hi      = 6.93147180369123816490e-01 // 0x3fe62e42fee00000
		Ln2Lo      = 1.90821492927058770002e-10 // 0x3dea39ef35793c76
		InvLn2     = 1.44269504088896338700e+00 // 0x3ff71547652b82fe
		Tiny       = 1.0 / (1 << 54)            // 2**-54 = 0x3c90000000000000
		// scaled coefficients related to expm1
		Q1 = -3.33333333333331316428e-02 // 0xBFA11111111110F4
		Q2 = 1.58730158725481460165e-03  // 0x3F5A01A019FE5585
		Q3 = -7.93650757867487942473e-05 // 0xBF14CE199EAADBB7
		Q4 = 4.00821782732936239552e-06  // 0x3ED0CFCA86E65239
		Q5 = -2.01099218183624371326e-07 // 0xBE8AFDB76E09C32D
	)

	// special cases
	switch {
	case math.IsInf(x, 1) || math.IsNaN(x):
		return x
	case math.IsInf(x, -1):
		return -1
	}

	absx := x
	sign := false
	if x < 0 {
		absx = -absx
		sign = true
	}

	// filter out huge argument
	if absx >= Ln2X56 { // if |x| >= 56 * ln2
		if sign {
			return -1 // x < -56*ln2, return -1
		}
		if absx >= Othreshold { // if |x| >= 709.78...
			return math.Inf(1)
		}
	}

	// argument reduction
	var c float64
	var k int
	if absx > Ln2Half { // if  |x| > 0.5 * ln2
		var hi, lo float64
		if absx < Ln2HalfX3 { // and |x| < 1.5 * ln2
			if !sign {
				hi = x - Ln2Hi
				lo = Ln2Lo
				k = 1
			} else {
				hi = x + Ln2Hi
				lo = -Ln2Lo
				k = -1
			}
		} else {
			if !sign {
				k = int(madd(InvLn2, x, 0.5))
			} else {
				k = int(madd(InvLn2, x, -0.5))
			}
			t := float64(k)
			hi = x - float64(t*Ln2Hi) // t * Ln2Hi is exact here
			lo = float64(t * Ln2Lo)
		}
		x = hi - lo
		c = (hi - x) - lo
	} else if absx < Tiny { // when |x| < 2**-54, return x
		return x
	} else {
		k = 0
	}

	// x is now in primary range
	hfx := float64(0.5 * x)
	hxs := float64(x * hfx)
	r1 := 1 + float64(hxs*madd(hxs, madd(hxs, madd(hxs, madd(hxs, Q5, Q4), Q3), Q2), Q1))
	t := 3 - float64(r1*hfx)
	e := float64(hxs * ((r1 - t) / (6.0 - float64(x*t))))
	if k == 0 {
		return x - (float64(x*e) - hxs) // c is 0
	}
	e = float64(x*(e-c)) - c
	e -= hxs
	switch {
	case k == -1:
		return float64(0.5*(x-e)) - 0.5
	case k == 1:
		if x < -0.25 {
			return float64(-2 * (e - (x + 0.5)))
		}
		return 1 + float64(2*(x-e))
	case k <= -2 || k > 56: // suffice to return exp(x)-1
		y := 1 - (e - x)
		y = math.Float64frombits(math.Float64bits(y) + uint64(k)<<52) // add k to y's exponent
		return y - 1
	}
	if k < 20 {
		t := math.Float64frombits(0x3ff0000000000000 - (0x20000000000000 >> uint(k))) // t=1-2**-k
		y := t - (e - x)
		y = math.Float64frombits(math.Float64bits(y) + uint64(k)<<52) // add k to y's exponent
		return y
	}
	t = math.Float64frombits(uint64(0x3ff-k) << 52) // 2**-k
	y := x - (e + t)
	y++
	y = math.Float64frombits(math.Float64bits(y) + uint64(k)<<52) // add k to y's exponent
	return y
}
