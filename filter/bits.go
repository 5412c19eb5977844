package filter

import (
	"encoding/binary"
	"fmt"
	"math"
)

// reader decodes untrusted bytes. Every method returns an error wrapping
// ErrMalformed that names the field and the offset; none panics.
type reader struct {
	b   []byte
	off int
}

func (r *reader) fail(format string, args ...any) error {
	return fmt.Errorf("filter: decode: "+format+": %w", append(args, ErrMalformed)...)
}

func (r *reader) rest() int { return len(r.b) - r.off }

func (r *reader) byte1(what string) (byte, error) {
	if r.off >= len(r.b) {
		return 0, r.fail("truncated at byte %d reading %s", r.off, what)
	}
	c := r.b[r.off]
	r.off++
	return c, nil
}

// uvarint reads a minimally encoded unsigned varint (encoding/binary's
// format); an overlong encoding is malformed, so every value has exactly
// one encoding.
func (r *reader) uvarint(what string) (uint64, error) {
	v, n := binary.Uvarint(r.b[r.off:])
	switch {
	case n == 0:
		return 0, r.fail("truncated at byte %d reading %s", r.off, what)
	case n < 0:
		return 0, r.fail("varint %s at byte %d overflows 64 bits", what, r.off)
	case n != uvarintLen(v):
		return 0, r.fail("varint %s at byte %d is not minimally encoded", what, r.off)
	}
	r.off += n
	return v, nil
}

// count reads a uvarint that must be at most limit.
func (r *reader) count(what string, limit uint64) (int, error) {
	at := r.off
	v, err := r.uvarint(what)
	if err != nil {
		return 0, err
	}
	if v > limit {
		return 0, r.fail("%s %d at byte %d exceeds %d", what, v, at, limit)
	}
	return int(v), nil
}

func (r *reader) take(n int, what string) ([]byte, error) {
	if n < 0 || n > r.rest() {
		return nil, r.fail("truncated at byte %d reading %s: need %d bytes, have %d", r.off, what, n, r.rest())
	}
	b := r.b[r.off : r.off+n]
	r.off += n
	return b, nil
}

func (r *reader) float64le(what string) (float64, error) {
	b, err := r.take(8, what)
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
}

func (r *reader) end() error {
	if r.rest() != 0 {
		return r.fail("%d trailing bytes at byte %d", r.rest(), r.off)
	}
	return nil
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// packedLen returns the number of bytes n fields of width bits take, and
// false if that overflows int.
func packedLen(n int, width uint) (int, bool) {
	if n < 0 || width == 0 || width > 63 {
		return 0, false
	}
	if uint64(n) > (math.MaxInt-7)/uint64(width) {
		return 0, false
	}
	return (n*int(width) + 7) / 8, true
}

// bitWriter appends fields LSB-first to a byte slice: field k occupies bits
// [k·w, (k+1)·w) of the little-endian bit stream, and the last byte is
// padded with zero bits.
type bitWriter struct {
	buf []byte
	acc uint64
	n   uint
}

func (w *bitWriter) write(v uint64, width uint) {
	w.acc |= v << w.n
	w.n += width
	for w.n >= 8 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		w.n -= 8
	}
}

func (w *bitWriter) flush() []byte {
	if w.n > 0 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc, w.n = 0, 0
	}
	return w.buf
}

// bitReader reads what bitWriter wrote. The caller checks the length with
// packedLen first, so reads never run past the end.
type bitReader struct {
	b   []byte
	off int
	acc uint64
	n   uint
}

func (r *bitReader) read(width uint) uint64 {
	for r.n < width {
		r.acc |= uint64(r.b[r.off]) << r.n
		r.off++
		r.n += 8
	}
	v := r.acc & (1<<width - 1)
	r.acc >>= width
	r.n -= width
	return v
}

// padding returns the unread bits of the last byte (must be zero).
func (r *bitReader) padding() uint64 { return r.acc }
