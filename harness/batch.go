package harness

import (
	"context"
	"fmt"
	"math"
	"time"
)

// ChooseBatch picks the mini-batch for a BSPV run (FSP paper §6.1: BSP
// whose batch size is chosen at the start by cost–benefit): it runs a short
// pilot of e for each candidate batch, each pilot lasting the given share of
// e.Duration (e.g. 0.1), and returns the candidate whose pilot reached the
// best objective — the most progress per unit of time, stragglers and
// barrier costs included. Ties go to the larger batch (fewer barriers).
// The pilots are not charged to the run they tune: this is the offline
// tuning a user would do, and it favours BSPV.
func ChooseBatch(ctx context.Context, e Experiment, candidates []int, share float64) (int, error) {
	if len(candidates) == 0 || !(share > 0 && share <= 1) {
		return 0, fmt.Errorf("harness: ChooseBatch: %d candidates, share %v: %w", len(candidates), share, ErrConfig)
	}
	if err := e.validate(); err != nil {
		return 0, err
	}
	pilot := e
	pilot.Duration = time.Duration(float64(e.Duration) * share)
	pilot.EvalEvery = pilot.Duration
	pilot.Tuner, pilot.Progress, pilot.HasTarget = nil, nil, false
	best, bestObj := 0, math.NaN()
	minimize := e.Algorithm.Minimize()
	for _, b := range candidates {
		pilot.Batch = b
		r, err := Run(ctx, pilot)
		if err != nil {
			return 0, fmt.Errorf("harness: ChooseBatch: pilot with batch %d: %w", b, err)
		}
		f := r.Final
		better := math.IsNaN(bestObj) || (minimize && f <= bestObj) || (!minimize && f >= bestObj)
		if !math.IsNaN(f) && better && (f != bestObj || b > best) {
			best, bestObj = b, f
		}
	}
	if math.IsNaN(bestObj) {
		return 0, fmt.Errorf("harness: ChooseBatch: every pilot diverged")
	}
	return best, nil
}
