package filter

import (
	"github.com/syncmodels/syncmodels/internal/wire"

	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/syncmodels/syncmodels/algorithms"
)

// Values selects how AppendDelta writes values.
type Values uint8

const (
	// Float64 writes IEEE-754 float64 values: lossless. The default.
	Float64 Values = iota
	// Float32 writes each value rounded to the nearest float32: half the
	// bytes, lossy (relative error ≤ 2^-24). An entry that rounds to 0 is
	// dropped. Filters configured with Float32 round sent values themselves
	// and keep the rounding error held, so their sends lose nothing.
	Float32
)

func (v Values) String() string {
	switch v {
	case Float64:
		return "float64"
	case Float32:
		return "float32"
	}
	return fmt.Sprintf("Values(%d)", uint8(v))
}

// Wire value kinds (the low bits of the second byte).
const (
	deltaMagic = 'D'
	kindF64    = 1
	kindF32    = 2
	kindQSGD   = 3
	kindDense  = 0x80 // flag: every index 0..dim-1 is present, no index list
)

// AppendDelta appends the wire encoding of d's nonzero live entries to b:
//
//	byte     'D' (format 1)
//	byte     value kind (1 float64, 2 float32, 3 QSGD), | 0x80 when dense
//	uvarint  dim (the delta length)
//	uvarint  block (the layout's block width, 0 for dense layouts)
//	uvarint  count (Delta.Count)
//	explicit form only:
//	  uvarint  n (number of pairs)
//	  n uvarints: the first index, then each index minus the previous
//	           index minus 1 (so indices strictly increase by construction)
//	values:
//	  float64: n × 8 bytes, little-endian IEEE-754
//	  float32: n × 4 bytes, little-endian IEEE-754
//	  QSGD:    byte norm, uvarint s, 8-byte float64 scale, n packed levels
//	           as in Quantized.AppendBinary
//
// In the explicit form the pairs are the nonzero entries and a zero value
// is malformed. In the dense form (flag 0x80) there is no index list and n
// = dim values follow, zeros included. AppendDelta writes whichever form is
// shorter, the explicit one on a tie. Live blocks whose entries are all
// zero are not transmitted.
//
// A NaN or ±Inf entry (or, for Float32, an entry beyond float32's range) is
// an error naming the index, and b is returned unchanged. So is a delta
// with a negative Count.
func AppendDelta(b []byte, d *algorithms.Delta, v Values) ([]byte, error) {
	if d == nil {
		return b, fmt.Errorf("filter: encode nil delta: %w", algorithms.ErrLayout)
	}
	if d.Count < 0 {
		return b, fmt.Errorf("filter: encode delta with count %d: %w", d.Count, algorithms.ErrLayout)
	}
	var kind byte
	var width int
	switch v {
	case Float64:
		kind, width = kindF64, 8
	case Float32:
		kind, width = kindF32, 4
	default:
		return b, fmt.Errorf("filter: encode with %v: %w", v, ErrConfig)
	}
	f32 := kind == kindF32
	vec := d.Vec
	// Pass 1: validate, count the pairs and the index bytes.
	n, idxBytes, prev := 0, 0, -1
	var err error
	forSpans(d, func(lo, hi int) bool {
		for i, x := range vec[lo:hi] {
			if x == 0 {
				continue
			}
			if !finite(x) {
				err = nonFinite("delta", lo+i, x)
				return false
			}
			if f32 {
				r := round32(x)
				if math.IsInf(r, 0) {
					err = rangeError(lo+i, x)
					return false
				}
				if r == 0 {
					continue
				}
			}
			idxBytes += wire.UvarintLen(uint64(lo + i - prev - 1))
			prev = lo + i
			n++
		}
		return true
	})
	if err != nil {
		return b, err
	}
	dim := d.Len()
	explicit := wire.UvarintLen(uint64(n)) + idxBytes + n*width
	dense := dim*width < explicit
	b = slices.Grow(b, 16+min(explicit, dim*width))

	b = appendDeltaHeader(b, kind, dense, dim, d.BlockWidth(), d.Count)
	sent := func(x float64) bool { return x != 0 && (!f32 || round32(x) != 0) }
	if !dense {
		b = binary.AppendUvarint(b, uint64(n))
		prev = -1
		forSpans(d, func(lo, hi int) bool {
			for i, x := range vec[lo:hi] {
				if sent(x) {
					b = binary.AppendUvarint(b, uint64(lo+i-prev-1))
					prev = lo + i
				}
			}
			return true
		})
	}
	put := func(x float64) {
		if f32 {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(x)))
		} else {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
	}
	if dense && !d.Sparse() {
		for _, x := range vec {
			if !sent(x) {
				x = 0 // a float32 underflow is sent as 0, like a dropped pair
			}
			put(x)
		}
		return b, nil
	}
	next := 0
	forSpans(d, func(lo, hi int) bool {
		for i, x := range vec[lo:hi] {
			if !sent(x) {
				continue
			}
			if dense {
				for ; next < lo+i; next++ {
					put(0)
				}
				next = lo + i + 1
			}
			put(x)
		}
		return true
	})
	if dense {
		for ; next < dim; next++ {
			put(0)
		}
	}
	return b, nil
}

