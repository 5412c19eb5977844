package cost

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Kind classifies a resource for the per-kind breakdown of a Bill.
type Kind int

// Resource kinds. The zero Kind is unset and rejected by Validate.
const (
	// FaaS is a cloud function (serverless worker), billed per use with
	// sub-second granularity.
	FaaS Kind = iota + 1
	// VM is an on-demand virtual machine.
	VM
	// Spot is a preemptible (spot) virtual machine, billed only while
	// available, usually against a price trace.
	Spot
)

// numKinds is one more than the largest Kind.
const numKinds = int(Spot) + 1

// Kinds returns the valid kinds in increasing order.
func Kinds() []Kind { return []Kind{FaaS, VM, Spot} }

func (k Kind) String() string {
	switch k {
	case FaaS:
		return "FaaS"
	case VM:
		return "VM"
	case Spot:
		return "Spot"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

func (k Kind) valid() bool { return k >= FaaS && k <= Spot }

// Price is a price per unit time, kept in the units it was quoted in:
// Dollars per Per. MLLess Table 2 quotes VMs in $/hour and functions in $/s;
// both are exact here. The zero Price is invalid (Per = 0).
type Price struct {
	Dollars float64       // dollars per Per; finite, ≥ 0
	Per     time.Duration // the time unit of the quote; > 0
}

// DollarsPerHour returns the price x $/hour.
func DollarsPerHour(x float64) Price { return Price{Dollars: x, Per: time.Hour} }

// DollarsPerSecond returns the price x $/s.
func DollarsPerSecond(x float64) Price { return Price{Dollars: x, Per: time.Second} }

// Rate returns the price in $/s.
func (p Price) Rate() float64 { return p.Dollars / p.Per.Seconds() }

// Hourly returns the price in $/hour.
func (p Price) Hourly() float64 { return float64(p.Dollars * (float64(time.Hour) / float64(p.Per))) }

// For returns the price of d at this price, with no rounding. It does not
// validate p.
func (p Price) For(d time.Duration) float64 {
	return float64(p.Dollars * (float64(d) / float64(p.Per)))
}

// Validate reports whether p is a finite, non-negative price with a
// positive period.
func (p Price) Validate() error {
	if math.IsNaN(p.Dollars) || math.IsInf(p.Dollars, 0) {
		return &Error{Op: "price", Detail: fmt.Sprintf("%v $ per %v", p.Dollars, p.Per), Err: ErrNonFinite}
	}
	if p.Dollars < 0 {
		return &Error{Op: "price", Detail: fmt.Sprintf("%v $ per %v", p.Dollars, p.Per), Err: ErrNegative}
	}
	if p.Per <= 0 {
		return &Error{Op: "price", Detail: fmt.Sprintf("%v $ per %v: period must be > 0", p.Dollars, p.Per), Err: ErrConfig}
	}
	return nil
}

// Billing is a billing model: each lifetime of a resource is first raised
// to Minimum (if shorter and non-empty), then rounded up to a whole
// multiple of Granularity. The zero Billing bills the exact lifetime.
//
// Rounding applies to each lifetime separately: a function invoked twice
// for 1.01 s is billed 2 × 1.1 s under Per100ms, not 2.1 s.
type Billing struct {
	// Granularity is the billing increment; 0 (or 1 ns) bills exactly.
	// Must be ≥ 0.
	Granularity time.Duration
	// Minimum is the minimum charge per non-empty lifetime, as a duration
	// (AWS, for example, bills per second with a 60 s minimum); 0 for none.
	// A zero-length lifetime is never charged. Must be ≥ 0.
	Minimum time.Duration
}

// Exact returns a billing model that charges the exact lifetime, to the
// nanosecond. It differs from the zero Billing only in being non-zero, so
// that Options can tell it from "use the default".
func Exact() Billing { return Billing{Granularity: time.Nanosecond} }

// Per100ms returns per-100-ms billing, the FaaS sub-second billing of
// MLLess §1 ("often per 100ms").
func Per100ms() Billing { return Billing{Granularity: 100 * time.Millisecond} }

// PerSecond returns per-second billing, the convention MLLess §6.1 applies
// to VMs ("we are conservative and assume that VM cost is measured as $/s").
func PerSecond() Billing { return Billing{Granularity: time.Second} }

// PerHour returns per-hour billing, how IBM Cloud actually charged VMs in
// MLLess §6.1.
func PerHour() Billing { return Billing{Granularity: time.Hour} }

// WithMinimum returns b with a minimum charge of m per lifetime.
func (b Billing) WithMinimum(m time.Duration) Billing {
	b.Minimum = m
	return b
}

// Validate reports whether b's fields are non-negative.
func (b Billing) Validate() error {
	if b.Granularity < 0 || b.Minimum < 0 {
		return &Error{Op: "billing", Detail: fmt.Sprintf("granularity %v, minimum %v", b.Granularity, b.Minimum), Err: ErrNegative}
	}
	return nil
}

// Billed returns the billed duration of one lifetime of length d: 0 if d is
// 0, otherwise max(d, Minimum) rounded up to a multiple of Granularity.
func (b Billing) Billed(d time.Duration) (time.Duration, error) {
	if err := b.Validate(); err != nil {
		return 0, err
	}
	if d < 0 {
		return 0, &Error{Op: "billed", Detail: fmt.Sprintf("lifetime %v", d), Err: ErrNegative}
	}
	if d == 0 {
		return 0, nil
	}
	d = max(d, b.Minimum)
	if g := b.Granularity; g > 1 {
		if r := d % g; r != 0 {
			if d > math.MaxInt64-(g-r) {
				return 0, &Error{Op: "billed", Detail: fmt.Sprintf("lifetime %v rounded up to %v", d, g), Err: ErrOverflow}
			}
			d += g - r
		}
	}
	return d, nil
}

// FromSeconds converts virtual seconds, as a float64 simulator clock keeps
// them, to a time.Duration rounded to the nearest nanosecond.
func FromSeconds(s float64) (time.Duration, error) {
	switch {
	case math.IsNaN(s) || math.IsInf(s, 0):
		return 0, &Error{Op: "seconds", Detail: fmt.Sprint(s), Err: ErrNonFinite}
	case s < 0:
		return 0, &Error{Op: "seconds", Detail: fmt.Sprint(s), Err: ErrNegative}
	case s*1e9 >= math.MaxInt64: // the float64 nearest MaxInt64 is 2^63
		return 0, &Error{Op: "seconds", Detail: fmt.Sprint(s), Err: ErrOverflow}
	}
	return time.Duration(math.Round(s * 1e9)), nil
}

// Resource is one billable thing: a cloud function, a VM or a spot
// instance. Its price is either fixed (Price) or, for a spot instance,
// read from a price trace (Trace); exactly one of the two is set.
type Resource struct {
	Name    string  // unique within a Ledger; not empty
	Kind    Kind    // FaaS, VM or Spot
	Price   Price   // fixed price; must be the zero Price when Trace is set
	Trace   *Trace  // piecewise-constant price over time, or nil
	Billing Billing // rounding of each lifetime; zero bills exactly
}

// Validate reports whether r is well formed.
func (r Resource) Validate() error {
	bad := func(detail string, err error) error {
		return &Error{Op: "resource", Name: r.Name, Detail: detail, Err: err}
	}
	if r.Name == "" {
		return bad("empty name", ErrConfig)
	}
	if !r.Kind.valid() {
		return bad("kind "+r.Kind.String(), ErrConfig)
	}
	if err := r.Billing.Validate(); err != nil {
		return rewrap(err, "resource", r.Name)
	}
	if r.Trace != nil {
		if r.Price != (Price{}) {
			return bad(fmt.Sprintf("both a price (%v $ per %v) and a trace", r.Price.Dollars, r.Price.Per), ErrConfig)
		}
		if r.Trace.Len() == 0 {
			return bad("empty trace", ErrOutsideTrace)
		}
		return nil
	}
	if err := r.Price.Validate(); err != nil {
		if e := (*Error)(nil); errors.As(err, &e) {
			return bad("price "+e.Detail, e.Err)
		}
		return rewrap(err, "resource", r.Name)
	}
	return nil
}

// Interval is one lifetime of a resource: from Start to Stop, both offsets
// from the start of the run.
type Interval struct {
	Start, Stop time.Duration
}

// Len returns Stop − Start.
func (iv Interval) Len() time.Duration { return iv.Stop - iv.Start }

func (iv Interval) check(op, name string) error {
	if iv.Start < 0 || iv.Stop < 0 {
		return &Error{Op: op, Name: name, Detail: fmt.Sprintf("interval [%v, %v]", iv.Start, iv.Stop), Err: ErrNegative}
	}
	if iv.Stop < iv.Start {
		return &Error{Op: op, Name: name, Detail: fmt.Sprintf("stop %v before start %v", iv.Stop, iv.Start), Err: ErrOrder}
	}
	return nil
}

// Cost returns what r charges for the given lifetimes, each billed
// separately under r.Billing. Lifetimes may be given in any order and may
// overlap (Cost does not check; a Ledger does).
func (r Resource) Cost(lifetimes ...Interval) (float64, error) {
	if err := r.Validate(); err != nil {
		return 0, err
	}
	total := 0.0
	for _, iv := range lifetimes {
		if err := iv.check("cost", r.Name); err != nil {
			return 0, err
		}
		c, _, err := r.lifetime(iv.Start, iv.Stop)
		if err != nil {
			return 0, err
		}
		total += c
	}
	return total, nil
}

// lifetime returns the cost and billed duration of one valid lifetime of a
// valid resource.
func (r Resource) lifetime(start, stop time.Duration) (float64, time.Duration, error) {
	billed, err := r.Billing.Billed(stop - start)
	if err != nil {
		return 0, 0, rewrap(err, "bill", r.Name)
	}
	if r.Trace == nil {
		return r.Price.For(billed), billed, nil
	}
	if billed == 0 {
		return 0, 0, nil
	}
	if start > math.MaxInt64-billed {
		return 0, 0, &Error{Op: "bill", Name: r.Name, Detail: fmt.Sprintf("start %v + billed %v", start, billed), Err: ErrOverflow}
	}
	c, err := r.Trace.Cost(start, start+billed)
	if err != nil {
		return 0, 0, rewrap(err, "bill", r.Name)
	}
	return c, billed, nil
}
