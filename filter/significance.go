package filter

import (
	"fmt"
	"math"

	"github.com/syncmodels/syncmodels/algorithms"
)

// SignificanceConfig configures a Significance filter.
type SignificanceConfig struct {
	// Layout is the workload's layout (algorithms.Algorithm.Layout).
	// Required.
	Layout algorithms.Layout
	// V is the initial significance threshold v ≥ 0, a relative change
	// |acc_i / w_i|, dimensionless. 0 sends every nonzero entry every step:
	// ISP reduces to BSP (MLLess Appendix A, Corollary 1). The MLLess
	// experiments use v = 0.7 on parameter changes; see the package
	// documentation for the units when deltas are gradient sums.
	// Default 0.
	V float64
	// Start is the 0-based number of the first step the filter runs: a
	// worker that joins at global step t sets Start = t so that its
	// threshold follows the global schedule v/√(t+1). Default 0.
	Start int
	// Float32 rounds every sent value to the nearest float32 and keeps the
	// rounding error held, so that sends survive a Float32 wire encoding
	// exactly and nothing is lost. An entry whose rounding is 0 stays held.
	// Flush still returns the exact float64 residuals: encode a flush with
	// Float64. Default false: values are sent as float64.
	Float32 bool
}

func (c *SignificanceConfig) validate() error {
	if err := checkLayout(c.Layout); err != nil {
		return err
	}
	if !(c.V >= 0) || math.IsInf(c.V, 0) {
		return fmt.Errorf("filter: significance threshold V = %v, want finite ≥ 0: %w", c.V, ErrConfig)
	}
	if c.Start < 0 {
		return fmt.Errorf("filter: significance Start = %d, want ≥ 0: %w", c.Start, ErrConfig)
	}
	return nil
}

// Significance is the per-worker significance filter of Insignificance-
// bounded Synchronous Parallel (ISP, MLLess §4.1). It accumulates the
// worker's own updates acc_i and, in step t (0-based), sends entry i when
//
//	|acc_i| > v_t·|w_i|,  v_t = v/√(t+1),
//
// which is |acc_i / w_i| > v_t without the division: w_i = 0 with acc_i ≠ 0
// is sent, 0/0 is not, and v = 0 sends every nonzero entry. A sent entry is
// sent whole and zeroed; the others stay held. w is the replica passed to
// Step.
//
// For a dense layout every entry is checked every step. For a sparse layout
// only the entries of the blocks live in the step's local delta are checked
// (MLLess checks only the PMF rows a minibatch touched); entries held in
// other blocks wait until their block is touched again, or until Flush.
type Significance struct {
	cfg  SignificanceConfig
	acc  accum
	step int
	out  *algorithms.Delta
	// checked lists the blocks the last Step checked (sparse layouts);
	// stepped says a Step has run.
	checked []int32
	stepped bool
}

var _ Filter = (*Significance)(nil)

// NewSignificance returns a significance filter with an empty accumulator.
func NewSignificance(cfg SignificanceConfig) (*Significance, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Significance{
		cfg:  cfg,
		acc:  newAccum(cfg.Layout),
		step: cfg.Start,
		out:  algorithms.NewDelta(cfg.Layout),
	}, nil
}

// Config returns the configuration.
func (f *Significance) Config() SignificanceConfig { return f.cfg }

// Layout returns the layout.
func (f *Significance) Layout() algorithms.Layout { return f.cfg.Layout }

// Clock returns the 0-based number of the next step.
func (f *Significance) Clock() int { return f.step }

// Threshold returns v_t = v/√(t+1) for the next step t. With the paper's
// 1-based step numbers t' = t+1 this is the paper's v/√t'.
func (f *Significance) Threshold() float64 { return threshold(f.cfg.V, f.step) }

func threshold(v float64, step int) float64 { return v / math.Sqrt(float64(step)+1) }

// Step adds local to the accumulator, checks the entries of local's live
// blocks (every entry for a dense layout) against the threshold of this
// step using replica as w, sends the significant ones and advances the
// step. See Filter.Step for ownership, Count and errors; replica is
// required here, and a NaN or ±Inf among its checked entries is an error.
func (f *Significance) Step(local *algorithms.Delta, replica []float64) (*algorithms.Delta, error) {
	l := f.cfg.Layout
	if err := checkLocal(l, local, replica, true); err != nil {
		return nil, err
	}
	if err := f.validate(local, replica); err != nil {
		return nil, err
	}
	vt := f.Threshold()
	out := f.out
	if !f.acc.sparse() {
		// Every entry of out is written: no separate clear.
		out.Count = local.Count
		f.stepSpan(out.Vec, local.Vec, replica, 0, l.Delta, vt)
		f.step++
		f.stepped = true
		return out, nil
	}
	out.Reset()
	out.Count = local.Count
	f.checked = append(f.checked[:0], local.Blocks()...)
	f.stepped = true
	for _, b := range local.Blocks() {
		lo, hi := f.acc.span(b)
		sent, held := f.stepSpan(out.Vec, local.Vec, replica, lo, hi, vt)
		if sent {
			out.Touch(int(b))
		}
		if held {
			f.acc.hold(b)
		} else {
			f.acc.release(b)
		}
	}
	f.step++
	return out, nil
}

