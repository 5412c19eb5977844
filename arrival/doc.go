// Package arrival generates the data streams of DOLL's workers: when each
// worker's batches of data points are complete, in the worker's own
// up-time, for Poisson and other renewal arrivals, with one rate for every
// worker or one each.
//
// Source: H. Jiang, X. Zhang and C. Joe-Wong, "DOLL: Distributed OnLine
// Learning Using Preemptible Cloud Instances" (DOLL). §III-A models the
// arrivals at worker n as a renewal process: the interarrival times
// A_{n,i} are i.i.d. with mean μ_A = 1/λ_A. A worker groups its points
// into batches of b, so a batch's length is the sum of b interarrivals
// (§III-B1). §III-B relaxes the rates to one per worker, λ_{A,n}; §V-A
// runs Poisson arrivals at λ_A = 125 points per second with b = 256, and
// §V-B draws each λ_{A,n} from U(1, 250) anew for every run.
//
//   - Spec describes every worker's process: a Dist (the interarrival
//     family, scaled to mean 1/λ) and the rates — Rate for all workers,
//     Rates one per worker, or Lo/Hi for λ_n ~ U(Lo, Hi). Spec.RatesFor
//     gives the λ_n of a run from its seed. Parse and Spec.String read and
//     write the command-line form ("poisson:125", "poisson:1-250",
//     "gamma:2:125", "poisson:10,20,30").
//   - Stream is one worker's arrivals: Next returns the up-time at which
//     its next batch is complete.
//   - Estimator is a running tally of λ_n, for DOLL's adaptive method
//     (§V-C).
//
// # Distributions
//
// Poisson (exponential interarrivals, the zero value), Fixed (every
// interarrival exactly 1/λ), Gamma with shape k, LogNormal with σ and
// Pareto with tail index α > 1, each scaled to mean 1/λ; the DistKind
// constants give each one's variance, and Dist.Variance computes it.
//
// # Up-time
//
// Time in a Stream runs on the worker's up-time clock: the simulator stops
// it while the worker is preempted, since workers "do not receive data
// samples ... while preempted but retain any samples received before"
// (§III-A). A batch that a preemption interrupts completes when the worker
// has been up for the rest of it. For Poisson arrivals this is exact:
// by memorylessness, the arrivals after a restore form a fresh Poisson
// process, whatever had elapsed of the interrupted interarrival. For other
// families it is a choice: the renewal in progress resumes where it
// stopped (the interarrival interrupted keeps its remaining length, as if
// the source paused with the worker), rather than starting afresh at the
// restore, which would lengthen interarrivals that straddle a preemption
// and lower the rate seen over a run.
//
// # Sampling
//
// A batch of b Poisson arrivals is one Gamma(b) (Erlang) draw, and b Gamma
// interarrivals of shape k sum to one Gamma(b·k) draw, so these two
// families cost one draw per batch whatever b is: about 20 ns for
// b = 256, against about 1.4 µs for summing 256 rand.ExpFloat64 (see
// BenchmarkNext). The Gamma draw is Marsaglia and Tsang's method (ACM TOMS
// 26(3), 2000), exact up to floating-point rounding. Fixed needs no draw.
// LogNormal and Pareto batches have no closed form and draw each of their
// b points (about 3.5 µs for b = 256).
//
// # Determinism and the math functions used
//
// Worker n's Stream draws from its own math/rand/v2 PCG stream, seeded
// with (seed, the splitmix64 mix of n plus a constant of this package), so
// Next's i-th value is a pure function of (dist, rate, batch, seed,
// worker, i), independent of the other workers and of how far any other
// stream has run; RatesFor draws from one more PCG stream of the same seed.
// There is no global random state and no clock.
//
// Results are the same on every platform as far as these functions are:
//
//   - Poisson and Gamma: rand.NormFloat64 and rand.Float64 per batch;
//     math.Log twice in about 8% of batches (when Marsaglia and Tsang's
//     squeeze fails); math.Sqrt once in NewStream (correctly rounded
//     everywhere); math.Pow once per batch only when b·k < 1.
//   - LogNormal: math.Exp once per point (rand.NormFloat64 per point) and
//     once in NewStream. Pareto: math.Exp once per point (rand.ExpFloat64
//     per point).
//   - rand.NormFloat64 and rand.ExpFloat64 call math.Exp or math.Log on
//     their rare slow paths (under 1% of draws).
//   - Everything else is +, −, ×, ÷, comparisons and math.Round, which
//     are exact or correctly rounded on every platform; products are
//     converted explicitly (float64(x*y)) so that no compiler fuses them
//     into FMA instructions.
//
// math.Exp has assembly implementations on amd64 and arm64 and math.Log
// on amd64, which may differ from the portable Go code (used on 386) in
// the last bit; a run that must be bit-identical across platforms needs
// portable replacements for these two functions and for the two ziggurat
// samplers' slow paths.
//
// # Accuracy
//
// A Stream keeps its up-time as integer nanoseconds plus the
// sub-nanosecond remainder of the running sum (a float64 carry), so Next
// returns the sum of the drawn batch lengths rounded to the nanosecond.
// Rounding does not accumulate: the only error beyond that last rounding
// is the float addition of each batch length to the carry, at most 2^-53
// of a batch's length each, random in sign. After 10^8 Fixed arrivals at
// λ = 3 the time is 10^8/3 s within 10^-15 relative (see the tests). The
// largest time is that of a Duration, about 292 years; Next saturates
// there.
//
// # Estimation
//
// Estimator.Observe adds points and the up-time in which they arrived;
// Rate is their ratio, the estimate of λ_n DOLL's adaptive provisioning
// re-optimises from (§V-C).
package arrival
