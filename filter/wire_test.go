package filter

import (
	"github.com/syncmodels/syncmodels/internal/wire"

	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
)

func TestDeltaRoundTrip(t *testing.T) {
	for _, tl := range testLayouts {
		for _, v := range []Values{Float64, Float32} {
			t.Run(fmt.Sprintf("%s/%v", tl.name, v), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(12, 12))
				for range 200 {
					d := randomLocal(rng, tl.l, rng.IntN(1000))
					if rng.IntN(3) == 0 { // non-dyadic values too
						d.Range(func(i int, x float64) bool {
							if x != 0 {
								d.Vec[i] = rng.NormFloat64() * 1e-3
							}
							return true
						})
					}
					b, err := AppendDelta(nil, d, v)
					if err != nil {
						t.Fatal(err)
					}
					got, err := DecodeDelta(b, tl.l)
					if err != nil {
						t.Fatalf("DecodeDelta(AppendDelta(%v)) = %v", d.Vec, err)
					}
					want := make([]float64, tl.l.Delta)
					d.Range(func(i int, x float64) bool {
						if v == Float32 {
							x = round32(x)
						}
						want[i] = x
						return true
					})
					if !slices.Equal(got.Vec, want) || got.Count != d.Count {
						t.Fatalf("round trip %v count %d; want %v count %d", got.Vec, got.Count, want, d.Count)
					}
					if err := algorithms.CheckApply(tl.l, got); err != nil {
						t.Fatal(err)
					}
					// Exactly the blocks with a nonzero entry are live.
					if tl.l.Block > 0 {
						var wantBlocks []int32
						for b := 0; b*tl.l.Block < tl.l.Delta; b++ {
							if slices.ContainsFunc(want[b*tl.l.Block:min(tl.l.Delta, (b+1)*tl.l.Block)], func(x float64) bool { return x != 0 }) {
								wantBlocks = append(wantBlocks, int32(b))
							}
						}
						if !slices.Equal(got.Blocks(), wantBlocks) {
							t.Fatalf("blocks %v; want %v", got.Blocks(), wantBlocks)
						}
					}
				}
			})
		}
	}
}

func TestAppendDeltaForms(t *testing.T) {
	l := algorithms.Layout{Params: 4, Delta: 4}
	tests := []struct {
		name string
		d    *algorithms.Delta
		v    Values
		want []byte
	}{
		{
			"explicit float64", dense(2, 0, 1.5, 0, 0), Float64,
			[]byte{'D', 1, 4, 0, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f},
		},
		{
			"explicit float32 gaps", dense(300, -2, 0, 0, 1), Float32,
			[]byte{'D', 2, 4, 0, 0xac, 0x02, 2, 0, 2, 0, 0, 0, 0xc0, 0, 0, 0x80, 0x3f},
		},
		{
			"dense float32", dense(1, 1, 1, 1, 1), Float32,
			[]byte{'D', 0x82, 4, 0, 1, 0, 0, 0x80, 0x3f, 0, 0, 0x80, 0x3f, 0, 0, 0x80, 0x3f, 0, 0, 0x80, 0x3f},
		},
		{
			"tie goes explicit", dense(1, 1, 1, 0, 1), Float32,
			[]byte{'D', 2, 4, 0, 1, 3, 0, 0, 1, 0, 0, 0x80, 0x3f, 0, 0, 0x80, 0x3f, 0, 0, 0x80, 0x3f},
		},
		{
			"empty", dense(5, 0, 0, 0, 0), Float64,
			[]byte{'D', 1, 4, 0, 5, 0},
		},
		{
			"float32 drops what rounds to 0", dense(1, 1e-50, 0, 0, 0), Float32,
			[]byte{'D', 2, 4, 0, 1, 0},
		},
	}
	for _, tt := range tests {
		b, err := AppendDelta([]byte{0xEE}, tt.d, tt.v)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if want := append([]byte{0xEE}, tt.want...); !bytes.Equal(b, want) {
			t.Errorf("%s: AppendDelta = % x; want % x", tt.name, b, want)
		}
		if _, err := DecodeDelta(b[1:], l); err != nil {
			t.Errorf("%s: DecodeDelta = %v", tt.name, err)
		}
	}
}

