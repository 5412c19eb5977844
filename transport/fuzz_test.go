package transport_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/transporttest"
)

func fuzzLayout(params, dim uint16, block uint8) algorithms.Layout {
	return algorithms.Layout{Params: int(params % 64), Delta: int(dim % 300), Block: int(block % 9)}
}

// FuzzUnmarshal: Unmarshal never panics on arbitrary bytes; whatever it
// accepts is a valid message (Validate) whose encoding has length Size,
// decodes to the same message and re-encodes identically; a message
// without a delta has exactly one encoding, the input.
func FuzzUnmarshal(f *testing.F) {
	rng := rand.New(rand.NewPCG(40, 40))
	for _, seed := range []struct {
		params, dim uint16
		block       uint8
	}{{0, 0, 0}, {3, 5, 0}, {8, 17, 0}, {4, 10, 3}, {2, 64, 1}, {16, 40, 8}} {
		l := fuzzLayout(seed.params, seed.dim, seed.block)
		for _, k := range transport.Kinds() {
			for range 2 {
				b, err := transporttest.RandomMessage(rng, l, k).AppendBinary(nil)
				if err != nil {
					f.Fatal(err)
				}
				f.Add(b, seed.params, seed.dim, seed.block)
			}
		}
	}
	f.Add([]byte{}, uint16(0), uint16(0), uint8(0))
	f.Add([]byte{transport.FormatVersion, 1, 1, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x08}, uint16(0), uint16(0), uint8(0))
	// A release with a 1ms local timer, and the same with the timer's
	// varint overlong and zero.
	f.Add([]byte{transport.FormatVersion, 1, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0xc0, 0x84, 0x3d}, uint16(0), uint16(0), uint8(0))
	f.Add([]byte{transport.FormatVersion, 1, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0xc0, 0x84, 0xbd, 0x00}, uint16(0), uint16(0), uint8(0))
	f.Add([]byte{transport.FormatVersion, 1, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0}, uint16(0), uint16(0), uint8(0))
	// A batch indicator for batch 5, and the same with batch 0 behind a
	// set flag.
	f.Add([]byte{transport.FormatVersion, 11, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 5}, uint16(0), uint16(0), uint8(0))
	f.Add([]byte{transport.FormatVersion, 11, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0}, uint16(0), uint16(0), uint8(0))

	f.Fuzz(func(t *testing.T, b []byte, params, dim uint16, block uint8) {
		l := fuzzLayout(params, dim, block)
		m, err := transport.Unmarshal(b, l)
		if err != nil {
			if m != nil {
				t.Fatalf("Unmarshal returned a message with error %v", err)
			}
			return
		}
		if err := m.Validate(l); err != nil {
			t.Fatalf("Unmarshal accepted %v, which Validate refuses: %v", m, err)
		}
		b2, err := m.AppendBinary(nil)
		if err != nil {
			t.Fatalf("re-encoding %v: %v", m, err)
		}
		if m.Size() != len(b2) {
			t.Fatalf("Size() = %d; encoding has %d bytes", m.Size(), len(b2))
		}
		if m.Delta == nil && !bytes.Equal(b, b2) {
			t.Fatalf("a message without a delta re-encodes differently:\n%x\n%x", b, b2)
		}
		m2, err := transport.Unmarshal(b2, l)
		if err != nil {
			t.Fatalf("decoding the re-encoding of %v: %v", m, err)
		}
		if d := transporttest.Diff(m, m2); d != "" {
			t.Fatalf("re-encoding changed the message (-first +second):\n%s", d)
		}
		if b3, _ := m2.AppendBinary(nil); !bytes.Equal(b2, b3) {
			t.Fatalf("third encoding differs:\n%x\n%x", b2, b3)
		}
	})
}
