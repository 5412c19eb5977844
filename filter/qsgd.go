package filter

import (
	"github.com/syncmodels/syncmodels/internal/wire"

	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// Norm selects the norm QSGD scales a vector by.
type Norm uint8

const (
	// LInf scales by max_i |x_i|, as the P2P serverless code does. It is
	// the default: the largest entry is coded exactly (level s), and for
	// the same s the variance is never larger than with L2.
	LInf Norm = iota
	// L2 scales by the Euclidean norm, as in Alistarh et al. (2017), whose
	// variance and sparsity bounds are stated for it: with s levels the
	// expected number of nonzero levels is at most s(s+√n).
	L2
)

func (n Norm) String() string {
	switch n {
	case LInf:
		return "L∞"
	case L2:
		return "L2"
	}
	return fmt.Sprintf("Norm(%d)", uint8(n))
}

const (
	// DefaultLevels is the default number of QSGD levels s: 8-bit
	// magnitudes, as the P2P serverless code (quantization_level 8).
	DefaultLevels = 255
	// MaxLevels is the largest number of QSGD levels: a signed level fits in
	// 31 bits.
	MaxLevels = 1<<30 - 1
)

// QSGD configures the quantiser of D. Alistarh, D. Grubic, J. Li,
// R. Tomioka and M. Vojnovic, "QSGD: Communication-Efficient SGD via
// Gradient Quantization and Encoding", NeurIPS 2017: with N = ‖x‖ and
// r_i = |x_i|/N·s ∈ [0, s], entry i becomes the level
//
//	l_i = ⌊r_i⌋ + 1 with probability r_i − ⌊r_i⌋, else ⌊r_i⌋,
//
// with the sign of x_i, and decodes to sign·N·l_i/s. E[l_i] = r_i, so the
// decoded vector is an unbiased estimate of x. The zero value is usable:
// 255 levels, L∞ norm.
type QSGD struct {
	// Levels is s, the number of nonzero magnitude levels, 1 ≤ s ≤
	// MaxLevels. 0 means DefaultLevels (255).
	Levels int
	// Norm is the scaling norm. Default LInf.
	Norm Norm
}

func (c QSGD) withDefaults() (QSGD, error) {
	if c.Levels == 0 {
		c.Levels = DefaultLevels
	}
	if c.Levels < 1 || c.Levels > MaxLevels {
		return c, fmt.Errorf("filter: QSGD levels %d, want 1..%d: %w", c.Levels, MaxLevels, ErrConfig)
	}
	if c.Norm != LInf && c.Norm != L2 {
		return c, fmt.Errorf("filter: QSGD norm %v unknown: %w", c.Norm, ErrConfig)
	}
	return c, nil
}

// Quantized is a QSGD-quantised vector: entry k decodes to
// Scale·(L[k]/Levels).
type Quantized struct {
	// Norm is the norm Scale was measured in.
	Norm Norm
	// Levels is s.
	Levels int
	// Scale is the norm N of the quantised vector, finite and ≥ 0; 0 for a
	// zero vector (then every level is 0).
	Scale float64
	// L holds the signed levels, each in [−Levels, Levels].
	L []int32
}

// Quantize quantises x into dst (reusing dst.L's storage), drawing one
// uniform variate from rng, in index order, for each entry whose scaled
// magnitude r_i is not an integer. The draw is exactly unbiased whenever
// r_i ≥ 1 (then r_i − ⌊r_i⌋ is a multiple of 2^-53, which rand.Float64
// resolves exactly); below that the rounding probability is off by less
// than 2^-53. A NaN or ±Inf in x is an error naming the index, and dst is
// then unchanged.
func (c QSGD) Quantize(dst *Quantized, x []float64, rng *rand.Rand) error {
	c, err := c.withDefaults()
	if err != nil {
		return err
	}
	if rng == nil {
		return fmt.Errorf("filter: QSGD needs a *rand.Rand: %w", ErrConfig)
	}
	if len(x) > math.MaxInt32 {
		return fmt.Errorf("filter: QSGD of %d entries, at most 2^31-1: %w", len(x), ErrConfig)
	}
	for i, v := range x {
		if !finite(v) {
			return nonFinite("delta", i, v)
		}
	}
	norm := c.norm(x)
	dst.Norm, dst.Levels, dst.Scale = c.Norm, c.Levels, norm
	dst.L = slices.Grow(dst.L[:0], len(x))[:len(x)]
	if norm == 0 {
		clear(dst.L)
		return nil
	}
	s := float64(c.Levels)
	for i, v := range x {
		var l int32
		if v != 0 {
			r := scaled(v, norm, s)
			lo := math.Floor(r)
			l = int32(lo)
			if p := r - lo; p > 0 && rng.Float64() < p {
				l++
			}
			l = min(l, int32(c.Levels))
			if v < 0 {
				l = -l
			}
		}
		dst.L[i] = l
	}
	return nil
}

// scaled returns r = |v|/N·s, in [0, s] for |v| ≤ N: the P2P code's
// abs(x)/norm*s.
func scaled(v, norm, s float64) float64 { return float64(math.Abs(v) / norm * s) }

// norm returns ‖x‖, computed without overflow for finite x.
func (c QSGD) norm(x []float64) float64 {
	var m float64
	for _, v := range x {
		m = max(m, math.Abs(v))
	}
	if c.Norm == LInf || m == 0 {
		return m
	}
	var ss float64
	for _, v := range x {
		r := v / m
		ss += float64(r * r)
	}
	// ss ≥ 1 (the largest entry contributes exactly 1), so ‖x‖ ≥ |x_i|
	// for every i and r_i ≤ s.
	return float64(m * math.Sqrt(ss))
}

// Len returns the number of entries.
func (q *Quantized) Len() int { return len(q.L) }

// Value returns the decoded entry k, Scale·(L[k]/Levels).
func (q *Quantized) Value(k int) float64 {
	return float64(q.Scale * (float64(q.L[k]) / float64(q.Levels)))
}

// Decode writes the decoded vector into dst, growing it as needed, and
// returns it.
func (q *Quantized) Decode(dst []float64) []float64 {
	dst = slices.Grow(dst[:0], len(q.L))[:len(q.L)]
	s := float64(q.Levels)
	for k, l := range q.L {
		dst[k] = q.Scale * (float64(l) / s)
	}
	return dst
}

// Bits returns the width of one packed entry: a sign bit plus
// ⌈log2(s+1)⌉ magnitude bits (9 for s = 255).
func (q *Quantized) Bits() int { return levelWidth(q.Levels) }

func levelWidth(s int) int { return bits.Len(uint(s)) + 1 }

const quantizedMagic = 'Q'

// EncodedSize returns the length of the binary encoding:
// 2 + varint(s) + varint(n) + 8 + ⌈n·Bits()/8⌉ bytes.
func (q *Quantized) EncodedSize() int {
	n, _ := packedLen(len(q.L), uint(q.Bits()))
	return 2 + wire.UvarintLen(uint64(q.Levels)) + wire.UvarintLen(uint64(len(q.L))) + 8 + n
}

// AppendBinary appends the binary encoding of q to b:
//
//	byte     'Q' (format 1)
//	byte     norm: 0 = L∞, 1 = L2
//	uvarint  s (levels)
//	uvarint  n (entries)
//	8 bytes  Scale, IEEE-754 float64, little-endian
//	packed   n fields of Bits() bits, LSB-first: field = |l|<<1 | sign,
//	         sign 1 for a negative level; the last byte is zero-padded
//
// A q that Quantize could not have produced (levels out of range, a
// negative or non-finite scale, nonzero levels with a zero scale) is an
// error.
func (q *Quantized) AppendBinary(b []byte) ([]byte, error) {
	if err := q.check(); err != nil {
		return b, err
	}
	b = append(b, quantizedMagic, byte(q.Norm))
	b = binary.AppendUvarint(b, uint64(q.Levels))
	b = binary.AppendUvarint(b, uint64(len(q.L)))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(q.Scale))
	return appendLevels(b, q.L, uint(q.Bits())), nil
}

