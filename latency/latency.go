package latency

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/syncmodels/syncmodels/internal/fpdet"
)

// Sentinel errors; match with errors.Is.
var (
	// ErrConfig reports an invalid Dist: a field out of range.
	ErrConfig = errors.New("latency: invalid config")
	// ErrMalformed reports a Parse string that does not decode.
	ErrMalformed = errors.New("latency: malformed spec")
)

// InputError names one bad value. It reads like
//
//	latency: Dist.Alpha = 0: the tail index must be finite and > 0 when P > 0
//	latency: spec = "median=5": median "5" is not a duration (e.g. 5ms)
type InputError struct {
	Input  string // "Dist.Median", "Dist.P", …, or "spec" (Parse)
	Value  any    // the bad value
	Reason string // what it must be
	Err    error  // ErrConfig or ErrMalformed
}

func (e *InputError) Error() string {
	if s, ok := e.Value.(string); ok {
		return fmt.Sprintf("latency: %s = %q: %s", e.Input, s, e.Reason)
	}
	return fmt.Sprintf("latency: %s = %v: %s", e.Input, e.Value, e.Reason)
}

// Unwrap returns the sentinel.
func (e *InputError) Unwrap() error { return e.Err }

func configError(input string, value any, reason string) *InputError {
	return &InputError{Input: input, Value: value, Reason: reason, Err: ErrConfig}
}

// Dist is a per-operation delay distribution: a mixture that draws, with
// probability 1 − P, from a lognormal body with median Median and
// log-standard deviation Sigma, and with probability P from a Pareto
// (type I) tail with scale Scale and index Alpha; a draw above Max (if
// set) is Max. The zero value delays nothing.
//
// Special cases: Median alone is a fixed delay; Median and Sigma a plain
// lognormal; P = 1 with Scale and Alpha a plain Pareto; Median 0 with a
// tail is "no delay, except rarely a long one".
type Dist struct {
	// Median is the body's median e^μ, ≥ 0. With Sigma 0 every body draw
	// is exactly Median.
	Median time.Duration
	// Sigma is the body's log-standard deviation σ, finite and ≥ 0; > 0
	// needs Median > 0.
	Sigma float64
	// P is the probability that a draw comes from the tail, in [0, 1].
	// With P = 1 the body is never drawn and Median and Sigma must be 0.
	P float64
	// Scale is the tail's minimum x_m: > 0 when P > 0, else 0.
	Scale time.Duration
	// Alpha is the tail index α: finite and > 0 when P > 0, else 0.
	// P(X > x | tail) = (x_m/x)^α for x ≥ x_m; the tail's mean is finite
	// only for α > 1, its variance only for α > 2.
	Alpha float64
	// Max, if > 0, caps every draw (and every quantile) at Max. 0: no cap
	// (a draw that would overflow a time.Duration is math.MaxInt64 ns).
	Max time.Duration
}

// Validate returns an *InputError wrapping ErrConfig that names the first
// field of d out of range, or nil.
func (d Dist) Validate() error {
	if err := d.check(); err != nil {
		return err
	}
	return nil
}

func (d Dist) check() *InputError {
	switch {
	case d.Median < 0:
		return configError("Dist.Median", d.Median, "the body's median must be ≥ 0")
	case !(d.Sigma >= 0) || math.IsInf(d.Sigma, 1):
		return configError("Dist.Sigma", d.Sigma, "the body's log-standard deviation must be finite and ≥ 0")
	case d.Sigma > 0 && d.Median == 0:
		return configError("Dist.Sigma", d.Sigma, "a lognormal body needs Median > 0 (Sigma must be 0 without one)")
	case !(d.P >= 0 && d.P <= 1):
		return configError("Dist.P", d.P, "the tail probability must be in [0, 1]")
	case d.P == 1 && (d.Median != 0 || d.Sigma != 0):
		return configError("Dist.Median", d.Median, "with P = 1 the body is never drawn (Median and Sigma must be 0)")
	case d.P == 0 && (d.Scale != 0 || d.Alpha != 0):
		return configError("Dist.P", d.P, "a tail (Scale, Alpha) needs P > 0")
	case d.P > 0 && d.Scale <= 0:
		return configError("Dist.Scale", d.Scale, "the tail's scale must be > 0 when P > 0")
	case d.P > 0 && (!(d.Alpha > 0) || math.IsInf(d.Alpha, 1)):
		return configError("Dist.Alpha", d.Alpha, "the tail index must be finite and > 0 when P > 0")
	case d.Max < 0:
		return configError("Dist.Max", d.Max, "the cap must be ≥ 0 (0: none)")
	}
	return nil
}

// IsZero reports whether d never delays anything.
func (d Dist) IsZero() bool { return d.Median == 0 && d.P == 0 }

