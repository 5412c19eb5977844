// Package doll runs DOLL training jobs: data streams grouped K batches at
// a time on workers rented as preemptible or on-demand instances, in
// virtual time, and bills them.
//
// Source: H. Jiang, X. Zhang and C. Joe-Wong, "DOLL: Distributed OnLine
// Learning Using Preemptible Cloud Instances" (the DOLL paper). A Job is
// §V-A's setting: N_tot workers (64) each receiving a Poisson stream (λ =
// 125 points/s, or λ_n ~ U(1, 250) per worker), batches of b = 256 points
// grouped K = 20 at a time into J = 10,000 updates, preemptible instances
// available a fraction α of the time on DOLL's two-state chain (sampled
// every 2 s, mean on-off cycle 1,000 s), billed at the spot price while
// available, on-demand ones at π_o all the time.
//
// The pieces are this module's packages; doll only wires them:
//
//   - arrival: the streams; harness: the simulator, which drives the
//     K-grouping model of consistency ("kgroup:K") over them, preempts and
//     restores the preemptible workers (package preempt) and records every
//     worker's instance spans; consistency.Check verifies every run;
//   - provision: N_s, the number of preemptible instances: Theorem 4 (one
//     rate) or Theorem 5 (one rate per worker, the slowest workers
//     preemptible, Eq. 20) before the run (Static), or §V-C's adaptive
//     method (Adaptive);
//   - cost: the bill, a Ledger over the instance spans with the spot
//     price read from a cost.Trace.
//
// # Choices the paper leaves open
//
//   - Static for one rate per worker uses the run's actual rates (drawn
//     from the seed), which DOLL's a priori method is assumed to know.
//   - Adaptive's first estimates are the nominal ones (the spec's rate,
//     or the mean of U(lo, hi) for every worker, and the nominal α); at
//     each spot price change it estimates λ_n as the points that arrived
//     at worker n over its time available, and α as the time preemptible
//     instances were available over the time they were rented. When the
//     estimates admit no N_s (or are invalid) the provisioning stays as
//     it was. Workers moved to on demand come back at once if preempted.
//   - A run ends at its J-th update; its runtime is the virtual time of
//     that update, and the bill stops there.
//   - Each instance lifetime is rounded up by Job.Billing (per second by
//     default: AWS bills Linux instances per second; the paper's "high"
//     SUSE price is billed per hour by AWS, which a trace sped up 2,000
//     times cannot express).
package doll
