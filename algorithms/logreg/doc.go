// Package logreg is binary logistic regression with an L2 penalty, trained
// by data-parallel gradient descent on the additive-update contract of
// package algorithms: dense features (Dense) and sparse CSR features such as
// hashed categorical data (Sparse).
//
// The model and loss are those of the FSP paper §2.1: P(y = 1 | x) =
// χ(x) = 1/(1 + exp(−(w·x + b))) and F(x, y; θ) = −y·log χ(x) −
// (1−y)·log(1 − χ(x)). The objective is
//
//	f(θ) = (1/n) Σ_i F(x_i, y_i; θ) + λ/2·‖w‖²,
//
// with θ = (w_0, …, w_{d−1}, b): weights first, the bias last and not
// penalised. This is scikit-learn's LogisticRegression(penalty='l2') with
// C = 1/(λ·n). The log-loss is evaluated as max(z,0) + log1p(e^−|z|) − y·z,
// which neither overflows nor loses precision for large |z|.
//
// A worker's delta is the sum over its processed points of the log-loss
// gradient (σ(z_i) − y_i)·(x_i, 1), with Count the number of points. The
// server (optim.Server) forms the mean gradient of a merged delta, adds λw
// and takes one optimizer step: the mini-batch update of FSP Eq. (1) and
// MLLess §3.2. MLLess trains LR with Adam (Table 1, §6.1) and η/√(epoch+1);
// set Config.Optim accordingly.
//
// Labels must be 0 or 1; −1 is accepted and read as 0 (the LIBSVM
// convention), any other value is refused with a *LabelError naming the
// row.
//
// The sparse variant's deltas have block width 1 and touch only the
// features present in the processed points, plus the bias. Its server step
// is lazy: untouched weights do not move, and the penalty's gradient λw is
// added on touched features only (the usual lazy L2 of sparse SGD). With
// full-batch updates from θ0 = 0 it equals the dense variant on the same
// data: a feature that never occurs has zero gradient and stays at zero in
// both. The objective always penalises every weight.
//
// The tests check, against testdata/gd (numpy and scikit-learn 1.2), that
// one worker with full-batch updates is textbook gradient descent and
// converges to scikit-learn's solution.
package logreg
