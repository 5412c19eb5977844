package preempt

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// DefaultStep is the chain's sampling interval when Config.Step is 0: DOLL
// §V-A samples its chain "every 2 seconds".
const DefaultStep = 2 * time.Second

// Sentinel errors; match with errors.Is.
var (
	// ErrConfig reports an invalid Config field or Schedule argument.
	ErrConfig = errors.New("preempt: invalid config")
	// ErrInput reports an invalid observation (Estimator.Observe).
	ErrInput = errors.New("preempt: invalid input")
)

// InputError names one bad value. It reads like
//
//	preempt: Config.Alpha = 1.5: availability must be in [0, 1]
type InputError struct {
	Input  string // "Config.Alpha", "worker", "Observe duration"
	Value  any    // the bad value
	Reason string // what it must be
	Err    error  // ErrConfig or ErrInput
}

func (e *InputError) Error() string {
	return fmt.Sprintf("preempt: %s = %v: %s", e.Input, e.Value, e.Reason)
}

// Unwrap returns the sentinel.
func (e *InputError) Unwrap() error { return e.Err }

// Config is a two-state availability chain (DOLL §III-B4, §V-A).
type Config struct {
	// Alpha is the availability α ∈ [0, 1]: the stationary fraction of
	// time a worker is available. 1 is never preempted, 0 is preempted at
	// the first sample and never restored. DOLL §V-B runs 0.9 and 0.8.
	Alpha float64
	// MeanCycle is the expected length of one cycle, an available period
	// and the preempted period after it: 1,000 s in DOLL §V-A. Required
	// (≥ Step/α and ≥ Step/(1 − α)) when 0 < α < 1; unused, and may be 0,
	// when α is 0 or 1.
	MeanCycle time.Duration
	// Step is the sampling interval: the state changes only at multiples
	// of Step. Default DefaultStep (2 s, DOLL §V-A).
	Step time.Duration
}

// Validate fills the default Step and checks every field; a Config it
// refuses is left unchanged. It returns an *InputError wrapping ErrConfig
// that names the field.
func (c *Config) Validate() error {
	v := *c
	if v.Step == 0 {
		v.Step = DefaultStep
	}
	bad := func(input string, value any, reason string) error {
		return &InputError{Input: input, Value: value, Reason: reason, Err: ErrConfig}
	}
	a := v.Alpha
	switch {
	case !(a >= 0 && a <= 1):
		return bad("Config.Alpha", a, "availability must be in [0, 1]")
	case v.Step < 0:
		return bad("Config.Step", v.Step, "sampling interval must be positive (0 for the default 2s)")
	case v.MeanCycle < 0:
		return bad("Config.MeanCycle", v.MeanCycle, "mean cycle must not be negative")
	case a == 0 || a == 1:
		// MeanCycle is unused.
	case v.MeanCycle == 0:
		return bad("Config.MeanCycle", v.MeanCycle, fmt.Sprintf("mean on-off cycle must be positive when 0 < α < 1 (α = %v)", a))
	case v.MeanCycle < 2*v.Step:
		return bad("Config.MeanCycle", v.MeanCycle, fmt.Sprintf("mean on-off cycle must be at least two steps (2×%v)", v.Step))
	case shorter(a, v.MeanCycle, v.Step):
		return bad("Config.MeanCycle", v.MeanCycle, fmt.Sprintf("the mean available period α·MeanCycle = %v is shorter than one step %v (P(on→off) would exceed 1)",
			scale(a, v.MeanCycle), v.Step))
	case shorter(1-a, v.MeanCycle, v.Step):
		return bad("Config.MeanCycle", v.MeanCycle, fmt.Sprintf("the mean preempted period (1−α)·MeanCycle = %v is shorter than one step %v (P(off→on) would exceed 1)",
			scale(1-a, v.MeanCycle), v.Step))
	}
	*c = v
	return nil
}

// shorter reports whether f·c is shorter than step, allowing for the
// rounding of f (1 − 0.9 is 0.09999999999999998): a period of exactly one
// step is allowed.
func shorter(f float64, c, step time.Duration) bool {
	return f*float64(c) < float64(step)*(1-1e-9)
}

// scale returns f·d rounded to the nanosecond.
func scale(f float64, d time.Duration) time.Duration {
	return time.Duration(math.Round(f * float64(d)))
}

// Probabilities returns the chain's transition probabilities per step,
// p = P(on→off) = Step/(α·C) and q = P(off→on) = Step/((1 − α)·C) (see the
// package documentation), after Validate: (0, 1) for α = 1 and (1, 0) for
// α = 0.
func (c Config) Probabilities() (p, q float64, err error) {
	if err := c.Validate(); err != nil {
		return 0, 0, err
	}
	switch c.Alpha {
	case 1:
		return 0, 1, nil
	case 0:
		return 1, 0, nil
	}
	step, cyc := float64(c.Step), float64(c.MeanCycle)
	// Validate bounds both by 1; min guards the rounding of the product.
	return min(step/(c.Alpha*cyc), 1), min(step/((1-c.Alpha)*cyc), 1), nil
}

// Transition is a change of a worker's state.
type Transition struct {
	// At is the sampling instant (a multiple of Step) at which the state
	// changed.
	At time.Duration
	// Available is the state from At on: false is a preemption, true a
	// restore.
	Available bool
}

func (t Transition) String() string {
	if t.Available {
		return fmt.Sprintf("%v restored", t.At)
	}
	return fmt.Sprintf("%v preempted", t.At)
}

