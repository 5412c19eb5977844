package filter

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
)

// The DESIGN example (P2P code: s = 255, L∞): g = [0.5, −1, 0.25] scales to
// levels [127.5, 255, 63.75].
func TestQSGDScaledLevels(t *testing.T) {
	g := []float64{0.5, -1, 0.25}
	c, _ := QSGD{}.withDefaults()
	if c.Levels != 255 || c.Norm != LInf {
		t.Fatalf("defaults = %+v; want 255 levels, L∞", c)
	}
	norm := c.norm(g)
	if norm != 1 {
		t.Fatalf("‖g‖∞ = %v; want 1", norm)
	}
	for i, want := range []float64{127.5, 255, 63.75} {
		if got := scaled(g[i], norm, 255); got != want {
			t.Errorf("scaled(g[%d] = %v) = %v; want %v", i, g[i], got, want)
		}
	}
}

func TestQSGDQuantizeCandidates(t *testing.T) {
	g := []float64{0.5, -1, 0.25}
	rng := rand.New(rand.NewPCG(4, 4))
	seen := map[[3]int32]int{}
	var q Quantized
	for range 2000 {
		if err := (QSGD{}).Quantize(&q, g, rng); err != nil {
			t.Fatal(err)
		}
		seen[[3]int32(q.L)]++
	}
	// 127.5 → 127 or 128; −255 exactly; 63.75 → 63 or 64.
	want := [][3]int32{{127, -255, 63}, {127, -255, 64}, {128, -255, 63}, {128, -255, 64}}
	if len(seen) != len(want) {
		t.Errorf("level vectors seen %v; want exactly %v", seen, want)
	}
	for _, w := range want {
		if seen[w] == 0 {
			t.Errorf("levels %v never drawn in 2000 draws", w)
		}
	}
}

// E[decoded] = g, by averaging many seeded draws: within 5 standard errors,
// with the standard error computed from the two rounding candidates.
func TestQSGDUnbiasedEmpirically(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    QSGD
		g    []float64
	}{
		{"example/L∞/s=255", QSGD{}, []float64{0.5, -1, 0.25}},
		{"L2/s=255", QSGD{Norm: L2}, []float64{0.5, -1, 0.25}},
		{"L∞/s=1", QSGD{Levels: 1}, []float64{0.3, -0.7, 1, 0, 1e-3}},
		{"L2/s=3", QSGD{Levels: 3, Norm: L2}, []float64{0.3, -0.7, 1, 0, 1e-3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const draws = 100000
			rng := rand.New(rand.NewPCG(5, 5))
			sum := make([]float64, len(tc.g))
			var q Quantized
			for range draws {
				if err := tc.c.Quantize(&q, tc.g, rng); err != nil {
					t.Fatal(err)
				}
				for k := range q.L {
					sum[k] += q.Value(k)
				}
			}
			c, _ := tc.c.withDefaults()
			norm, s := c.norm(tc.g), float64(c.Levels)
			for k, g := range tc.g {
				r := scaled(g, norm, s)
				p := r - math.Floor(r)
				sd := norm / s * math.Sqrt(p*(1-p)) // sd of one decoded draw
				mean := sum[k] / draws
				if tol := 5*sd/math.Sqrt(draws) + 1e-15; math.Abs(mean-g) > tol {
					t.Errorf("mean decoded[%d] = %v; want %v ± %v", k, mean, g, tol)
				}
			}
		})
	}
}

