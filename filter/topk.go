package filter

import (
	"fmt"
	"math"

	"github.com/syncmodels/syncmodels/algorithms"
)

// TopKConfig configures a TopK filter.
type TopKConfig struct {
	// Layout is the workload's layout (algorithms.Algorithm.Layout).
	// Required.
	Layout algorithms.Layout
	// K is the number of entries sent per step, ≥ 1. Required.
	K int
	// Float32 rounds every sent value to the nearest float32 and keeps the
	// rounding error held, as SignificanceConfig.Float32. Default false.
	Float32 bool
}

func (c *TopKConfig) validate() error {
	if err := checkLayout(c.Layout); err != nil {
		return err
	}
	if c.K < 1 {
		return fmt.Errorf("filter: top-k K = %d, want ≥ 1: %w", c.K, ErrConfig)
	}
	return nil
}

// TopK is top-k sparsification with error feedback (residual
// accumulation): each step adds the local delta to the accumulator and sends
// the K held entries of largest magnitude, whole; everything else stays held
// and competes again next step, so no update is lost, only delayed. Ties in
// magnitude go to the smaller index, so the choice is deterministic.
//
// Every held entry is a candidate, including entries of sparse blocks the
// step's local delta did not touch. The replica is not used.
type TopK struct {
	cfg  TopKConfig
	acc  accum
	heap []int32 // candidate indices, worst at the root
	out  *algorithms.Delta
}

var _ Filter = (*TopK)(nil)

// NewTopK returns a top-k filter with an empty accumulator.
func NewTopK(cfg TopKConfig) (*TopK, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &TopK{cfg: cfg, acc: newAccum(cfg.Layout), out: algorithms.NewDelta(cfg.Layout)}, nil
}

// Config returns the configuration.
func (f *TopK) Config() TopKConfig { return f.cfg }

// Layout returns the layout.
func (f *TopK) Layout() algorithms.Layout { return f.cfg.Layout }

// Step adds local to the accumulator and sends the K largest held entries.
// replica is not used and may be nil (if given, its length is checked).
// See Filter.Step for ownership, Count and errors.
func (f *TopK) Step(local *algorithms.Delta, replica []float64) (*algorithms.Delta, error) {
	if err := checkLocal(f.cfg.Layout, local, replica, false); err != nil {
		return nil, err
	}
	if err := f.acc.validate(local, f.cfg.Float32); err != nil {
		return nil, err
	}
	f.acc.add(local)

	f.heap = f.heap[:0]
	if !f.acc.sparse() {
		f.offer(0, f.cfg.Layout.Delta)
	} else {
		for _, b := range local.Blocks() {
			f.acc.settle(b) // release blocks that cancelled to zero
		}
		for _, b := range f.acc.blocks {
			f.offer(f.acc.span(b))
		}
	}

	out := f.out
	out.Reset()
	out.Count = local.Count
	acc := f.acc.acc
	for _, i := range f.heap {
		a := acc[i]
		v := a
		if f.cfg.Float32 {
			if v = round32(a); v == 0 {
				continue
			}
		}
		out.Vec[i] = v
		acc[i] = a - v
	}
	if f.acc.sparse() {
		w := int32(f.cfg.Layout.Block)
		for _, i := range f.heap {
			out.Touch(int(i / w))
			f.acc.settle(i / w)
		}
	}
	return out, nil
}

// worse reports whether entry i ranks below entry j: smaller magnitude, or
// equal magnitude and larger index.
func (f *TopK) worse(i, j int32) bool {
	a, b := math.Abs(f.acc.acc[i]), math.Abs(f.acc.acc[j])
	return a < b || (a == b && i > j)
}

// offer considers the nonzero entries of [lo, hi) for the top K.
func (f *TopK) offer(lo, hi int) {
	k := f.cfg.K
	for i := lo; i < hi; i++ {
		if f.acc.acc[i] == 0 {
			continue
		}
		c := int32(i)
		if len(f.heap) < k {
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

func (f *TopK) up(j int) {
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

func (f *TopK) down(j int) {
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

// Flush returns everything held with Count 0 and empties the accumulator.
func (f *TopK) Flush() *algorithms.Delta { return f.acc.flush() }

// Held summarises the accumulator.
func (f *TopK) Held() Held { return f.acc.held() }

// RangeHeld calls fn for every nonzero held entry in increasing index order.
func (f *TopK) RangeHeld(fn func(i int, v float64) bool) { f.acc.rangeHeld(fn) }