// Chain is one worker's availability chain, generated lazily. A Chain is
// not safe for concurrent use.
type Chain struct {
	step time.Duration
	p, q float64
	rng  *rand.Rand
	k    int64 // samples taken: the next sample is at (k+1)·step
	on   bool
}

// NewChain returns worker's chain for cfg and seed, available at t = 0.
// Workers are numbered from 0; each draws from its own PCG stream (see the
// package documentation).
func NewChain(cfg Config, seed uint64, worker int) (*Chain, error) {
	p, q, err := cfg.Probabilities()
	if err != nil {
		return nil, err
	}
	if worker < 0 {
		return nil, &InputError{Input: "worker", Value: worker, Reason: "worker index must be ≥ 0", Err: ErrConfig}
	}
	if cfg.Step == 0 {
		cfg.Step = DefaultStep
	}
	return &Chain{step: cfg.Step, p: p, q: q, on: true,
		rng: rand.New(rand.NewPCG(seed, stream(uint64(worker))))}, nil
}

// stream is worker n's PCG stream: the splitmix64 finaliser of n offset by
// a constant of this package ("preempt!"), so that the streams differ
// from the small constants other packages pair with the same seed.
func stream(n uint64) uint64 {
	z := n + 0x7072_6565_6d70_7421
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Available reports the chain's state after the samples taken so far.
func (c *Chain) Available() bool { return c.on }

// Next returns the chain's next transition before horizon, and true; or,
// when the state does not change before horizon, false, with the chain
// positioned at horizon (a later call with a longer horizon continues
// from there, drawing what a single call would have drawn).
func (c *Chain) Next(horizon time.Duration) (Transition, bool) {
	last := int64(-1) // the last sample before horizon: (last)·step < horizon
	if horizon > 0 {
		last = int64((horizon - 1) / c.step)
	}
	for c.k < last {
		prob := c.p
		if !c.on {
			prob = c.q
		}
		if prob == 0 {
			// The state can never change (α = 1 available, α = 0
			// preempted): nothing to draw.
			c.k = last
			break
		}
		c.k++
		if c.rng.Float64() < prob {
			c.on = !c.on
			return Transition{At: time.Duration(c.k) * c.step, Available: c.on}, true
		}
	}
	return Transition{}, false
}

// Schedule returns worker's transitions before horizon under cfg and seed,
// in time order; they alternate, starting with a preemption (every worker
// is available at t = 0). It is deterministic per (cfg, seed, worker), and
// the schedule for a horizon is a prefix of that for any longer one.
func Schedule(cfg Config, seed uint64, worker int, horizon time.Duration) ([]Transition, error) {
	if horizon < 0 {
		return nil, &InputError{Input: "horizon", Value: horizon, Reason: "horizon must not be negative", Err: ErrConfig}
	}
	c, err := NewChain(cfg, seed, worker)
	if err != nil {
		return nil, err
	}
	var ts []Transition
	for {
		t, ok := c.Next(horizon)
		if !ok {
			return ts, nil
		}
		ts = append(ts, t)
	}
}

// Uptime returns the time in [0, horizon) a worker whose schedule is ts
// (as Schedule returns it: alternating, starting with a preemption) is
// available, and the number of preemptions before horizon.
func Uptime(ts []Transition, horizon time.Duration) (up time.Duration, preemptions int) {
	on, from := true, time.Duration(0)
	for _, t := range ts {
		if t.At >= horizon {
			break
		}
		if on && !t.Available {
			up += t.At - from
			preemptions++
		}
		if !on && t.Available {
			from = t.At
		}
		on = t.Available
	}
	if on && horizon > from {
		up += horizon - from
	}
	return up, preemptions
}

// Estimator estimates availability online from observed time, as DOLL's
// adaptive provisioning keeps a running tally of α (§V-C). The zero value
// has observed nothing. It is not safe for concurrent use.
type Estimator struct {
	up, down    time.Duration
	preemptions int
	on, seen    bool
}

// Observe records that the worker was available (or not) for d. A change
// from available to unavailable between consecutive observations counts
// as a preemption. A negative d returns an *InputError wrapping ErrInput
// and changes nothing.
func (e *Estimator) Observe(available bool, d time.Duration) error {
	if d < 0 {
		return &InputError{Input: "Observe duration", Value: d, Reason: "observed time must not be negative", Err: ErrInput}
	}
	if e.seen && e.on && !available {
		e.preemptions++
	}
	e.on, e.seen = available, true
	if available {
		e.up += d
	} else {
		e.down += d
	}
	return nil
}

// Alpha returns the estimated availability, available time over observed
// time, and true; or NaN and false before any time was observed.
func (e *Estimator) Alpha() (float64, bool) {
	tot := e.up + e.down
	if tot <= 0 {
		return math.NaN(), false
	}
	return float64(e.up) / float64(tot), true
}

// MeanCycle returns the estimated mean on-off cycle, observed time over
// preemptions (a renewal-reward estimate: each cycle holds one
// preemption), and true; or 0 and false before the first preemption.
func (e *Estimator) MeanCycle() (time.Duration, bool) {
	if e.preemptions == 0 {
		return 0, false
	}
	return (e.up + e.down) / time.Duration(e.preemptions), true
}

// Observed returns the available and unavailable time observed, and the
// preemptions counted.
func (e *Estimator) Observed() (up, down time.Duration, preemptions int) {
	return e.up, e.down, e.preemptions
}
