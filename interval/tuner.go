package interval

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Op is an operation a Tuner asks its caller to perform.
type Op uint8

const (
	// OpRun: train Request.Iterations FSP iterations, initiating a barrier
	// every Request.Interval (or, for Interval = FullPass, one full-batch
	// BSP iteration), then report the objective after the last barrier,
	// the elapsed time, the mean barrier cost and the iterations done.
	OpRun Op = iota + 1
	// OpCheckpoint: save everything the next OpRun's outcome depends on —
	// the parameters, the optimizer state and every worker's data cursor
	// (the starting location X_j of §3.3) — and report the objective at
	// the saved state. Elapsed, BarrierCost and Iterations are zero.
	OpCheckpoint
	// OpRollback: restore the state saved by the last OpCheckpoint, so
	// that the next OpRun trains the same data points from the same
	// parameters. The clock is not rolled back. Report a zero Report
	// (Objective is ignored: it is the checkpoint's).
	OpRollback
)

// String returns "run", "checkpoint" or "rollback".
func (o Op) String() string {
	switch o {
	case OpRun:
		return "run"
	case OpCheckpoint:
		return "checkpoint"
	case OpRollback:
		return "rollback"
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// FullPass as the Interval of an OpRun asks for one full-batch BSP
// iteration: every worker processes its whole shard, and the barrier forms
// when the last one has finished (how Flegel runs its first iteration,
// which measures the full-batch runtime T). Only BinarySearch asks for it,
// and only with Iterations = 1.
const FullPass time.Duration = 0

// Request is what a Tuner asks for next.
type Request struct {
	Op Op
	// Interval is the barrier interval η of an OpRun: the coordinator
	// initiates a barrier this long after each release (a worker that
	// completes a full pass earlier still triggers it early, §3.3).
	// FullPass (0) asks for a full-batch BSP iteration. Zero for the
	// other ops.
	Interval time.Duration
	// Iterations is how many iterations (barriers) an OpRun asks for,
	// ≥ 1. Zero for the other ops.
	Iterations int
}

// String reads like "run 2×200ms", "run 1×full pass", "checkpoint".
func (r Request) String() string {
	if r.Op != OpRun {
		return r.Op.String()
	}
	if r.Interval == FullPass {
		return fmt.Sprintf("run %d×full pass", r.Iterations)
	}
	return fmt.Sprintf("run %d×%v", r.Iterations, r.Interval)
}

// Report is what the caller measured while performing a Request.
type Report struct {
	// Objective is f(θ) after the last barrier of an OpRun (at the
	// released parameters), or at the saved state for an OpCheckpoint.
	// Ignored for OpRollback. Must be finite.
	Objective float64
	// Elapsed is the time an OpRun took, barriers included: from the
	// release that began its first iteration to the release that ended
	// its last. Must exceed Iterations × BarrierCost. Zero for the other
	// ops.
	Elapsed time.Duration
	// BarrierCost is φ, the mean time one barrier of the OpRun took: from
	// the barrier's initiation (the signal, an early trigger, or the first
	// local timer under semi-centralized coordination) to the release of
	// the new parameters. ≥ 0. Zero for the other ops.
	BarrierCost time.Duration
	// Iterations is how many iterations the OpRun completed: the
	// request's Iterations, or fewer if the run was cut short (at least
	// 1). Zero for the other ops.
	Iterations int
}

// Tuner chooses the FSP synchronization interval by reverse
// communication (the shape of gonum's optimize methods): Next returns the
// operation it needs, the caller performs it and hands the measurements
// back to Observe, and so on for as long as training runs. A Tuner never
// ends the exchange; the caller stops when training stops.
//
// The contract:
//
//   - Next and Observe alternate, starting with Next. Next with a request
//     pending returns ErrPending; Observe with none pending returns
//     ErrNoRequest. Neither changes the state then.
//   - Observe validates the report against the pending request (see
//     Report; the rules per Op are on OpRun, OpCheckpoint, OpRollback). A
//     refused report returns an *InputError naming the field (errors.Is
//     ErrInput), changes nothing, and leaves the request pending: the
//     caller may Observe a corrected report.
//   - A report whose objective differs from the previous one by more than
//     float64 holds is refused the same way (naming Report.Objective).
//   - The same reports give the same requests: a Tuner is deterministic,
//     reads no clock, starts no goroutine and uses no randomness.
//   - Every OpRun Interval lies within the tuner's [Min, Max] bounds,
//     except BinarySearch's first FullPass request.
//
// A Tuner is not safe for concurrent use.
type Tuner interface {
	Next() (Request, error)
	Observe(Report) error
}

var (
	_ Tuner = (*Fixed)(nil)
	_ Tuner = (*BinarySearch)(nil)
	_ Tuner = (*LinearFit)(nil)
)

// Errors. Match with errors.Is (docs/errors.md states the scheme).
var (
	// ErrPending: Next (or Restart) called while a request awaits its report.
	ErrPending = errors.New("interval: a request is pending (Observe its report first)")
	// ErrNoRequest: Observe called with no request pending (call Next first).
	ErrNoRequest = errors.New("interval: no request pending (call Next first)")
	// ErrConfig: a configuration value out of its domain (a field of
	// LinearFitConfig or BinarySearchConfig, NewFixed's η, Offsets.Floor);
	// always wrapped in an *InputError that names it.
	ErrConfig = errors.New("interval: invalid config")
	// ErrInput: a value passed at run time out of its domain (a Report
	// field, an Observation, the η passed to Offsets.Timers); always
	// wrapped in an *InputError that names it.
	ErrInput = errors.New("interval: invalid input")
	// ErrInvalid matches every *InputError, ErrConfig and ErrInput alike.
	//
	// Deprecated: match ErrConfig or ErrInput. ErrInvalid will be removed
	// no earlier than v0.2.0.
	ErrInvalid = errors.New("interval: invalid value")
)

// InputError names one bad value: a configuration field, a report field
// or an observation. It reads like
//
//	interval: Report.Elapsed = -1s: must be positive
//	interval: Observation[3].Speed = NaN: must be finite and ≥ 0
type InputError struct {
	Input  string // e.g. "Report.Objective", "LinearFitConfig.Probe", "Observation[3].Speed"
	Value  any    // the bad value
	Reason string // what it must be
	Err    error  // ErrConfig or ErrInput
}

// FieldError is the former name of InputError.
//
// Deprecated: use InputError. FieldError will be removed no earlier than
// v0.2.0.
type FieldError = InputError

func (e *InputError) Error() string {
	return fmt.Sprintf("interval: %s = %v: %s", e.Input, e.Value, e.Reason)
}

// Unwrap returns e.Err (ErrConfig or ErrInput) and, for code written
// before those existed, the deprecated ErrInvalid.
func (e *InputError) Unwrap() []error { return []error{e.Err, ErrInvalid} }

// badConfig reports a configuration value.
func badConfig(input string, value any, reason string) error {
	return &InputError{Input: input, Value: value, Reason: reason, Err: ErrConfig}
}

// badInput reports a run-time input value.
func badInput(input string, value any, reason string) error {
	return &InputError{Input: input, Value: value, Reason: reason, Err: ErrInput}
}

// exchange enforces the Next/Observe alternation for one tuner.
type exchange struct {
	req     Request
	pending bool
}

// issue makes r the pending request.
func (x *exchange) issue(r Request) (Request, error) {
	if x.pending {
		return Request{}, ErrPending
	}
	x.req, x.pending = r, true
	return r, nil
}

// check returns an error if no request is pending or rep is not a valid
// report for it. It changes nothing.
func (x *exchange) check(rep Report) error {
	if !x.pending {
		return ErrNoRequest
	}
	return rep.validate(x.req)
}

// validate checks rep as the report of req.
func (rep Report) validate(req Request) error {
	if !finite(rep.Objective) {
		return badInput("Report.Objective", rep.Objective, "must be finite")
	}
	if req.Op != OpRun {
		switch {
		case rep.Elapsed != 0:
			return badInput("Report.Elapsed", rep.Elapsed, "must be 0 for "+req.Op.String())
		case rep.BarrierCost != 0:
			return badInput("Report.BarrierCost", rep.BarrierCost, "must be 0 for "+req.Op.String())
		case rep.Iterations != 0:
			return badInput("Report.Iterations", rep.Iterations, "must be 0 for "+req.Op.String())
		}
		return nil
	}
	switch {
	case rep.Iterations < 1 || rep.Iterations > req.Iterations:
		return badInput("Report.Iterations", rep.Iterations, fmt.Sprintf("must be in 1..%d (the request's Iterations)", req.Iterations))
	case rep.Elapsed <= 0:
		return badInput("Report.Elapsed", rep.Elapsed, "must be positive")
	case rep.BarrierCost < 0:
		return badInput("Report.BarrierCost", rep.BarrierCost, "must be ≥ 0")
	case rep.valid() <= 0:
		return badInput("Report.Elapsed", rep.Elapsed, fmt.Sprintf("must exceed Iterations × BarrierCost = %d × %v", rep.Iterations, rep.BarrierCost))
	}
	return nil
}

// valid is the run's valid (computing) time in seconds: Elapsed minus its
// barriers (§3.3: the valid time excludes the barriers' cost).
func (rep Report) valid() float64 {
	return rep.Elapsed.Seconds() - float64(float64(rep.Iterations)*rep.BarrierCost.Seconds())
}

// progress is the objective's improvement from f0 to f1: the decrease when
// minimizing, the increase when maximizing. ok is false if it overflows.
func progress(minimize bool, f0, f1 float64) (p float64, ok bool) {
	p = f1 - f0
	if minimize {
		p = f0 - f1
	}
	return p, finite(p)
}

// rateOf is progress per second over d seconds; ok is false if it
// overflows.
func rateOf(p, d float64) (float64, bool) {
	r := p / d
	return r, finite(r)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// duration converts s seconds to a Duration clamped to [lo, hi] (a NaN
// gives lo).
func duration(s float64, lo, hi time.Duration) time.Duration {
	ns := s * 1e9
	switch {
	case !(ns > float64(lo)): // also NaN
		return lo
	case ns >= float64(hi):
		return hi
	}
	return min(max(time.Duration(math.Round(ns)), lo), hi)
}

// checkBounds validates a [Min, Max] pair of a configuration.
func checkBounds(name string, lo, hi time.Duration) error {
	switch {
	case lo <= 0:
		return badConfig(name+".Min", lo, "must be positive")
	case hi < lo:
		return badConfig(name+".Max", hi, fmt.Sprintf("must be ≥ Min (%v)", lo))
	}
	return nil
}
