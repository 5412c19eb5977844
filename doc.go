// Package syncmodels is the root of a Go library of synchronization models
// for data-parallel machine-learning training — BSP, SSP, ASP, k-of-n
// quorum, FSP's flexible barrier and MLLess's ISP — with the workloads,
// runtimes, tuners and checkers to compare them. This package holds no
// code; it is the map of the packages below it.
//
// Papers, by the short names the package docs use: FSP (Z. Wang et al.,
// "FSP: Towards Flexible Synchronous Parallel Frameworks for Distributed
// Machine Learning", IEEE TPDS 2022, and its Flegel code); MLLess
// (P. Gimeno Sarroca and M. Sánchez-Artigas, "MLLess: Achieving Cost
// Efficiency in Serverless Machine Learning Training"); SSP (Ho et al.,
// NIPS 2013); slsML ("slsML: Towards elastic ML infrastructure on AWS
// Lambda": k-of-n barriers); P2P (Barrak et al., "Exploring the Impact of
// Serverless Computing on Peer To Peer Training Machine Learning"); QSGD
// (Alistarh et al., NeurIPS 2017); DOLL (Jiang, Zhang and Joe-Wong,
// "DOLL: Distributed OnLine Learning Using Preemptible Cloud Instances");
// Kneedle (Satopää et al., 2011).
//
// Synchronization:
//
//   - consistency: the sync models as pure, deterministic state machines
//     (events in, effects out) and Check, which verifies a recorded run
//     kept its model's guarantee. BSP, SSP, ASP, quorum, FSP, ISP.
//   - barrier: the same models as blocking primitives for goroutines —
//     Cyclic (BSP), ClockTable (SSP), Quorum (slsML), Flexible (FSP §3.1) —
//     behind one Barrier interface, with a per-round barrier action.
//   - filter: what part of an update is sent — ISP's significance filter
//     (MLLess §4.1), top-k with error feedback, QSGD (P2P §III-B4) — on
//     deltas or plain []float64, and a compact wire encoding.
//   - transport: the coordinator–worker message and the Transport
//     interface; transport/inproc is a seeded in-process network,
//     transport/grpcnet the transport over gRPC streams (secured with
//     transport/grpcnet/jobtls's job CA, certificates and token),
//     exchange/storenet the transport through a store (Redis, or
//     exchange.Memory in process; MLLess §3), and transport/transporttest
//     their conformance suite.
//
// Tuners (pure, reverse communication: they ask, the runtime acts):
//
//   - interval: FSP's barrier-interval tuners, binary search (FSPB) and
//     multi-stage linear fit (FSPV, §3.3), and semi-centralized local
//     timers (§5.2).
//   - migrate: FSP's dynamic workload balance (§4), moving data from
//     stragglers to fast workers.
//   - scalein: MLLess's scale-in auto-tuner (§4.2), removing workers whose
//     marginal contribution no longer pays.
//   - knee: Kneedle knee detection, offline and online, and MLLess's
//     slope-threshold detector.
//   - curvefit: NNLS, EWMA and MLLess's learning-curve fits (Eq. 2, 3).
//   - cost: billing models, the papers' price tables, Perf/$ (MLLess) and
//     spot-price traces (DOLL).
//   - preempt: DOLL's availability chain for preemptible workers (§III-B4,
//     §V-A): seeded preemption schedules and an online estimate of α.
//   - arrival: DOLL's per-worker data streams (§III-A): renewal arrivals
//     and an online rate estimate.
//   - provision: DOLL's provisioning optimizer (§IV-B, §V-C): N_s,
//     expected runtime and cost, Corollary 2's bound, the adaptive method.
//   - doll: DOLL jobs end to end (§V): streams, K-grouping, preemptible
//     workers, static or adaptive provisioning, billed.
//
// Workloads and running them:
//
//   - algorithms: the additive-update contract every workload meets
//     (Algorithm, Worker, Server, Delta); algorithms/algotest is its
//     conformance suite.
//   - algorithms/kmeans, gmm, fcm: K-means, diagonal GMM and fuzzy
//     c-means as incremental EM (FSP §2.2).
//   - algorithms/logreg, pmf, nmf: logistic regression, probabilistic and
//     non-negative matrix factorisation by gradient descent;
//     algorithms/optim holds their optimizers (SGD, momentum, Nesterov,
//     Adam).
//   - dataset: loaders (IDX, LIBSVM, CSV, MovieLens), seeded generators and
//     sharding.
//   - workload: a workload as JSON-able data (Spec) that any process opens
//     into the same algorithm and data, with the registry of algorithm
//     names, harness's sharding and a shard hash: what a worker process
//     needs.
//   - harness: runs an experiment — algorithm, shards, sync model,
//     stragglers — in virtual time (byte-identical per seed, on every
//     architecture: docs/determinism.md) or on
//     goroutines over a transport, and records what happened.
//   - p2p: peer-to-peer training with no coordinator (P2P serverless
//     paper, §III): replicas exchanging (QSGD-packed) gradients through an
//     exchange store, sync or async, in virtual time over the real store;
//     its checker; the serverless-vs-instance cost model (§V-B).
//   - slsml: slsML's serverless pipeline (workers, R reducers each
//     applying a slice of θ, a merger) through an exchange store, with
//     its counting semaphore at a fraction of the workers, late gradients
//     folded or dropped, in virtual time over the real store; its checker;
//     its Lambda bill (per 100 ms, memory-proportional, per request).
//   - trainer: a single-process bulk-synchronous runner.
//   - cmd/syncbench: the command line — compare sync models, train one,
//     reproduce the FSP and MLLess evaluations.
//
// Errors follow one scheme across the packages (docs/errors.md): messages
// start with "pkg: ", ErrConfig wraps an invalid configuration, and a bad
// value comes back in a typed error that names it. CHANGELOG.md lists the
// API changes; the module follows semantic versioning, and before v1.0.0 a
// minor version may break the API (README, "Versioning").
package syncmodels
