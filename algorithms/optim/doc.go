// Package optim holds the optimizers that the gradient-descent workloads
// (logreg, pmf, nmf) run on their servers, and Server, the
// algorithms.Server those workloads share (their NewServer methods return
// it through NewAlgorithmServer).
//
// A GD server receives a merged delta — the gradient sum of Count data
// points — and takes one step θ ← θ − η·update(g) with the mean gradient
// g = sum/Count. That is Eq. (1) of the FSP paper (§2.1, mini-batch
// gradient descent) and the MLLess update x_t = x_{t−1} − η_t·∇f_B (MLLess
// §3.2), with the optimizers MLLess lists in its Table 1 (§6.1): Adam for
// logistic regression, SGD with Nesterov momentum for PMF.
//
// The update rules follow PyTorch's conventions (Method), the optional
// schedule is MLLess's η/√(epoch+1) (Schedule), and Config fills the usual
// defaults (Adam β1 0.9, β2 0.999, ε 1e-8; MLLess used ε 1e-9, which Config
// accepts).
//
// Sparse deltas (PMF factor rows, hashed logistic regression) step lazily:
// Optimizer.StepBlocks and Server update only the live blocks and leave the
// momentum and Adam moments of every other row alone, like PyTorch's
// SparseAdam; see Optimizer for what that means.
//
// Optimizers and Server implement algorithms.Checkpointer: a checkpoint is
// a deep copy of θ, the counters and every entry of the optimizer's
// buffers, so a rollback restores lazy sparse state exactly.
//
// The reference values in the tests come from plain numpy
// (testdata/gd/make_refs.py).
package optim
