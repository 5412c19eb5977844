// Package kmeans is K-means clustering as incremental EM on the additive
// update contract of package algorithms.
//
// It follows the K-means example of the FSP/Flegel paper (Wang et al., TPDS
// 2022, §2.2, Eq. 3). The parameters θ are the K centroids, K×D row-major.
// The sufficient statistics are S (K×D, S_j = Σ x_i over the points assigned
// to cluster j) and C (K, C_j = the number of those points); a delta is the
// change [ΔS | ΔC], K·D + K entries, dense.
//
// A Worker remembers the current cluster of each of its points (none before
// the first visit). Processing a point under θ assigns it to the nearest
// centroid (E-step, ties to the lowest index); only when the assignment
// changes from j to j' does the delta get S_j' += x, C_j' += 1 and, unless
// the point was unassigned, S_j −= x, C_j −= 1. Distances for the assignment
// use ‖c_j‖² − 2·x·c_j (‖x‖² is the same for every j), computed for blocks of
// rows with kernel.DotsNT and with ‖c_j‖² precomputed in SetParams, as
// scikit-learn's Lloyd iteration does.
//
// The Server keeps the running S and C and, after every Apply, runs the
// M-step centroid_j = S_j / C_j. A cluster with C_j = 0 keeps its previous
// centroid. This differs from scikit-learn, which relocates an empty cluster
// to the point farthest from its centroid; the two agree whenever no cluster
// becomes empty (the reference tests check that none does).
//
// With one worker and full-batch updates (process every point, then Apply
// once per iteration) the algorithm is Lloyd's: the tests match scikit-learn
// 1.2 KMeans(algorithm="lloyd", init=first K points, tol=0) on Fashion-MNIST
// to 1e-9 relative in inertia after 1 and 20 iterations. Partial batches
// give incremental (Neal & Hinton) K-means; whatever the batching, grouping
// or order of deltas, the server's S and C always equal the sum of every
// point's latest contribution.
//
// The objective is the inertia Σ_i min_j ‖x_i − c_j‖² for the given θ,
// computed as a sum of squared differences (not the expansion); Minimize is
// true. Partial.Sum is a shard's inertia and Partial.N its number of points.
//
// Initialisation (Config.Init): "first" takes the first K points, "random"
// K distinct points drawn uniformly, "kmeans++" greedy k-means++ seeding as
// scikit-learn does it (Arthur & Vassilvitskii 2007; at each step 2+⌊ln K⌋
// candidates are drawn with probability proportional to D(x)², and the one
// that most reduces the potential Σ D(x)² is kept). Seed exposes the same
// seeding to other packages (gmm, fcm use it).
//
// Config.Float32 stores a float32 copy of the data and computes the E-step
// in float32; the model then sees the data rounded to float32, and results
// differ from the float64 ones at float32 rounding (statistics, M-step and
// objective stay float64).
package kmeans