// String returns d as Parse reads it: "none" for the zero value, else the
// fields that are set, in the order median, sigma, p, scale, alpha, max:
// "median=5ms,sigma=0.5,p=0.0001,scale=10s,alpha=1.5".
func (d Dist) String() string {
	if d == (Dist{}) {
		return "none"
	}
	var parts []string
	if d.Median != 0 {
		parts = append(parts, "median="+d.Median.String())
	}
	if d.Sigma != 0 {
		parts = append(parts, "sigma="+formatFloat(d.Sigma))
	}
	if d.P != 0 {
		parts = append(parts, "p="+formatFloat(d.P))
	}
	if d.Scale != 0 {
		parts = append(parts, "scale="+d.Scale.String())
	}
	if d.Alpha != 0 {
		parts = append(parts, "alpha="+formatFloat(d.Alpha))
	}
	if d.Max != 0 {
		parts = append(parts, "max="+d.Max.String())
	}
	if len(parts) == 0 {
		return "median=0s" // only Max set: no delay, but keep the cap
	}
	return strings.Join(parts, ",")
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Parse reads a Dist from its command-line form: "none", or a
// comma-separated list of key=value pairs, each key at most once, in any
// order:
//
//	median=DUR   the body's median (Dist.Median), a Go duration: 5ms
//	sigma=X      the body's log-standard deviation (Dist.Sigma)
//	p=X          the tail's probability (Dist.P)
//	scale=DUR    the tail's minimum (Dist.Scale)
//	alpha=X      the tail index (Dist.Alpha)
//	max=DUR      the cap (Dist.Max)
//
// A key left out is 0. Examples: "median=5ms" (fixed), "median=5ms,sigma=0.5"
// (lognormal), "p=1,scale=1s,alpha=2" (Pareto), "p=0.01,scale=2s,alpha=1.5"
// (no delay, except 1% of operations), and Default's
// "median=5ms,sigma=0.5,p=0.0001,scale=10s,alpha=1.5". Errors are one-line
// *InputError values naming the spec, wrapping ErrMalformed for a string
// that does not decode and ErrConfig for a value out of range (as
// Validate).
func Parse(str string) (Dist, error) {
	bad := func(err error, format string, args ...any) (Dist, error) {
		return Dist{}, &InputError{Input: "spec", Value: str, Reason: fmt.Sprintf(format, args...), Err: err}
	}
	s := strings.TrimSpace(str)
	if strings.EqualFold(s, "none") {
		return Dist{}, nil
	}
	if s == "" {
		return bad(ErrMalformed, `empty (want "none" or key=value pairs: median, sigma, p, scale, alpha, max)`)
	}
	var d Dist
	seen := map[string]bool{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		if !ok {
			return bad(ErrMalformed, "%q is not key=value (keys: median, sigma, p, scale, alpha, max)", strings.TrimSpace(kv))
		}
		if seen[k] {
			return bad(ErrMalformed, "%s given twice", k)
		}
		seen[k] = true
		var err error
		switch k {
		case "median":
			d.Median, err = parseDuration(v)
		case "scale":
			d.Scale, err = parseDuration(v)
		case "max":
			d.Max, err = parseDuration(v)
		case "sigma":
			d.Sigma, err = parseNumber(v)
		case "p":
			d.P, err = parseNumber(v)
		case "alpha":
			d.Alpha, err = parseNumber(v)
		default:
			return bad(ErrMalformed, "unknown key %q (keys: median, sigma, p, scale, alpha, max)", k)
		}
		if err != nil {
			return bad(ErrMalformed, "%s %q %v", k, v, err)
		}
	}
	if ie := d.check(); ie != nil {
		return bad(ie.Err, "%s = %v: %s", ie.Input, ie.Value, ie.Reason)
	}
	return d, nil
}

// numErr is the reason a value failed to parse.
type numErr string

func (e numErr) Error() string { return string(e) }

func parseNumber(s string) (float64, error) {
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

func parseDuration(s string) (time.Duration, error) {
	if s == "" {
		return 0, numErr("is empty")
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, numErr("is not a duration (e.g. 5ms, 10s)")
	}
	return v, nil
}

// Default is an slsML-like storage latency (see the package doc):
// milliseconds for almost every operation, and for one in 10,000 a
// Pareto tail from 10 s with index 1.5.
func Default() Dist {
	return Dist{Median: 5 * time.Millisecond, Sigma: 0.5, P: 1e-4, Scale: 10 * time.Second, Alpha: 1.5}
}

// maxNs is the largest delay a draw returns without a cap, in ns.
const maxNs = math.MaxInt64

// CDF returns P(X ≤ x), in closed form: (1 − P)·Φ((ln x − ln Median)/σ)
// + P·(1 − (Scale/x)^α) for x ≥ Scale (a step at Median when σ = 0), and 1
// from Max on. d must be valid.
func (d Dist) CDF(x time.Duration) float64 {
	if x < 0 {
		return 0
	}
	if d.Max > 0 && x >= d.Max {
		return 1
	}
	return float64((1-d.P)*d.bodyCDF(float64(x))) + float64(d.P*d.tailCDF(float64(x)))
}

func (d Dist) bodyCDF(x float64) float64 {
	m := float64(d.Median)
	if d.Sigma == 0 {
		if x >= m {
			return 1
		}
		return 0
	}
	if x <= 0 {
		return 0
	}
	z := (fpdet.Log(x) - fpdet.Log(m)) / d.Sigma
	return float64(0.5 * fpdet.Erfc(-z/math.Sqrt2))
}

func (d Dist) tailCDF(x float64) float64 {
	xm := float64(d.Scale)
	if d.P == 0 || x < xm {
		return 0
	}
	return 1 - fpdet.Pow(xm/x, d.Alpha)
}

// bodyQuantile is the body's q-quantile in ns: Median·exp(σ·Φ⁻¹(q)),
// Φ⁻¹(q) = √2·erfinv(2q − 1).
func (d Dist) bodyQuantile(q float64) float64 {
	if d.Sigma == 0 {
		return float64(d.Median)
	}
	return float64(float64(d.Median) * fpdet.Exp(float64(d.Sigma*math.Sqrt2*fpdet.Erfinv(float64(2*q)-1))))
}

// tailQuantile is the tail's q-quantile in ns: Scale·(1 − q)^(−1/α).
func (d Dist) tailQuantile(q float64) float64 {
	return float64(float64(d.Scale) * fpdet.Pow(1-q, -1/d.Alpha))
}

// Quantile returns the q-quantile of d, the least x with CDF(x) ≥ q, to
// the nanosecond, for q in [0, 1] (it panics otherwise). Each component's
// quantile is in closed form (bodyQuantile, tailQuantile); the mixture's
// lies between the two (where both components' CDFs reach q, so does the
// mixture's), and is found there by bisection on the closed-form CDF.
// Quantile(1) is Max, or math.MaxInt64 ns without a cap when the tail or
// the body is unbounded. d must be valid.
func (d Dist) Quantile(q float64) time.Duration {
	if !(q >= 0 && q <= 1) {
		panic(fmt.Sprintf("latency: Quantile(%v): q must be in [0, 1]", q))
	}
	if q == 0 || d.IsZero() {
		return 0
	}
	if q == 1 && (d.Sigma > 0 || d.P > 0) {
		return d.clamp(math.Inf(1)) // unbounded support
	}
	var lo, hi float64
	switch {
	case d.P == 0:
		lo = d.bodyQuantile(q)
		hi = lo
	case d.P == 1:
		lo = d.tailQuantile(q)
		hi = lo
	default:
		b, t := d.bodyQuantile(q), d.tailQuantile(q)
		lo, hi = min(b, t), max(b, t)
	}
	// Bisection on integer nanoseconds for the least x with CDF(x) ≥ q,
	// from a bracket one step wider than the closed forms (rounding).
	l, h := d.clamp(lo-1), d.clamp(hi+1)
	if l > 0 && d.CDF(l) >= q {
		l = 0
	}
	for l+1 < h {
		m := l + (h-l)/2
		if d.CDF(m) >= q {
			h = m
		} else {
			l = m
		}
	}
	if d.CDF(l) >= q {
		return l
	}
	return h
}

// workerBase offsets worker indices before mixing ("latency!"), so that
// the draws differ from those other packages derive from the same seed.
const workerBase = 0x6c61_7465_6e63_7921

// seedBase likewise offsets the seed.
const seedBase = 0x7461_696c_2d64_656c

// mix is the splitmix64 finaliser.
func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Sample returns the delay of operation op of worker under seed: a pure
// function of (d, seed, worker, op), drawn from its own math/rand/v2 PCG
// stream seeded with (a mix of seed, a mix of worker and op), so the
// operations of every worker are independent and a caller may draw them
// in any order. One uniform picks the component (tail if < P), a second
// is inverted through the component's closed-form quantile. A fixed
// delay draws nothing. d must be valid.
func (d Dist) Sample(seed, worker, op uint64) time.Duration {
	if d.P == 0 && d.Sigma == 0 {
		return d.clamp(float64(d.Median))
	}
	src := rand.NewPCG(mix(seed^seedBase), mix(mix(worker^workerBase)+op))
	pick := float64(src.Uint64()>>11) * 0x1p-53               // [0, 1)
	u := float64((float64(src.Uint64()>>11) + 0.5) * 0x1p-53) // (0, 1): finite quantiles
	if pick < d.P {
		return d.clamp(d.tailQuantile(u))
	}
	return d.clamp(d.bodyQuantile(u))
}

// clamp converts ns to a Duration no larger than Max (if set) or
// math.MaxInt64.
func (d Dist) clamp(ns float64) time.Duration {
	switch {
	case d.Max > 0 && ns >= float64(d.Max):
		return d.Max
	case !(ns < float64(maxNs)): // (2^63 as a float64) NaN too
		return maxNs
	case ns <= 0:
		return 0
	}
	return time.Duration(math.Round(ns))
}
