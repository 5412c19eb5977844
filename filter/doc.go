// Package filter decides what part of a worker's additive updates is sent
// in each step: the significance filter of ISP, top-k sparsification with
// error feedback, and QSGD quantisation, behind one interface, Filter, plus
// a compact wire encoding of what is sent.
//
// Sources:
//
//   - P. Gimeno Sarroca and M. Sánchez-Artigas, "MLLess: Achieving Cost
//     Efficiency in Serverless Machine Learning Training", §4.1
//     (significance filter, Insignificance-bounded Synchronous Parallel),
//     §4.2 (a leaving worker's held updates), Appendix A (Theorem 1,
//     Corollary 1: v = 0 is BSP). ISP descends from the ASP model of Gaia
//     (K. Hsieh et al., NSDI 2017).
//   - A. Barrak, R. Trabelsi, F. Jaafar and F. Petrillo, "Exploring the
//     Impact of Serverless Computing on Peer To Peer Training Machine
//     Learning", §III-B4 (compression with QSGD), §V-C2 (its effect on
//     communication time).
//   - D. Alistarh, D. Grubic, J. Li, R. Tomioka and M. Vojnovic, "QSGD:
//     Communication-Efficient SGD via Gradient Quantization and Encoding",
//     NeurIPS 2017.
//
// Everything is deterministic and pure: no goroutines, no clock, no global
// state; QSGD draws from a *rand.Rand the caller passes in.
//
// # The contract
//
// A Filter owns an accumulator of the worker's own updates not sent yet.
// Step(local, replica) adds local to it and returns the delta to send, a
// valid additive delta of the same layout (algorithms.Delta) that servers
// and peers Merge and Apply. At any moment, for every entry,
//
//	Σ sent + held = Σ local
//
// exactly for Significance and TopK ("nothing lost, nothing duplicated";
// the tests check it with ==, on dyadic inputs whose sums are exact), to
// floating-point rounding for QSGDFilter with error feedback, and in
// expectation only for QSGDFilter without it. Updates a worker receives
// from others change its replica, which Significance compares against, and
// never enter the accumulator, so they are never re-broadcast. Flush hands
// back everything held, for a worker that leaves (MLLess §4.2).
//
// # Count
//
// A delta's Count is the number of data points summed in it; GD servers
// divide by it (mean gradient) and every server treats Count 0 as a no-op.
// A filter cannot split Count per entry, so it carries Count through
// unchanged: the send of a step has Count = local.Count, whatever part of
// the step's contribution it holds back, and Flush has Count 0. Points are
// counted exactly once, in the step that processed them.
//
// Why this choice: (1) Σ send.Count = Σ local.Count with nothing pending,
// so servers' point counts and epochs stay right; (2) with v = 0 a send is
// exactly the local delta, Count included, so ISP is BSP to the bit; (3) for
// a GD server, an entry held for m steps is applied as (Σ of m steps'
// gradient sums) / (this step's Count) — with equal batches, the sum of the
// m per-step mean gradients, which is what MLLess sends: the sum of the
// held per-step updates, "the complete history … encoded as a single
// update" (§4.1). Counting the held points again when an entry is finally
// sent would divide that history by m and shrink it. For EM servers, which
// fold deltas into running statistics, Count is bookkeeping and the choice
// is immaterial.
//
// The one obligation it leaves the caller: a delta with Count 0 (a Flush,
// or the send of a step whose local delta carried no points) must be merged
// into a delta that carries points — the step's merged delta — before a
// server Applies it, or the server drops it. A coordinator that merges all
// workers' sends of a step, plus the flush of a leaving worker, does this
// naturally.
//
// # Significance filter (ISP)
//
// Per worker, acc_i is the sum of the worker's own updates to entry i since
// i was last sent. In step t (0-based, as the MLLess code numbers steps)
// entry i is sent, whole, when
//
//	|acc_i / w_i| > v_t,  v_t = v/√(t+1),
//
// with w_i the worker's current replica value. The paper writes
// v_t = v/√t with 1-based t; t' = t+1 makes the two identical, so the first
// step's threshold is v in both. The test is evaluated as
// |acc_i| > v_t·|w_i|, which equals the ratio test in exact arithmetic and
// settles the edge cases without a division: w_i = 0 with acc_i ≠ 0 is
// sent, 0/0 is not, and v = 0 sends every nonzero entry (a ratio that
// underflows to 0 is still sent). Only sent entries are zeroed.
//
// Dense layouts check every entry every step. Sparse layouts check only the
// entries of the blocks live in the step's local delta, as MLLess checks
// only the PMF rows the minibatch touched; held entries of other blocks wait
// until their block is touched again (or Flush). SignificanceConfig.Start
// puts a worker that joins late on the global threshold schedule.
//
// Units. MLLess accumulates parameter changes (−η·g after the optimizer);
// this project's GD deltas are gradient sums and EM deltas are changes of
// sufficient statistics. The filter compares whatever it is given: for
// plain SGD with learning rate η and batch B a threshold v on parameter
// changes corresponds to v·B/η on gradient sums; for EM workloads, whose
// Params and Delta layouts differ, pass as replica the running sufficient
// statistics (indexed like the delta), not θ. Package harness runs ISP on
// parameter changes: each worker's own optimizer turns its gradient into
// the change it filters (harness/isp.go, docs/runtimes.md).
//
// Leaving workers. MLLess §4.2 has the remaining workers average their
// replicas with the leaving worker's replica to reintegrate its
// insignificant updates. Flush instead returns the held updates as a delta,
// which adds exactly the missing mass once, with no averaging of replicas
// (scalein.Average is the paper's arithmetic, for callers who want it).
//
// Held and RangeHeld expose the accumulator to a divergence checker: right
// after a step, every held entry of a checked block satisfies
// |acc_i| ≤ v_t·|w_i|, the bound Theorem 1's proof uses (Eq. 8).
//
// # Top-k
//
// TopK sends the K held entries of largest magnitude each step, ties to the
// smaller index, and keeps the rest in the accumulator (error feedback), so
// every update is eventually sent. Every held entry competes, including
// entries of sparse blocks not touched this step.
//
// # Plain vectors
//
// A caller whose updates are a plain []float64 — its own SGD loop, no
// algorithms.Delta — uses TopKVec and QSGDVec: the same filters with
// Step(dst, x) on slices of a fixed length, and Flush, Held and RangeHeld
// as on a Filter. They are the implementation: TopK and QSGDFilter run
// them over a delta's entries, and for a delta whose dense form is x they
// send exactly what the vector forms send for x (the tests check it bit
// for bit, dense and sparse layouts, with the same seeds). Significance
// needs the replica and the step count of a sync model, and stays on
// deltas.
//
// # QSGD
//
// QSGD.Quantize maps x to signed levels l_i ∈ [−s, s]: with N = ‖x‖ and
// r_i = |x_i|/N·s, l_i = ⌊r_i⌋ + 1 with probability r_i − ⌊r_i⌋ and ⌊r_i⌋
// otherwise, decoding to sign·N·l_i/s, so E[decoded] = x. For the P2P
// example g = [0.5, −1, 0.25] with s = 255 and the L∞ norm, r =
// [127.5, 255, 63.75]. Defaults follow the P2P code: s = 255 levels and the
// L∞ norm (N = max|x_i|, so the largest entry is coded exactly); the L2 norm
// of Alistarh et al. is available (their variance bound min(n/s², √n/s)·‖x‖²
// and sparsity bound s(s+√n) are for L2). Per entry the variance is
// (N/s)²·p(1−p) ≤ N·|x_i|/s, a bound L∞ never makes larger, since
// ‖x‖∞ ≤ ‖x‖2. The P2P code computed the levels and then sent them as float32 (its
// QSGDWEC compressors), which saved nothing; here levels are packed.
//
// Packing: each level takes a sign bit plus ⌈log2(s+1)⌉ magnitude bits —
// 9 bits for s = 255 — packed LSB-first with the float64 norm in a short
// header (Quantized.AppendBinary). That is 1.125 bytes per entry against 8
// for float64 (86% saved) and 4 for float32 (72% saved). Fixed width was
// chosen over the paper's Elias coding: for s = 255 most levels of a dense
// vector are large and Elias codes are no shorter, and fixed width decodes
// with no branches; for small s on sparse vectors, the wire encoding below
// sends only nonzero levels with their indices.
//
// QSGDFilter applies QSGD per step to everything held, optionally with
// error feedback, and AppendMessage writes the step's send in packed form.
//
// # Wire encoding
//
// AppendDelta writes the nonzero live entries of a delta as (index, value)
// pairs: varint index gaps (each index minus the previous minus 1) and
// float64 or float32 values, or — when shorter — every value with no
// indices; DecodeDelta reads it (and QSGDFilter's messages) back for the
// layout the receiver expects. Decoders validate every field, never panic
// and never allocate more than the expected layout plus a size proportional
// to the input; their errors wrap ErrMalformed and name the field, the
// offset or the entry. Both decoders are fuzzed (FuzzDecodeDelta,
// FuzzDecodeQuantized). The byte layouts are documented on AppendDelta and
// Quantized.AppendBinary.
package filter
