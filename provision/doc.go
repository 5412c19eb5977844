// Package provision is DOLL's provisioning optimizer: how many of N_tot
// workers to rent as preemptible (spot) instances, the rest on demand, so
// that a training job of J updates meets its wall-clock deadline θ in
// expectation at the lowest expected cost.
//
// Source: H. Jiang, X. Zhang and C. Joe-Wong, "DOLL: Distributed OnLine
// Learning Using Preemptible Cloud Instances" (the DOLL paper), §IV-B.
// Every worker receives data points at rate λ_A (points per second, the
// same for all workers) or λ_{A,n} (one per worker, heterogeneous); an
// update aggregates K batches of b points; a preemptible instance is
// available a fraction α of the time and is billed π_s only while it is
// available, an on-demand one π_o all the time.
//
//   - Problem.ExpectedRuntime is Eq. 15 (one rate) or Eq. 21 (one rate per
//     worker, preemptible instances on the slowest workers, as Eq. 20
//     assigns them).
//   - Problem.ExpectedCost is Eq. 16 or Eq. 22.
//   - Problem.Optimal is Theorem 4 (Eq. 18) for one rate and Theorem 5's
//     scan, cut off by Lemma 2's necessary condition (Eq. 23), for one rate
//     per worker.
//   - Problem.CostRatio is the cost against on-demand only (N_s = 0), the
//     figure of the paper's Fig. 3 to 5 and Table II.
//   - Problem.Corollary2Bound is Eq. 19.
//   - Problem.Preemptible names the workers to put on preemptible
//     instances: the slowest, as Eq. 20 assigns them.
//   - UniformRates stands for rates drawn from U(lo, hi) (§V-B) by their
//     expected order statistics, to plan before the rates are known.
//   - Adaptive is §V-C's adaptive method: start at N_s = N_tot and, at every
//     spot price change, re-optimise from running estimates of the rates
//     and α (an Estimate).
//
// The models are the paper's expectations: the number of available
// preemptible instances is binomial B(N_s, α) and only its mean α·N_s
// enters (Proposition 2). J is the number of updates the accuracy target
// needs, J(ε) in the paper; this package takes it as given.
//
// Units: rates in points per second, the deadline θ in seconds, prices in
// dollars per instance-hour, costs in dollars (runtime in seconds × $/hour
// ÷ 3600). Everything is pure: no clock, no randomness, no global state.
//
// # Interpretations
//
// Where the paper leaves a case open this package decides as follows.
//
//   - Eq. 18's floor is taken with a relative tolerance of 1e-9 on the
//     runtime constraint, so a deadline of exactly θ0 (θ/θ0 = 1) admits
//     N_s = 0 rather than failing on rounding.
//   - α = 1 makes Eq. 18 divide by zero; the runtime then does not depend
//     on N_s and N_s* = N_tot.
//   - Lemma 1 assumes π_s < π_o. With π_s > π_o the cost of Eq. 16 grows
//     with N_s and the optimum is N_s = 0; with π_s = π_o (or α = 0) it is
//     flat and Eq. 18's largest feasible N_s is returned.
//   - With α = 0 and N_s = N_tot (every worker preemptible and never
//     available) no update is ever made: runtime and cost are +Inf.
//   - θ0, the runtime without preemptions, is J·K·b / Σ_n λ_{A,n} for one
//     rate per worker (the paper defines it for one rate: J·K·b/(N_tot·λ_A)).
//   - Corollary 2's Eq. 19 is the cost ratio at Eq. 18's unrounded N_s:
//     a lower bound on the model's ratio at the integer N_s*, reached when
//     Eq. 18's quotient is an integer or capped at N_tot. For one rate per
//     worker it is the same formula, a reference and not a bound: putting
//     the slowest workers on preemptible instances does better.
//   - §V-C does not say whether the adaptive method keeps θ or θ/θ0 fixed
//     as the rate estimates move: Adaptive keeps whichever the Problem set.
package provision
