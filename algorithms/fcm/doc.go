// Package fcm is fuzzy c-means clustering (Bezdek 1981) as incremental EM
// on the additive update contract of package algorithms.
//
// It is an EM-style workload in the sense of the FSP/Flegel paper (Wang et
// al., TPDS 2022, §2.2, Eq. 3): each point i keeps its last statistics, the
// weights w_ij = u_ij^m of its memberships u_ij (all zero before its first
// visit); processing the point under the centroids θ recomputes them and
// contributes Δs_i = s_i(new) − s_i(old) to the delta; the server adds
// deltas to the running sums and recomputes the centroids.
//
// Layouts (K clusters, D features, row-major):
//
//	θ     = centroids c (K×D)
//	delta = [ ΔS (K×D) | ΔW (K) ],  S_j = Σ_i u_ij^m·x_i,  W_j = Σ_i u_ij^m
//
// Memberships for squared distances d_j = ‖x − c_j‖² are
//
//	u_j = 1 / Σ_l (d_j / d_l)^(1/(m−1))
//
// computed as (d_min/d_j)^(1/(m−1)) normalised to sum 1. A point at
// distance 0 from z ≥ 1 centroids gets membership 1/z to each of them and 0
// to the others (the limit of the formula as the point approaches them).
// The distances come from ‖x‖² − 2·x·c_j + ‖c_j‖² over blocks of rows with
// kernel.DotsNT; where that is within 1e-3·(‖x‖² + ‖c_j‖²) of zero (where
// cancellation would cost digits) the distance is recomputed as a sum of
// squared differences, so a point that coincides with a centroid is
// recognised exactly.
//
// The M-step sets c_j = S_j / W_j; a cluster with W_j ≤ 0 (no processed
// point yet) keeps its centroid. With one worker and full-batch updates
// (process every point, Apply once per iteration) this is the textbook
// alternating FCM iteration; the tests match a plain numpy implementation
// (testdata/sklearn/make_refs.py; scikit-learn has no fuzzy c-means).
//
// The objective is J = Σ_i Σ_j u_ij^m·‖x_i − c_j‖² with the memberships
// computed from the given θ and the distances as sums of squared
// differences; Partial.Sum is a shard's J and Partial.N its number of
// points; Minimize is true.
//
// Initialisation uses the K-means seeding of Config.Init (kmeans.Seed:
// "first", "random", "kmeans++").
package fcm
