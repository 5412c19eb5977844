package filter

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/syncmodels/syncmodels/algorithms"
)

// This file holds the plain-slice forms of TopK and QSGDFilter, for a
// caller whose updates are a []float64 rather than an algorithms.Delta:
// TopKVec and QSGDVec. They are the implementations; TopK and QSGDFilter
// wrap them with a Delta's layout, Count and live blocks.

// TopKVecConfig configures a TopKVec.
type TopKVecConfig struct {
	// Len is the length of every vector Step takes, 1 ≤ Len ≤ 2^31−1.
	// Required.
	Len int
	// K is the number of entries sent per step, ≥ 1. Required.
	K int
	// Float32 rounds every sent value to the nearest float32 and keeps the
	// rounding error held, as TopKConfig.Float32. Default false.
	Float32 bool
}

func (c TopKVecConfig) validate() error {
	if err := checkLen("TopKVecConfig", c.Len); err != nil {
		return err
	}
	if c.K < 1 {
		return fmt.Errorf("filter: TopKVecConfig.K = %d, want ≥ 1: %w", c.K, ErrConfig)
	}
	return nil
}

func checkLen(config string, n int) error {
	if n < 1 || n > math.MaxInt32 {
		return fmt.Errorf("filter: %s.Len = %d, want 1..2^31-1: %w", config, n, ErrConfig)
	}
	return nil
}

// TopKVec is top-k sparsification with error feedback on plain vectors:
// each Step adds x to the accumulator (the residual) and sends the K held
// entries of largest magnitude, whole; everything else stays held and
// competes again next step, so no update is lost, only delayed. Ties in
// magnitude go to the smaller index. At every moment, entry by entry,
// Σ sent + held = Σ x exactly (floating-point sums aside).
//
// TopK is the same filter on an algorithms.Delta, and runs this code. A
// TopKVec is not safe for concurrent use.
type TopKVec struct {
	k    int
	f32  bool
	acc  accum
	heap []int32 // candidate indices, worst at the root
}

// NewTopKVec returns a top-k filter for vectors of cfg.Len entries with an
// empty accumulator, or an error wrapping ErrConfig.
func NewTopKVec(cfg TopKVecConfig) (*TopKVec, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return newTopKVec(algorithms.Layout{Delta: cfg.Len}, cfg.K, cfg.Float32), nil
}

// newTopKVec returns a TopKVec over an accumulator of layout l: dense for
// NewTopKVec, the workload's (maybe sparse) layout for TopK.
func newTopKVec(l algorithms.Layout, k int, f32 bool) *TopKVec {
	return &TopKVec{k: k, f32: f32, acc: newAccum(l)}
}

// Len returns the length of the vectors.
func (f *TopKVec) Len() int { return f.acc.l.Delta }

// Step adds x to the accumulator and writes the send into dst, which it
// returns: the K largest held entries at their indices, zeros elsewhere
// (fewer than K nonzeros when fewer entries are held). dst is resized to
// Len (a nil dst allocates). x of the wrong length wraps ErrLength; a NaN
// or ±Inf in x, or an accumulated entry that would overflow, is an error
// naming x[i] that wraps an *algorithms.NonFiniteError (What "x" or
// "accumulated delta"); a sum out of float32 range with Float32 wraps
// ErrRange. After an error the filter and dst are unchanged.
func (f *TopKVec) Step(dst, x []float64) ([]float64, error) {
	if err := f.checkX("TopKVec", x); err != nil {
		return dst, err
	}
	if err := f.acc.validate(x, nil, "x", f.f32); err != nil {
		return dst, vecError("TopKVec", err)
	}
	dst = zeroed(dst, len(x))
	f.step(x, nil, dst)
	return dst, nil
}

func (f *TopKVec) checkX(op string, x []float64) error {
	if len(x) != f.Len() {
		return fmt.Errorf("filter: %s.Step: x has %d entries, want %d (Len): %w", op, len(x), f.Len(), ErrLength)
	}
	return nil
}

// stepError is an error of a plain-vector Step: a message of this package
// that names the entry, wrapping the *algorithms.NonFiniteError (or the
// ErrRange error) it describes.
type stepError struct {
	msg string
	err error
}

func (e *stepError) Error() string { return e.msg }
func (e *stepError) Unwrap() error { return e.err }

// vecError rewords an accumulator validation error for the plain-vector
// API, in this package's words: x[i], not a delta entry.
func vecError(op string, err error) error {
	var nf *algorithms.NonFiniteError
	if !errors.As(err, &nf) {
		return err // ErrRange: already names the entry, in this package's words
	}
	msg := fmt.Sprintf("filter: %s.Step: x[%d] = %v: not finite", op, nf.Index, nf.Value)
	if nf.What != "x" {
		msg = fmt.Sprintf("filter: %s.Step: x[%d] makes the held entry %v: overflow", op, nf.Index, nf.Value)
	}
	return &stepError{msg: msg, err: err}
}

// zeroed returns dst resized to n entries, all zero.
func zeroed(dst []float64, n int) []float64 {
	dst = slices.Grow(dst[:0], n)[:n]
	clear(dst)
	return dst
}

// step adds x, validated, to the accumulator — for a sparse accumulator,
// the blocks listed — selects the K largest held entries and moves them
// into out, whose other entries it does not touch. It returns the selected
// indices, in no order, valid until the next step.
func (f *TopKVec) step(x []float64, blocks []int32, out []float64) []int32 {
	f.acc.add(x, blocks)
	f.heap = f.heap[:0]
	if !f.acc.sparse() {
		f.offer(0, f.acc.l.Delta)
	} else {
		for _, b := range blocks {
			f.acc.settle(b) // release blocks that cancelled to zero
		}
		for _, b := range f.acc.blocks {
			f.offer(f.acc.span(b))
		}
	}
	acc := f.acc.acc
	for _, i := range f.heap {
		a := acc[i]
		v := a
		if f.f32 {
			if v = round32(a); v == 0 {
				continue
			}
		}
		out[i] = v
		acc[i] = a - v
	}
	if f.acc.sparse() {
		w := int32(f.acc.l.Block)
		for _, i := range f.heap {
			f.acc.settle(i / w)
		}
	}
	return f.heap
}

// worse reports whether entry i ranks below entry j: smaller magnitude, or
// equal magnitude and larger index.
func (f *TopKVec) worse(i, j int32) bool {
	a, b := math.Abs(f.acc.acc[i]), math.Abs(f.acc.acc[j])
	return a < b || (a == b && i > j)
}

// offer considers the nonzero entries of [lo, hi) for the top K.
func (f *TopKVec) offer(lo, hi int) {
	for i := lo; i < hi; i++ {
		if f.acc.acc[i] == 0 {
			continue
		}
		c := int32(i)
		if len(f.heap) < f.k {
			f.heap = append(f.heap, c)
			f.up(len(f.heap) - 1)
			continue
		}
		if f.worse(f.heap[0], c) {
			f.heap[0] = c
			f.down(0)
		}
	}
}

func (f *TopKVec) up(j int) {
	h := f.heap
	for j > 0 {
		p := (j - 1) / 2
		if !f.worse(h[j], h[p]) {
			break
		}
		h[j], h[p] = h[p], h[j]
		j = p
	}
}

func (f *TopKVec) down(j int) {
	h := f.heap
	n := len(h)
	for {
		c := 2*j + 1
		if c >= n {
			return
		}
		if c+1 < n && f.worse(h[c+1], h[c]) {
			c++
		}
		if !f.worse(h[c], h[j]) {
			return
		}
		h[j], h[c] = h[c], h[j]
		j = c
	}
}

// Flush writes everything held into dst (resized to Len), returns it and
// empties the accumulator: for a worker that leaves.
func (f *TopKVec) Flush(dst []float64) []float64 { return f.acc.flushInto(dst) }

// Held summarises the accumulator.
func (f *TopKVec) Held() Held { return f.acc.held() }

// RangeHeld calls fn for every nonzero held entry in increasing index
// order, stopping early when fn returns false. fn must not call f.
func (f *TopKVec) RangeHeld(fn func(i int, v float64) bool) { f.acc.rangeHeld(fn) }

// QSGDVecConfig configures a QSGDVec.
type QSGDVecConfig struct {
	// Len is the length of every vector Step takes, 1 ≤ Len ≤ 2^31−1.
	// Required.
	Len int
	// QSGD configures the quantiser. The zero value is 255 levels, L∞.
	QSGD QSGD
	// ErrorFeedback keeps the quantisation error x − Q(x) held and adds it
	// to the next step's input, as QSGDFilterConfig.ErrorFeedback. Without
	// it (the default) each send is an unbiased estimate of x and nothing
	// is held.
	ErrorFeedback bool
	// Rand is the source of the rounding draws. Required.
	Rand *rand.Rand
}

// QSGDVec applies QSGD to plain vectors step by step: each Step quantises
// x (plus, with error feedback, what earlier steps held back) with one
// norm and sends the decoded values sign·N·l/s; Quantized gives the levels
// for the packed encoding (Quantized.AppendBinary). For a single vector
// with no state, QSGD.Quantize is enough.
//
// QSGDFilter is the same filter on an algorithms.Delta, and runs this
// code. A QSGDVec is not safe for concurrent use.
type QSGDVec struct {
	q   QSGD
	ef  bool
	rng *rand.Rand
	acc accum
	x   []float64 // sparse: the held blocks' entries, gathered
	idx []int32   // sparse: their indices; nil for dense layouts
	lv  Quantized // the last step's quantisation
}

