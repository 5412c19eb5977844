package filter

import (
	"math/rand/v2"

	"github.com/syncmodels/syncmodels/algorithms"
)

// QSGDFilterConfig configures a QSGDFilter.
type QSGDFilterConfig struct {
	// Layout is the workload's layout (algorithms.Algorithm.Layout).
	// Required.
	Layout algorithms.Layout
	// QSGD configures the quantiser. The zero value is 255 levels, L∞.
	QSGD QSGD
	// ErrorFeedback keeps the quantisation error x − Q(x) held and adds it
	// to the next step's input (error-feedback compression). Without it
	// (the default, as in Alistarh et al. and the P2P code) the error is
	// dropped: each send is an unbiased estimate of the step's delta, and
	// nothing is held.
	ErrorFeedback bool
	// Rand is the source of the rounding draws. Required.
	Rand *rand.Rand
}

// QSGDFilter sends the QSGD quantisation of the worker's updates each step:
// every held entry (for a sparse layout, every entry of a held block) is
// quantised together, with one norm, and the entries with a nonzero level
// are sent as their decoded values sign·N·l/s. AppendMessage writes the
// step's send in packed form.
//
// Without error feedback the quantisation error is dropped, so the filter
// is unbiased but not lossless: E[sent] equals the local delta, and Held is
// always empty after a step. With error feedback nothing is dropped but the
// residual x − Q(x) is computed in floating point, so "sent + held = sum of
// local" holds to rounding error, not exactly.
//
// The replica is not used.
type QSGDFilter struct {
	cfg   QSGDFilterConfig
	vec   *QSGDVec
	out   *algorithms.Delta
	count int // Count of the last step's send
}

var _ Filter = (*QSGDFilter)(nil)

// NewQSGDFilter returns a QSGD filter with an empty accumulator.
func NewQSGDFilter(cfg QSGDFilterConfig) (*QSGDFilter, error) {
	if err := checkLayout(cfg.Layout); err != nil {
		return nil, err
	}
	vec, err := newQSGDVec(cfg.Layout, cfg.QSGD, cfg.ErrorFeedback, cfg.Rand)
	if err != nil {
		return nil, err
	}
	cfg.QSGD = vec.q
	return &QSGDFilter{cfg: cfg, vec: vec, out: algorithms.NewDelta(cfg.Layout)}, nil
}

// Config returns the configuration, defaults filled in.
func (f *QSGDFilter) Config() QSGDFilterConfig { return f.cfg }

// Layout returns the layout.
func (f *QSGDFilter) Layout() algorithms.Layout { return f.cfg.Layout }

// Step adds local to the accumulator, quantises every held entry and sends
// the nonzero levels, decoded. The draws are taken in increasing index
// order. replica is not used and may be nil. See Filter.Step for ownership,
// Count and errors. QSGDFilter runs QSGDVec over the delta's entries: for
// a delta whose dense form is x, it sends what QSGDVec sends for x with
// the same draws.
func (f *QSGDFilter) Step(local *algorithms.Delta, replica []float64) (*algorithms.Delta, error) {
	if err := checkLocal(f.cfg.Layout, local, replica, false); err != nil {
		return nil, err
	}
	blocks := local.Blocks()
	if err := f.vec.acc.validate(local.Vec, blocks, "delta", false); err != nil {
		return nil, err
	}
	out := f.out
	out.Reset()
	out.Count = local.Count
	f.count = local.Count
	if err := f.vec.step(local.Vec, blocks, out.Vec); err != nil {
		return nil, err
	}
	if w := f.cfg.Layout.Block; w > 0 {
		for k, l := range f.vec.lv.L {
			if l != 0 {
				out.Touch(f.vec.index(k) / w)
			}
		}
	}
	return out, nil
}

// Quantized returns the last step's quantisation: the levels of the
// entries it quantised, in increasing index order (every entry for a dense
// layout). It is owned by the filter and valid until the next Step.
func (f *QSGDFilter) Quantized() *Quantized { return f.vec.Quantized() }

// AppendMessage appends the wire encoding of the last step's send (as
// DecodeDelta reads it) to b: the sent indices and their packed levels,
// one sign bit plus ⌈log2(s+1)⌉ magnitude bits each, with the float64 norm.
// DecodeDelta returns exactly the delta Step returned. Before the first
// Step it encodes an empty delta.
func (f *QSGDFilter) AppendMessage(b []byte) []byte {
	l := f.cfg.Layout
	var idx []int32
	if f.vec.acc.sparse() {
		idx = f.vec.idx
	}
	return appendQSGDDelta(b, l.Delta, l.Block, f.count, idx, &f.vec.lv)
}

// Flush returns everything held with Count 0 and empties the accumulator
// (always empty without error feedback).
func (f *QSGDFilter) Flush() *algorithms.Delta { return f.vec.acc.flush() }

// Held summarises the accumulator.
func (f *QSGDFilter) Held() Held { return f.vec.Held() }

// RangeHeld calls fn for every nonzero held entry in increasing index order.
func (f *QSGDFilter) RangeHeld(fn func(i int, v float64) bool) { f.vec.RangeHeld(fn) }
