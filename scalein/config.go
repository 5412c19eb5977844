package scalein

import (
	"fmt"
	"math"
	"time"

	"github.com/syncmodels/syncmodels/knee"
)

// Defaults, from MLLess (§4.2, §6.2.2 and the authors' code).
const (
	// DefaultS is the threshold S of Eq. 1: remove a worker while the
	// predicted loss with the smaller pool is less than 1% above the
	// reference prediction.
	DefaultS = 0.01
	// DefaultDelta is the horizon Δ of Eq. 1 (§6.2.2: "Δ = 10 sec").
	DefaultDelta = 10 * time.Second
)

// ZeroS is the Config.S that selects S = 0 (the zero value of S selects
// DefaultS): no predicted degradation is tolerated. Because the first
// removal at the knee cannot be predicted (there is no ℓ_p yet), a tuner
// with S = 0 never removes a worker; it still detects the knee and fits
// L_P. Any negative S means the same.
const ZeroS = -1.0

// Config configures a Tuner. Times and durations are on the caller's
// clock (virtual or wall), as offsets from the start of the run.
type Config struct {
	// Workers lists the IDs of the initial pool; P = len(Workers) ≥ 1.
	// IDs are distinct and ≥ 0. Required.
	Workers []int
	// MinWorkers is the smallest pool the tuner evicts down to; 0 means 1.
	// Must be in [1, P] (P disables eviction).
	MinWorkers int
	// S is the threshold of Eq. 1, a fraction in [0, 1]: a worker is
	// removed when s_Δ(t) < S. 0 means DefaultS (0.01 = 1%); a negative
	// value (ZeroS) means S = 0.
	S float64
	// Delta is the horizon Δ of Eq. 1: the predictions compare the losses
	// expected ⌊Δ/d⌋ steps ahead. 0 means DefaultDelta (10 s). Must be ≥ 0.
	Delta time.Duration
	// Interval is the scheduling interval T: after a decision the next one
	// is taken at the first observation whose Time is at least Interval
	// later. 0 means Delta, one decision per horizon. MLLess's evaluation
	// (§6.2.2) uses T = 20 s with Δ = 10 s; §4.2 advises Δ ≤ T. Must be ≥ 0.
	Interval time.Duration
	// Span is the span (in observations) of the EWMA applied to the
	// losses before each fit, α = 2/(Span+1). 0 and 1 fit the raw losses,
	// the default, as the authors' scheduler code does; §4.2's text smooths
	// them first (the code's knee detector uses span 20). Smoothing biases
	// the fits: see "Fitting (NNLS) and smoothing" in the package
	// documentation.
	// Must be ≥ 1 (or 0).
	Span float64
	// Knee detects the knee of the loss curve, fed (step, loss) for every
	// observation until it accepts one. nil means &knee.Threshold{}, the
	// MLLess heuristic with its defaults (EWMA span 20, smoothed slope
	// flatter than −7.5e−5 per step, stable for 5 observations); a
	// *knee.OnlineKneedle with Options{Curve: knee.Convex, Direction:
	// knee.Decreasing} is the Kneedle alternative. New resets it and the
	// Tuner owns it from then on: do not share one detector between tuners.
	Knee knee.Detector
	// Settle is the number of steps after each eviction whose losses and
	// durations the tuner ignores, as a transient (the leaving worker's
	// replica being averaged in). 0, the default, uses every step, as §4.2
	// does; the MLLess code ignores 4 steps for the duration. Must be ≥ 0.
	Settle int
}

// validated returns c with defaults filled in, or an error matching
// ErrConfig.
func (c Config) validated() (Config, error) {
	bad := func(format string, a ...any) (Config, error) {
		return Config{}, fmt.Errorf("%w: "+format, append([]any{ErrConfig}, a...)...)
	}
	if len(c.Workers) == 0 {
		return bad("Workers is empty; want at least one worker ID")
	}
	seen := make(map[int]int, len(c.Workers))
	for i, id := range c.Workers {
		if id < 0 {
			return bad("Workers[%d] = %d; want IDs ≥ 0", i, id)
		}
		if j, dup := seen[id]; dup {
			return bad("Workers[%d] = %d repeats Workers[%d]", i, id, j)
		}
		seen[id] = i
	}
	c.Workers = append([]int(nil), c.Workers...)
	switch {
	case c.MinWorkers == 0:
		c.MinWorkers = 1
	case c.MinWorkers < 0 || c.MinWorkers > len(c.Workers):
		return bad("MinWorkers = %d; want 1…%d (the number of Workers)", c.MinWorkers, len(c.Workers))
	}
	switch {
	case math.IsNaN(c.S) || math.IsInf(c.S, 0) || c.S > 1:
		return bad("S = %v; want a fraction in [0, 1] (0.01 is 1%%), or ZeroS", c.S)
	case c.S == 0:
		c.S = DefaultS
	case c.S < 0:
		c.S = 0
	}
	switch {
	case c.Delta < 0:
		return bad("Delta = %v; want ≥ 0", c.Delta)
	case c.Delta == 0:
		c.Delta = DefaultDelta
	}
	switch {
	case c.Interval < 0:
		return bad("Interval = %v; want ≥ 0", c.Interval)
	case c.Interval == 0:
		c.Interval = c.Delta
	}
	switch {
	case math.IsNaN(c.Span) || math.IsInf(c.Span, 0) || (c.Span != 0 && c.Span < 1):
		return bad("Span = %v; want ≥ 1 (or 0 for no smoothing)", c.Span)
	case c.Span == 0:
		c.Span = 1
	}
	if c.Settle < 0 {
		return bad("Settle = %d; want ≥ 0", c.Settle)
	}
	if c.Knee == nil {
		c.Knee = &knee.Threshold{}
	}
	if v, ok := c.Knee.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return bad("Knee: %v", err)
		}
	}
	return c, nil
}
