package arrival

import (
	"math"
	"time"
)

// Estimator estimates a worker's arrival rate λ_n online, as DOLL's
// adaptive provisioning keeps running tallies of λ_{A,n} (§V-C): the
// points received over the up-time in which they arrived. The zero value
// has observed nothing. It is not safe for concurrent use.
type Estimator struct {
	points int64
	up     time.Duration
}

// Observe records that points data points arrived during up of the
// worker's up-time (time preempted is not up-time: no point arrives then).
// Observations add up, so a simulator may report each batch (Observe(b,
// gap)) or a whole interval at once. A negative count or duration, or a
// total that would overflow, returns an *InputError wrapping ErrInput and
// changes nothing.
func (e *Estimator) Observe(points int, up time.Duration) error {
	switch {
	case points < 0:
		return &InputError{Input: "Observe points", Value: points, Reason: "the number of points must not be negative", Err: ErrInput}
	case up < 0:
		return &InputError{Input: "Observe up", Value: up, Reason: "the up-time must not be negative", Err: ErrInput}
	case int64(points) > math.MaxInt64-e.points:
		return &InputError{Input: "Observe points", Value: points, Reason: "the total number of points would overflow", Err: ErrInput}
	case up > math.MaxInt64-e.up:
		return &InputError{Input: "Observe up", Value: up, Reason: "the total up-time would overflow a Duration", Err: ErrInput}
	}
	e.points += int64(points)
	e.up += up
	return nil
}

// Rate returns the estimated rate, points observed over up-time observed
// in points per second, and true; or NaN and false before any up-time was
// observed. For a renewal process the estimate converges to λ as the
// up-time grows (the elementary renewal theorem); for Poisson arrivals it
// is the maximum-likelihood estimate when observed up to a fixed time.
func (e *Estimator) Rate() (float64, bool) {
	if e.up <= 0 {
		return math.NaN(), false
	}
	return float64(e.points) / e.up.Seconds(), true
}

// Observed returns the points and up-time observed so far.
func (e *Estimator) Observed() (points int64, up time.Duration) {
	return e.points, e.up
}