// forSpans calls fn with the index range of every live block of d in
// increasing order (one range [0, Len) for a dense delta), stopping early
// when fn returns false.
func forSpans(d *algorithms.Delta, fn func(lo, hi int) bool) {
	if !d.Sparse() {
		fn(0, d.Len())
		return
	}
	w := d.BlockWidth()
	for _, b := range d.Blocks() {
		lo := int(b) * w
		if !fn(lo, min(lo+w, d.Len())) {
			return
		}
	}
}

func appendDeltaHeader(b []byte, kind byte, dense bool, dim, block, count int) []byte {
	if dense {
		kind |= kindDense
	}
	b = append(b, deltaMagic, kind)
	b = binary.AppendUvarint(b, uint64(dim))
	b = binary.AppendUvarint(b, uint64(block))
	return binary.AppendUvarint(b, uint64(count))
}

// appendQSGDDelta appends the wire encoding of a QSGD-quantised delta: entry
// idx[k] (k if idx is nil) has level q.L[k]; idx is increasing and every
// other entry is 0.
func appendQSGDDelta(b []byte, dim, block, count int, idx []int32, q *Quantized) []byte {
	at := func(k int) int {
		if idx == nil {
			return k
		}
		return int(idx[k])
	}
	n, idxBytes, prev := 0, 0, -1
	for k, l := range q.L {
		if l != 0 {
			i := at(k)
			idxBytes += wire.UvarintLen(uint64(i - prev - 1))
			prev = i
			n++
		}
	}
	width := uint(q.Bits())
	explicitVals, _ := packedLen(n, width)
	denseVals, _ := packedLen(dim, width)
	dense := denseVals < wire.UvarintLen(uint64(n))+idxBytes+explicitVals

	b = appendDeltaHeader(b, kindQSGD, dense, dim, block, count)
	if !dense {
		b = binary.AppendUvarint(b, uint64(n))
		prev = -1
		for k, l := range q.L {
			if l != 0 {
				i := at(k)
				b = binary.AppendUvarint(b, uint64(i-prev-1))
				prev = i
			}
		}
	}
	b = append(b, byte(q.Norm))
	b = binary.AppendUvarint(b, uint64(q.Levels))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(q.Scale))
	w := bitWriter{buf: b}
	code := func(l int32) uint64 {
		if l < 0 {
			return uint64(-l)<<1 | 1
		}
		return uint64(l) << 1
	}
	next := 0
	for k, l := range q.L {
		if l == 0 {
			continue
		}
		i := at(k)
		if dense {
			for ; next < i; next++ {
				w.write(0, width)
			}
			next = i + 1
		}
		w.write(code(l), width)
	}
	if dense {
		for ; next < dim; next++ {
			w.write(0, width)
		}
	}
	return w.flush()
}

// DecodeDelta decodes a delta that AppendDelta (or QSGDFilter.AppendMessage)
// wrote, for the layout l the receiver expects. It never panics and
// allocates at most one delta of l's size plus memory proportional to
// len(b). It validates everything: the format byte, the value kind, dim and
// block equal to l's, the count, n ≤ dim, every index in range (indices
// strictly increase by construction), lengths, finite values, no zero value
// in the explicit form, QSGD levels ≤ s with canonical signs and zero
// padding, and no trailing bytes. Errors wrap ErrMalformed (or
// algorithms.ErrLayout for a dim or block that differs from l's) and name
// the problem.
func DecodeDelta(b []byte, l algorithms.Layout) (*algorithms.Delta, error) {
	m, err := parseDelta(b, l)
	if err != nil {
		return nil, err
	}
	d := algorithms.NewDelta(l)
	m.fill(d, l.Block)
	return d, nil
}

// DecodeDeltaInto is DecodeDelta into an existing delta, whose length and
// block width give the expected layout: on success d is reset and holds the
// decoded delta; on error d is unchanged. It saves allocating a delta of
// the layout's size for every message.
func DecodeDeltaInto(d *algorithms.Delta, b []byte) error {
	if d == nil {
		return fmt.Errorf("filter: decode into nil delta: %w", algorithms.ErrLayout)
	}
	l := algorithms.Layout{Params: d.Len(), Delta: d.Len(), Block: d.BlockWidth()}
	m, err := parseDelta(b, l)
	if err != nil {
		return err
	}
	d.Reset()
	m.fill(d, l.Block)
	return nil
}

// wireDelta is a parsed, validated message: value k belongs to index
// idx[k], or to index k when idx is nil (the dense form).
type wireDelta struct {
	count int
	idx   []int32
	vals  []float64
}

