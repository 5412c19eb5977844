package algorithms

import (
	"fmt"
	"math"
	"slices"
)

// Layout describes the vectors an Algorithm works with.
type Layout struct {
	// Params is the length of the parameter vector θ that the server
	// broadcasts to workers.
	Params int
	// Delta is the length of an additive delta (gradient sum for GD,
	// sufficient-statistics change for EM).
	Delta int
	// Block is the width of a sparse block of the delta: deltas record which
	// blocks [b·Block, (b+1)·Block) a worker touched, so that only those are
	// merged, filtered or sent. 0 means deltas are dense: every entry is live.
	// PMF uses the rank (one block per factor row); hashed LR uses 1.
	Block int
}

// Delta is an additive update: the sum of the contributions of Count data
// points. Deltas are associative and commutative under Merge, which is what
// lets one workload run under every synchronization model: a batch may be cut
// after any point, parts may be held back and sent later, and deltas from
// different workers may be merged in any grouping.
//
// Storage is a dense vector Vec of the layout's Delta length. A sparse delta
// (Layout.Block > 0) also tracks which blocks are live; entries outside live
// blocks are zero. Workloads write into Vec directly and call Touch for every
// block they write.
type Delta struct {
	// Vec holds the values; len(Vec) == Layout.Delta.
	Vec []float64
	// Count is the number of data-point contributions summed in Vec.
	Count int

	block  int
	blocks []int32 // touched blocks; in increasing order when sorted
	mark   []bool  // mark[b] reports whether block b is in blocks
	sorted bool    // blocks is in increasing order
}

// NewDelta returns a zero delta for the layout.
func NewDelta(l Layout) *Delta {
	d := &Delta{Vec: make([]float64, l.Delta), block: l.Block, sorted: true}
	if l.Block > 0 {
		d.mark = make([]bool, (l.Delta+l.Block-1)/l.Block)
	}
	return d
}

// Len returns the length of the delta vector.
func (d *Delta) Len() int { return len(d.Vec) }

// Sparse reports whether d tracks live blocks.
func (d *Delta) Sparse() bool { return d.block > 0 }

// BlockWidth returns the sparse block width, 0 for a dense delta.
func (d *Delta) BlockWidth() int { return d.block }

// Touch marks block b as live. It is a no-op for dense deltas.
func (d *Delta) Touch(b int) {
	if d.block == 0 || d.mark[b] {
		return
	}
	d.mark[b] = true
	if n := len(d.blocks); n > 0 && d.blocks[n-1] > int32(b) {
		d.sorted = false
	}
	d.blocks = append(d.blocks, int32(b))
}

// Blocks returns the live blocks in increasing order (nil for a dense delta).
// The slice is owned by d and valid until d changes.
func (d *Delta) Blocks() []int32 {
	if d.block == 0 {
		return nil
	}
	if !d.sorted {
		if len(d.blocks) > len(d.mark)/32 {
			// Many live blocks: rebuilding from the marks is linear.
			d.blocks = d.blocks[:0]
			for b, m := range d.mark {
				if m {
					d.blocks = append(d.blocks, int32(b))
				}
			}
		} else {
			slices.Sort(d.blocks)
		}
		d.sorted = true
	}
	return d.blocks
}

// span returns the index range of block b.
func (d *Delta) span(b int32) (int, int) {
	lo := int(b) * d.block
	return lo, min(lo+d.block, len(d.Vec))
}

// Reset zeroes d in time proportional to its live entries.
func (d *Delta) Reset() {
	d.Count = 0
	if d.block == 0 {
		clear(d.Vec)
		return
	}
	for _, b := range d.blocks {
		lo, hi := d.span(b)
		clear(d.Vec[lo:hi])
		d.mark[b] = false
	}
	d.blocks = d.blocks[:0]
	d.sorted = true
}

// Merge adds o into d. The layouts must match.
func (d *Delta) Merge(o *Delta) error {
	if len(o.Vec) != len(d.Vec) || o.block != d.block {
		return fmt.Errorf("algorithms: merge of delta len %d block %d into len %d block %d: %w",
			len(o.Vec), o.block, len(d.Vec), d.block, ErrLayout)
	}
	d.Count += o.Count
	if o.block == 0 {
		for i, v := range o.Vec {
			d.Vec[i] += v
		}
		return nil
	}
	for _, b := range o.blocks {
		d.Touch(int(b))
		lo, hi := o.span(b)
		dv, ov := d.Vec[lo:hi], o.Vec[lo:hi]
		for i := range ov {
			dv[i] += ov[i]
		}
	}
	return nil
}

// Clone returns a deep copy of d.
func (d *Delta) Clone() *Delta {
	c := &Delta{Vec: slices.Clone(d.Vec), Count: d.Count, block: d.block, sorted: d.sorted}
	if d.block > 0 {
		c.mark = slices.Clone(d.mark)
		c.blocks = slices.Clone(d.blocks)
	}
	return c
}

// Range calls fn for every live entry in increasing index order, stopping
// early when fn returns false. Dense deltas visit every entry.
func (d *Delta) Range(fn func(i int, v float64) bool) {
	if d.block == 0 {
		for i, v := range d.Vec {
			if !fn(i, v) {
				return
			}
		}
		return
	}
	for _, b := range d.Blocks() {
		lo, hi := d.span(b)
		for i := lo; i < hi; i++ {
			if !fn(i, d.Vec[i]) {
				return
			}
		}
	}
}

// Live returns the number of live entries (len(Vec) for a dense delta).
func (d *Delta) Live() int {
	if d.block == 0 {
		return len(d.Vec)
	}
	n := 0
	for _, b := range d.blocks {
		lo, hi := d.span(b)
		n += hi - lo
	}
	return n
}

// CheckFinite returns a *NonFiniteError naming the first live entry that is
// NaN or ±Inf, or nil.
func (d *Delta) CheckFinite() error {
	var err error
	d.Range(func(i int, v float64) bool {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			err = &NonFiniteError{What: "delta", Index: i, Value: v}
			return false
		}
		return true
	})
	return err
}
