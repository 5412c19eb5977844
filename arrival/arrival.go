package arrival

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/syncmodels/syncmodels/internal/fpdet"
)

// Sentinel errors; match with errors.Is.
var (
	// ErrConfig reports an invalid Spec, Dist or NewStream argument.
	ErrConfig = errors.New("arrival: invalid config")
	// ErrMalformed reports a Parse string that does not decode.
	ErrMalformed = errors.New("arrival: malformed spec")
	// ErrInput reports an invalid observation (Estimator.Observe).
	ErrInput = errors.New("arrival: invalid input")
)

// InputError names one bad value. It reads like
//
//	arrival: Spec.Lo = 250: the lower bound must not exceed Hi = 1
//	arrival: spec = "gamma:x:125": shape "x" is not a number
type InputError struct {
	Input  string // "Spec.Rate", "Dist.Shape", "rate", "Observe points", "spec"
	Value  any    // the bad value
	Reason string // what it must be
	Err    error  // ErrConfig, ErrMalformed or ErrInput
}

func (e *InputError) Error() string {
	if s, ok := e.Value.(string); ok {
		return fmt.Sprintf("arrival: %s = %q: %s", e.Input, s, e.Reason)
	}
	return fmt.Sprintf("arrival: %s = %v: %s", e.Input, e.Value, e.Reason)
}

// Unwrap returns the sentinel.
func (e *InputError) Unwrap() error { return e.Err }

func configError(input string, value any, reason string) *InputError {
	return &InputError{Input: input, Value: value, Reason: reason, Err: ErrConfig}
}

// DistKind is a family of interarrival distributions.
type DistKind uint8

// The interarrival families. Each is scaled so that its mean is 1/λ; Shape
// is the family's one free parameter (see Dist).
const (
	// Poisson arrivals: exponential interarrivals, variance 1/λ². No shape.
	// The zero value, and DOLL §V's choice.
	Poisson DistKind = iota
	// Fixed (deterministic) interarrivals of exactly 1/λ: variance 0. No
	// shape.
	Fixed
	// Gamma interarrivals with shape k = Shape > 0 and scale 1/(kλ):
	// variance 1/(kλ²). k = 1 is Poisson, k > 1 is more regular (k integer:
	// Erlang), k < 1 burstier.
	Gamma
	// LogNormal interarrivals exp(μ + σZ) with σ = Shape > 0 and
	// μ = −ln λ − σ²/2: variance (e^{σ²} − 1)/λ².
	LogNormal
	// Pareto (type I) interarrivals with tail index α = Shape > 1 and scale
	// x_m = (α − 1)/(αλ): variance 1/(λ²·α(α − 2)) for α > 2, infinite for
	// 1 < α ≤ 2 (heavy-tailed, bursty streams).
	Pareto
	numKinds
)

var kindNames = [numKinds]string{"poisson", "fixed", "gamma", "lognormal", "pareto"}

// String returns the kind's name as Parse reads it: "poisson", "fixed",
// "gamma", "lognormal" or "pareto".
func (k DistKind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("DistKind(%d)", uint8(k))
}

// hasShape reports whether the family takes a shape parameter.
func (k DistKind) hasShape() bool { return k == Gamma || k == LogNormal || k == Pareto }

// Dist is an interarrival distribution: a family and its shape, scaled by
// the rate to mean 1/λ. The zero value is Poisson.
type Dist struct {
	Kind DistKind
	// Shape is Gamma's shape k > 0, LogNormal's σ > 0 or Pareto's tail
	// index α > 1; it must be 0 for Poisson and Fixed.
	Shape float64
}

// String returns the distribution as Parse reads it: "poisson",
// "gamma:2", "lognormal:0.5".
func (d Dist) String() string {
	if d.Kind.hasShape() || d.Shape != 0 {
		return d.Kind.String() + ":" + formatFloat(d.Shape)
	}
	return d.Kind.String()
}

// Validate returns an *InputError wrapping ErrConfig that names Dist.Kind
// or Dist.Shape if d is not a valid distribution.
func (d Dist) Validate() error {
	if err := d.check(); err != nil {
		return err
	}
	return nil
}

