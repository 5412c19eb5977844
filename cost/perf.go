package cost

import (
	"fmt"
	"math"
	"time"
)

func checkPositive(op, name string, x float64) error {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return &Error{Op: op, Name: name, Detail: fmt.Sprint(x), Err: ErrNonFinite}
	case x < 0:
		return &Error{Op: op, Name: name, Detail: fmt.Sprint(x), Err: ErrNegative}
	case x == 0:
		return &Error{Op: op, Name: name, Detail: "0, want > 0", Err: ErrInput}
	}
	return nil
}

// PerfPerDollar returns the MLLess cost-efficiency metric (§6.2.2,
// "Scale-in auto-tuner"):
//
//	Perf/$ := 1/Exec.time(s) × 1/Price($)
//
// where elapsed is the execution time to reach the target loss and dollars
// is the total price paid for it (a Bill's Total). The result is in
// 1/(s·$); higher is better. With a constant deployment rate r in $/s,
// dollars = r·elapsed, so Perf/$ = 1/(elapsed²·r).
func PerfPerDollar(elapsed time.Duration, dollars float64) (float64, error) {
	if elapsed <= 0 {
		return 0, &Error{Op: "perf/$", Name: "time", Detail: fmt.Sprintf("%v, want > 0", elapsed), Err: ErrInput}
	}
	if err := checkPositive("perf/$", "price", dollars); err != nil {
		return 0, err
	}
	return 1 / (elapsed.Seconds() * dollars), nil
}

// Gain returns the relative gain Perf/$(a) / Perf/$(b), as MLLess reports
// the auto-tuner's improvement ("1.4X-1.5X"). Both must be positive and
// finite.
func Gain(a, b float64) (float64, error) {
	if err := checkPositive("gain", "a", a); err != nil {
		return 0, err
	}
	if err := checkPositive("gain", "b", b); err != nil {
		return 0, err
	}
	return a / b, nil
}

// CostRatio returns cost / baseline, the form of DOLL Table II ("cost as a
// percentage of on-demand-only cost", here as a fraction) and of MLLess's
// savings ("6.32X" is the inverse). cost must be finite and ≥ 0, baseline
// finite and > 0.
func CostRatio(cost, baseline float64) (float64, error) {
	if math.IsNaN(cost) || math.IsInf(cost, 0) {
		return 0, &Error{Op: "cost ratio", Name: "cost", Detail: fmt.Sprint(cost), Err: ErrNonFinite}
	}
	if cost < 0 {
		return 0, &Error{Op: "cost ratio", Name: "cost", Detail: fmt.Sprint(cost), Err: ErrNegative}
	}
	if err := checkPositive("cost ratio", "baseline", baseline); err != nil {
		return 0, err
	}
	return cost / baseline, nil
}

// MixedRate returns DOLL's effective total price per unit time of a fleet
// of onDemand on-demand and spot preemptible instances, each preemptible
// one available a fraction alpha of the time (DOLL §IV-B, the factor of
// Eq. 16): (N_tot − N_s)·π_o + α·N_s·π_s, in $/hour.
func MixedRate(onDemand, spot int, alpha float64, onDemandPrice, spotPrice Price) (Price, error) {
	if onDemand < 0 || spot < 0 {
		return Price{}, &Error{Op: "mixed rate", Name: "instances", Detail: fmt.Sprintf("on-demand %d, spot %d", onDemand, spot), Err: ErrNegative}
	}
	if math.IsNaN(alpha) || alpha < 0 || alpha > 1 {
		return Price{}, &Error{Op: "mixed rate", Name: "alpha", Detail: fmt.Sprintf("%v, want in [0, 1]", alpha), Err: ErrConfig}
	}
	if err := onDemandPrice.Validate(); err != nil {
		return Price{}, rewrap(err, "mixed rate", "on-demand price")
	}
	if err := spotPrice.Validate(); err != nil {
		return Price{}, rewrap(err, "mixed rate", "spot price")
	}
	return DollarsPerHour(float64(float64(onDemand)*onDemandPrice.Hourly()) + float64(alpha*float64(spot)*spotPrice.Hourly())), nil
}
