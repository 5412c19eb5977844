package transport

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/filter"
)

// Unmarshal decodes a message that AppendBinary wrote, for the layout l the
// receiver expects. It never panics and allocates at most the message, its
// Params (l.Params values, after checking that the input holds them), one
// delta of l's size, and memory proportional to len(b).
//
// It validates everything: the format version, the kind, the node IDs,
// every varint (minimal, in range), Points ≥ 0, the Reason's length and
// UTF-8, the Params' length (0 or l.Params, and 0 unless the kind carries
// params) and finite values, the delta flag and whether the kind carries a
// delta, the delta itself through filter.DecodeDelta (which accepts every
// form filter writes, including float32 and QSGD values), and that no bytes
// trail. Errors wrap ErrMalformed, or algorithms.ErrLayout for params or a
// delta of another layout, and name the field and its byte offset.
func Unmarshal(b []byte, l algorithms.Layout) (*Message, error) {
	if err := checkLayout(l); err != nil {
		return nil, err
	}
	r := reader{b: b}
	v, err := r.byte1("format version")
	if err != nil {
		return nil, err
	}
	if v != FormatVersion {
		return nil, r.fail("format version %d at byte 0, want %d", v, FormatVersion)
	}
	k, err := r.byte1("kind")
	if err != nil {
		return nil, err
	}
	m := &Message{Kind: Kind(k)}
	if !m.Kind.Valid() {
		return nil, r.fail("unknown kind %d at byte 1", k)
	}
	if m.From, err = r.node("From"); err != nil {
		return nil, err
	}
	if m.To, err = r.node("To"); err != nil {
		return nil, err
	}
	if m.Job, err = r.uvarint("Job"); err != nil {
		return nil, err
	}
	at := r.off
	inc, err := r.uvarint("Incarnation")
	if err != nil {
		return nil, err
	}
	if inc > math.MaxUint32 {
		return nil, r.fail("Incarnation %d at byte %d exceeds 2^32-1", inc, at)
	}
	m.Incarnation = uint32(inc)
	if m.Seq, err = r.uvarint("Seq"); err != nil {
		return nil, err
	}
	if m.Version, err = r.uvarint("Version"); err != nil {
		return nil, err
	}
	if m.Clock, err = r.uvarint("Clock"); err != nil {
		return nil, err
	}
	if m.Budget, err = r.varint("Budget"); err != nil {
		return nil, err
	}
	at = r.off
	points, err := r.uvarint("Points")
	if err != nil {
		return nil, err
	}
	if points > math.MaxInt64 {
		return nil, r.fail("Points %d at byte %d exceeds 2^63-1", points, at)
	}
	m.Points = int64(points)

	at = r.off
	n, err := r.length("Reason length", MaxReason)
	if err != nil {
		return nil, err
	}
	reason, err := r.take(n, "Reason")
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(reason) {
		return nil, r.fail("Reason at byte %d is not valid UTF-8", at)
	}
	m.Reason = string(reason)

	at = r.off
	if n, err = r.length("Params length", math.MaxInt32); err != nil {
		return nil, err
	}
	if n != 0 {
		if !m.Kind.CarriesParams() {
			return nil, r.fail("%d params at byte %d on a %v message (only release carries params)", n, at, m.Kind)
		}
		if n != l.Params {
			return nil, fmt.Errorf("transport: decode: %d params at byte %d, want %d (or none): %w", n, at, l.Params, algorithms.ErrLayout)
		}
		if n > r.rest()/8 {
			return nil, r.fail("truncated at byte %d reading %d params, have %d bytes", r.off, n, r.rest())
		}
		m.Params = make([]float64, n)
		p, _ := r.take(8*n, "Params")
		for i := range m.Params {
			x := math.Float64frombits(binary.LittleEndian.Uint64(p[8*i:]))
			if !finite(x) {
				return nil, r.fail("param %d at byte %d is %v", i, r.off-len(p)+8*i, x)
			}
			m.Params[i] = x
		}
	}

	at = r.off
	flag, err := r.byte1("delta flag")
	if err != nil {
		return nil, err
	}
	switch flag {
	case noDelta:
		if err := r.end(); err != nil {
			return nil, err
		}
	case hasDelta:
		if !m.Kind.CarriesDelta() {
			return nil, r.fail("a delta at byte %d on a %v message (only commit and leave carry one)", at, m.Kind)
		}
		if m.Delta, err = filter.DecodeDelta(r.b[r.off:], l); err != nil {
			return nil, fmt.Errorf("transport: decode: delta at byte %d: %w", r.off, wrapMalformed(err))
		}
	default:
		return nil, r.fail("delta flag %d at byte %d, want 0 or 1", flag, at)
	}
	return m, nil
}

// reader decodes untrusted bytes. Every method returns an error wrapping
// ErrMalformed that names the field and the offset; none panics.
type reader struct {
	b   []byte
	off int
}

func (r *reader) fail(format string, args ...any) error {
	return fmt.Errorf("transport: decode: "+format+": %w", append(args, ErrMalformed)...)
}

func (r *reader) rest() int { return len(r.b) - r.off }

func (r *reader) byte1(what string) (byte, error) {
	if r.off >= len(r.b) {
		return 0, r.fail("truncated at byte %d reading %s", r.off, what)
	}
	r.off++
	return r.b[r.off-1], nil
}

// uvarint reads a minimally encoded unsigned varint.
func (r *reader) uvarint(what string) (uint64, error) {
	v, n := binary.Uvarint(r.b[r.off:])
	switch {
	case n == 0:
		return 0, r.fail("truncated at byte %d reading %s", r.off, what)
	case n < 0:
		return 0, r.fail("%s at byte %d overflows 64 bits", what, r.off)
	case n != uvarintLen(v):
		return 0, r.fail("%s at byte %d is not minimally encoded", what, r.off)
	}
	r.off += n
	return v, nil
}

// varint reads a minimally encoded zig-zag signed varint.
func (r *reader) varint(what string) (int64, error) {
	u, err := r.uvarint(what)
	return int64(u>>1) ^ -int64(u&1), err
}

// node reads a NodeID.
func (r *reader) node(what string) (NodeID, error) {
	at := r.off
	v, err := r.varint(what)
	if err != nil {
		return 0, err
	}
	if v < int64(Coordinator) || v > int64(MaxNode) {
		return 0, r.fail("%s %d at byte %d is not a node ID in [-1, %d]", what, v, at, int(MaxNode))
	}
	return NodeID(v), nil
}

// length reads a uvarint length that must be at most limit.
func (r *reader) length(what string, limit int) (int, error) {
	at := r.off
	v, err := r.uvarint(what)
	if err != nil {
		return 0, err
	}
	if v > uint64(limit) {
		return 0, r.fail("%s %d at byte %d exceeds %d", what, v, at, limit)
	}
	return int(v), nil
}

func (r *reader) take(n int, what string) ([]byte, error) {
	if n > r.rest() {
		return nil, r.fail("truncated at byte %d reading %s: need %d bytes, have %d", r.off, what, n, r.rest())
	}
	r.off += n
	return r.b[r.off-n : r.off], nil
}

func (r *reader) end() error {
	if r.rest() != 0 {
		return r.fail("%d trailing bytes at byte %d", r.rest(), r.off)
	}
	return nil
}

// wrapMalformed returns err, wrapping ErrMalformed too unless err is a
// layout mismatch.
func wrapMalformed(err error) error {
	if errors.Is(err, algorithms.ErrLayout) {
		return err
	}
	return fmt.Errorf("%w: %w", err, ErrMalformed)
}
