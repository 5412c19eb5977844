package kernel

import (
	"flag"
	"fmt"
	"hash"
	"hash/fnv"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// The pure-Go and assembly implementations must agree bit for bit (NaN
// payloads aside) on every input: see generic.go. The tests here compare
// them with == on the float bits, and check the pure-Go one against golden
// digests recorded from the assembly, so that builds without the assembly
// (purego, arm64, 386, old CPUs) are checked too.

// same64 reports whether a and b have the same bits, any NaN matching any NaN.
func same64(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || a != a && b != b
}

func same32(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b
}

// withImpl runs f with the assembly kernels on (asm) or off.
func withImpl(asm bool, f func()) {
	saved := useAsm
	useAsm = asm
	defer func() { useAsm = saved }()
	f()
}

func requireAsm(t *testing.T) {
	t.Helper()
	if !hasAsm {
		t.Skip("no assembly kernels in this build / on this CPU")
	}
}

// bitsVec returns n values ±1.m·2^e with e uniform in [emin, emax] and
// random mantissas, built from integers only (so identical on every
// platform, unlike NormFloat64, which uses math.Exp).
func bitsVec(r *rand.Rand, n, emin, emax int) []float64 {
	v := make([]float64, n)
	for i := range v {
		u := r.Uint64()
		e := emin + int(u%uint64(emax-emin+1))
		v[i] = math.Float64frombits(u>>63<<63 | uint64(1023+e)<<52 | r.Uint64()>>12)
	}
	return v
}

// Input kinds for the asm-vs-generic comparisons.
const (
	kindMixed   = iota // mixed signs and magnitudes (randVec)
	kindSpecial        // with NaN / ±Inf
	kindTiny           // products underflow: signed zeros, subnormals
	kindWide           // exponents over ±40: long, lossy sums; float32 double-rounding cases
	kindInt            // small integers: exact products, float32 sums past 2²⁴ (ties)
	numKinds
)

// kindVec returns n float64 values of the given kind at offset off of a
// larger buffer (unaligned for off%4 != 0, and off%8 for float32 copies).
func kindVec(r *rand.Rand, kind, n, off int) []float64 {
	var v []float64
	switch kind {
	case kindMixed, kindSpecial:
		v = randVec(r, n+off, 0)
		if kind == kindSpecial {
			sprinkle(r, v[off:])
		}
	case kindTiny:
		v = bitsVec(r, n+off, -560, -500) // products < 2⁻¹⁰⁰⁰; as float32: 0
	case kindWide:
		v = bitsVec(r, n+off, -40, 40)
	case kindInt:
		v = make([]float64, n+off)
		for i := range v {
			v[i] = float64(r.IntN(8193) - 4096)
		}
	}
	return v[off : off+n : off+n]
}

// kindVec32 is kindVec for float32 (tiny: float32 subnormal range).
func kindVec32(r *rand.Rand, kind, n, off int) []float32 {
	if kind == kindTiny {
		buf := to32(bitsVec(r, n+off, -80, -60))
		return buf[off : off+n : off+n]
	}
	buf := make([]float32, off, off+n)
	buf = append(buf, to32(kindVec(r, kind, n, 0))...)
	if kind == kindSpecial {
		sprinkle32(r, buf[off:])
	}
	return buf[off : off+n : off+n]
}

func eqSlices64(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: lengths %d, %d", what, len(got), len(want))
	}
	for i := range want {
		if !same64(got[i], want[i]) {
			t.Fatalf("%s: [%d] asm %v (%#016x), generic %v (%#016x)", what, i,
				got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
		}
	}
}

func eqSlices32(t *testing.T, what string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: lengths %d, %d", what, len(got), len(want))
	}
	for i := range want {
		if !same32(got[i], want[i]) {
			t.Fatalf("%s: [%d] asm %v (%#08x), generic %v (%#08x)", what, i,
				got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

// testLengths: every length 0..70 and some around the level-1 loop and
// pure-Go stretch (sbLen) boundaries.
func testLengths() []int {
	var l []int
	for n := 0; n <= maxLen; n++ {
		l = append(l, n)
	}
	return append(l, 127, 128, 129, 1023, 1024, 1025, 1057, 2085, 4099)
}

func TestExactLevel1(t *testing.T) {
	requireAsm(t)
	r := rand.New(rand.NewPCG(31, 32))
	i := 0
	for _, n := range testLengths() {
		for off := 0; off < 8; off++ {
			if i++; !sampled(i, 4, n) {
				continue
			}
			for kind := 0; kind < numKinds; kind++ {
				what := fmt.Sprintf("n=%d off=%d kind=%d", n, off, kind)
				x, y := kindVec(r, kind, n, off%4), kindVec(r, kind, n+1, (off+1)%4)
				x32, y32 := kindVec32(r, kind, n, off), kindVec32(r, kind, n+1, (off+3)%8)
				var a, g [4]float64
				var a32, g32 [4]float32
				for i, asm := range []bool{true, false} {
					res, res32 := &a, &a32
					if i == 1 {
						res, res32 = &g, &g32
					}
					withImpl(asm, func() {
						res[0], res[1] = Dot(x, y), SqDist(x, y)
						res32[0], res32[1] = Dot32(x32, y32), SqDist32(x32, y32)
					})
				}
				eqSlices64(t, "Dot/SqDist "+what, a[:], g[:])
				eqSlices32(t, "Dot32/SqDist32 "+what, a32[:], g32[:])

				// Element-wise updates, y one longer than x (must not change).
				as := []float64{1, -1, 0.5, randVec(r, 1, 0)[0], kindVec(r, kind, 1, 0)[0]}
				for _, alpha := range as {
					alpha32 := float32(alpha)
					type res struct {
						axpy, scale, add, addTo, axpyTo []float64
						axpy32, scale32, add32          []float32
					}
					run := func(asm bool) (o res) {
						o.axpy, o.scale, o.add = clone(y), clone(x), clone(y)
						o.addTo, o.axpyTo = clone(y), clone(y)
						o.axpy32, o.scale32, o.add32 = clone(y32), clone(x32), clone(y32)
						withImpl(asm, func() {
							Axpy(alpha, x, o.axpy)
							Scale(alpha, o.scale)
							Add(x, o.add)
							AddTo64(x32, o.addTo)
							AxpyTo64(alpha, x32, o.axpyTo)
							Axpy32(alpha32, x32, o.axpy32)
							Scale32(alpha32, o.scale32)
							Add32(x32, o.add32)
						})
						return o
					}
					ra, rg := run(true), run(false)
					w := fmt.Sprintf("%s a=%v", what, alpha)
					eqSlices64(t, "Axpy "+w, ra.axpy, rg.axpy)
					eqSlices64(t, "Scale "+w, ra.scale, rg.scale)
					eqSlices64(t, "Add "+w, ra.add, rg.add)
					eqSlices64(t, "AddTo64 "+w, ra.addTo, rg.addTo)
					eqSlices64(t, "AxpyTo64 "+w, ra.axpyTo, rg.axpyTo)
					eqSlices32(t, "Axpy32 "+w, ra.axpy32, rg.axpy32)
					eqSlices32(t, "Scale32 "+w, ra.scale32, rg.scale32)
					eqSlices32(t, "Add32 "+w, ra.add32, rg.add32)
				}
			}
		}
	}
}

func clone[T any](s []T) []T { return append([]T(nil), s...) }

// ntAll runs DotsNT, DotsNT2 and DotsNT32 with the given implementation.
func ntAll(asm bool, X []float64, n int, C, B []float64, X32 []float32, C32 []float32, k, d int) (o, o2 []float64, o32 []float32) {
	o, o2, o32 = make([]float64, n*k), make([]float64, n*k), make([]float32, n*k)
	withImpl(asm, func() {
		DotsNT(X, n, C, k, d, o)
		DotsNT2(X, n, C, B, k, d, o2)
		DotsNT32(X32, n, C32, k, d, o32)
	})
	return
}

// checkNTExact compares the three blocked products, asm against generic,
// bit for bit, on inputs of the given kind; and the generic results of each
// row computed alone against those of the whole block.
func checkNTExact(t *testing.T, r *rand.Rand, kind, n, k, d int) {
	t.Helper()
	off := (n + k + d) % 8
	X, C, B := kindVec(r, kind, n*d, off%4), kindVec(r, kind, k*d, (off+1)%4), kindVec(r, kind, k*d, (off+2)%4)
	X32, C32 := kindVec32(r, kind, n*d, off), kindVec32(r, kind, k*d, (off+5)%8)
	what := fmt.Sprintf("n=%d k=%d d=%d kind=%d", n, k, d, kind)
	a, a2, a32 := ntAll(true, X, n, C, B, X32, C32, k, d)
	g, g2, g32 := ntAll(false, X, n, C, B, X32, C32, k, d)
	eqSlices64(t, "DotsNT "+what, a, g)
	eqSlices64(t, "DotsNT2 "+what, a2, g2)
	eqSlices32(t, "DotsNT32 "+what, a32, g32)
	if n > 1 {
		i := r.IntN(n)
		s, s2, s32 := ntAll(false, X[i*d:(i+1)*d], 1, C, B, X32[i*d:(i+1)*d], C32, k, d)
		what += fmt.Sprintf(" row %d alone", i)
		eqSlices64(t, "DotsNT "+what, s, g[i*k:(i+1)*k])
		eqSlices64(t, "DotsNT2 "+what, s2, g2[i*k:(i+1)*k])
		eqSlices32(t, "DotsNT32 "+what, s32, g32[i*k:(i+1)*k])
	}
}

func TestExactDotsNT(t *testing.T) {
	requireAsm(t)
	r := rand.New(rand.NewPCG(33, 34))
	kind, i := 0, 0
	for _, n := range []int{1, 2, 3, 5} {
		for k := 1; k <= 12; k++ {
			for d := 0; d <= maxLen; d++ {
				if i++; sampled(i, 3, n) {
					checkNTExact(t, r, kind, n, k, d)
					kind = (kind + 1) % numKinds
				}
			}
		}
	}
}

// Large d (several chunks), several panels, packed C (n ≥ 16).
func TestExactDotsNTLarge(t *testing.T) {
	requireAsm(t)
	r := rand.New(rand.NewPCG(35, 36))
	i := 0
	for _, n := range []int{3, 33} {
		for _, k := range []int{1, 2, 7, 10, 16, 31, 47} {
			for _, d := range []int{257, 512, 784, 1031, 2053} {
				for kind := 0; kind < numKinds; kind++ {
					if i++; sampled(i, 2*(numKinds+1), 0) {
						checkNTExact(t, r, kind, n, k, d)
					}
				}
			}
		}
	}
}

// The generic code must follow the driver's blocking whatever its
// parameters: shrink them so that small d is chunked and k split into many
// panels, and compare exhaustively.
func TestExactTinyBlocking(t *testing.T) {
	requireAsm(t)
	saved := [2]int{l1Budget, panelMax}
	defer func() { l1Budget, panelMax = saved[0], saved[1] }()
	r := rand.New(rand.NewPCG(37, 38))
	for c, cfg := range [][2]int{{256, 15}, {512, 5}, {1 << 20, 1}, {300, 7}} {
		l1Budget, panelMax = cfg[0], cfg[1]
		kind, i := 0, 0
		dims(func(n, k, d int) {
			if i++; n > 0 && n != 6 && sampled(i, 6, c) {
				checkNTExact(t, r, kind, n, k, d)
				kind = (kind + 1) % numKinds
			}
		})
	}
}

// The masked tails add +0 to the unused lanes, turning −0 into +0: a sum of
// 16 products that underflow to −0 is −0 (all four accumulators stay −0),
// one of 17 is +0. Both implementations must do this.
func TestSignedZero(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		x, y := make([]float64, 17), make([]float64, 17)
		x32, y32 := make([]float32, 33), make([]float32, 33)
		for i := range x {
			x[i], y[i] = -0x1p-600, 0x1p-600
		}
		for i := range x32 {
			x32[i], y32[i] = -0x1p-100, 0x1p-100
		}
		if got := Dot(x[:16], y); !same64(got, math.Copysign(0, -1)) {
			t.Errorf("Dot of 16 tiny negative products = %v (%#x), want -0", got, math.Float64bits(got))
		}
		if got := Dot(x, y); !same64(got, 0) {
			t.Errorf("Dot of 17 tiny negative products = %v (%#x), want +0", got, math.Float64bits(got))
		}
		if got := Dot32(x32[:32], y32); !same32(got, float32(math.Copysign(0, -1))) {
			t.Errorf("Dot32 of 32 tiny negative products = %v, want -0", got)
		}
		if got := Dot32(x32, y32); !same32(got, 0) {
			t.Errorf("Dot32 of 33 tiny negative products = %v, want +0", got)
		}
		out := []float64{math.NaN()}
		DotsNT(x, 1, y, 1, 16, out) // out starts at +0: never −0
		if !same64(out[0], 0) {
			t.Errorf("DotsNT = %v, want +0", out[0])
		}
	})
}

// refFMA32 is a·b + c rounded once to float32, computed exactly with
// big.Float (finite inputs).
func refFMA32(a, b, c float32) float32 {
	const prec = 1000 // exact: the operands span less than 600 bits
	x := new(big.Float).SetPrec(prec).SetFloat64(float64(a))
	y := new(big.Float).SetPrec(prec).SetFloat64(float64(b))
	z := new(big.Float).SetPrec(prec).SetFloat64(float64(c))
	x.Mul(x, y)
	if x.Sign() == 0 && z.Sign() == 0 {
		// IEEE sign of an exact zero sum: −0 only if both are −0.
		neg := (math.Signbit(float64(a)) != math.Signbit(float64(b))) && math.Signbit(float64(c))
		if neg {
			return float32(math.Copysign(0, -1))
		}
		return 0
	}
	x.Add(x, z)
	f, _ := x.Float32()
	return f
}

// fma32Cases returns triples (a, b, c) that include the double-rounding
// cases of float32(float64(a)·float64(b) + float64(c)): a·b = (2³²±1)·2^e
// (641·6700417 = 2³²+1, 65535·65537 = 2³²−1) lands 2^(e) beyond a float32
// midpoint of c, below half a float64 ulp; plus random, subnormal and
// near-overflow operands.
func fma32Cases(r *rand.Rand, n int) (a, b, c []float32) {
	for len(a) < n {
		var x, y, z float32
		switch r.IntN(6) {
		case 0, 1: // double rounding: c + half ulp(c) ± tiny
			k := r.IntN(200) - 100 // exponent of c
			z = float32(math.Ldexp(1+float64(r.IntN(1<<23))/(1<<23), k))
			f1, f2 := 641.0, 6700417.0
			if r.IntN(2) == 0 {
				f1, f2 = 65535, 65537
			}
			e := k - 24 - 32 // (2³²±1)·2^e = 2^(k−24)·(1 ± 2⁻³²)
			e1 := e / 2
			x, y = float32(math.Ldexp(f1, e1)), float32(math.Ldexp(f2, e-e1))
			if r.IntN(2) == 0 {
				z, x = -z, -x
			}
			if r.IntN(4) == 0 {
				x = -x // far from a midpoint
			}
		case 2: // random, wide exponents
			v := to32(bitsVec(r, 3, -60, 60))
			x, y, z = v[0], v[1], v[2]
		case 3: // subnormal results
			v := to32(bitsVec(r, 3, -75, -70))
			x, y, z = v[0], v[1], float32(math.Ldexp(float64(r.IntN(1<<20)-1<<19), -149))
		case 4: // near overflow
			v := to32(bitsVec(r, 2, 60, 64))
			x, y, z = v[0], v[1], float32(math.Ldexp(float64(r.IntN(1<<24)), 104))
			if r.IntN(2) == 0 {
				z = -z
			}
		case 5: // products exactly at the scale of c, random rounding
			v := to32(bitsVec(r, 2, -10, 10))
			x, y = v[0], v[1]
			z = float32(float64(x)*float64(y)) * float32(r.IntN(9)-4)
		}
		a, b, c = append(a, x), append(b, y), append(c, z)
	}
	return
}

func TestFMA32(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 40))
	a, b, c := fma32Cases(r, 20000)
	for i := range a {
		if got, want := fma32(a[i], b[i], c[i]), refFMA32(a[i], b[i], c[i]); !same32(got, want) {
			t.Fatalf("fma32(%g, %g, %g) = %g (%#x), want %g (%#x)", a[i], b[i], c[i], got, math.Float32bits(got), want, math.Float32bits(want))
		}
	}
	// The naive float64 FMA does double-round some of these (the reason
	// for fma32); make sure the cases exercise it.
	naive := 0
	for i := range a {
		if !same32(float32(math.FMA(float64(a[i]), float64(b[i]), float64(c[i]))), refFMA32(a[i], b[i], c[i])) {
			naive++
		}
	}
	if naive == 0 {
		t.Error("no double-rounding case among the inputs")
	}
	t.Logf("%d of %d cases double-round with float32(math.FMA(...))", naive, len(a))

	// The same cases inside sums: a 16-element Dot32 or DotsNT32 row with
	// x_0·y_0 = c and x_8·y_8 = a·b accumulates them in one lane, by
	// fma(a, b, c), then adds zeros (DotsNT32 turns −0 into +0).
	forEachImpl(t, func(t *testing.T) {
		x, y := make([]float32, 16), make([]float32, 16)
		out := make([]float32, 1)
		for i := range a {
			x[0], y[0], x[8], y[8] = c[i], 1, a[i], b[i]
			want := refFMA32(a[i], b[i], c[i])
			if got := Dot32(x, y); !same32(got, want) {
				t.Fatalf("Dot32 with fma(%g, %g, %g) = %g, want %g", a[i], b[i], c[i], got, want)
			}
			DotsNT32(x, 1, y, 1, 16, out)
			if !same32(out[0], want+0) {
				t.Fatalf("DotsNT32 with fma(%g, %g, %g) = %g, want %g", a[i], b[i], c[i], out[0], want)
			}
		}
	})

	// Special values: fma32 against the hardware, when there is one.
	if hasAsm {
		specials := []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.MaxFloat32, math.SmallestNonzeroFloat32, 0x1p-126}
		for _, x := range specials {
			for _, y := range specials {
				for _, z := range specials {
					a, b, c = append(a, x), append(b, y), append(c, z)
				}
			}
		}
		// Axpy32 with a vector a: one element at a time (scalar VFMADD231SS)
		// and 8 at a time (VFMADD231PS).
		for i := range a {
			y1 := []float32{c[i]}
			withImpl(true, func() { Axpy32(a[i], b[i:i+1], y1) })
			if want := fma32(a[i], b[i], c[i]); !same32(y1[0], want) {
				t.Fatalf("VFMADD231SS(%g, %g, %g) = %g, fma32 %g", a[i], b[i], c[i], y1[0], want)
			}
		}
	}
}