func (d Dist) check() *InputError {
	s := d.Shape
	switch d.Kind {
	case Poisson, Fixed:
		if s != 0 {
			return configError("Dist.Shape", s, d.Kind.String()+" takes no shape (it must be 0)")
		}
	case Gamma:
		if !(s > 0) || math.IsInf(s, 1) {
			return configError("Dist.Shape", s, "the gamma shape k must be finite and > 0")
		}
	case LogNormal:
		if !(s > 0) || math.IsInf(s, 1) {
			return configError("Dist.Shape", s, "the lognormal σ must be finite and > 0")
		}
	case Pareto:
		if !(s > 1) || math.IsInf(s, 1) {
			return configError("Dist.Shape", s, "the Pareto tail index α must be finite and > 1 (the mean is infinite otherwise)")
		}
	default:
		return configError("Dist.Kind", d.Kind, "unknown kind (want poisson, fixed, gamma, lognormal or pareto)")
	}
	return nil
}

// Variance returns the variance of one interarrival time, in s², at rate
// λ (points per second): the closed forms listed with the DistKind
// constants; +Inf for Pareto with α ≤ 2; NaN for an invalid d or rate.
func (d Dist) Variance(rate float64) float64 {
	if d.check() != nil || !(rate > 0) || math.IsInf(rate, 1) {
		return math.NaN()
	}
	l2 := rate * rate
	switch d.Kind {
	case Poisson:
		return 1 / l2
	case Fixed:
		return 0
	case Gamma:
		return 1 / (d.Shape * l2)
	case LogNormal:
		return fpdet.Expm1(float64(d.Shape*d.Shape)) / l2
	default: // Pareto
		a := d.Shape
		if a <= 2 {
			return math.Inf(1)
		}
		return 1 / (l2 * a * (a - 2))
	}
}

// Spec describes every worker's arrival process: one interarrival family
// and one rate λ_n per worker. Exactly one of Rate, Rates and Lo/Hi is set.
type Spec struct {
	// Dist is the interarrival distribution family; the zero value is
	// Poisson (exponential interarrivals).
	Dist Dist
	// Rate is a homogeneous λ in points per second, the same for every
	// worker (DOLL §V-A: λ_A = 125). Set when Rates and Lo/Hi are unset.
	Rate float64
	// Rates are heterogeneous λ_n, one per worker, given.
	Rates []float64
	// Lo and Hi make heterogeneous λ_n ~ U(Lo, Hi), drawn anew for each
	// run from its seed (DOLL §V-B: U(1, 250)); 0 < Lo ≤ Hi.
	Lo, Hi float64
}