func TestAppendDeltaErrors(t *testing.T) {
	tests := []struct {
		name string
		d    *algorithms.Delta
		v    Values
		is   error
		msg  string
	}{
		{"NaN", dense(1, 0, math.NaN()), Float64, nil, "delta entry 1 is NaN"},
		{"Inf", dense(1, math.Inf(1), 0), Float32, nil, "delta entry 0 is +Inf"},
		{"float32 overflow", dense(1, 1, -1e39), Float32, ErrRange, "entry 1 = -1e+39"},
		{"negative count", dense(-2, 1), Float64, algorithms.ErrLayout, "count -2"},
		{"nil", nil, Float64, algorithms.ErrLayout, "nil delta"},
		{"values", dense(1, 1), Values(9), ErrConfig, "Values(9)"},
	}
	for _, tt := range tests {
		b, err := AppendDelta([]byte{1, 2}, tt.d, tt.v)
		if err == nil || !strings.Contains(err.Error(), tt.msg) || (tt.is != nil && !errors.Is(err, tt.is)) {
			t.Errorf("%s: AppendDelta error = %v; want %v mentioning %q", tt.name, err, tt.is, tt.msg)
		}
		if !bytes.Equal(b, []byte{1, 2}) {
			t.Errorf("%s: AppendDelta changed b to % x", tt.name, b)
		}
	}
}

// AppendDelta writes the shorter of the two forms: the explicit one
// (varint gaps + values of the nonzero entries) or the dense one (every
// value), the explicit one on a tie.
func TestAppendDeltaChoosesShorterForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	l := algorithms.Layout{Params: 1000, Delta: 1000}
	for _, pZero := range []float64{0, 0.05, 0.2, 0.5, 0.99, 1} {
		for _, v := range []Values{Float64, Float32} {
			d := algorithms.NewDelta(l)
			n, gaps, prev := 0, 0, -1
			for i := range d.Vec {
				if d.Vec[i] = dyadic(rng, pZero); d.Vec[i] != 0 {
					gaps += wire.UvarintLen(uint64(i - prev - 1))
					prev = i
					n++
				}
			}
			width := 8
			if v == Float32 {
				width = 4
			}
			header := 2 + 2 + 1 + 1 // magic, kind, dim 1000, block 0, count 0
			explicit := header + wire.UvarintLen(uint64(n)) + gaps + n*width
			denseLen := header + 1000*width
			b, err := AppendDelta(nil, d, v)
			if err != nil {
				t.Fatal(err)
			}
			if want := min(explicit, denseLen); len(b) != want {
				t.Errorf("pZero %v %v: %d bytes; want min(explicit %d, dense %d)", pZero, v, len(b), explicit, denseLen)
			}
			if isDense := b[1]&kindDense != 0; isDense != (denseLen < explicit) {
				t.Errorf("pZero %v %v: dense form = %v with explicit %d, dense %d", pZero, v, isDense, explicit, denseLen)
			}
		}
	}
}