// golden: digests of the results of the exported functions on fixed
// inputs, recorded from the assembly kernels (amd64, AVX2+FMA). Every
// implementation must reproduce them: this is what makes results identical
// on machines without the assembly (run the tests with -tags purego, or
// GOARCH=386, or on arm64). Changing the kernels' arithmetic or the blocking
// parameters changes them; regenerate with
//
//	go test ./internal/kernel -run TestGolden -golden.print
var goldenPrint = flag.Bool("golden.print", false, "print the golden digests of this implementation")

var golden = map[string]uint64{
	"level1":     0x528f0d5e53a42b11,
	"level1-32":  0x1123ae7ea80e7768,
	"updates":    0x491a47e903a0a299,
	"updates-32": 0xdff84e81258893f9,
	"nt":         0xd7c13b4c53754be5,
	"nt-tiny":    0x62afd0fa3e3bd277,
}

type digest struct{ h hash.Hash64 }

func newDigest() *digest { return &digest{fnv.New64a()} }

func (g *digest) f64(v ...float64) {
	var b [8]byte
	for _, x := range v {
		u := math.Float64bits(x)
		if x != x {
			u = 0x7ff8000000000000 // NaN payloads may differ
		}
		for i := range b {
			b[i] = byte(u >> (8 * i))
		}
		g.h.Write(b[:])
	}
}