// String returns s in the form Parse reads; Parse(s.String()) gives back
// s for every spec that Validate accepts.
func (s Spec) String() string {
	var b strings.Builder
	b.WriteString(s.Dist.String())
	b.WriteByte(':')
	switch {
	case len(s.Rates) > 0:
		for i, r := range s.Rates {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(formatFloat(r))
		}
		if len(s.Rates) == 1 {
			b.WriteByte(',') // a list of one, not a homogeneous rate
		}
	case s.Lo != 0 || s.Hi != 0:
		b.WriteString(formatFloat(s.Lo))
		b.WriteByte('-')
		b.WriteString(formatFloat(s.Hi))
	default:
		b.WriteString(formatFloat(s.Rate))
	}
	return b.String()
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// goodRate reports whether r is a valid rate: finite and > 0.
func goodRate(r float64) bool { return r > 0 && !math.IsInf(r, 1) }

// check validates everything but the number of workers.
func (s Spec) check() *InputError {
	if err := s.Dist.check(); err != nil {
		return err
	}
	set := 0
	var names []string
	if s.Rate != 0 {
		set++
		names = append(names, "Rate")
	}
	if len(s.Rates) > 0 {
		set++
		names = append(names, "Rates")
	}
	if s.Lo != 0 || s.Hi != 0 {
		set++
		names = append(names, "Lo/Hi")
	}
	switch {
	case set == 0:
		return configError("Spec.Rate", s.Rate, "no arrival rate: set Rate, Rates or Lo/Hi")
	case set > 1:
		return configError("Spec", s.String(), "set only one of Rate, Rates and Lo/Hi (set: "+strings.Join(names, ", ")+")")
	case s.Rate != 0:
		if !goodRate(s.Rate) {
			return configError("Spec.Rate", s.Rate, "the rate must be finite and > 0 (points per second)")
		}
	case len(s.Rates) > 0:
		for i, r := range s.Rates {
			if !goodRate(r) {
				return configError(fmt.Sprintf("Spec.Rates[%d]", i), r, "the rate must be finite and > 0 (points per second)")
			}
		}
	default:
		switch {
		case !goodRate(s.Lo):
			return configError("Spec.Lo", s.Lo, "the lower bound must be finite and > 0 (points per second)")
		case !goodRate(s.Hi):
			return configError("Spec.Hi", s.Hi, "the upper bound must be finite and > 0 (points per second)")
		case s.Lo > s.Hi:
			return configError("Spec.Lo", s.Lo, fmt.Sprintf("the lower bound must not exceed Hi = %v", s.Hi))
		}
	}
	return nil
}

// Validate checks s for a job of the given number of workers (≥ 1). It
// returns an *InputError wrapping ErrConfig that names the field: a NaN,
// infinite or non-positive rate or bound, Lo > Hi, len(Rates) ≠ workers,
// none or more than one of Rate, Rates and Lo/Hi set, or a bad Dist.
func (s Spec) Validate(workers int) error {
	if workers < 1 {
		return configError("workers", workers, "the number of workers must be ≥ 1")
	}
	if err := s.check(); err != nil {
		return err
	}
	if len(s.Rates) > 0 && len(s.Rates) != workers {
		return configError("Spec.Rates", s.String(), fmt.Sprintf("%d rates for %d workers (one per worker)", len(s.Rates), workers))
	}
	return nil
}

// ratesStream is the PCG stream of RatesFor's draws. Worker streams are
// stream(n) = mix(n + workerBase); this is mix(workerBase − 1), the stream
// of worker 2^64 − 1, which no worker index (an int ≥ 0) reaches.
var ratesStream = mix(workerBase - 1)

// RatesFor returns λ_n for each of workers workers, in points per second,
// after Validate: Rate repeated, a copy of Rates, or for Lo/Hi one draw of
// U(Lo, Hi) per worker in order, from a math/rand/v2 PCG stream seeded
// with seed (distinct from every worker's arrival stream). It is a pure
// function of (s, workers, seed), and RatesFor(m, seed) is a prefix of
// RatesFor(n, seed) for m ≤ n. Every λ_n lies in [Lo, Hi].
func (s Spec) RatesFor(workers int, seed uint64) ([]float64, error) {
	if err := s.Validate(workers); err != nil {
		return nil, err
	}
	out := make([]float64, workers)
	switch {
	case len(s.Rates) > 0:
		copy(out, s.Rates)
	case s.Rate != 0:
		for i := range out {
			out[i] = s.Rate
		}
	default:
		rng := rand.New(rand.NewPCG(seed, ratesStream))
		w := s.Hi - s.Lo
		for i := range out {
			// The explicit conversion keeps the product from being fused
			// with the sum (an FMA on some platforms).
			out[i] = min(s.Lo+float64(w*rng.Float64()), s.Hi)
		}
	}
	return out, nil
}

// Parse reads a Spec in its command-line form
//
//	KIND[:SHAPE]:RATES
//
// KIND is poisson, fixed, gamma, lognormal or pareto (case-insensitive);
// SHAPE is given for gamma (its shape k), lognormal (σ) and pareto (α), and
// only for them. RATES is one of
//
//	125          one rate λ for every worker (Spec.Rate)
//	1-250        λ_n ~ U(1, 250), drawn per run from the seed (Spec.Lo, Hi)
//	10,20,30     one rate per worker, in worker order (Spec.Rates)
//	10,          a list of one rate (a trailing comma marks a list)
//
// Numbers are Go floats ("1e-3", "2.5"); a range splits at its first '-'
// that does not start the string or follow an exponent's 'e'. Examples:
// "poisson:125", "poisson:1-250", "gamma:2:125", "fixed:125",
// "lognormal:0.5:125", "pareto:2.5:10,20,30". Errors are *InputError
// values naming the spec, wrapping ErrMalformed for a string that does not
// decode and ErrConfig for a value out of range (as Validate, without the
// worker count, which Parse does not know).
func Parse(str string) (Spec, error) {
	bad := func(err error, format string, args ...any) (Spec, error) {
		return Spec{}, &InputError{Input: "spec", Value: str, Reason: fmt.Sprintf(format, args...), Err: err}
	}
	fields := strings.Split(strings.TrimSpace(str), ":")
	name := strings.ToLower(strings.TrimSpace(fields[0]))
	kind := numKinds
	for k, n := range kindNames {
		if n == name {
			kind = DistKind(k)
		}
	}
	if kind == numKinds {
		return bad(ErrMalformed, "unknown distribution %q (want poisson, fixed, gamma, lognormal or pareto)", fields[0])
	}
	want := 2
	if kind.hasShape() {
		want = 3
	}
	if len(fields) != want {
		form := "KIND:RATES"
		if kind.hasShape() {
			form = "KIND:SHAPE:RATES"
		}
		return bad(ErrMalformed, "%d fields separated by ':', want %d (%s for %s)", len(fields), want, form, kind)
	}
	var s Spec
	s.Dist.Kind = kind
	if kind.hasShape() {
		v, err := parseNumber(fields[1])
		if err != nil {
			return bad(ErrMalformed, "shape %q %s", strings.TrimSpace(fields[1]), err)
		}
		s.Dist.Shape = v
	}
	rates := strings.TrimSpace(fields[want-1])
	switch {
	case strings.Contains(rates, ","):
		parts := strings.Split(rates, ",")
		if len(parts) > 1 && strings.TrimSpace(parts[len(parts)-1]) == "" {
			parts = parts[:len(parts)-1]
		}
		s.Rates = make([]float64, len(parts))
		for i, p := range parts {
			v, err := parseNumber(p)
			if err != nil {
				return bad(ErrMalformed, "rate %d %q %s", i, strings.TrimSpace(p), err)
			}
			s.Rates[i] = v
		}
	case rangeSep(rates) > 0:
		i := rangeSep(rates)
		lo, err := parseNumber(rates[:i])
		if err != nil {
			return bad(ErrMalformed, "lower bound %q %s", strings.TrimSpace(rates[:i]), err)
		}
		hi, err := parseNumber(rates[i+1:])
		if err != nil {
			return bad(ErrMalformed, "upper bound %q %s", strings.TrimSpace(rates[i+1:]), err)
		}
		s.Lo, s.Hi = lo, hi
		if lo == 0 && hi == 0 {
			// Both 0 would read back as "no range".
			return bad(ErrConfig, "Spec.Lo = 0: the lower bound must be finite and > 0 (points per second)")
		}
	default:
		v, err := parseNumber(rates)
		if err != nil {
			return bad(ErrMalformed, "rate %q %s", rates, err)
		}
		s.Rate = v
		if v == 0 {
			return bad(ErrConfig, "Spec.Rate = 0: the rate must be finite and > 0 (points per second)")
		}
	}
	if ie := s.check(); ie != nil {
		v := fmt.Sprint(ie.Value)
		if sv, ok := ie.Value.(string); ok {
			v = strconv.Quote(sv)
		}
		return bad(ie.Err, "%s = %s: %s", ie.Input, v, ie.Reason)
	}
	return s, nil
}

// rangeSep returns the index of the '-' separating a range's bounds, or
// -1: the first '-' after index 0 that does not follow an exponent's 'e'.
func rangeSep(s string) int {
	for i := 1; i < len(s); i++ {
		if s[i] == '-' && s[i-1] != 'e' && s[i-1] != 'E' {
			return i
		}
	}
	return -1
}

// numErr is the reason a number failed to parse.
type numErr string

func (e numErr) Error() string { return string(e) }

func parseNumber(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, numErr("is empty")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, numErr("is out of range")
		}
		return 0, numErr("is not a number")
	}
	return v, nil
}
