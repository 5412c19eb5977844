// Package preempt models the availability of preemptible workers (spot or
// preemptible cloud instances) as DOLL does, so that every runtime of this
// module can preempt and restore workers on a seeded schedule.
//
// Source: H. Jiang, X. Zhang and C. Joe-Wong, "DOLL: Distributed OnLine
// Learning Using Preemptible Cloud Instances" (DOLL). §III-B4 models one
// preemptible instance as a two-state (ON, OFF) Markov chain whose
// stationary distribution is (1 − α, α) for OFF and ON, α ∈ [0, 1] being
// the fraction of time the instance is available; §V-A simulates it as "a
// two-state (preempted/running) Markov chain sampled every 2 seconds, with
// specified availability value α for a expected on-off cycle length of
// 1000 seconds". This package implements that sampled chain (Config:
// Alpha, MeanCycle, Step = 2 s by default).
//
// # The chain
//
// The state is sampled at t = k·Step, k = 1, 2, …; it holds from one
// sampling instant to the next. At each sample an available worker is
// preempted with probability p = P(on→off) and a preempted one returns
// with probability q = P(off→on). Its stationary availability is
// q/(p+q), and its sojourns are geometric: an available period lasts
// Step/p on average, a preempted one Step/q, so a cycle lasts
// Step·(1/p + 1/q). Setting q/(p+q) = α and Step·(1/p + 1/q) = MeanCycle
// (C) gives
//
//	p = Step / (α·C),    q = Step / ((1 − α)·C)
//
// (Config.Probabilities): the mean available period is α·C and the mean
// preempted one (1 − α)·C. With DOLL's α = 0.9, C = 1,000 s and Step = 2 s,
// p = 1/450 and q = 1/50: a worker is preempted every 900 s on average and
// comes back after 100 s. Both must be probabilities, so Config.Validate
// requires α·C ≥ Step and (1 − α)·C ≥ Step (hence C ≥ 2·Step) for
// 0 < α < 1. As Step → 0 the chain tends to the continuous-time chain of
// DOLL §III-B4, with rates 1/(α·C) and 1/((1 − α)·C).
//
// Edge cases: α = 1 is an on-demand worker, never preempted (p = 0);
// α = 0 is a worker preempted at the first sample (t = Step) that never
// comes back (p = 1, q = 0). MeanCycle is unused in both cases.
//
// Every worker starts available at t = 0: DOLL does not say how its chain
// starts, and a job starts with the instances it was granted. Over a
// horizon T this raises the expected availability above α by at most
// (1 − α)·α·(1 − α)·C/T (the chain forgets its start within about
// α(1 − α)·C), a bias the tests account for.
//
// # Determinism
//
// Worker n's chain draws from its own math/rand/v2 PCG stream, seeded
// with (seed, a mix of n), one Float64 per sample: Schedule(cfg, seed, n,
// T) is a pure function of its arguments, the same on every platform (the
// draws are compared with p and q, no transcendental function is used),
// independent of the other workers, and a prefix of the schedule for any
// longer horizon. There is no global random state.
//
// # Estimation
//
// DOLL's adaptive provisioning (§V-C) re-optimises "using running tallies
// of λ_{A,n} and α". Estimator keeps such a tally: the time a worker was
// observed available and preempted, and the number of preemptions, from
// which it estimates α (available time over observed time) and the mean
// cycle (observed time over preemptions).
package preempt