func (g *digest) f32(v ...float32) {
	for _, x := range v {
		if x != x {
			g.f64(math.NaN())
		} else {
			g.f64(float64(x))
		}
	}
}

// goldenDigests computes the digests with the current implementation.
func goldenDigests() map[string]uint64 {
	res := map[string]uint64{}
	r := rand.New(rand.NewPCG(41, 42))
	lengths := testLengths()

	g, g32 := newDigest(), newDigest()
	for _, n := range lengths {
		for _, span := range [][2]int{{-3, 3}, {-40, 40}, {-560, -500}} {
			x, y := bitsVec(r, n, span[0], span[1]), bitsVec(r, n, span[0], span[1])
			g.f64(Dot(x, y), SqDist(x, y))
			x32, y32 := to32(x), to32(y)
			g32.f32(Dot32(x32, y32), SqDist32(x32, y32))
		}
	}
	res["level1"], res["level1-32"] = g.h.Sum64(), g32.h.Sum64()

	g, g32 = newDigest(), newDigest()
	for _, n := range lengths {
		x, y := bitsVec(r, n, -30, 30), bitsVec(r, n, -30, 30)
		x32, y32 := to32(x), to32(y)
		for _, a := range append([]float64{1, -1}, bitsVec(r, 2, -30, 30)...) {
			v, w := clone(y), clone(x)
			Axpy(a, x, v)
			Scale(a, w)
			Add(x, w)
			g.f64(v...)
			g.f64(w...)
			AddTo64(x32, v)
			AxpyTo64(a, x32, w)
			g.f64(v...)
			g.f64(w...)
			v32, w32 := clone(y32), clone(x32)
			Axpy32(float32(a), x32, v32)
			Scale32(float32(a), w32)
			Add32(x32, w32)
			g32.f32(v32...)
			g32.f32(w32...)
		}
	}
	res["updates"], res["updates-32"] = g.h.Sum64(), g32.h.Sum64()

	nt := func(g *digest, n, k, d int) {
		X, C, B := bitsVec(r, n*d, -20, 20), bitsVec(r, k*d, -20, 20), bitsVec(r, k*d, -20, 20)
		if (n+k+d)%7 == 0 {
			X[r.IntN(len(X))] = math.Inf(1)
		}
		o, o2, o32 := make([]float64, n*k), make([]float64, n*k), make([]float32, n*k)
		DotsNT(X, n, C, k, d, o)
		DotsNT2(X, n, C, B, k, d, o2)
		DotsNT32(to32(X), n, to32(C), k, d, o32)
		g.f64(o...)
		g.f64(o2...)
		g.f32(o32...)
	}
	g = newDigest()
	for k := 1; k <= 12; k++ {
		for d := 1; d <= maxLen; d++ {
			nt(g, 3, k, d)
		}
	}
	for _, s := range [][3]int{{33, 10, 784}, {17, 31, 1031}, {5, 47, 2053}, {20, 7, 512}} {
		nt(g, s[0], s[1], s[2])
	}
	res["nt"] = g.h.Sum64()

	saved := [2]int{l1Budget, panelMax}
	g = newDigest()
	for _, cfg := range [][2]int{{256, 15}, {512, 5}, {300, 7}} {
		l1Budget, panelMax = cfg[0], cfg[1]
		for k := 1; k <= 12; k++ {
			for d := 1; d <= maxLen; d += 3 {
				nt(g, 2, k, d)
			}
		}
	}
	l1Budget, panelMax = saved[0], saved[1]
	res["nt-tiny"] = g.h.Sum64()
	return res
}

func TestGolden(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		got := goldenDigests()
		if *goldenPrint {
			for _, k := range []string{"level1", "level1-32", "updates", "updates-32", "nt", "nt-tiny"} {
				fmt.Printf("\t%q: %#016x,\n", k, got[k])
			}
		}
		for k, want := range golden {
			if got[k] != want {
				t.Errorf("%s: digest %#016x, want %#016x", k, got[k], want)
			}
		}
	})
}