// fill writes m into the zero delta d and touches the blocks of its
// nonzero values.
func (m *wireDelta) fill(d *algorithms.Delta, block int) {
	d.Count = m.count
	for k, v := range m.vals {
		if v == 0 {
			continue
		}
		i := k
		if m.idx != nil {
			i = int(m.idx[k])
		}
		d.Vec[i] = v
		if block > 0 {
			d.Touch(i / block)
		}
	}
}

func parseDelta(b []byte, l algorithms.Layout) (*wireDelta, error) {
	if err := checkLayout(l); err != nil {
		return nil, err
	}
	r := wire.Reader{B: b, Prefix: "filter: decode", Malformed: ErrMalformed}
	magic, err := r.Byte("format byte")
	if err != nil {
		return nil, err
	}
	if magic != deltaMagic {
		return nil, r.Fail("format byte 0x%02x, want 0x%02x ('D')", magic, deltaMagic)
	}
	kb, err := r.Byte("value kind")
	if err != nil {
		return nil, err
	}
	dense, kind := kb&kindDense != 0, kb&^kindDense
	if kind != kindF64 && kind != kindF32 && kind != kindQSGD {
		return nil, r.Fail("unknown value kind 0x%02x at byte 1", kb)
	}
	dim, err := r.Count("dim", math.MaxInt32)
	if err != nil {
		return nil, err
	}
	block, err := r.Count("block", math.MaxInt32)
	if err != nil {
		return nil, err
	}
	if dim != l.Delta || block != l.Block {
		return nil, fmt.Errorf("filter: decode: delta dim %d block %d, want dim %d block %d: %w",
			dim, block, l.Delta, l.Block, algorithms.ErrLayout)
	}
	count, err := r.Count("count", math.MaxInt)
	if err != nil {
		return nil, err
	}

	n := dim
	var idx []int32
	if !dense {
		at := r.Off
		if n, err = r.Count("pair count", uint64(dim)); err != nil {
			return nil, err
		}
		if n > r.Rest() { // every index takes at least one byte
			return nil, r.Fail("pair count %d at byte %d exceeds the %d bytes left", n, at, r.Rest())
		}
		idx = make([]int32, n)
		prev := -1
		for k := range idx {
			at := r.Off
			gap, err := r.Uvarint("index")
			if err != nil {
				return nil, err
			}
			if gap >= uint64(dim-(prev+1)) {
				return nil, r.Fail("pair %d at byte %d: index %d+%d is out of range [0, %d)", k, at, prev+1, gap, dim)
			}
			prev += 1 + int(gap)
			idx[k] = int32(prev)
		}
	}
	index := func(k int) int {
		if dense {
			return k
		}
		return int(idx[k])
	}

	m := &wireDelta{count: count, idx: idx}
	switch kind {
	case kindF64, kindF32:
		width := 8
		if kind == kindF32 {
			width = 4
		}
		if n > r.Rest()/width {
			return nil, r.Fail("truncated at byte %d reading %d values of %d bytes, have %d bytes", r.Off, n, width, r.Rest())
		}
		m.vals = make([]float64, n)
		for k := range n {
			var v float64
			if kind == kindF64 {
				v, _ = r.Float64LE("value")
			} else {
				p, _ := r.Take(4, "value")
				v = float64(math.Float32frombits(binary.LittleEndian.Uint32(p)))
			}
			if !finite(v) {
				return nil, r.Fail("value %d (index %d) is %v", k, index(k), v)
			}
			if !dense && v == 0 {
				return nil, r.Fail("pair %d (index %d) has value 0; zeros are not sent", k, index(k))
			}
			m.vals[k] = v
		}
	case kindQSGD:
		nb, err := r.Byte("QSGD norm")
		if err != nil {
			return nil, err
		}
		if Norm(nb) != LInf && Norm(nb) != L2 {
			return nil, r.Fail("unknown QSGD norm %d at byte %d", nb, r.Off-1)
		}
		at := r.Off
		s, err := r.Count("QSGD levels", MaxLevels)
		if err != nil {
			return nil, err
		}
		if s < 1 {
			return nil, r.Fail("QSGD levels 0 at byte %d, want ≥ 1", at)
		}
		at = r.Off
		scale, err := r.Float64LE("QSGD scale")
		if err != nil {
			return nil, err
		}
		if !finite(scale) || scale < 0 || math.Signbit(scale) {
			return nil, r.Fail("QSGD scale %v at byte %d, want finite ≥ 0", scale, at)
		}
		q := Quantized{Norm: Norm(nb), Levels: s, Scale: scale}
		q.L, err = readLevels(&r, n, s, func(k int, lv int32) error {
			if !dense && lv == 0 {
				return r.Fail("pair %d (index %d) has level 0; zeros are not sent", k, index(k))
			}
			if lv != 0 && scale == 0 {
				return r.Fail("pair %d (index %d) has level %d under a zero scale", k, index(k), lv)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		m.vals = q.Decode(nil)
	}
	if err := r.End(); err != nil {
		return nil, err
	}
	return m, nil
}
