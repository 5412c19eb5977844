// Package cases holds the inputs on which package fpdet is checked against
// package math: fpdet's tests digest fpdet's results over them, and
// ../../testdata/golden records the digests of math's results on amd64.
package cases

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/rand/v2"

	"github.com/syncmodels/syncmodels/internal/fpdet"
)

// Case is one function and its inputs (one or two arguments).
type Case struct {
	Name        string
	Inputs      [][2]float64
	Math, Fpdet func([2]float64) float64
}

// Digest is the sha256, in hex, of f's results' bits over c.Inputs (NaNs
// as one canonical NaN, since their payloads may differ).
func (c Case) Digest(f func([2]float64) float64) string {
	h := sha256.New()
	var buf [8]byte
	for _, in := range c.Inputs {
		y := f(in)
		if math.IsNaN(y) {
			y = math.NaN()
		}
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(y))
		h.Write(buf[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ExpProbe is an input where math.Exp on amd64 gives ExpProbeFMA with FMA
// (exp_amd64.s's avxfma path) and another value without
// (GODEBUG=cpu.fma=off, or an x86 CPU without FMA)
// (testdata/golden -exp-bits, with and without GODEBUG=cpu.fma=off: the
// two paths differ on about 9% of the Exp inputs, e^π among them).
var (
	ExpProbe    = math.Pi
	ExpProbeFMA = math.Float64frombits(0x403724046eb09339) // without FMA: …933a
)

// NormDigest and ExpDigest are the digests of 2²⁰ draws of
// rand.New(rand.NewPCG(1, 2)).NormFloat64 and ExpFloat64 on amd64 with FMA
// (testdata/golden).
const (
	NormDigest = "34c1fbd2058a37030c85b530b1dccbef8f5ea50d8ea51c9d3e333d5a727e9dbf"
	ExpDigest  = "5a8f4531f4b70605fa45ea34505a088768c2d7005c3689f2cf1d38ac49f5b6f6"
)

// specials are the inputs every case gets (as first and second argument).
// No subnormal: amd64's math.Log assembly is wrong for them (fpdet's test
// TestLogSubnormal checks Log there).
var specials = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 2, -2, math.Inf(1), math.Inf(-1), math.NaN(),
	0x1p-1022, math.MaxFloat64, -math.MaxFloat64, 1e-300, 1e300, math.Pi, math.E, math.Ln2}

// uniform returns n values in [lo, hi), drawn from a PCG seeded with seed.
func uniform(seed uint64, n int, lo, hi float64) []float64 {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	v := make([]float64, n)
	for i := range v {
		v[i] = lo + float64((hi-lo)*r.Float64())
	}
	return v
}

// logUniform returns n positive values whose exponents are uniform in
// [2^lo, 2^hi), mantissas random.
func logUniform(seed uint64, n int, lo, hi int) []float64 {
	r := rand.New(rand.NewPCG(seed, 0x2545f4914f6cdd1d))
	v := make([]float64, n)
	for i := range v {
		e := lo + r.IntN(hi-lo)
		v[i] = math.Ldexp(1+r.Float64(), e)
	}
	return v
}

func one(xs ...[]float64) [][2]float64 {
	var in [][2]float64
	for _, x := range specials {
		in = append(in, [2]float64{x, 0})
	}
	for _, s := range xs {
		for _, x := range s {
			in = append(in, [2]float64{x, 0})
		}
	}
	return in
}

func f1(f func(float64) float64) func([2]float64) float64 {
	return func(a [2]float64) float64 { return f(a[0]) }
}

func f2(f func(float64, float64) float64) func([2]float64) float64 {
	return func(a [2]float64) float64 { return f(a[0], a[1]) }
}

const n = 1 << 16

// All returns the cases, the same on every call and architecture.
func All() []Case {
	pow := func() [][2]float64 {
		var in [][2]float64
		for _, x := range specials {
			for _, y := range specials {
				in = append(in, [2]float64{x, y})
			}
		}
		xs, ys := uniform(21, n, 0, 10), uniform(22, n, -20, 20)
		for i := range xs {
			in = append(in, [2]float64{xs[i], ys[i]})
		}
		xs, ys = logUniform(23, n, -1000, 1000), uniform(24, n, -2, 2)
		for i := range xs {
			in = append(in, [2]float64{xs[i], ys[i]})
		}
		xs, ys = uniform(25, n/4, -10, 10), uniform(26, n/4, -30, 30)
		for i := range xs {
			in = append(in, [2]float64{xs[i], math.Round(ys[i])})
		}
		return in
	}
	hypot := func() [][2]float64 {
		var in [][2]float64
		for _, x := range specials {
			for _, y := range specials {
				in = append(in, [2]float64{x, y})
			}
		}
		xs, ys := logUniform(31, n, -1070, 1020), logUniform(32, n, -1070, 1020)
		for i := range xs {
			in = append(in, [2]float64{xs[i], -ys[i]})
		}
		return in
	}
	return []Case{
		{"Exp", one(uniform(1, n, -746, 710), uniform(2, n, -1, 1), uniform(3, n/4, -745.2, -708), logUniform(4, n/4, -60, -1)), f1(math.Exp), f1(fpdet.Exp)},
		{"Log", one(logUniform(5, n, -1022, 1024), uniform(6, n, 0.5, 2), uniform(7, n/4, 0.999, 1.001)), f1(math.Log), f1(fpdet.Log)},
		{"Log2", one(logUniform(8, n, -1022, 1024), uniform(9, n, 0.5, 2)), f1(math.Log2), f1(fpdet.Log2)},
		{"Log1p", one(uniform(10, n, -1, 1), logUniform(11, n, -60, 1000), uniform(12, n/4, -1e-8, 1e-8)), f1(math.Log1p), f1(fpdet.Log1p)},
		{"Exp2", one(uniform(13, n, -1080, 1030), uniform(14, n, -2, 2)), f1(math.Exp2), f1(fpdet.Exp2)},
		{"Expm1", one(uniform(15, n, -40, 710), uniform(16, n, -1, 1), uniform(17, n/4, -1e-8, 1e-8)), f1(math.Expm1), f1(fpdet.Expm1)},
		{"Pow", pow(), f2(math.Pow), f2(fpdet.Pow)},
		{"Hypot", hypot(), f2(math.Hypot), f2(fpdet.Hypot)},
		{"Erfc", one(uniform(18, n, -7, 29), uniform(19, n, -1.5, 1.5)), f1(math.Erfc), f1(fpdet.Erfc)},
		{"Erfinv", one(uniform(20, n, -1, 1), uniform(27, n/4, 0.999999, 1)), f1(math.Erfinv), f1(fpdet.Erfinv)},
	}
}
