package interval

import (
	"fmt"
	"math"
	"time"
)

// Observation is what the coordinator measured of one worker, for the
// semi-centralized local timers of FSP §5.2.
type Observation struct {
	// Response is the worker's response delay at the last barrier: the
	// lag between its barrier beginning and its commit reaching the
	// coordinator — delivering the release, finishing the current point,
	// sending the commit. The coordinator measures it without a shared
	// clock as the time from sending the worker its release (parameters
	// and timer) to receiving its commit, less the local timer it ran;
	// under centralized coordination (no local timers yet), as the time
	// from sending the barrier signal to receiving the commit. ≥ 0.
	Response time.Duration
	// Speed is the worker's processing speed, in points/s, in the
	// iteration in which Response was measured; Current is its speed
	// expected for the next iteration (its latest measurement). Both
	// finite and ≥ 0; a 0 in either disables the speed correction for
	// this worker.
	Speed, Current float64
}

// Offsets computes the per-worker local timers of FSP §5.2
// ("Semi-Centralized Coordination", Fig. 6b). Under centralized
// coordination the coordinator broadcasts the barrier signal and every
// worker's commit arrives after its own response delay, so fast
// responders wait for slow ones. Under the semi-centralized policy each
// worker runs a local timer of η ± δ_i and commits when it fires; the
// coordinator keeps the second phase (new parameters, and the next η and
// timers, go out with the release). §5.2 measures δ_i from "the elapsed
// time of respond and the change of training speed" and states the aim —
// a straggler "can execute a short interval, so as to commit results in
// advance and then the coordinator can receive reports at roughly the
// same time instance" — without a formula. Offsets uses this one:
//
//  1. Each worker's lag from its timer to its commit's arrival is
//     predicted as ρ̂_i = Response_i + (1/Current_i − 1/Speed_i)/2: the
//     measured response, corrected for the change in the expected time
//     left of the point in progress when the timer fires (half a point,
//     at 1/speed seconds per point; the correction matters when points
//     are slow, §3.1's high-resolution images, and the speed changed
//     since Response was measured). ρ̂_i is at least 0 (and at most
//     the longest Duration).
//  2. All commits should arrive together, at A = max(η + mean ρ̂,
//     max_i(Floor·η + ρ̂_i)) after the release: the mean timer is η
//     unless a worker's lag is so long that even its shortest timer,
//     Floor·η, arrives later — then everyone else computes until that
//     worker's commit arrives, turning what would have been waiting into
//     updates.
//  3. Worker i's timer is η_i = A − ρ̂_i, so δ_i = A − η − ρ̂_i: negative
//     for a straggler, positive for a quick responder.
//
// The zero value uses Floor = 0.1.
type Offsets struct {
	// Floor is the shortest local timer as a fraction of η, in (0, 1].
	// 0 means 0.1.
	Floor float64
}

// Timers returns each worker's local timer for the next iteration under
// the coordinator's interval η (in the order of obs) and the arrival A,
// the time after the release at which every commit is predicted to reach
// the coordinator. It refuses η ≤ 0, a bad Floor, and negative or
// non-finite observations with a *InputError naming the value.
func (o Offsets) Timers(eta time.Duration, obs []Observation) (timers []time.Duration, arrival time.Duration, err error) {
	floor := o.Floor
	if floor == 0 {
		floor = 0.1
	}
	switch {
	case eta <= 0:
		return nil, 0, badInput("η", eta, "must be positive")
	case !(floor > 0 && floor <= 1):
		return nil, 0, badConfig("Offsets.Floor", o.Floor, "must be in (0, 1]")
	}
	for i, ob := range obs {
		switch {
		case ob.Response < 0:
			return nil, 0, badInput(fmt.Sprintf("Observation[%d].Response", i), ob.Response, "must be ≥ 0")
		case !(ob.Speed >= 0 && finite(ob.Speed)):
			return nil, 0, badInput(fmt.Sprintf("Observation[%d].Speed", i), ob.Speed, "must be finite and ≥ 0")
		case !(ob.Current >= 0 && finite(ob.Current)):
			return nil, 0, badInput(fmt.Sprintf("Observation[%d].Current", i), ob.Current, "must be finite and ≥ 0")
		case ob.Speed > 0 && !finite(1/ob.Speed):
			return nil, 0, badInput(fmt.Sprintf("Observation[%d].Speed", i), ob.Speed, "1/Speed overflows")
		case ob.Current > 0 && !finite(1/ob.Current):
			return nil, 0, badInput(fmt.Sprintf("Observation[%d].Current", i), ob.Current, "1/Current overflows")
		}
	}
	if len(obs) == 0 {
		return []time.Duration{}, eta, nil
	}
	e := eta.Seconds()
	sum, late := 0.0, math.Inf(-1)
	for _, ob := range obs {
		r := ob.lag()
		sum += r
		late = max(late, float64(floor*e)+r)
	}
	a := max(e+sum/float64(len(obs)), late)
	timers = make([]time.Duration, len(obs))
	for i, ob := range obs {
		timers[i] = duration(a-ob.lag(), 1, math.MaxInt64)
	}
	return timers, duration(a, 1, math.MaxInt64), nil
}

// lag is ρ̂, the predicted time in seconds from the worker's timer firing
// to its commit reaching the coordinator.
func (ob Observation) lag() float64 {
	r := ob.Response.Seconds()
	if ob.Speed > 0 && ob.Current > 0 {
		r += float64((1/ob.Current - 1/ob.Speed) / 2)
	}
	return min(max(r, 0), maxSeconds)
}

// maxSeconds is the longest Duration, in seconds.
const maxSeconds = float64(math.MaxInt64) / 1e9
