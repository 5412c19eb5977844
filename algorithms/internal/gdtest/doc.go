// Package gdtest holds the test helpers that the gradient-descent workloads
// (logreg, pmf, nmf) and package optim share: reading the numpy and
// scikit-learn references in testdata/gd (LoadJSON), the error measure the
// reference tolerances are stated in (RelErr), contiguous shards (Seq,
// Shards), a minimal BSP driver for the tests (Trainer) and the drivers of
// the benchmarks (BenchEpochs, BenchProcess, FashionMNIST).
//
// It is imported only by _test files. It may import testing and must not
// import the workloads or optim, whose internal tests import it.
package gdtest
