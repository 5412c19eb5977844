// Package emtest holds the test helpers and shared test bodies of the
// incremental-EM workloads (kmeans, gmm, fcm): reading the scikit-learn
// references in testdata/sklearn and the Fashion-MNIST images, full-batch
// runs, error measures, the benchmark harness, and checks that every EM
// workload must pass in the same way (one worker equals many, determinism
// per seed, refused deltas leave a server unchanged, the incremental
// invariant under random batching and merging).
//
// It is an ordinary package so that the three packages' tests can import
// it; nothing else should. Paths such as RefDir are relative to a
// workload's package directory (algorithms/<name>), where go test runs
// its tests. What a check compares against (a naive reference step, the
// statistics recomputed from the workers' per-point state) stays in each
// workload's tests and is passed in.
package emtest