// Exact unbiasedness, analytically: with the two rounding candidates
// ⌊r⌋ and ⌊r⌋+1 taken with probabilities 1−p and p (p = r − ⌊r⌋, which the
// draw realises exactly when r ≥ 1), the expected level times N/s equals
// |g| in exact rational arithmetic whenever r = |g|/N·s is computed exactly
// — as for the example — and within float rounding of r otherwise.
func TestQSGDUnbiasedAnalytically(t *testing.T) {
	expect := func(g, norm float64, s int) *big.Rat {
		r := scaled(g, norm, float64(s))
		lo := math.Floor(r)
		p := new(big.Rat).SetFloat64(r - lo)
		el := new(big.Rat).Add(new(big.Rat).SetFloat64(lo), p) // (1−p)·lo + p·(lo+1)
		e := el.Mul(el, new(big.Rat).SetFloat64(norm))
		return e.Quo(e, new(big.Rat).SetInt64(int64(s)))
	}
	g := []float64{0.5, -1, 0.25}
	for k, v := range g {
		got := expect(v, 1, 255)
		if want := new(big.Rat).SetFloat64(math.Abs(v)); got.Cmp(want) != 0 {
			t.Errorf("E|decoded[%d]| = %v; want exactly %v", k, got.FloatString(20), want.FloatString(20))
		}
	}
	// The float decoder: E = (1−p)·Value(lo) + p·Value(lo+1) from the two
	// decoded candidates, exactly, is within 2 ulps of |g|.
	rng := rand.New(rand.NewPCG(6, 6))
	for range 2000 {
		x := make([]float64, 1+rng.IntN(8))
		for i := range x {
			x[i] = rng.NormFloat64() * math.Ldexp(1, rng.IntN(40)-20)
		}
		for _, c := range []QSGD{{}, {Norm: L2}, {Levels: 7}, {Levels: 1, Norm: L2}} {
			c, _ = c.withDefaults()
			norm := c.norm(x)
			for _, v := range x {
				r := scaled(v, norm, float64(c.Levels))
				lo := math.Floor(r)
				p := new(big.Rat).SetFloat64(r - lo)
				q := Quantized{Levels: c.Levels, Scale: norm, L: []int32{int32(lo), int32(lo) + 1}}
				e := new(big.Rat).Mul(new(big.Rat).Sub(big.NewRat(1, 1), p), new(big.Rat).SetFloat64(q.Value(0)))
				e.Add(e, new(big.Rat).Mul(p, new(big.Rat).SetFloat64(q.Value(1))))
				ef, _ := e.Float64()
				if d := math.Abs(ef - math.Abs(v)); d > 2*ulp(v) {
					t.Fatalf("%+v: E decoded(%v) = %v, off by %v > 2 ulps", c, v, ef, d)
				}
			}
		}
	}
}

func ulp(v float64) float64 {
	v = math.Abs(v)
	return math.Nextafter(v, math.Inf(1)) - v
}

func TestQSGDNorms(t *testing.T) {
	pcg := rand.NewPCG(7, 7)
	rng := rand.New(pcg)
	var q Quantized
	x := []float64{3, -4}
	if err := (QSGD{Norm: L2}).Quantize(&q, x, rng); err != nil {
		t.Fatal(err)
	}
	if q.Scale != 5 || q.Norm != L2 {
		t.Errorf("L2 scale = %v norm %v; want 5 L2", q.Scale, q.Norm)
	}
	// Near MaxFloat64 the L2 norm does not overflow.
	huge := []float64{math.MaxFloat64 / 2, math.MaxFloat64 / 2}
	if err := (QSGD{Norm: L2}).Quantize(&q, huge, rng); err != nil {
		t.Fatal(err)
	}
	if !finite(q.Scale) || q.L[0] > 255 {
		t.Errorf("L2 of huge values: scale %v levels %v", q.Scale, q.L)
	}
	// A zero vector: scale 0, levels 0, no draws.
	before := *pcg
	if err := (QSGD{}).Quantize(&q, []float64{0, 0, 0}, rng); err != nil {
		t.Fatal(err)
	}
	if q.Scale != 0 || !slices.Equal(q.L, []int32{0, 0, 0}) || *pcg != before {
		t.Errorf("zero vector: scale %v levels %v (rng advanced: %v)", q.Scale, q.L, *pcg != before)
	}
	// L∞ codes the largest entry exactly.
	if err := (QSGD{Levels: 3}).Quantize(&q, []float64{-0.1, 7.25, -7.25}, rng); err != nil {
		t.Fatal(err)
	}
	if q.L[1] != 3 || q.L[2] != -3 || q.Value(1) != 7.25 || q.Value(2) != -7.25 {
		t.Errorf("L∞ extremes: levels %v values %v %v; want ±3 → ±7.25", q.L, q.Value(1), q.Value(2))
	}
}

func TestQSGDQuantizeErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	q := Quantized{Levels: 9, Scale: 2, L: []int32{1}}
	keep := q
	tests := []struct {
		name string
		c    QSGD
		x    []float64
		rng  *rand.Rand
		msg  string
	}{
		{"NaN", QSGD{}, []float64{1, math.NaN()}, rng, "delta entry 1 is NaN"},
		{"Inf", QSGD{}, []float64{math.Inf(-1)}, rng, "delta entry 0 is -Inf"},
		{"nil rng", QSGD{}, []float64{1}, nil, "needs a *rand.Rand"},
		{"levels", QSGD{Levels: -1}, []float64{1}, rng, "levels -1"},
		{"too many levels", QSGD{Levels: MaxLevels + 1}, []float64{1}, rng, "levels 1073741824"},
		{"norm", QSGD{Norm: 7}, []float64{1}, rng, "norm Norm(7)"},
	}
	for _, tt := range tests {
		err := tt.c.Quantize(&q, tt.x, tt.rng)
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: Quantize error = %v; want one mentioning %q", tt.name, err, tt.msg)
		}
		if q.Scale != keep.Scale || !slices.Equal(q.L, keep.L) {
			t.Errorf("%s: dst changed to %+v", tt.name, q)
		}
	}
}

func TestQuantizedBits(t *testing.T) {
	for _, tt := range []struct{ s, bits int }{{1, 2}, {2, 3}, {3, 3}, {4, 4}, {127, 8}, {255, 9}, {256, 10}, {MaxLevels, 31}} {
		q := Quantized{Levels: tt.s}
		if got := q.Bits(); got != tt.bits {
			t.Errorf("Bits() with s = %d = %d; want %d", tt.s, got, tt.bits)
		}
	}
}

func TestQuantizedBinaryRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, c := range []QSGD{{}, {Norm: L2}, {Levels: 1}, {Levels: 2}, {Levels: 1000}, {Levels: MaxLevels}} {
		for _, n := range []int{0, 1, 3, 7, 8, 9, 100} {
			t.Run(fmt.Sprintf("%v/s=%d/n=%d", c.Norm, c.Levels, n), func(t *testing.T) {
				x := make([]float64, n)
				for i := range x {
					x[i] = rng.NormFloat64()
				}
				var q Quantized
				if err := c.Quantize(&q, x, rng); err != nil {
					t.Fatal(err)
				}
				b, err := q.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				if len(b) != q.EncodedSize() {
					t.Errorf("len(MarshalBinary()) = %d; EncodedSize() = %d", len(b), q.EncodedSize())
				}
				var back Quantized
				if err := back.UnmarshalBinary(b); err != nil {
					t.Fatal(err)
				}
				if back.Norm != q.Norm || back.Levels != q.Levels || back.Scale != q.Scale || !slices.Equal(back.L, q.L) {
					t.Fatalf("round trip %+v; want %+v", back, q)
				}
				if got, want := back.Decode(nil), q.Decode(nil); !slices.Equal(got, want) {
					t.Errorf("decoded %v; want %v", got, want)
				}
				if b2, _ := back.AppendBinary(nil); !bytes.Equal(b2, b) {
					t.Errorf("re-encoding differs")
				}
			})
		}
	}
}

// The example vector's encoding, byte by byte.
func TestQuantizedEncoding(t *testing.T) {
	q := Quantized{Norm: LInf, Levels: 255, Scale: 1, L: []int32{128, -255, 63}}
	b, err := q.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	// fields (9 bits, LSB-first): 128<<1 = 256, 255<<1|1 = 511, 63<<1 = 126.
	// stream bit 8 (field 0), bits 9..17 (field 1) and 19..24 (field 2) are set.
	want := []byte{
		'Q', 0, // format, L∞
		0xff, 0x01, // s = 255
		3,                            // n
		0, 0, 0, 0, 0, 0, 0xf0, 0x3f, // 1.0
		0x00, 0xff, 0xfb, 0x01, // packed
	}
	if !bytes.Equal(b, want) {
		t.Errorf("MarshalBinary() = % x; want % x", b, want)
	}
	if got := q.EncodedSize(); got != 17 {
		t.Errorf("EncodedSize() = %d; want 17 (vs 24 bytes of float64)", got)
	}
}

