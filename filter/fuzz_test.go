package filter

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
)

func fuzzLayout(dim uint16, block uint8) algorithms.Layout {
	n := int(dim % 300)
	return algorithms.Layout{Params: n, Delta: n, Block: int(block % 9)}
}

// FuzzDecodeDelta: DecodeDelta never panics on arbitrary bytes; whatever it
// accepts is a valid delta whose live blocks are exactly its nonzero
// blocks, and that survives a Float64 re-encoding unchanged.
func FuzzDecodeDelta(f *testing.F) {
	rng := rand.New(rand.NewPCG(30, 30))
	for _, seed := range []struct {
		dim   uint16
		block uint8
	}{{0, 0}, {1, 0}, {5, 0}, {17, 0}, {10, 3}, {64, 1}, {40, 8}} {
		l := fuzzLayout(seed.dim, seed.block)
		for _, v := range []Values{Float64, Float32} {
			for _, pZero := range []float64{0, 0.5, 0.95} {
				d := randomLocal(rng, l, rng.IntN(300))
				d.Range(func(i int, x float64) bool {
					if rng.Float64() < pZero {
						d.Vec[i] = 0
					}
					return true
				})
				b, err := AppendDelta(nil, d, v)
				if err != nil {
					f.Fatal(err)
				}
				f.Add(b, seed.dim, seed.block)
			}
		}
		q := newQSGDFilter(f, l, false, 31)
		if _, err := q.Step(randomLocal(rng, l, 3), nil); err != nil {
			f.Fatal(err)
		}
		f.Add(q.AppendMessage(nil), seed.dim, seed.block)
	}
	f.Add([]byte{}, uint16(0), uint8(0))
	f.Add([]byte{'D', 0x83, 4, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}, uint16(4), uint8(0))

	f.Fuzz(func(t *testing.T, b []byte, dim uint16, block uint8) {
		l := fuzzLayout(dim, block)
		d, err := DecodeDelta(b, l)
		if err != nil {
			if d != nil {
				t.Fatalf("DecodeDelta returned a delta with error %v", err)
			}
			return
		}
		if err := algorithms.CheckApply(l, d); err != nil {
			t.Fatalf("decoded delta invalid: %v", err)
		}
		into := algorithms.NewDelta(l)
		if err := DecodeDeltaInto(into, b); err != nil || !slices.Equal(into.Vec, d.Vec) || into.Count != d.Count {
			t.Fatalf("DecodeDeltaInto = %v, %v; DecodeDelta gave %v", err, into.Vec, d.Vec)
		}
		if l.Block > 0 {
			var want []int32
			for bl := 0; bl*l.Block < l.Delta; bl++ {
				if slices.ContainsFunc(d.Vec[bl*l.Block:min(l.Delta, (bl+1)*l.Block)], func(x float64) bool { return x != 0 }) {
					want = append(want, int32(bl))
				}
			}
			if got := d.Blocks(); !slices.Equal(got, want) {
				t.Fatalf("live blocks %v; want the nonzero blocks %v", got, want)
			}
		}
		b2, err := AppendDelta(nil, d, Float64)
		if err != nil {
			t.Fatalf("re-encoding a decoded delta: %v", err)
		}
		d2, err := DecodeDelta(b2, l)
		if err != nil {
			t.Fatalf("decoding the re-encoding: %v", err)
		}
		if !slices.Equal(d2.Vec, d.Vec) || d2.Count != d.Count { // == on floats: -0 equals 0
			t.Fatalf("re-encoding changed the delta: %v count %d; want %v count %d", d2.Vec, d2.Count, d.Vec, d.Count)
		}
	})
}

// FuzzDecodeQuantized: UnmarshalBinary never panics; whatever it accepts
// re-encodes to the same bytes (the format is canonical), and a refused
// input leaves the destination unchanged.
func FuzzDecodeQuantized(f *testing.F) {
	rng := rand.New(rand.NewPCG(32, 32))
	for _, c := range []QSGD{{}, {Norm: L2}, {Levels: 1}, {Levels: 6}, {Levels: 70000}} {
		for _, n := range []int{0, 1, 3, 9, 40} {
			x := make([]float64, n)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			var q Quantized
			if err := c.Quantize(&q, x, rng); err != nil {
				f.Fatal(err)
			}
			b, err := q.MarshalBinary()
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte{})
	f.Add([]byte{'Q', 0, 1, 0xff, 0xff, 0xff, 0xff, 0x07, 0, 0, 0, 0, 0, 0, 0, 0})

	f.Fuzz(func(t *testing.T, b []byte) {
		q := Quantized{Levels: 5, Scale: 2, L: []int32{-5}}
		if err := q.UnmarshalBinary(b); err != nil {
			if q.Levels != 5 || q.Scale != 2 || !slices.Equal(q.L, []int32{-5}) {
				t.Fatalf("refused input changed q to %+v", q)
			}
			return
		}
		out, err := q.MarshalBinary()
		if err != nil {
			t.Fatalf("re-encoding an accepted input: %v", err)
		}
		if !bytes.Equal(out, b) {
			t.Fatalf("re-encoding differs:\n got % x\nwant % x", out, b)
		}
		if got := q.EncodedSize(); got != len(b) {
			t.Fatalf("EncodedSize() = %d; want %d", got, len(b))
		}
		for _, v := range q.Decode(nil) {
			if !finite(v) {
				t.Fatalf("decoded a non-finite value %v", v)
			}
		}
	})
}
