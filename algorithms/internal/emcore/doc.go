// Package emcore holds the production code that the incremental-EM
// workloads (kmeans, gmm, fcm) share: validation of the data, the
// configuration and the calls the algorithms.Algorithm contract constrains
// (NewWorker indices, SetParams and Process arguments), gathering a
// shard's rows into contiguous blocks for the kernels, and Server, the
// coordinator for workloads whose sufficient statistics are one dense
// vector added up exactly and whose M-step is a pure function of them.
//
// Every error and panic message is prefixed by the calling package's name
// (the pkg argument), so that the workloads report errors as before. What
// is specific to one workload (its E-step, its M-step, K-means' count
// checks) stays in its package.
package emcore
