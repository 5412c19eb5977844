package transport

import (
	"github.com/syncmodels/syncmodels/internal/wire"

	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
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
// params) and finite values, the flags byte (no unknown bits; a timer only
// on Release, > 0 and ≤ 2^63−1 ns; a delta only on kinds that carry one),
// the delta itself through filter.DecodeDelta (which accepts every
// form filter writes, including float32 and QSGD values), and that no bytes
// trail. Errors wrap ErrMalformed, or algorithms.ErrLayout for params or a
// delta of another layout, and name the field and its byte offset.
func Unmarshal(b []byte, l algorithms.Layout) (*Message, error) {
	if err := checkLayout(l); err != nil {
		return nil, err
	}
	r := wire.Reader{B: b, Prefix: "transport: decode", Malformed: ErrMalformed}
	v, err := r.Byte("format version")
	if err != nil {
		return nil, err
	}
	if v != FormatVersion {
		return nil, r.Fail("format version %d at byte 0, want %d", v, FormatVersion)
	}
	k, err := r.Byte("kind")
	if err != nil {
		return nil, err
	}
	m := &Message{Kind: Kind(k)}
	if !m.Kind.Valid() {
		return nil, r.Fail("unknown kind %d at byte 1", k)
	}
	if m.From, err = readNode(&r, "From"); err != nil {
		return nil, err
	}
	if m.To, err = readNode(&r, "To"); err != nil {
		return nil, err
	}
	if m.Job, err = r.Uvarint("Job"); err != nil {
		return nil, err
	}
	at := r.Off
	inc, err := r.Uvarint("Incarnation")
	if err != nil {
		return nil, err
	}
	if inc > math.MaxUint32 {
		return nil, r.Fail("Incarnation %d at byte %d exceeds 2^32-1", inc, at)
	}
	m.Incarnation = uint32(inc)
	if m.Seq, err = r.Uvarint("Seq"); err != nil {
		return nil, err
	}
	if m.Version, err = r.Uvarint("Version"); err != nil {
		return nil, err
	}
	if m.Clock, err = r.Uvarint("Clock"); err != nil {
		return nil, err
	}
	if m.Budget, err = r.Varint("Budget"); err != nil {
		return nil, err
	}
	at = r.Off
	points, err := r.Uvarint("Points")
	if err != nil {
		return nil, err
	}
	if points > math.MaxInt64 {
		return nil, r.Fail("Points %d at byte %d exceeds 2^63-1", points, at)
	}
	m.Points = int64(points)

	at = r.Off
	n, err := r.Count("Reason length", uint64(MaxReason))
	if err != nil {
		return nil, err
	}
	reason, err := r.Take(n, "Reason")
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(reason) {
		return nil, r.Fail("Reason at byte %d is not valid UTF-8", at)
	}
	m.Reason = string(reason)

	at = r.Off
	if n, err = r.Count("Params length", uint64(math.MaxInt32)); err != nil {
		return nil, err
	}
	if n != 0 {
		if !m.Kind.CarriesParams() {
			return nil, r.Fail("%d params at byte %d on a %v message (only release carries params)", n, at, m.Kind)
		}
		if n != l.Params {
			return nil, fmt.Errorf("transport: decode: %d params at byte %d, want %d (or none): %w", n, at, l.Params, algorithms.ErrLayout)
		}
		if n > r.Rest()/8 {
			return nil, r.Fail("truncated at byte %d reading %d params, have %d bytes", r.Off, n, r.Rest())
		}
		m.Params = make([]float64, n)
		p, _ := r.Take(8*n, "Params")
		for i := range m.Params {
			x := math.Float64frombits(binary.LittleEndian.Uint64(p[8*i:]))
			if !finite(x) {
				return nil, r.Fail("param %d at byte %d is %v", i, r.Off-len(p)+8*i, x)
			}
			m.Params[i] = x
		}
	}

	at = r.Off
	flags, err := r.Byte("flags")
	if err != nil {
		return nil, err
	}
	switch {
	case flags&^allFlags != 0:
		return nil, r.Fail("flags %#x at byte %d: unknown bits %#x", flags, at, flags&^allFlags)
	case flags&hasTimer != 0 && m.Kind != Release:
		return nil, r.Fail("a timer at byte %d on a %v message (only release carries one)", at, m.Kind)
	case flags&hasBatch != 0 && !m.Kind.CarriesBatch():
		return nil, r.Fail("a batch number at byte %d on a %v message (only release, commit, batch and join carry one)", at, m.Kind)
	case flags&hasDelta != 0 && !m.Kind.CarriesDelta():
		return nil, r.Fail("a delta at byte %d on a %v message (only commit and leave carry one)", at, m.Kind)
	}
	if flags&hasTimer != 0 {
		at = r.Off
		t, err := r.Uvarint("Timer")
		if err != nil {
			return nil, err
		}
		switch {
		case t == 0:
			return nil, r.Fail("Timer 0 at byte %d: a zero timer is sent as a clear flag", at)
		case t > math.MaxInt64:
			return nil, r.Fail("Timer %d at byte %d exceeds 2^63-1 ns", t, at)
		}
		m.Timer = time.Duration(t)
	}
	if flags&hasBatch != 0 {
		at = r.Off
		if m.Batch, err = r.Uvarint("Batch"); err != nil {
			return nil, err
		}
		if m.Batch == 0 {
			return nil, r.Fail("Batch 0 at byte %d: batch 0 is sent as a clear flag", at)
		}
	}
	if flags&hasDelta == 0 {
		if err := r.End(); err != nil {
			return nil, err
		}
		return m, nil
	}
	if m.Delta, err = filter.DecodeDelta(r.B[r.Off:], l); err != nil {
		return nil, fmt.Errorf("transport: decode: delta at byte %d: %w", r.Off, wrapMalformed(err))
	}
	return m, nil
}

// readNode reads a NodeID.
func readNode(r *wire.Reader, what string) (NodeID, error) {
	at := r.Off
	v, err := r.Varint(what)
	if err != nil {
		return 0, err
	}
	if v < int64(Coordinator) || v > int64(MaxNode) {
		return 0, r.Fail("%s %d at byte %d is not a node ID in [-1, %d]", what, v, at, int(MaxNode))
	}
	return NodeID(v), nil
}

// wrapMalformed returns err, wrapping ErrMalformed too unless err is a
// layout mismatch.
func wrapMalformed(err error) error {
	if errors.Is(err, algorithms.ErrLayout) {
		return err
	}
	return fmt.Errorf("%w: %w", err, ErrMalformed)
}
