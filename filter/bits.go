package filter

import (
	"math"
)

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