func TestDecodeDeltaErrors(t *testing.T) {
	l := algorithms.Layout{Params: 4, Delta: 4}
	sl := algorithms.Layout{Params: 4, Delta: 4, Block: 2}
	f64 := func(x float64) []byte {
		b := make([]byte, 8)
		for i := range 8 {
			b[i] = byte(math.Float64bits(x) >> (8 * i))
		}
		return b
	}
	cat := func(parts ...[]byte) []byte { return slices.Concat(parts...) }
	tests := []struct {
		name string
		l    algorithms.Layout
		b    []byte
		is   error
		msg  string
	}{
		{"empty", l, nil, ErrMalformed, "truncated at byte 0 reading format byte"},
		{"magic", l, []byte{'Q', 1}, ErrMalformed, "format byte 0x51, want 0x44"},
		{"kind", l, []byte{'D', 4}, ErrMalformed, "unknown value kind 0x04"},
		{"kind dense 0", l, []byte{'D', 0x80}, ErrMalformed, "unknown value kind 0x80"},
		{"dim", l, []byte{'D', 1, 5, 0, 0, 0}, algorithms.ErrLayout, "dim 5 block 0, want dim 4 block 0"},
		{"block", l, []byte{'D', 1, 4, 2, 0, 0}, algorithms.ErrLayout, "block 2, want dim 4 block 0"},
		{"truncated count", l, []byte{'D', 1, 4, 0}, ErrMalformed, "truncated at byte 4 reading count"},
		{"pair count > dim", l, []byte{'D', 1, 4, 0, 0, 5}, ErrMalformed, "pair count 5 at byte 5 exceeds 4"},
		{"pair count > bytes", l, []byte{'D', 1, 4, 0, 0, 3, 0}, ErrMalformed, "pair count 3 at byte 5 exceeds the 1 bytes left"},
		{"index out of range", l, []byte{'D', 1, 4, 0, 0, 1, 4}, ErrMalformed, "pair 0 at byte 6: index 0+4 is out of range [0, 4)"},
		{"second index out of range", l, []byte{'D', 1, 4, 0, 0, 2, 1, 2}, ErrMalformed, "pair 1 at byte 7: index 2+2 is out of range"},
		{"overlong index", l, []byte{'D', 1, 4, 0, 0, 1, 0x80, 0x00}, ErrMalformed, "varint index at byte 6 is not minimally encoded"},
		{"truncated values", l, cat([]byte{'D', 1, 4, 0, 0, 1, 0}, f64(1)[:7]), ErrMalformed, "reading 1 values of 8 bytes, have 7 bytes"},
		{"NaN value", l, cat([]byte{'D', 1, 4, 0, 0, 1, 2}, f64(math.NaN())), ErrMalformed, "value 0 (index 2) is NaN"},
		{"Inf float32", l, []byte{'D', 2, 4, 0, 0, 1, 3, 0, 0, 0x80, 0x7f}, ErrMalformed, "value 0 (index 3) is +Inf"},
		{"zero pair", l, cat([]byte{'D', 1, 4, 0, 0, 1, 1}, f64(0)), ErrMalformed, "pair 0 (index 1) has value 0"},
		{"negative zero pair", l, cat([]byte{'D', 1, 4, 0, 0, 1, 1}, f64(math.Copysign(0, -1))), ErrMalformed, "has value 0"},
		{"trailing", l, []byte{'D', 1, 4, 0, 0, 0, 9}, ErrMalformed, "1 trailing bytes at byte 6"},
		{"dense truncated", l, cat([]byte{'D', 0x81, 4, 0, 0}, f64(1), f64(2)), ErrMalformed, "reading 4 values of 8 bytes, have 16"},
		{"count overflow", l, []byte{'D', 1, 4, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0}, ErrMalformed, "count 18446744073709551615 at byte 4 exceeds"},
		{"qsgd norm", l, []byte{'D', 3, 4, 0, 0, 0, 7}, ErrMalformed, "unknown QSGD norm 7"},
		{"qsgd levels 0", l, []byte{'D', 3, 4, 0, 0, 0, 0, 0}, ErrMalformed, "QSGD levels 0"},
		{"qsgd scale", l, cat([]byte{'D', 3, 4, 0, 0, 0, 0, 1}, f64(math.Inf(1))), ErrMalformed, "QSGD scale +Inf"},
		{"qsgd zero level pair", l, cat([]byte{'D', 3, 4, 0, 0, 1, 0, 0, 1}, f64(1), []byte{0}), ErrMalformed, "pair 0 (index 0) has level 0"},
		{"qsgd level > s", l, cat([]byte{'D', 3, 4, 0, 0, 1, 0, 0, 2}, f64(1), []byte{0x06}), ErrMalformed, "level 3 > s = 2"},
		{"qsgd zero scale", l, cat([]byte{'D', 3, 4, 0, 0, 1, 0, 0, 1}, f64(0), []byte{0x02}), ErrMalformed, "under a zero scale"},
		{"qsgd padding", l, cat([]byte{'D', 3, 4, 0, 0, 1, 0, 0, 1}, f64(1), []byte{0x12}), ErrMalformed, "nonzero padding"},
		{"sparse layout mismatch", sl, []byte{'D', 1, 4, 0, 0, 0}, algorithms.ErrLayout, "want dim 4 block 2"},
		{"bad layout", algorithms.Layout{Delta: -1}, []byte{'D'}, ErrConfig, "negative length"},
	}
	for _, tt := range tests {
		d, err := DecodeDelta(tt.b, tt.l)
		if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.msg) || d != nil {
			t.Errorf("%s: DecodeDelta(% x) = %v, %v; want nil and %v mentioning %q", tt.name, tt.b, d, err, tt.is, tt.msg)
		}
	}
}

