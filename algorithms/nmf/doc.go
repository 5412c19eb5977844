// Package nmf is non-negative matrix factorisation X ≈ W·H of a dense
// non-negative data set (for example Fashion-MNIST pixels), rank r, trained
// by data-parallel projected gradient descent on the additive-update
// contract of package algorithms.
//
// The data points are the rows x_i of X. Row i owns row W_i of W; H (r × d)
// is shared. The objective is
//
//	f(W, H) = (1/n) Σ_i ½‖x_i − W_i·H‖²  =  ½‖X − W·H‖²_F / n,
//
// reported by Objective (the per-entry RMSE is √(2f/d)). A worker's delta
// is the sum over its processed rows of the gradient of ½‖x_i − W_i·H‖²:
// e_i·Hᵀ in row i of W and W_iᵀ·e_i in H, with e_i = W_i·H − x_i. Deltas
// are sparse with block width r: a row touches its own W row and all of H.
//
// The server (optim.Server) is block-scaled projected gradient descent (the
// FSP paper's GD, §2.1, with a projection):
//   - H steps with the mean gradient over the merged delta's rows (sum /
//     Count), times Config.HScale;
//   - W_i steps with its own row's gradient, not divided by Count: W_i is a
//     per-point variable that only row i's loss depends on, so its step
//     should not shrink as the batch grows. (Dividing by Count would be
//     plain GD on f, whose W step is n times smaller in full batch.)
//   - every stepped entry is then clamped at zero: θ ← max(0, θ − η·g).
//
// Only the live blocks step (W rows of the processed points, and H). With
// one worker and full-batch updates this is the simultaneous update
// W ← max(0, W − η·E·Hᵀ), H ← max(0, H − η·HScale·Wᵀ·E/n), E = W·H − X,
// checked against numpy in the tests (testdata/gd/make_refs.py).
//
// Init follows scikit-learn's NMF(init='random'): entries
// √(mean(X)/r)·|N(0, 1)|.
package nmf
