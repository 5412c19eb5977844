package filter

import (
	"math"
	"slices"

	"github.com/syncmodels/syncmodels/algorithms"
)

// accum is the accumulator every filter owns: acc_i, the worker's own
// updates to entry i not yet sent. For a sparse layout it also tracks the
// held blocks, exactly the blocks with a nonzero entry once a step settles,
// so that work is proportional to what is held, not to the layout.
type accum struct {
	l      algorithms.Layout
	acc    []float64
	pos    []int32 // sparse: pos[b] is b's index in blocks, or -1
	blocks []int32 // sparse: held blocks, unordered
	sorted []int32 // scratch for heldSorted
}

func newAccum(l algorithms.Layout) accum {
	a := accum{l: l, acc: make([]float64, l.Delta)}
	if l.Block > 0 {
		a.pos = make([]int32, (l.Delta+l.Block-1)/l.Block)
		for i := range a.pos {
			a.pos[i] = -1
		}
	}
	return a
}

func (a *accum) sparse() bool { return a.l.Block > 0 }

// span returns the index range of block b.
func (a *accum) span(b int32) (int, int) {
	lo := int(b) * a.l.Block
	return lo, min(lo+a.l.Block, a.l.Delta)
}

// validate reports the first problem that adding vec (its blocks, for a
// sparse accumulator) to the accumulator would cause — a non-finite entry,
// named what, a sum that overflows, or (when f32 is set) a sum too large
// for float32 — without changing anything.
func (a *accum) validate(vec []float64, blocks []int32, what string, f32 bool) error {
	check := func(lo, hi int) error {
		acc, loc := a.acc[lo:hi], vec[lo:hi]
		for k, v := range loc {
			s := acc[k] + v // acc is finite, so s is finite iff v and the sum are
			if s-s == 0 {
				continue
			}
			if !finite(v) {
				return nonFinite(what, lo+k, v)
			}
			return nonFinite("accumulated delta", lo+k, s)
		}
		if f32 {
			for k, v := range loc {
				if s := acc[k] + v; math.IsInf(round32(s), 0) {
					return rangeError(lo+k, s)
				}
			}
		}
		return nil
	}
	if !a.sparse() {
		return check(0, a.l.Delta)
	}
	for _, b := range blocks {
		lo, hi := a.span(b)
		if err := check(lo, hi); err != nil {
			return err
		}
	}
	return nil
}

// add adds vec (its blocks, for a sparse accumulator), already validated,
// into the accumulator and holds its blocks.
func (a *accum) add(vec []float64, blocks []int32) {
	if !a.sparse() {
		for i, v := range vec {
			a.acc[i] += v
		}
		return
	}
	for _, b := range blocks {
		lo, hi := a.span(b)
		acc, loc := a.acc[lo:hi], vec[lo:hi]
		for k, v := range loc {
			acc[k] += v
		}
		a.hold(b)
	}
}

func (a *accum) hold(b int32) {
	if a.pos[b] < 0 {
		a.pos[b] = int32(len(a.blocks))
		a.blocks = append(a.blocks, b)
	}
}

func (a *accum) release(b int32) {
	p := a.pos[b]
	if p < 0 {
		return
	}
	last := a.blocks[len(a.blocks)-1]
	a.blocks[p] = last
	a.pos[last] = p
	a.blocks = a.blocks[:len(a.blocks)-1]
	a.pos[b] = -1
}

// settle holds b if it has a nonzero entry and releases it otherwise.
func (a *accum) settle(b int32) {
	lo, hi := a.span(b)
	for _, v := range a.acc[lo:hi] {
		if v != 0 {
			a.hold(b)
			return
		}
	}
	a.release(b)
}

// heldSorted returns the held blocks in increasing order; the slice is
// scratch, valid until the next call.
func (a *accum) heldSorted() []int32 {
	a.sorted = append(a.sorted[:0], a.blocks...)
	slices.Sort(a.sorted)
	return a.sorted
}

// rangeHeld calls fn for every nonzero entry in increasing index order.
func (a *accum) rangeHeld(fn func(i int, v float64) bool) {
	visit := func(lo, hi int) bool {
		for i, v := range a.acc[lo:hi] {
			if v != 0 && !fn(lo+i, v) {
				return false
			}
		}
		return true
	}
	if !a.sparse() {
		visit(0, a.l.Delta)
		return
	}
	for _, b := range a.heldSorted() {
		if lo, hi := a.span(b); !visit(lo, hi) {
			return
		}
	}
}

func (a *accum) held() Held {
	var h Held
	a.rangeHeld(func(_ int, v float64) bool {
		h.Entries++
		h.LInf = max(h.LInf, math.Abs(v))
		return true
	})
	if h.LInf == 0 {
		return h
	}
	// Scaled sum of squares: no overflow for entries near MaxFloat64.
	var ss float64
	a.rangeHeld(func(_ int, v float64) bool {
		r := v / h.LInf
		ss += float64(r * r)
		return true
	})
	h.L2 = h.LInf * math.Sqrt(ss)
	return h
}

// flushInto moves every held entry into dst, resized to the layout's
// length and zero elsewhere, and returns it.
func (a *accum) flushInto(dst []float64) []float64 {
	dst = zeroed(dst, a.l.Delta)
	a.rangeHeld(func(i int, v float64) bool {
		dst[i] = v
		return true
	})
	clear(a.acc)
	for _, b := range a.blocks {
		a.pos[b] = -1
	}
	a.blocks = a.blocks[:0]
	return dst
}

// flush moves every held entry into a new delta with Count 0.
func (a *accum) flush() *algorithms.Delta {
	d := algorithms.NewDelta(a.l)
	if !a.sparse() {
		copy(d.Vec, a.acc)
		clear(a.acc)
		return d
	}
	for _, b := range a.heldSorted() {
		lo, hi := a.span(b)
		copy(d.Vec[lo:hi], a.acc[lo:hi])
		clear(a.acc[lo:hi])
		d.Touch(int(b))
		a.pos[b] = -1
	}
	a.blocks = a.blocks[:0]
	return d
}
