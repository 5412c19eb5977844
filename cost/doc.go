// Package cost prices training runs: billing models, the price tables of
// the papers, a Ledger that bills resource lifetimes, the MLLess Perf/$
// metric and spot-price traces for preemptible instances.
//
// Everything is pure and deterministic: no clock, no goroutines, no global
// state. Times are time.Duration offsets from the start of a run (integer
// nanoseconds, so rounding to 100 ms, 1 s or 1 h is exact); a simulator
// that keeps virtual time as float64 seconds converts with FromSeconds.
// Money is float64 dollars.
//
// # Sources
//
//   - P. Gimeno Sarroca and M. Sánchez-Artigas, "MLLess: Achieving Cost
//     Efficiency in Serverless Machine Learning Training" (MLLess).
//     Table 2 (IBM Cloud, us-east, April 2021) is IBMCloud2021. §6.1,
//     "Cost computation": the cost of an MLLess run is that of its function
//     workers plus two VMs, a C1.4x4 messaging service and an M1.2x16
//     Redis (MLLess); PyTorch runs four workers per B1.4x8 VM (PyTorch).
//     IBM charges VMs hourly, but the paper is "conservative and assume[s]
//     that VM cost is measured as $/s", which favours PyTorch; that is the
//     default here (Options.VMBilling), with PerHour as the option. Functions
//     have "sub-second billing (often per 100ms)" (§1): Per100ms. §6.2.2
//     defines Perf/$ := 1/Exec.time(s) × 1/Price($): PerfPerDollar, and
//     the relative improvement Gain.
//   - H. Jiang, X. Zhang and C. Joe-Wong, "DOLL: Distributed OnLine
//     Learning Using Preemptible Cloud Instances" (DOLL). §IV-B prices a
//     preemptible instance at π_s per unit time, paid only while available
//     (fraction α), against π_o on demand: MixedRate gives the effective
//     total price (N_tot − N_s)·π_o + α·N_s·π_s. §V bills against a real
//     AWS spot-price history (c5.xlarge, ca-central-1b, mean 0.158 $/hour
//     against 0.286 on demand): Trace, ParseTrace, and a Resource of kind
//     Spot whose lifetimes are its available intervals. Table II reports
//     cost as a percentage of the on-demand-only cost: CostRatio.
//
// # Billing
//
// A Billing rounds each lifetime of a resource up to a multiple of its
// Granularity, after raising it to an optional Minimum. Every lifetime is
// rounded on its own: a worker evicted at 60.05 s under per-second billing
// pays 61 s, and a spot instance preempted three times pays three rounded
// lifetimes. A resource priced by a Trace pays, over the rounded lifetime
// [start, start + billed), the integral of the trace's piecewise-constant
// price.
//
// # Ledger
//
// A Ledger records when each resource starts and stops (Start, Stop, or
// Record for a closed lifetime). Resources added mid-run (scale-out) and
// stopped early (scale-in, the MLLess auto-tuner evicting a worker) are
// billed for exactly their lifetimes. Bill gives the total, a Line per
// resource and the total per Kind; BillAt bills a run in progress as of a
// time, and is non-decreasing in that time.
//
// # Errors
//
// Bad input — a negative time, a stop before its start, an unknown
// resource, a NaN price, a malformed trace line — is an *Error or a
// *ParseError naming the input and wrapping one of the sentinel errors
// (ErrNegative, ErrOrder, ErrUnknown, ErrNonFinite, ...). Nothing panics on
// data, and a Ledger method that fails leaves the Ledger unchanged.
package cost
