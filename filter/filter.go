package filter

import (
	"errors"
	"fmt"
	"math"

	"github.com/syncmodels/syncmodels/algorithms"
)

// Filter decides, step by step, which part of a worker's additive updates
// it sends now and which part it holds back for later. Each filter owns an
// accumulator of the worker's own updates that have not been sent yet:
// everything a worker ever passes to Step is, at every moment, either sent
// (in some step's output or in a Flush) or held, never both and never lost
// (QSGDFilter without error feedback is the exception: it trades exactness
// for unbiasedness, see there).
//
// A Filter is not safe for concurrent use; each worker owns its own.
type Filter interface {
	// Layout returns the layout of the deltas the filter takes and gives.
	Layout() algorithms.Layout

	// Step adds the worker's new local delta to the accumulator and returns
	// the delta to send in this step: a valid additive delta of the same
	// layout that servers and peers can Merge and Apply.
	//
	// replica is the worker's current value of the quantity the delta adds
	// to, indexed like the delta (len == Layout().Delta); filters that do
	// not use it (TopK, QSGDFilter) accept nil. Updates the worker received
	// from others belong in replica, never in local: they must not enter
	// the accumulator, or they would be sent again.
	//
	// The returned delta's Count is local.Count: points are counted in the
	// step they were processed, whatever part of their contribution is
	// sent (see the package documentation, "Count"). The delta is owned by
	// the filter and valid until the next call of Step or Flush; Clone it to
	// keep it. Step may sort local's block list (it calls local.Blocks).
	//
	// A local delta or replica of the wrong shape, a NaN or ±Inf among the
	// entries Step reads, or an accumulated entry that would overflow is
	// refused with an error that names the index; the filter is then
	// unchanged.
	Step(local *algorithms.Delta, replica []float64) (*algorithms.Delta, error)

	// Flush returns everything held as a new delta owned by the caller, with
	// Count 0, and empties the accumulator. A worker that leaves flushes so
	// that its held-back updates are not lost (MLLess §4.2). Because servers
	// treat a delta with Count 0 as a no-op, merge the flushed delta into a
	// delta that carries points (the step's merged delta) before Apply.
	Flush() *algorithms.Delta

	// Held summarises what the accumulator holds.
	Held() Held

	// RangeHeld calls fn for every nonzero held entry in increasing index
	// order, stopping early when fn returns false. fn must not call the
	// filter.
	RangeHeld(fn func(i int, v float64) bool)
}

// Held summarises a filter's accumulator: how much of the worker's own
// updates it holds back. A divergence checker compares it with the
// guarantee of the sync model (under ISP every held entry satisfies
// |acc_i| ≤ v_t·|w_i| right after the step that checked it).
type Held struct {
	// Entries is the number of nonzero held entries.
	Entries int
	// L2 is the Euclidean norm of the held vector.
	L2 float64
	// LInf is the largest magnitude of a held entry.
	LInf float64
}

// Errors. Data-dependent failures carry the bad value: a NaN or ±Inf is an
// *algorithms.NonFiniteError, which matches algorithms.ErrNonFinite (What
// is "delta" for the local delta, "accumulated delta" for an accumulator
// entry that would overflow, "params" for the replica); a shape mismatch
// wraps algorithms.ErrLayout.
var (
	// ErrConfig reports an invalid configuration.
	ErrConfig = errors.New("filter: invalid config")
	// ErrRange reports a finite value that a requested float32 rounding
	// cannot represent (|v| too large for float32).
	ErrRange = errors.New("filter: value out of float32 range")
	// ErrMalformed reports an encoding that does not decode; the wrapping
	// error names the field, the offset or the entry at fault.
	ErrMalformed = errors.New("filter: malformed encoding")
	// ErrLength reports a plain vector (TopKVec, QSGDVec) of the wrong
	// length; the wrapping error names both lengths. A Delta of the wrong
	// shape wraps algorithms.ErrLayout instead.
	ErrLength = errors.New("filter: length mismatch")
)

func nonFinite(what string, i int, v float64) error {
	return &algorithms.NonFiniteError{What: what, Index: i, Value: v}
}

// finite reports whether v is neither NaN nor ±Inf (v − v is NaN for
// both, 0 otherwise).
func finite(v float64) bool { return v-v == 0 }

// checkLayout validates a filter's layout.
func checkLayout(l algorithms.Layout) error {
	if l.Delta < 0 || l.Block < 0 {
		return fmt.Errorf("filter: layout %+v has a negative length: %w", l, ErrConfig)
	}
	if l.Delta > math.MaxInt32 {
		return fmt.Errorf("filter: layout %+v has more than 2^31-1 entries: %w", l, ErrConfig)
	}
	return nil
}

// checkLocal validates the shape of a local delta and of a replica; a nil
// replica is accepted when needReplica is false.
func checkLocal(l algorithms.Layout, local *algorithms.Delta, replica []float64, needReplica bool) error {
	if local == nil {
		return fmt.Errorf("filter: nil local delta: %w", algorithms.ErrLayout)
	}
	if local.Len() != l.Delta || local.BlockWidth() != l.Block {
		return fmt.Errorf("filter: local delta len %d block %d, want len %d block %d: %w",
			local.Len(), local.BlockWidth(), l.Delta, l.Block, algorithms.ErrLayout)
	}
	if local.Count < 0 {
		return fmt.Errorf("filter: local delta count %d is negative: %w", local.Count, algorithms.ErrLayout)
	}
	if (needReplica || replica != nil) && len(replica) != l.Delta {
		return fmt.Errorf("filter: replica len %d, want %d (the delta length): %w",
			len(replica), l.Delta, algorithms.ErrLayout)
	}
	return nil
}

// round32 returns v rounded to the nearest float32, as a float64. The
// rounding error v − round32(v) is exactly representable in float64, so an
// accumulator that keeps it loses nothing.
func round32(v float64) float64 { return float64(float32(v)) }

func rangeError(i int, v float64) error {
	return fmt.Errorf("filter: entry %d = %g does not fit in float32: %w", i, v, ErrRange)
}