func TestQuantizedUnmarshalErrors(t *testing.T) {
	good := []byte{'Q', 0, 0xff, 0x01, 3, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0x00, 0xff, 0xfb, 0x01}
	with := func(at int, v ...byte) []byte {
		b := slices.Clone(good)
		return append(b[:at:at], append(v, good[at+len(v):]...)...)
	}
	tests := []struct {
		name string
		b    []byte
		msg  string
	}{
		{"empty", nil, "truncated at byte 0 reading format byte"},
		{"magic", with(0, 'X'), "format byte 0x58"},
		{"norm", with(1, 2), "unknown norm 2"},
		{"levels 0", []byte{'Q', 0, 0}, "levels 0"},
		{"levels too many", []byte{'Q', 0, 0x80, 0x80, 0x80, 0x80, 0x04}, "levels 1073741824 at byte 2 exceeds"},
		{"overlong varint", []byte{'Q', 0, 0x81, 0x00}, "not minimally encoded"},
		{"varint overflow", []byte{'Q', 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, "overflows 64 bits"},
		{"truncated scale", good[:9], "truncated at byte 5 reading scale"},
		{"NaN scale", with(5, 1, 0, 0, 0, 0, 0, 0xf8, 0x7f), "scale NaN"},
		{"negative scale", with(5, 0, 0, 0, 0, 0, 0, 0xf0, 0xbf), "scale -1"},
		{"negative zero scale", with(5, 0, 0, 0, 0, 0, 0, 0, 0x80), "scale -0"},
		{"truncated levels", good[:16], "need 4 bytes, have 3"},
		{"trailing", append(slices.Clone(good), 0), "1 trailing bytes"},
		{"level > s", []byte{'Q', 0, 2, 1, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0x06}, "level 3 > s = 2"},
		{"negative zero", []byte{'Q', 0, 2, 1, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0x01}, "negative zero level"},
		{"padding", with(16, 0x81), "nonzero padding bits"},
		{"level under zero scale", []byte{'Q', 0, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0x02}, "under a zero scale"},
		{"huge n", []byte{'Q', 0, 1, 0xff, 0xff, 0xff, 0xff, 0x07, 0, 0, 0, 0, 0, 0, 0, 0}, "need 536870912 bytes, have 0"},
	}
	for _, tt := range tests {
		q := Quantized{Levels: 3, Scale: 1, L: []int32{1}}
		err := q.UnmarshalBinary(tt.b)
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: UnmarshalBinary(% x) error = %v; want ErrMalformed mentioning %q", tt.name, tt.b, err, tt.msg)
		}
		if q.Levels != 3 || !slices.Equal(q.L, []int32{1}) {
			t.Errorf("%s: q changed to %+v", tt.name, q)
		}
	}
}

func TestQuantizedAppendBinaryRefusesInvalid(t *testing.T) {
	for _, q := range []Quantized{
		{Levels: 0, Scale: 1},
		{Levels: 3, Scale: -1},
		{Levels: 3, Scale: math.Inf(1)},
		{Levels: 3, Scale: 1, L: []int32{4}},
		{Levels: 3, Scale: 0, L: []int32{1}},
		{Levels: 3, Norm: 9, Scale: 1},
	} {
		if b, err := q.AppendBinary(nil); !errors.Is(err, ErrConfig) || len(b) != 0 {
			t.Errorf("AppendBinary(%+v) = % x, %v; want nothing and ErrConfig", q, b, err)
		}
	}
}

