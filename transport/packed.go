package transport

import (
	"math"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/filter"
)

// AppendBinaryDelta is AppendBinary for a sender that compresses its
// delta: delta is the delta already encoded, in any form filter writes
// (filter.QSGDFilter.AppendMessage's packed QSGD levels, say, or
// filter.AppendDelta with filter.Float32), and it replaces the float64
// encoding of m.Delta in the message. Unmarshal reads such a message as
// any other (see the package doc: a sender may compress without a format
// change), so the receiver's delta is what delta decodes to.
//
// m.Delta must hold exactly that — the values the receiver will get, as
// QSGDFilter.Step returns them — so that the sender knows what it sent:
// AppendBinaryDelta decodes delta for m.Delta's length and block width
// and refuses, with an error wrapping ErrMalformed that names the first
// entry that differs, a delta that does not decode to m.Delta's count and
// values. It checks every rule AppendBinary checks; on error b is
// returned unchanged.
func (m *Message) AppendBinaryDelta(b, delta []byte) ([]byte, error) {
	if m.Delta == nil {
		return b, m.errorf("an encoded delta for a message without Delta (set Delta to the values it decodes to): %w", ErrMalformed)
	}
	d := m.Delta
	got, err := filter.DecodeDelta(delta, algorithms.Layout{Params: d.Len(), Delta: d.Len(), Block: d.BlockWidth()})
	if err != nil {
		return b, m.errorf("encoded delta: %w", wrapMalformed(err))
	}
	if got.Count != d.Count {
		return b, m.errorf("encoded delta has count %d, Delta %d: %w", got.Count, d.Count, ErrMalformed)
	}
	for i, x := range d.Vec {
		if y := got.Vec[i]; math.Float64bits(x) != math.Float64bits(y) && !(x == 0 && y == 0) {
			return b, m.errorf("encoded delta's entry %d is %v, Delta's %v: %w", i, y, x, ErrMalformed)
		}
	}
	start := len(b)
	b, err = m.appendHead(b)
	if err != nil {
		return b[:start], err
	}
	return append(b, delta...), nil
}
