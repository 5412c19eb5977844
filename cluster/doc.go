// Package cluster runs a training job with its workers in other processes
// or on other hosts: the gRPC runtime. A Coordinator serves the job over
// transport/grpcnet and drives the same coordinator loop as the goroutine
// runtime (harness with Experiment.Remote), so the sync-model core, the
// trace and consistency.Check are the same; a Worker fetches the Job from
// the coordinator, builds the workload and loads its own data (package
// workload), checks that its shard hashes to the coordinator's, and runs
// harness.RunWorker over a stream it reopens when the connection breaks.
// Local starts, kills (SIGKILL) and restarts worker processes on one host,
// and Preempter does so on the seeded availability schedules of package
// preempt (DOLL §V-A), timed from the run's start (Experiment.OnStart):
// the gRPC runtime's preemptions, which the job does not carry.
//
// # Job
//
// A Job is JSON: the workload.Spec, the sync model, the experiment's
// settings that decide a worker's shard and behaviour (workers, batch,
// seed, shuffle, stragglers, retry, lease, and under K-grouping the data
// streams' arrival.Spec, from which each worker runs its own stream),
// the layout, and a hash of
// every worker's shard (workload.ShardHash: the points' indices and
// values). NewJob refuses what cannot run across processes yet (ISP and
// replicas, whose filters' state is read in process; interval tuners,
// scale-in, data migration, indirect communication; preemptions are
// Preempter's, outside the job). A
// coordinator may serve several runs one after another on one address
// (Job.Run of Job.Runs); a worker process takes part in each.
//
// # Faults
//
// A worker that dies is noticed when its lease ends (Experiment.Lease):
// the model sees it leave, so BSP and quorum rounds go on. A new process
// for the same worker passes its next incarnation and rejoins; one whose
// workload keeps per-point state (K-means, GMM, FCM) is refused, since
// the server holds its points' contributions and a fresh process would
// add them again. A connection that breaks is reopened for up to
// Worker.Reconnect; if the lease ran out meanwhile, the worker rejoins as
// its next incarnation with its state (see harness's membership). Tests
// kill worker processes with SIGKILL mid-run (TestKillWorkerProcess).
//
// Security is grpcnet's: TLS 1.3 with the job's certificates
// (grpcnet/jobtls) and a bearer token, or plaintext on loopback only.
package cluster
