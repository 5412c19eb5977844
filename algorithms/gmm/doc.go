// Package gmm is a diagonal-covariance Gaussian mixture model trained by
// incremental EM (Neal & Hinton 1998) on the additive update contract of
// package algorithms.
//
// It is the EM workload of the FSP/Flegel paper (Wang et al., TPDS 2022,
// §2.2, Eq. 3): each point i keeps its last E-step statistics s_i, the
// responsibilities r_i (K values, all zero before the point's first visit);
// processing the point under θ recomputes r_i and contributes
// Δs_i = s_i(new) − s_i(old) to the delta; the server adds deltas to the
// running s = Σ_i s_i and runs the M-step.
//
// Layouts (K components, D features, row-major):
//
//	θ     = [ weights π (K) | means μ (K×D) | variances σ² (K×D) ]
//	delta = [ ΔN (K)        | ΔS1 (K×D)     | ΔS2 (K×D)          ]
//
// with N_k = Σ_i r_ik, S1_k = Σ_i r_ik·x_i and S2_k = Σ_i r_ik·x_i². Deltas
// are dense. The E-step computes log π_k + log N(x | μ_k, diag σ²_k) for a
// block of rows with kernel.DotsNT2 (Σ_t x_t²·P_kt − 2·x_t·μ_kt·P_kt, with
// the precisions P = 1/σ² precomputed in SetParams) and normalises with
// log-sum-exp. Responsibilities that underflow to exactly zero contribute
// nothing and are skipped, so near-hard assignments cost little.
//
// The M-step is exactly scikit-learn's GaussianMixture(covariance_type=
// "diag") M-step, in the same order of operations:
//
//	n_k  = N_k + 10·ε                     (ε = 2⁻⁵², float64 machine epsilon)
//	μ_k  = S1_k / n_k
//	σ²_k = S2_k/n_k − 2·(μ_k·S1_k)/n_k + μ_k² + reg_covar
//	π_k  = n_k / Σ_l n_l
//
// so with one worker and full-batch updates (process every point, Apply
// once per iteration) the algorithm is scikit-learn's EM: the tests match
// scikit-learn 1.2 on synthetic data and on 2000 Fashion-MNIST images. As
// in scikit-learn, a component without responsibility gets μ = 0 and
// σ² = reg_covar; in particular, before a first full pass the components
// that no processed point has reached yet collapse that way. Two guards,
// which never act on scikit-learn's results, protect the running sums of
// incremental EM from rounding drift: N_k is clamped at 0, and a variance
// that is not positive (scikit-learn would raise an error) is set to
// reg_covar.
//
// The objective is the mean log-likelihood (1/n)·Σ_i log p(x_i | θ), which is
// scikit-learn's score(X); Partial.Sum is Σ log p(x_i) over a shard and
// Partial.N its number of points; Minimize is false.
//
// Initialisation: Config.Theta0 when given; otherwise means from the
// K-means seeding of Config.Init (kmeans.Seed: "first", "random",
// "kmeans++"), every variance the per-feature variance of the data plus
// reg_covar (a feature that is constant gets reg_covar), and weights 1/K.
package gmm
