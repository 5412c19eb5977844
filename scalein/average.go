package scalein

import (
	"fmt"
	"math"
	"slices"
)

// Average computes the weighted average of model replicas,
//
//	dst[j] = Σ_i weights[i]·replicas[i][j] / Σ_i weights[i],
//
// the arithmetic of the leave-time synchronization of §4.2 ("Eviction
// policy"): when worker p leaves, every remaining worker p′ replaces its
// replica by ½(x̃_{t,p} + x̃_{t,p′}), which is
//
//	Average(own, [][]float64{leaving, own}, nil)
//
// nil weights mean equal weights. dst may be nil (a new slice is
// returned) or have the replicas' length, and may be one of the replicas:
// each element is read from every replica before it is written. All
// replicas must have the same length (≥ 1) and finite values; weights
// must be finite, ≥ 0 and not all 0. On error dst is not modified.
func Average(dst []float64, replicas [][]float64, weights []float64) ([]float64, error) {
	bad := func(input string, value any, err error) error {
		return &InputError{Op: "Average", Input: input, Value: value, Err: err}
	}
	if len(replicas) == 0 {
		return nil, bad("len(replicas)", 0, ErrLength)
	}
	n := len(replicas[0])
	if n == 0 {
		return nil, bad("len(replicas[0])", 0, ErrLength)
	}
	if weights != nil && len(weights) != len(replicas) {
		return nil, &InputError{Op: "Average", Input: "len(weights)", Value: len(weights),
			Detail: fmt.Sprintf("%d replicas", len(replicas)), Err: ErrLength}
	}
	if dst != nil && len(dst) != n {
		return nil, &InputError{Op: "Average", Input: "len(dst)", Value: len(dst),
			Detail: fmt.Sprintf("replicas have %d values", n), Err: ErrLength}
	}
	var sum, wmax float64
	for i, r := range replicas {
		if len(r) != n {
			return nil, &InputError{Op: "Average", Input: fmt.Sprintf("len(replicas[%d])", i), Value: len(r),
				Detail: fmt.Sprintf("replicas[0] has %d", n), Err: ErrLength}
		}
		for j, v := range r {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, bad(fmt.Sprintf("replicas[%d][%d]", i, j), v, ErrNonFinite)
			}
		}
		if weights != nil {
			w := weights[i]
			switch {
			case math.IsNaN(w) || math.IsInf(w, 0):
				return nil, bad(fmt.Sprintf("weights[%d]", i), w, ErrNonFinite)
			case w < 0:
				return nil, bad(fmt.Sprintf("weights[%d]", i), w, ErrNegative)
			}
			wmax = max(wmax, w)
		}
	}
	if weights != nil && wmax == 0 {
		return nil, &InputError{Op: "Average", Input: "weights", Value: slices.Clone(weights), Detail: "all 0", Err: ErrDomain}
	}
	// Normalised weights w_i/Σw, computed relative to the largest weight so
	// that neither the sum of the weights nor the weighted sum overflows.
	k := len(replicas)
	if weights != nil {
		for _, w := range weights {
			sum += w / wmax
		}
	}
	if dst == nil {
		dst = make([]float64, n)
	}
	for j := range n {
		var acc float64
		for i, r := range replicas {
			w := 1 / float64(k)
			if weights != nil {
				w = weights[i] / wmax / sum
			}
			acc += float64(w * r[j])
		}
		dst[j] = acc
	}
	return dst, nil
}
