// Package dataset holds the data sets syncmodels trains on: dense feature
// matrices (Dense), sparse CSR matrices (Sparse) and rating triples
// (Ratings); loaders for real file formats; seeded synthetic generators;
// and deterministic sharding into N parts.
//
// # Loaders
//
// Each format has a Read function taking a path and a Parse function taking
// an io.Reader and a name for errors:
//
//   - IDX (MNIST, Fashion-MNIST): ReadIDXImages, ReadIDXLabels, LoadIDX,
//     FashionMNIST. Pixels are scaled to [0, 1].
//   - LIBSVM / SVMlight: ReadLIBSVM into a Sparse matrix.
//   - CSV with a label column (HIGGS, SUSY): ReadCSV into a Dense matrix.
//   - MovieLens ratings (ratings.dat, ratings.csv, u.data): ReadMovieLens,
//     with ids remapped to dense 0-based ids.
//
// All loaders accept raw, gzip or bzip2 input, detected by magic bytes.
// They never panic on malformed input and never skip a row silently (only
// blank and comment lines, which are not rows): they return a *ParseError
// naming the file, the line (text) or record (IDX), the field and the
// problem, for example
//
//	dataset: train.csv:17: column 3 "abc": not a number
//
// Values must be finite: NaN and ±Inf are errors. Sizes declared in IDX
// headers are checked for overflow and, when the input size is known (a raw
// file), against the bytes that follow, before anything is allocated; when
// it is not (compressed data), at most 8 MiB is allocated up front and
// storage grows only as data arrives. CSV and LIBSVM inputs are parsed
// on several goroutines, with results and errors that do not depend on how
// many; the goroutines have exited when the loader returns.
//
// # Generators
//
// Blobs, Logistic, SparseLogistic, LowRankRatings and NonNegLowRank draw
// every random number from the *rand.Rand they are given (math/rand/v2), never from a
// global source, so the same seed gives identical data.
//
// # Sharding
//
// Shard splits the indices 0..n-1 into parts of sizes differing by at most
// one, in order or after a seeded permutation; Dense.Subset, Sparse.Subset
// and Ratings.Subset copy the rows (or ratings) of a shard.
package dataset
