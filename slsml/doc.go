// Package slsml runs slsML's serverless training pipeline through a real
// store: workers compute gradients on their shards and write them
// partitioned per reducer; R reducers each apply their slice of the model
// update once a counting semaphore has seen a fraction of the workers
// finish; a merger publishes the next model. Late gradients are folded
// into a later iteration or dropped, as configured, and counted.
//
// Source: "slsML: Towards elastic ML infrastructure on AWS Lambda"
// (Carnegie Mellon, 2019; shared/papers/slsml-lambda-quorum.txt). Its
// sections have headings, no numbers; they are cited by heading.
//
// # The pipeline (§"Adjusting ResNet50 training to run on AWS Lambda")
//
// Gradients are computed data-parallel and the weights updated
// model-parallel: "each reducer applies gradients to a dedicated portion
// of model weights". One iteration t, as the paper's steps 1–6 (its
// Fig. 2), on an exchange.Store standing for S3, SNS and DynamoDB:
//
//  1. θ_t is published under model/<t>; the WorkLauncher publishes one
//     Work notification per worker (topic "work"), each invoking a worker.
//  2. Worker w reads θ_t, computes the gradient of Config.Batch points of
//     its shard (an algorithms.Worker), writes slice r of it under
//     grad/<t>/<w>/<r> for each reducer r, and notifies WorkDone: note
//     (t, w) on topic "done".
//  3. Each WorkDone note invokes the ReduceLauncher, which adds w to the
//     counting set done/<t> (the paper's DynamoDB counter; a set, so a
//     retried arrival never counts twice) and, once the set holds
//     Need = ⌈Quorum·W⌉ workers, invokes the R reducers — once: a
//     conditional write marks them launched.
//  4. Reducer r waits on the semaphore (WaitCount(done/<t>, Need)), reads
//     its previous slice (slice/<t−1>/<r>: where its last window ended),
//     reads the done topic from there up to the note of the Need-th
//     worker of iteration t — its window — reads the partitions of the
//     gradients it applies, sums them and applies its slice of the update,
//     writes its slice of θ_{t+1} under slice/<t>/<r> and reports
//     ReduceDone (set reduced/<t>).
//  5. Once every reducer reported, the merger reads the R slices, puts
//     θ_{t+1} together and publishes it, which starts iteration t+1.
//
// # The counting semaphore (§"Mitigating stragglers")
//
// "We wait only until a certain portion of parallel computations is done
// (e.g., 90%), essentially replacing a barrier semantics with a counting
// semaphore." Here the reducers of iteration t proceed once Need of its W
// workers have finished (Config.Quorum, default 0.9; 1 is a barrier). All
// reducers must apply the same gradients, or the slices of θ_{t+1} would
// mix different updates; they agree without talking to each other by
// reading the same topic: a reducer's window of iteration t is the notes
// after the previous window up to the one that completes Need distinct
// workers of iteration t. The topic is append-only and ordered, so every
// reducer that reads it finds the same window, whenever it reads. What
// the window holds is the set: the Need gradients of iteration t and the
// late gradients of earlier iterations that finished since the previous
// window. Under Fold (the default) those late ones are applied now (at
// most Config.MaxLag iterations late, if set); under Drop they are
// dropped. Either way each gradient lands in exactly one window, so it is
// applied at most once; gradients still pending when the run ends are
// dropped as Ended. Every decision is counted (Counts) and recorded
// (Trace).
//
// The merger, by contrast, waits for every reducer: a slice cannot be
// left out of θ_{t+1}. So the semaphore shields the pipeline from the
// stragglers among the workers' requests (the model read, the partition
// writes) but not from those of the reducers' reads, which slsML also
// saw ("each reducer will need to read 128 files from S3 … only one of
// the S3 requests get delayed — the reducer will be waiting"): a reducer
// must read every partition of its set.
//
// # Virtual time
//
// The operations go through the real store — in process (exchange.Memory)
// or a real Redis (package exchange/redisx) — one at a time, in an order
// a virtual-time driver decides: each operation takes effect when it
// completes, at a time given by the cost model (Timing): a function's
// cold or warm start, compute per point, per-request store latency drawn
// from a seeded heavy-tailed distribution (package latency: "most reads
// take milliseconds, a rare one tens of seconds", §"Mitigating
// stragglers"), and transfers over the function's bandwidth. The delays
// of an invocation's requests are a pure function of (seed, function,
// index, iteration, attempt, request number), so the schedule never
// depends on how fast the store or the machine is: the same seed gives
// the same result — models, timeline, counts, bill and trace — on every
// store (TestRedisSameAsMemory), and two runs that differ only in the
// quorum see the same delays for the same invocations.
//
// # Cost (§"Summary of experiments")
//
// Functions are billed per invocation, each rounded up to 100 ms, at a
// price proportional to their memory (cost.PerGBSecond; Memory defaults
// to Lambda's 3008 MB of 2018 for the workers, reducers and merger,
// 128 MB for the launchers); every invocation and every request is priced
// too (cost.Meter): S3 PUT and GET, DynamoDB writes and reads, SNS
// publishes, at cost.AWS2018 prices by default. slsML found that "the
// main reason for the extra cost is actually the cost of S3 calls, which
// becomes very significant as the number of workers/reducers increases":
// the pipeline makes about 2·W·R object requests per iteration (W·R
// partition writes, about as many reads). Bill has both halves. No
// function waits for a straggler here — launchers invoke the next stage
// — so the semaphore saves time, not function seconds.
//
// # Losing the store
//
// A Redis restarted without persistence comes back empty, and every
// operation fails with exchange.ErrLost until the client recovers. The
// pipeline then: ends every invocation in flight (their requests die with
// the epoch); rolls back each reducer's apply of the current iteration,
// which is not merged (so not published), to its checkpoint
// (algorithms.Checkpointer); drops, as Lost, the earlier gradients not
// yet applied (their partitions are gone); adopts the new epoch; has the
// merger publish θ_t again; and replays iteration t. Replayed workers
// recompute the same gradients (same θ_t, same points: the workers are
// stateless), and every reducer applies each once. Operations that find
// the store unavailable are retried after Timing.Retry, at most
// Config.Retries times.
//
// # The checker
//
// Check verifies a run's Trace: every gradient a worker wrote is applied
// exactly once by every reducer — in its iteration or folded into a later
// one — or dropped by it for a reason the policy gives; each window
// starts where the reducer's last one ended and holds exactly Need
// gradients of its iteration; every reducer applied the same set for an
// iteration; each reducer's sum is its set's gradients summed, and each
// merged model is the reducers' slices put together, bit for bit; after a
// loss, reducers roll back and a replayed gradient is the same gradient.
// Its violations have package consistency's shape (Violation,
// CheckError, root causes first). Tests switch on one plausible bug at a
// time — a late gradient folded twice, a reducer that proceeds with
// another set, a replay after a Redis restart without rollback — and show
// Check catching it.
//
// # Limits
//
// The algorithm must have dense gradients as long as θ (Params = Delta,
// Block = 0), stateless workers (gradient descent, not EM) and a server
// whose update is coordinate-wise (SGD, momentum, Adam with L2, as
// package optim's): each reducer runs a whole algorithms.Server but
// keeps only its slice. A reducer's optimizer state stays with the driver
// between invocations, standing for what a Lambda reducer would keep in
// the store beside its slice. Run deletes the keys it wrote (models,
// partitions, slices) when it returns — untimed, as S3 DELETE requests are
// free — but the counting sets and topics stay: the Store cannot delete
// them, so a run on Redis leaves a few small ones in its namespace.
package slsml
