package filter

import (
	"fmt"

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
// step's local delta did not touch. The replica is not used. TopK runs
// TopKVec, the same filter on a plain []float64, over the delta's entries:
// for a delta whose dense form is x, TopK sends what TopKVec sends for x.
type TopK struct {
	cfg TopKConfig
	vec *TopKVec
	out *algorithms.Delta
}

var _ Filter = (*TopK)(nil)

// NewTopK returns a top-k filter with an empty accumulator.
func NewTopK(cfg TopKConfig) (*TopK, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &TopK{cfg: cfg, vec: newTopKVec(cfg.Layout, cfg.K, cfg.Float32), out: algorithms.NewDelta(cfg.Layout)}, nil
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
	blocks := local.Blocks()
	if err := f.vec.acc.validate(local.Vec, blocks, "delta", f.cfg.Float32); err != nil {
		return nil, err
	}
	out := f.out
	out.Reset()
	out.Count = local.Count
	sent := f.vec.step(local.Vec, blocks, out.Vec)
	if w := int32(f.cfg.Layout.Block); w > 0 {
		for _, i := range sent {
			out.Touch(int(i / w))
		}
	}
	return out, nil
}

// Flush returns everything held with Count 0 and empties the accumulator.
func (f *TopK) Flush() *algorithms.Delta { return f.vec.acc.flush() }

// Held summarises the accumulator.
func (f *TopK) Held() Held { return f.vec.Held() }

// RangeHeld calls fn for every nonzero held entry in increasing index order.
func (f *TopK) RangeHeld(fn func(i int, v float64) bool) { f.vec.RangeHeld(fn) }
