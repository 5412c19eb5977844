// Package scalein is the scale-in auto-tuner of MLLess (P. Gimeno Sarroca
// and M. Sánchez-Artigas, "MLLess: Achieving Cost Efficiency in Serverless
// Machine Learning Training", §4.2 "Scale-in Scheduler",
// papers/mlless-isp-scalein): it removes workers from a data-parallel
// training job once their marginal contribution to convergence no longer
// pays for them, so that a pay-per-use (FaaS) job gets cheaper as it
// converges.
//
// It is a pure, deterministic reverse-communication object (like gonum's
// optimize methods): the caller trains, reports every step with
// Tuner.Observe, and performs the Action it answers — Continue, or Evict
// worker w. The tuner starts no goroutine, reads no clock and draws no
// random number; time is whatever the caller reports (virtual or wall
// time, as an offset from the start of the run). The same observations
// give the same actions, so a simulator, a goroutine runtime and a
// distributed one can all drive it.
//
// # The algorithm (§4.2)
//
//  1. Knee. Every loss is fed to a knee detector (Config.Knee) against the
//     step number. By default it is knee.Threshold with the MLLess code's
//     settings: the knee is the first step whose EWMA-smoothed slope (with
//     span 20) is flatter than −7.5e−5 per step, accepted once it has
//     stayed so for 5 steps; knee.OnlineKneedle is the Kneedle alternative
//     the paper names. No worker is removed before the knee (§4.2,
//     "Automatic knee detection").
//
//  2. At the knee: fit the reference curve L_P (Eq. 2),
//     L_P(t) = 1/(θ0·t^θ1 + θ2) + θ3, θ ≥ 0, to the whole loss history; estimate the reference step duration d_P as the mean
//     duration of all steps so far; remove the worker with the
//     lowest-quality replica. If the fit fails, retry every Interval.
//
//  3. Every scheduling Interval after that (estimation phase): fit ℓ_p
//     (Eq. 3), ℓ_p(t) = 1/(θ0·t² + θ1·t + θ2) + θ3, θ ≥ 0, to the losses
//     since the last removal, and estimate d_p as the mean
//     duration of the steps since the last removal. Then (decision phase)
//     evaluate Eq. 1,
//
//     s_Δ(t) = (ℓ_p(t + ⌊Δ/d_p⌋) − L_P(t + ⌊Δ/d_P⌋)) / L_P(t + ⌊Δ/d_P⌋),
//
//     where t is the current step, and remove the lowest-quality replica
//     if s_Δ(t) < S.
//
//  4. Never below Config.MinWorkers; at that size the tuner stops
//     deciding.
//
// Every decision (step 2 or 3) is recorded as a Decision with the terms of
// Eq. 1 and returned in Action.Decision.
//
// # Choices where the paper is silent or inconsistent
//
// Sign of Eq. 1. The paper prints the numerator as L_P − ℓ_p, but says
// that s_Δ "tells how much the convergence rate ... may worsen with p
// workers" and that a negative s_Δ means removing workers made things
// better; with L_P − ℓ_p both statements are reversed, and s_Δ < S would
// hold whenever the smaller pool is slower. The authors' code evicts when
// 100·(L_P − ℓ_p)/L_P > −S%, which is (ℓ_p − L_P)/L_P < S. This package
// uses ℓ_p − L_P, as the text and the code do. (The printed formula also
// writes ℓ_P and d_P where its legend has ℓ_p and d_p.)
//
// Both curves are evaluated at the current step t, as Eq. 1 says: L_P
// predicts where a P-worker run would be ⌊Δ/d_P⌋ steps after step t, not
// after the current time. Since a smaller pool has run more, shorter
// steps with a smaller global batch, s_Δ grows as the run falls behind the
// reference, which brakes further removals.
//
// The first removal, at the knee, is made without Eq. 1 (there is no ℓ_p
// before a worker has left), as §4.2 and the code do — unless S = 0
// (Config.S = ZeroS): a tuner that tolerates no predicted degradation
// cannot justify a removal it cannot predict, so it never removes any.
//
// The lowest-quality replica is the worker whose latest Report.Quality is
// the highest (Quality is a loss: lower is better); workers that never
// reported a Quality come after those that did; ties go to the highest
// ID, so that with equal qualities the pool stays the lowest IDs. The
// authors' code evicts the worker that reported last; §4.2 says the
// lowest-quality replica, which is what is done here.
//
// # Fitting (NNLS) and smoothing
//
// The curves are fitted by package curvefit (FitPower for Eq. 2,
// FitQuadratic for Eq. 3), which minimises the squared error in the loss
// space over θ ≥ 0 as the paper's "non-negative least squares" requires,
// although Eq. 2 and 3 are not linear in θ: for a fixed asymptote θ3
// (and, for Eq. 2, a fixed exponent θ1) the reciprocal 1/(y − θ3) is
// linear in the remaining coefficients, so a weighted NNLS problem
// (Lawson–Hanson) gives them, Gauss–Newton steps that are themselves NNLS
// problems refine them to the exact loss-space optimum, and θ3 (and θ1)
// are found by a one-dimensional grid and Brent search over that profile.
// See the curvefit documentation for the details. The authors' code uses
// scipy's bounded curve_fit instead.
//
// Smoothing. §4.2 says the losses are "always passed through an
// exponentially weighted moving average (EWMA) filter to remove outliers"
// before fitting; the authors' scheduler code fits the raw losses (its
// knee detector smooths with span 20). Here the fits use the raw losses by
// default (Config.Span 0 or 1), and Config.Span > 1 smooths them first,
// because smoothing biases the fits. Least squares over hundreds of
// points already averages the noise; an EWMA adds no information but
// moves the curve: it lags a falling curve, and it lifts a convex one
// (the average of a convex function lies above its value at the average
// step), most in the steep region that L_P is fitted to, so L_P — fitted
// on the long history — and ℓ_p — fitted on a fresh segment — are
// distorted differently and s_Δ is off by whole percentage points, the
// size of S. When smoothing, the step numbers go through the same EWMA as
// the losses, so that each smoothed loss sits at the weighted mean step
// of the losses it averages (exact for a locally straight curve); that
// removes the lag, not the curvature bias. BenchmarkSmoothingBias measures
// the error of s_Δ against the generating model on the synthetic runs of
// the tests (Eq. 2 family, 8 workers, 4 seeds, decisions every 10 s),
// mean / largest, in percentage points:
//
//	knee at step   noise   Span 1 (raw)    Span 5         Span 20
//	≈ 400          0        0    / 0      −1.4 / 1.9    +0.4 / 0.7
//	≈ 400          1%      +0.1  / 2.2    −1.3 / 2.9    +0.5 / 2.1
//	≈ 400          3%      +0.3  / 4.3    −1.4 / 6.8    +1.0 / 6.8
//	≈ 230          0        0    / 0      −2.7 / 3.7    +7.6 / 8.9
//	≈ 230          1%      −0.1  / 2.2    −2.2 / 4.3    +7.7 / 10.4
//	≈ 230          3%      −0.1  / 5.3    −3.4 / 10.8   +8.0 / 14.6
//
// The threshold S should be read against that precision; the paper
// reports prediction errors below 1.5% (Fig. 3c).
//
// A fit that fails (fewer than 4 points or 3 distinct steps since the last
// removal, an NNLS error, a prediction that is not finite and positive)
// and a step duration that cannot be estimated (no step, or no time, since
// the reference point) mean "no decision this interval": the Decision's
// Outcome is Failed with the reason in Err, the Action is Continue, and
// the tuner tries again one Interval later. Losses that do not vary at all
// (curvefit.ErrFlat) are not a failure: they are predicted to stay where
// they are.
//
// # What the caller must do
//
//   - Call Observe once per training step (or once per k steps with
//     Observation.Steps = k) with the step's end Time, never decreasing,
//     and the training loss (> 0). Optionally report each worker's replica
//     quality and step duration in Observation.Workers; without qualities
//     the tuner evicts the highest ID.
//   - On Action{Op: Evict, Worker: w}: the tuner has already removed w
//     from its pool, and takes every later observation to be a step of the
//     remaining workers. The runtime must stop w before the next step it
//     reports, and no later observation may mention w (that is an
//     ErrUnknownWorker). If the workers' replicas differ — MLLess's ISP
//     with a significance threshold v_t > 0, or any model where updates
//     are held back — the leaving worker publishes its replica x̃_w, and
//     every remaining worker p′ replaces its own by ½(x̃_w + x̃_{p′})
//     (§4.2, "Eviction policy"), so that the updates w never sent are not
//     lost; Average computes it. Under BSP (v_t = 0) every replica is the
//     same and nothing needs to be done. Whether w's data shard is
//     redistributed is the runtime's choice: MLLess keeps the local
//     mini-batch size and does not redistribute (weak scaling, §3.2), so the
//     global batch shrinks with the pool.
//   - Stop billing w at the eviction: Tuner.Lifetimes gives every worker's
//     lifetime, Bill and PerfPerDollar price them.
//   - Errors from Observe are bad inputs (an *InputError naming the field:
//     a NaN or non-positive loss, a time before the previous one, a
//     negative duration, an unknown or evicted or repeated worker); the
//     observation is dropped and the tuner is exactly as before, so the
//     caller may correct it and report again.
//
// # Cost
//
// MLLess measures the tuner by Perf/$ = 1/Exec.time(s) × 1/Price($)
// (§6.2.2), the product of speed and cost-efficiency to a target loss,
// and reports gains of 1.1–1.6× over a fixed pool of 12 or 24 workers
// (Fig. 6), with a slowdown (7.1%, PMF on ML-10M) when the knee came too
// early and the purge was too aggressive. Tuner.Lifetimes turns the
// evictions into worker lifetimes; Bill prices them on the MLLess
// deployment of package cost (function workers plus the messaging and
// Redis VMs, Table 2, per-100 ms function billing); PerfPerDollar gives
// the metric, and cost.Gain against Fixed lifetimes gives the gain over a
// fixed pool. §6.5 explains why fewer workers can even be faster: the
// per-step communication through the storage grows with the number of
// workers, and more workers need more steps to converge once the global
// batch outgrows statistical efficiency.
//
// # Differences from the authors' code
//
// Besides the sign, the eviction choice and NNLS noted above: the code
// fits the speed with a model over all pool sizes; here d_P and d_p are
// means, as §4.2 says, and Config.Settle can skip the first steps after an
// eviction, as the code skips 4. The code can crash when a fit fails; a
// failed fit here is a Decision with Outcome Failed.
package scalein