func newQSGDFilter(t testing.TB, l algorithms.Layout, ef bool, seed uint64) *QSGDFilter {
	t.Helper()
	f, err := NewQSGDFilter(QSGDFilterConfig{Layout: l, ErrorFeedback: ef, Rand: rand.New(rand.NewPCG(seed, seed))})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Without error feedback the filter sends exactly QSGD.Quantize of the
// step's delta (same draws), holds nothing, and AppendMessage decodes to
// exactly what Step returned.
func TestQSGDFilterMatchesQuantize(t *testing.T) {
	for _, tl := range testLayouts {
		for _, ef := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/ef=%v", tl.name, ef), func(t *testing.T) {
				l := tl.l
				rng := rand.New(rand.NewPCG(10, 10))
				f := newQSGDFilter(t, l, ef, 11)
				draws := rand.New(rand.NewPCG(11, 11))
				acc := make([]float64, l.Delta)
				cons := newConserve(l.Delta)
				for step := range 100 {
					local := randomLocal(rng, l, 1+rng.IntN(3))
					// Reference: quantise the nonzero blocks' entries in
					// index order (every entry when dense).
					for i, v := range local.Vec {
						acc[i] += v
					}
					var idx []int
					var x []float64
					for i := range acc {
						if l.Block == 0 || slices.ContainsFunc(acc[i/l.Block*l.Block:min(l.Delta, (i/l.Block+1)*l.Block)], func(v float64) bool { return v != 0 }) {
							idx = append(idx, i)
							x = append(x, acc[i])
						}
					}
					var q Quantized
					if err := (QSGD{}).Quantize(&q, x, draws); err != nil {
						t.Fatal(err)
					}
					want := make([]float64, l.Delta)
					for k, i := range idx {
						want[i] = q.Value(k)
						if ef {
							acc[i] -= want[i]
						} else {
							acc[i] = 0
						}
					}

					send, err := f.Step(local, nil)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(send.Vec, want) || send.Count != local.Count {
						t.Fatalf("step %d: send %v count %d; want %v count %d", step, send.Vec, send.Count, want, local.Count)
					}
					if !ef && f.Held() != (Held{}) {
						t.Fatalf("step %d: Held() = %+v without error feedback", step, f.Held())
					}
					if ef && !slices.Equal(heldVec(f), acc) {
						t.Fatalf("step %d: held %v; want %v", step, heldVec(f), acc)
					}
					msg := f.AppendMessage(nil)
					got, err := DecodeDelta(msg, l)
					if err != nil {
						t.Fatalf("step %d: DecodeDelta(AppendMessage()) = %v", step, err)
					}
					if !slices.Equal(got.Vec, send.Vec) || got.Count != send.Count || !slices.Equal(got.Blocks(), send.Blocks()) {
						t.Fatalf("step %d: message decodes to %v count %d blocks %v; want %v count %d blocks %v",
							step, got.Vec, got.Count, got.Blocks(), send.Vec, send.Count, send.Blocks())
					}
					if ef {
						cons.add(local, send)
					}
				}
				if ef {
					// Error feedback: sent + held = Σ local to rounding.
					held := heldVec(f)
					for i := range cons.local {
						if d := math.Abs(cons.sent[i] + held[i] - cons.local[i]); d > 1e-9*(1+math.Abs(cons.local[i])) {
							t.Errorf("entry %d: sent %v + held %v; want Σ local %v", i, cons.sent[i], held[i], cons.local[i])
						}
					}
				}
			})
		}
	}
}

func TestQSGDFilterConfigErrors(t *testing.T) {
	l := algorithms.Layout{Params: 2, Delta: 2}
	rng := rand.New(rand.NewPCG(1, 1))
	for _, tt := range []struct {
		cfg QSGDFilterConfig
		msg string
	}{
		{QSGDFilterConfig{Layout: l}, "needs Rand"},
		{QSGDFilterConfig{Layout: l, Rand: rng, QSGD: QSGD{Levels: -3}}, "levels -3"},
		{QSGDFilterConfig{Layout: algorithms.Layout{Delta: -1}, Rand: rng}, "negative length"},
	} {
		if _, err := NewQSGDFilter(tt.cfg); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("NewQSGDFilter(%+v) error = %v; want ErrConfig mentioning %q", tt.cfg, err, tt.msg)
		}
	}
}
