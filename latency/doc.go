// Package latency draws per-operation delays from a seeded, heavy-tailed
// distribution: the tail latency of a storage service, where almost every
// operation is fast and a rare one is orders of magnitude slower.
//
// Source: slsML ("slsML: Towards elastic ML infrastructure on AWS Lambda",
// §"Mitigating stragglers"): reading a small file from S3 "takes an order
// of milliseconds", but "such delays sometimes exceeded 60 seconds —
// several orders of magnitude longer than normal", and "with large
// concurrency — literally, every run of the pipeline contained at least
// one such 'straggler'". One delayed read blocks a reducer that waits for
// all its inputs, and one delayed reducer the merger: the tail latency of
// one operation becomes the whole pipeline's. slsML's fix was to wait for
// a fraction (90%) of the results, a quorum.
//
// # The distribution
//
// Dist is a mixture: with probability 1 − P a lognormal body (median
// Median, log-standard deviation Sigma: the milliseconds), with
// probability P a Pareto type I tail (minimum Scale, index Alpha: the
// tens of seconds), optionally capped at Max. Fixed, plain lognormal and
// plain Pareto delays are special cases (see Dist). Parse and Dist.String
// read and write its command-line form, key=value pairs:
//
//	median=5ms,sigma=0.5,p=0.0001,scale=10s,alpha=1.5
//
// Default returns that one, slsML-like: the body's median of 5 ms is
// slsML's "order of milliseconds"; the tail's scale of 10 s its "tens of
// seconds", and α = 1.5 makes (10/60)^1.5 = 6.8% of the tail's draws
// exceed 60 s ("sometimes exceeded 60 seconds") with a finite mean
// (30 s) and an infinite variance. P = 10⁻⁴ is a choice: slsML gives no
// rate, but at its scale (128 reducers each reading 128 files, 16,384
// reads per iteration) it makes 1.6 tail reads per iteration on average,
// at least one in 80% of iterations, so every run of many iterations has
// one. σ = 0.5 is also a choice (the body's p99 is then 16 ms, still
// milliseconds). Default has no cap.
//
// # Closed forms
//
// Dist.CDF is closed form: (1 − P)·Φ((ln x − ln Median)/σ) + P·(1 −
// (Scale/x)^α) for x ≥ Scale. Each component's quantile is too
// (Median·e^{σΦ⁻¹(q)}, Scale·(1 − q)^{−1/α}); the mixture's q-quantile lies
// between them and Dist.Quantile finds it to the nanosecond by bisection
// on the CDF. For Default: p50 5.0 ms, p99 16.0 ms, p99.9 23.8 ms,
// p99.995 15.9 s, p99.999 46.4 s (testdata/quantiles.py computes these
// independently, with Python's statistics.NormalDist). At q = 1 − P
// exactly (p99.99 for Default) the quantile jumps from the body's far end
// to Scale, and rounding decides which side a computation lands on.
//
// # Determinism
//
// Dist.Sample(seed, worker, op) is a pure function: the delay of
// operation op of worker is drawn from its own math/rand/v2 PCG stream,
// seeded with (the splitmix64 mix of seed, the mix of worker and op), so
// the delays of a worker's operations do not depend on the other workers
// or on the order in which a runtime draws them. There is no global random
// state and no clock. A draw costs two PCG outputs and math.Erfinv plus
// math.Exp (body) or math.Pow (tail); results are the same on every
// platform as far as those three functions are.
package latency
