// Package curvefit provides the numerical pieces of the MLLess scale-in
// auto-tuner (Sarroca & Sánchez-Artigas, "MLLess: Achieving Cost Efficiency
// in Serverless Machine Learning Training", §4.2, papers/mlless-isp-scalein):
// non-negative least squares, EWMA smoothing, and the two learning-curve
// models the scheduler fits to the loss history,
//
//	L_P(t) = 1/(θ0·t^θ1 + θ2) + θ3           (Eq. 2, reference curve: Power)
//	ℓ_p(t) = 1/(θ0·t² + θ1·t + θ2) + θ3      (Eq. 3, slow-convergence curve: Quadratic)
//
// with all θ ≥ 0, whose predictions feed the scale-in condition of Eq. 1,
// s_Δ(t) = (L_P(t + ⌊Δ/d_P⌋) − ℓ_p(t + ⌊Δ/d_p⌋)) / L_P(t + ⌊Δ/d_P⌋) < S.
// The paper says only "We utilize a non-negative least squares solver [33]
// to fit the points in all the curves" after "an exponentially weighted
// moving average (EWMA) filter"; its reference [33] is scipy's curve_fit,
// which the authors' code calls with bounds at 0 (a bounded nonlinear
// least-squares fit, not NNLS). Eq. 3 is taken from SLAQ (Zhang et al.,
// SoCC'17, reference [27]). What follows is how this package does it.
//
// # NNLS
//
// NNLS and Solver solve min ‖Ax − b‖₂ subject to x ≥ 0 with the active-set
// algorithm of Lawson & Hanson (Solving Least Squares Problems, 1974,
// ch. 23) — the Fortran of scipy.optimize.nnls up to 1.11, which scipy
// 1.12–1.14 replaced by a normal-equations variant (Bro & de Jong) and 1.15
// ported back (scipy PR 21021). The least-squares subproblems on
// the passive set are solved from an updated QR factorisation — Householder
// reflections when a column enters, Givens rotations when one leaves — and
// never through the normal equations AᵀA, which square the condition number
// (the fault of scipy 1.12–1.14's rewrite, gh-21140). Tall problems are
// first reduced to an n×n triangle by one Householder QR of [A b]; columns
// of extreme magnitude are rescaled by exact powers of two, so the result
// does not depend on the data's units (gh-21630); the iteration cap is an
// error, never a silent wrong answer; rnorm is the residual of the x
// returned (gh-25389 reported rnorm = 0 for a point with residual 0.82).
// Solver.Solve reuses its workspace and does not allocate.
//
// # EWMA
//
// EWMA(y, span) is pandas' Series.ewm(span=span, adjust=True).mean():
// α = 2/(span+1) and out[t] = Σ_{i≤t}(1−α)^(t−i)·y[i] / Σ_{i≤t}(1−α)^(t−i),
// the bias-corrected average (NaN inputs skipped, weights keep their
// positions). EWMARecursive is adjust=False. EWMAFilter is the streaming
// form. MLLess's code smooths the losses with span 20.
//
// # Fitting Eq. 2 and Eq. 3
//
// FitQuadratic and FitPower minimise the sum of squared errors in the loss
// space, Σ w_i (y_i − f(t_i))², over θ ≥ 0 — the objective of curve_fit —
// using NNLS for every linear part:
//
//  1. Times are scaled to s = t/T, T = max t (undone on the returned θ).
//  2. For a fixed θ3 = d (and, for Eq. 2, a fixed exponent θ1 = e) the
//     curve is f = d + 1/g with g = Φc linear in the remaining coefficients
//     c ≥ 0: Φ = (s², s, 1) for Eq. 3, Φ = (s^e, 1) for Eq. 2. The
//     transform z = 1/(y − d) makes the problem linear, z ≈ Φc, and a
//     first-order error analysis, δy ≈ −δz·(y − d)², gives the weights:
//     the first step is the NNLS problem min ‖diag(√w·(y−d)²)(Φc − z)‖.
//  3. That transformed fit is then refined to the exact minimiser of the
//     loss-space SSE over c ≥ 0 by Gauss–Newton steps that are themselves
//     weighted NNLS problems (linearising 1/g at the current g: solve
//     min ‖diag(√w/g²)(Φc′ − (g − r·g²))‖, r = y − d − 1/g), halving steps
//     that do not decrease the SSE. Call this minimum SSE(d) (SSE(d, e)).
//  4. θ3 = d is searched on [0, min y): SSE(d) on a 16-point grid
//     d = min y·(1 − q), q ∈ {1, 0.8, …, 10⁻⁶} (dense near min y, where
//     the asymptote of a flattening curve lies), then Brent's method
//     (golden section with parabolic steps) between the neighbours of the
//     best grid point, to a relative tolerance of 1e-10.
//  5. For Eq. 2, the exponent θ1 = e ∈ [0, MaxExponent] (default 3) is
//     searched the same way over the profile min_d SSE(d, e): a 15-point
//     grid, then Brent to 1e-8.
//
// The outer searches are global on their grids and local after, so a fit
// can in principle miss a narrow better basin between grid points; on the
// reference curves (testdata/curvefit/fits.json) the result is never worse
// than scipy.optimize.curve_fit(bounds=(0, ∞)) from three starting points,
// and exact samples of a curve give back its θ to 1e-7 (worst case seen). A sample that
// cannot be fitted — fewer than 4 points or 3 distinct times, non-finite or
// out-of-domain values, flat losses — is an error, never a panic or a NaN
// curve. Losses must be positive (θ3 ≥ 0 is the asymptote below them).
//
// Reference numbers come from testdata/curvefit/make_refs.py (scipy 1.10.1,
// numpy 1.24.2, mpmath), which also records scipy's own timing.
package curvefit
