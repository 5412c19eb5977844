// Package algorithms defines the one contract every syncmodels workload
// meets — additive updates — and the types that carry it: Algorithm, Worker,
// Server, Delta and Partial.
//
// A Worker turns data points into an additive Delta under the parameters it
// was last given; deltas merge by addition (associative, commutative); a
// Server folds a merged delta into its state and produces new parameters. For
// gradient descent the delta is a gradient sum and the server takes an
// optimizer step; for EM the delta is a change of sufficient statistics
// (incremental EM, FSP paper §2.2 Eq. 3) and the server runs the M-step.
//
// A Server or Worker may also implement Checkpointer: an opaque deep copy of
// its state that it can return to, so that a runtime can roll back (FSP's
// interval probes) or recover a worker whose delta was lost.
//
// The workloads live in subpackages, one each: kmeans, gmm, fcm (EM); logreg,
// pmf, nmf (GD, with the optimizers of package optim). With one worker and
// full-batch updates each equals its textbook sequential algorithm. Their
// Servers and Workers all implement Checkpointer.
package algorithms