// NewQSGDVec returns a QSGD filter for vectors of cfg.Len entries, or an
// error wrapping ErrConfig.
func NewQSGDVec(cfg QSGDVecConfig) (*QSGDVec, error) {
	if err := checkLen("QSGDVecConfig", cfg.Len); err != nil {
		return nil, err
	}
	return newQSGDVec(algorithms.Layout{Delta: cfg.Len}, cfg.QSGD, cfg.ErrorFeedback, cfg.Rand)
}

// newQSGDVec returns a QSGDVec over an accumulator of layout l: dense for
// NewQSGDVec, the workload's (maybe sparse) layout for QSGDFilter.
func newQSGDVec(l algorithms.Layout, q QSGD, ef bool, rng *rand.Rand) (*QSGDVec, error) {
	q, err := q.withDefaults()
	if err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, fmt.Errorf("filter: QSGD filter needs Rand: %w", ErrConfig)
	}
	f := &QSGDVec{q: q, ef: ef, rng: rng, acc: newAccum(l)}
	f.lv = Quantized{Norm: q.Norm, Levels: q.Levels}
	return f, nil
}

// Len returns the length of the vectors.
func (f *QSGDVec) Len() int { return f.acc.l.Delta }

// Step adds x to the accumulator, quantises everything held and writes
// the decoded send into dst (resized to Len; nil allocates), which it
// returns. The draws are taken in increasing index order. Errors are those
// of TopKVec.Step (without ErrRange); after an error the filter and dst
// are unchanged.
func (f *QSGDVec) Step(dst, x []float64) ([]float64, error) {
	if len(x) != f.Len() {
		return dst, fmt.Errorf("filter: QSGDVec.Step: x has %d entries, want %d (Len): %w", len(x), f.Len(), ErrLength)
	}
	if err := f.acc.validate(x, nil, "x", false); err != nil {
		return dst, vecError("QSGDVec", err)
	}
	dst = zeroed(dst, len(x))
	if err := f.step(x, nil, dst); err != nil {
		return nil, err
	}
	return dst, nil
}

// step adds x, validated, to the accumulator — for a sparse accumulator,
// the blocks listed — quantises every held entry (for a sparse layout,
// every entry of a held block, in increasing index order) and writes the
// decoded nonzero levels into out, whose other entries it does not touch.
func (f *QSGDVec) step(x []float64, blocks []int32, out []float64) error {
	f.acc.add(x, blocks)
	acc := f.acc.acc
	q := acc
	f.idx = f.idx[:0]
	if f.acc.sparse() {
		f.x = f.x[:0]
		for _, b := range f.acc.heldSorted() {
			lo, hi := f.acc.span(b)
			for i := lo; i < hi; i++ {
				f.idx = append(f.idx, int32(i))
			}
			f.x = append(f.x, acc[lo:hi]...)
		}
		q = f.x
	}
	// q is finite (validated), the config valid and Rand set: no error.
	if err := f.q.Quantize(&f.lv, q, f.rng); err != nil {
		return err
	}
	for k, l := range f.lv.L {
		i := f.index(k)
		var v float64
		if l != 0 {
			v = f.lv.Value(k)
			out[i] = v
		}
		if f.ef {
			acc[i] -= v
		} else {
			acc[i] = 0
		}
	}
	if f.acc.sparse() {
		for _, b := range f.acc.heldSorted() {
			f.acc.settle(b)
		}
	}
	return nil
}

// index is the vector index of the last quantisation's entry k.
func (f *QSGDVec) index(k int) int {
	if f.acc.sparse() {
		return int(f.idx[k])
	}
	return k
}

// Quantized returns the last step's quantisation (every entry, in index
// order). It is owned by f and valid until the next Step.
func (f *QSGDVec) Quantized() *Quantized { return &f.lv }

// Flush writes everything held into dst (resized to Len), returns it and
// empties the accumulator (always empty without error feedback).
func (f *QSGDVec) Flush(dst []float64) []float64 { return f.acc.flushInto(dst) }

// Held summarises the accumulator.
func (f *QSGDVec) Held() Held { return f.acc.held() }

// RangeHeld calls fn for every nonzero held entry in increasing index
// order, stopping early when fn returns false. fn must not call f.
func (f *QSGDVec) RangeHeld(fn func(i int, v float64) bool) { f.acc.rangeHeld(fn) }