// MarshalBinary returns the binary encoding of q (see AppendBinary).
func (q *Quantized) MarshalBinary() ([]byte, error) {
	return q.AppendBinary(make([]byte, 0, q.EncodedSize()))
}

func (q *Quantized) check() error {
	if _, err := (QSGD{Levels: q.Levels, Norm: q.Norm}).withDefaults(); err != nil || q.Levels == 0 {
		return fmt.Errorf("filter: quantized levels %d norm %v invalid: %w", q.Levels, q.Norm, ErrConfig)
	}
	if !finite(q.Scale) || q.Scale < 0 || math.Signbit(q.Scale) {
		return fmt.Errorf("filter: quantized scale %v, want finite ≥ 0: %w", q.Scale, ErrConfig)
	}
	if len(q.L) > math.MaxInt32 {
		return fmt.Errorf("filter: quantized vector of %d entries, at most 2^31-1: %w", len(q.L), ErrConfig)
	}
	s := int32(q.Levels)
	for k, l := range q.L {
		if l < -s || l > s || (l != 0 && q.Scale == 0) {
			return fmt.Errorf("filter: quantized entry %d has level %d with s = %d, scale %v: %w", k, l, s, q.Scale, ErrConfig)
		}
	}
	return nil
}

func appendLevels(b []byte, ls []int32, width uint) []byte {
	w := bitWriter{buf: b}
	for _, l := range ls {
		var code uint64
		if l < 0 {
			code = uint64(-l)<<1 | 1
		} else {
			code = uint64(l) << 1
		}
		w.write(code, width)
	}
	return w.flush()
}

