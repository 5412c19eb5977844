// Package wire holds the byte reader the module's decoders (filter's delta
// and QSGD formats, transport's messages) share for untrusted input.
package wire

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
)

// Reader decodes untrusted bytes B from offset Off. Every method returns
// an error that starts with Prefix, names the field and the offset, and
// wraps Malformed; none panics.
type Reader struct {
	B         []byte
	Off       int
	Prefix    string // e.g. "filter: decode"
	Malformed error  // the package's sentinel
}

// Fail returns a decoding error.
func (r *Reader) Fail(format string, args ...any) error {
	return fmt.Errorf(r.Prefix+": "+format+": %w", append(args, r.Malformed)...)
}

// Rest is the number of bytes not read yet.
func (r *Reader) Rest() int { return len(r.B) - r.Off }

// Byte reads one byte.
func (r *Reader) Byte(what string) (byte, error) {
	if r.Off >= len(r.B) {
		return 0, r.Fail("truncated at byte %d reading %s", r.Off, what)
	}
	r.Off++
	return r.B[r.Off-1], nil
}

// Uvarint reads a minimally encoded unsigned varint (encoding/binary's
// format); an overlong encoding is malformed, so every value has exactly
// one encoding.
func (r *Reader) Uvarint(what string) (uint64, error) {
	v, n := binary.Uvarint(r.B[r.Off:])
	switch {
	case n == 0:
		return 0, r.Fail("truncated at byte %d reading %s", r.Off, what)
	case n < 0:
		return 0, r.Fail("varint %s at byte %d overflows 64 bits", what, r.Off)
	case n != UvarintLen(v):
		return 0, r.Fail("varint %s at byte %d is not minimally encoded", what, r.Off)
	}
	r.Off += n
	return v, nil
}

// Varint reads a minimally encoded zig-zag signed varint.
func (r *Reader) Varint(what string) (int64, error) {
	u, err := r.Uvarint(what)
	return int64(u>>1) ^ -int64(u&1), err
}

// Count reads a uvarint that must be at most limit.
func (r *Reader) Count(what string, limit uint64) (int, error) {
	at := r.Off
	v, err := r.Uvarint(what)
	if err != nil {
		return 0, err
	}
	if v > limit {
		return 0, r.Fail("%s %d at byte %d exceeds %d", what, v, at, limit)
	}
	return int(v), nil
}

// Take reads n bytes (a subslice of B).
func (r *Reader) Take(n int, what string) ([]byte, error) {
	if n < 0 || n > r.Rest() {
		return nil, r.Fail("truncated at byte %d reading %s: need %d bytes, have %d", r.Off, what, n, r.Rest())
	}
	r.Off += n
	return r.B[r.Off-n : r.Off], nil
}

// Float64LE reads a little-endian IEEE-754 float64.
func (r *Reader) Float64LE(what string) (float64, error) {
	b, err := r.Take(8, what)
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
}

// End checks that nothing is left.
func (r *Reader) End() error {
	if r.Rest() != 0 {
		return r.Fail("%d trailing bytes at byte %d", r.Rest(), r.Off)
	}
	return nil
}

// UvarintLen is the length of v's uvarint encoding.
func UvarintLen(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }
