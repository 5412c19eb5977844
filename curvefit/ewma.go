package curvefit

import (
	"fmt"
	"math"
)

// EWMA returns the exponentially weighted moving average of y with the
// given span, with the semantics of pandas
// Series.ewm(span=span, adjust=True).mean() (ignore_na=False,
// min_periods=0):
//
//	out[t] = Σ_{i≤t} (1−α)^(t−i) y[i] / Σ_{i≤t} (1−α)^(t−i),  α = 2/(span+1),
//
// where the sums run over the non-NaN y[i] only but the weights keep their
// absolute positions; out[t] is NaN until the first non-NaN value. This is
// the bias-corrected average: early outputs are not pulled towards 0. It
// is computed by pandas' recursion, in O(len(y)).
//
// MLLess smooths the loss values with an EWMA before every curve fit
// (§4.2); its code uses span 20. EWMA panics if span < 1 or is NaN
// (span = 1 returns y unchanged).
func EWMA(y []float64, span float64) []float64 {
	f := NewEWMAFilter(span, true)
	out := make([]float64, len(y))
	for i, v := range y {
		out[i] = f.Push(v)
	}
	return out
}

// EWMARecursive is EWMA with pandas' adjust=False: out[0] = y[0] and
// out[t] = (1−α)·out[t−1] + α·y[t], the classical exponential smoothing
// whose first outputs are biased towards y[0]. NaN values are skipped the
// way pandas skips them (ignore_na=False): the weight of the previous
// average keeps decaying across the gap.
func EWMARecursive(y []float64, span float64) []float64 {
	f := NewEWMAFilter(span, false)
	out := make([]float64, len(y))
	for i, v := range y {
		out[i] = f.Push(v)
	}
	return out
}

// EWMAFilter is the streaming form of EWMA and EWMARecursive: Push one
// value at a time, as losses arrive. It follows pandas' ewm mean recursion
// exactly (pandas/_libs/window/aggregations.pyx, ewm with deltas = 1).
type EWMAFilter struct {
	alpha    float64
	adjust   bool
	weighted float64 // current average; NaN before the first observation
	oldWt    float64
}

// NewEWMAFilter returns a filter with smoothing factor α = 2/(span+1);
// adjust selects pandas' adjust=True (EWMA) or adjust=False
// (EWMARecursive). It panics if span < 1 or is NaN.
func NewEWMAFilter(span float64, adjust bool) *EWMAFilter {
	if !(span >= 1) {
		panic(fmt.Sprintf("curvefit: EWMA span = %v; want ≥ 1", span))
	}
	return &EWMAFilter{alpha: 2 / (span + 1), adjust: adjust, weighted: math.NaN(), oldWt: 1}
}

// Push adds the next value and returns the updated average (NaN while no
// non-NaN value has been pushed).
func (f *EWMAFilter) Push(v float64) float64 {
	obs := !math.IsNaN(v)
	switch {
	case !math.IsNaN(f.weighted):
		f.oldWt = float64(f.oldWt * (1 - f.alpha))
		if obs {
			newWt := 1.0
			if !f.adjust {
				newWt = f.alpha
			}
			if f.weighted != v {
				f.weighted = (float64(f.oldWt*f.weighted) + float64(newWt*v)) / (f.oldWt + newWt)
			}
			if f.adjust {
				f.oldWt += newWt
			} else {
				f.oldWt = 1
			}
		}
	case obs:
		f.weighted = v
	}
	return f.weighted
}

// Value returns the current average (NaN before the first observation).
func (f *EWMAFilter) Value() float64 { return f.weighted }

// Reset forgets every pushed value.
func (f *EWMAFilter) Reset() { f.weighted, f.oldWt = math.NaN(), 1 }