// validate reports the first problem among the entries Step would read —
// in index order, per entry: a non-finite replica value, a non-finite local
// value, an accumulated value that would overflow (or not fit float32) —
// without changing anything.
func (f *Significance) validate(local *algorithms.Delta, w []float64) error {
	if !f.acc.sparse() {
		return f.validateSpan(local.Vec, w, 0, len(local.Vec))
	}
	for _, b := range local.Blocks() {
		lo, hi := f.acc.span(b)
		if err := f.validateSpan(local.Vec, w, lo, hi); err != nil {
			return err
		}
	}
	return nil
}

func (f *Significance) validateSpan(local, w []float64, lo, hi int) error {
	acc, loc, ws := f.acc.acc[lo:hi], local[lo:hi], w[lo:hi]
	ws = ws[:len(loc)]
	acc = acc[:len(loc)]
	for k, v := range loc {
		s := acc[k] + v // acc is finite, so s is finite iff v and the sum are
		if (s-s)+(ws[k]-ws[k]) == 0 {
			continue
		}
		switch {
		case !finite(ws[k]):
			return nonFinite("params", lo+k, ws[k])
		case !finite(v):
			return nonFinite("delta", lo+k, v)
		default:
			return nonFinite("accumulated delta", lo+k, s)
		}
	}
	if f.cfg.Float32 {
		for k, v := range loc {
			if s := acc[k] + v; math.IsInf(round32(s), 0) {
				return rangeError(lo+k, s)
			}
		}
	}
	return nil
}

// stepSpan adds local[lo:hi] into the accumulator and moves the
// significant entries into out[lo:hi], writing every entry of out[lo:hi].
// It reports whether it sent any entry and whether any stays held.
func (f *Significance) stepSpan(out, local, w []float64, lo, hi int, vt float64) (sent, held bool) {
	acc, loc := f.acc.acc[lo:hi], local[lo:hi]
	acc, out, w = acc[:len(loc)], out[lo:hi][:len(loc)], w[lo:hi][:len(loc)]
	f32 := f.cfg.Float32
	for k, x := range loc {
		a := acc[k] + x
		v := 0.0
		// |a| > v_t·|w|: the division-free |a/w| > v_t.
		if a != 0 && math.Abs(a) > vt*math.Abs(w[k]) {
			v = a
			if f32 {
				v = round32(a)
			}
		}
		out[k] = v
		a -= v
		acc[k] = a
		sent = sent || v != 0
		held = held || a != 0
	}
	return sent, held
}

// Worst returns, among the entries the last Step checked (every entry for
// a dense layout, the entries of its local delta's live blocks for a
// sparse one), the held entry with the largest excess |acc_i| − v_t·|w_i|
// over that step's threshold v_t, with its accumulated value and its
// replica value w_i; ok is false when that step left no checked entry
// held, or no Step has run. replica must be the one passed to that Step.
// Right after a Step every checked held entry satisfies |acc_i| ≤
// v_t·|w_i| (MLLess §4.1, the bound of Theorem 1's proof), so a
// divergence checker (consistency.Held) verifies the bound on this entry
// alone.
func (f *Significance) Worst(replica []float64) (i int, acc, w float64, ok bool) {
	if !f.stepped || len(replica) != f.cfg.Layout.Delta {
		return -1, 0, 0, false
	}
	vt := threshold(f.cfg.V, f.step-1)
	best := math.Inf(-1)
	i = -1
	scan := func(lo, hi int) {
		for k, a := range f.acc.acc[lo:hi] {
			if a == 0 {
				continue
			}
			if x := math.Abs(a) - float64(vt*math.Abs(replica[lo+k])); x > best || i < 0 {
				best, i = x, lo+k
			}
		}
	}
	if !f.acc.sparse() {
		scan(0, len(f.acc.acc))
	} else {
		for _, b := range f.checked {
			scan(f.acc.span(b))
		}
	}
	if i < 0 {
		return -1, 0, 0, false
	}
	return i, f.acc.acc[i], replica[i], true
}

// Flush returns everything held with Count 0 and empties the accumulator.
// The step number is kept.
func (f *Significance) Flush() *algorithms.Delta { return f.acc.flush() }

// Held summarises the accumulator.
func (f *Significance) Held() Held { return f.acc.held() }

// RangeHeld calls fn for every nonzero held entry in increasing index order.
func (f *Significance) RangeHeld(fn func(i int, v float64) bool) { f.acc.rangeHeld(fn) }