// UnmarshalBinary decodes the encoding AppendBinary writes. It validates
// everything — format byte, norm, 1 ≤ s ≤ MaxLevels, the exact length,
// a finite non-negative scale, every level ≤ s, no negative zero, zero
// padding, only zero levels under a zero scale, no trailing bytes — and on
// error returns an error wrapping ErrMalformed that names the problem,
// leaving q unchanged. Every valid encoding re-encodes to the same bytes.
func (q *Quantized) UnmarshalBinary(b []byte) error {
	r := wire.Reader{B: b, Prefix: "filter: decode", Malformed: ErrMalformed}
	magic, err := r.Byte("format byte")
	if err != nil {
		return err
	}
	if magic != quantizedMagic {
		return r.Fail("format byte 0x%02x, want 0x%02x ('Q')", magic, quantizedMagic)
	}
	nb, err := r.Byte("norm")
	if err != nil {
		return err
	}
	norm := Norm(nb)
	if norm != LInf && norm != L2 {
		return r.Fail("unknown norm %d at byte 1", nb)
	}
	at := r.Off
	s, err := r.Count("levels", MaxLevels)
	if err != nil {
		return err
	}
	if s < 1 {
		return r.Fail("levels 0 at byte %d, want ≥ 1", at)
	}
	n, err := r.Count("entry count", math.MaxInt32)
	if err != nil {
		return err
	}
	at = r.Off
	scale, err := r.Float64LE("scale")
	if err != nil {
		return err
	}
	if !finite(scale) || scale < 0 || math.Signbit(scale) {
		return r.Fail("scale %v at byte %d, want finite ≥ 0", scale, at)
	}
	ls, err := readLevels(&r, n, s, func(k int, l int32) error {
		if l != 0 && scale == 0 {
			return r.Fail("entry %d has level %d under a zero scale", k, l)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := r.End(); err != nil {
		return err
	}
	*q = Quantized{Norm: norm, Levels: s, Scale: scale, L: ls}
	return nil
}

// readLevels reads n packed signed levels of s levels, calling check on
// each (nil check accepts all).
func readLevels(r *wire.Reader, n, s int, check func(k int, l int32) error) ([]int32, error) {
	width := uint(levelWidth(s))
	size, ok := packedLen(n, width)
	if !ok {
		return nil, r.Fail("%d levels of %d bits overflow", n, width)
	}
	start := r.Off
	p, err := r.Take(size, "packed levels")
	if err != nil {
		return nil, err
	}
	br := bitReader{b: p}
	ls := make([]int32, n)
	for k := range ls {
		code := br.read(width)
		mag, neg := code>>1, code&1 == 1
		if mag > uint64(s) {
			return nil, r.Fail("entry %d has level %d > s = %d", k, mag, s)
		}
		if neg && mag == 0 {
			return nil, r.Fail("entry %d is a negative zero level", k)
		}
		l := int32(mag)
		if neg {
			l = -l
		}
		if check != nil {
			if err := check(k, l); err != nil {
				return nil, err
			}
		}
		ls[k] = l
	}
	if br.padding() != 0 {
		return nil, r.Fail("nonzero padding bits in the last byte of the levels (byte %d)", start+size-1)
	}
	return ls, nil
}
