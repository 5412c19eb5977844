// Package harness runs synchronization-model experiments: an algorithm
// over data shards, a sync model (package consistency), a cluster of N
// workers with injected, natural or tail-latency stragglers, and a clock.
//
// Two runtimes drive the same coordinator code and the same pure model:
//
//   - Virtual (the default): a discrete-event simulation. The arithmetic is
//     real — every delta is computed and applied — but time comes from a
//     CostModel: per-point compute cost × the worker's slowdown, Injected
//     pauses of τ after every 1,000 points (FSP paper §6.1), message
//     latency plus size over bandwidth, with the coordinator's incoming and
//     outgoing links shared by all workers and its applies costing time
//     per entry. Same seed ⇒ byte-identical trace and curve on any
//     machine, and a 16-worker run with 32 ms pauses takes no sleeping.
//   - Real: one goroutine per worker and a coordinator goroutine that
//     exchange messages over a transport.Transport (in-process by
//     default), with real compute and real sleeps for stragglers.
//
// Tail stragglers (StragglerKind Tail, tail.go) delay each of a worker's
// operations, a release fetched or a commit sent, by a draw from a
// heavy-tailed distribution (package latency): slsML's storage tail
// latency, on both clocks and remote workers, the same draws on each.
//
// ISP (isp:v, MLLess §4.1) runs on both clocks in MLLess's
// parameter-space design: each worker keeps a replica and a local
// optimizer, filters its parameter changes with filter.Significance, and
// the coordinator adds the sent changes (see isp.go and docs/runtimes.md).
// Experiment.Replicas runs BSP, SSP, ASP and quorum in the same design
// without the filter (MLLess's SSP and BSP), instead of the default
// parameter server's one optimizer step on the mean gradient.
//
// FSP runs in virtual time can migrate data from stragglers to fast
// workers (Experiment.Migrate, FSP §4; see Migration).
//
// Virtual-time runs can preempt and restore workers on seeded schedules
// of DOLL's availability chain (Experiment.Preempt, package preempt;
// see preempt.go): a preempted worker leaves the model and loses its
// batch in progress, not its sent commits, and rejoins as a fresh
// incarnation restored from the checkpoint of its last commit.
//
// Data streams (Experiment.Arrivals, DOLL §III-A) feed K-grouping
// (kgroup:K) on both clocks: in virtual time as simulator events
// (stream.go), in real time as each worker's producer goroutine
// announcing its batches to the coordinator (realstream.go), goroutine
// and remote workers alike; a restarted worker resumes its stream at
// the coordinator's count of its batches.
//
// The cost model can come from a machine: syncbench calibrate measures
// its costs into a Profile (LoadProfile, Profile.CostModel,
// Profile.ClusterCostModel; see docs/calibrate.md), and CostModel.Cores
// makes the workers share that machine's cores as Go's scheduler shares
// them (cores.go), with the runtime's work per commit on them
// (CommitCPU), cores that sleep when idle (Wakeup) and the operating
// system's stalls (Stall, StallEvery), so virtual time predicts the
// goroutine runtime there (syncbench fidelity measures how well,
// docs/fidelity.md).
//
// Every run records a consistency.Trace and Run returns an error if
// consistency.Check finds the model's guarantee broken; with
// Experiment.DiscardTrace a virtual run checks the trace as it is
// recorded and keeps none, which a run of thousands of workers needs
// (docs/performance.md, "The simulator at scale"). The objective is
// sampled every EvalEvery (snapshots of θ) and evaluated after the run,
// off the clock, so evaluation never slows the run it measures.
package harness