func TestDecodeDeltaSparseTouchesNonzeroBlocks(t *testing.T) {
	l := algorithms.Layout{Params: 7, Delta: 7, Block: 3}
	// dense form: values 0, 0, 0, 2, 0, 0, -1 → blocks 1 and 2.
	b := []byte{'D', 0x82, 7, 3, 4}
	for _, x := range []float32{0, 0, 0, 2, 0, 0, -1} {
		u := math.Float32bits(x)
		b = append(b, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
	}
	d, err := DecodeDelta(b, l)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.Blocks(), []int32{1, 2}; !slices.Equal(got, want) {
		t.Errorf("Blocks() = %v; want %v", got, want)
	}
	if d.Count != 4 || d.Vec[3] != 2 || d.Vec[6] != -1 {
		t.Errorf("decoded %v count %d", d.Vec, d.Count)
	}
}

func TestDecodeDeltaInto(t *testing.T) {
	l := algorithms.Layout{Params: 7, Delta: 7, Block: 3}
	src := algorithms.NewDelta(l)
	src.Touch(2)
	src.Vec[6], src.Count = -1.5, 3
	msg, err := AppendDelta(nil, src, Float64)
	if err != nil {
		t.Fatal(err)
	}
	d := algorithms.NewDelta(l)
	d.Touch(0)
	d.Vec[1], d.Count = 9, 9
	if err := DecodeDeltaInto(d, msg); err != nil {
		t.Fatal(err)
	}
	if got, want := d.Vec, []float64{0, 0, 0, 0, 0, 0, -1.5}; !slices.Equal(got, want) || d.Count != 3 || !slices.Equal(d.Blocks(), []int32{2}) {
		t.Errorf("DecodeDeltaInto: %v count %d blocks %v; want %v count 3 blocks [2]", got, d.Count, d.Blocks(), want)
	}
	// A refused message leaves d as it was.
	bad := slices.Clone(msg)
	bad[len(bad)-1] = 0xff // the last byte of the value: now NaN
	bad[len(bad)-2] = 0xff
	if err := DecodeDeltaInto(d, bad); !errors.Is(err, ErrMalformed) {
		t.Fatalf("DecodeDeltaInto(bad) = %v; want ErrMalformed", err)
	}
	if d.Vec[6] != -1.5 || d.Count != 3 {
		t.Errorf("refused message changed d to %v count %d", d.Vec, d.Count)
	}
	if err := DecodeDeltaInto(algorithms.NewDelta(algorithms.Layout{Delta: 7}), msg); !errors.Is(err, algorithms.ErrLayout) {
		t.Errorf("DecodeDeltaInto with another block width = %v; want ErrLayout", err)
	}
	if err := DecodeDeltaInto(nil, msg); !errors.Is(err, algorithms.ErrLayout) {
		t.Errorf("DecodeDeltaInto(nil) = %v; want ErrLayout", err)
	}
}
