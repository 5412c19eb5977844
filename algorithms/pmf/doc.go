// Package pmf is probabilistic matrix factorisation (Salakhutdinov and
// Mnih, 2007) of a partially observed ratings matrix, R ≈ U·Mᵀ with rank r,
// trained by data-parallel gradient descent on the additive-update contract
// of package algorithms. It is the PMF workload of MLLess (§6.1, Table 1:
// MovieLens-10M/20M, r = 20, SGD with Nesterov momentum).
//
// The data points are the observed ratings (u, m, v). Each contributes
//
//	F(u, m, v) = ½·e² + λ/2·(‖U_u‖² + ‖M_m‖²),   e = v − U_u·M_m,
//
// and a worker's delta is the sum over its processed ratings of ∇F, which
// is non-zero only in row u of U and row m of M: deltas are sparse with
// block width r and touch exactly those rows. θ holds U (users × r) then M
// (items × r).
//
// The server (optim.Server) takes the mean gradient of a merged delta
// (sum / Count, Count = number of ratings) and steps the touched rows only
// (lazy momentum: rows not in the batch neither move nor decay their
// velocity; see optim.Optimizer). With one worker and full-batch updates
// every rated row is touched in every step and this is textbook full-batch
// gradient descent on (1/N)·Σ F. The defaults follow MLLess: Nesterov
// momentum 0.8, θ0 ~ N(0, 0.1²), rank 20; see DefaultOptim for choosing
// the learning rate.
//
// The objective is the RMSE √(Σe²/N) over the ratings evaluated (MLLess
// reports RMSE); the penalty is not included. Partials carry Σe² and N.
//
// The tests check full-batch steps against a numpy recomputation
// (testdata/gd/make_refs.py) and convergence to the noise level on
// synthetic low-rank ratings.
package pmf
