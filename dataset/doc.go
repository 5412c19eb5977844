// Package dataset holds the data sets syncmodels trains on: dense feature
// matrices, sparse (CSR) matrices and rating triples; loaders for real file
// formats (IDX, LIBSVM/SVMlight, CSV with a label column, MovieLens); seeded
// synthetic generators; and deterministic sharding into N parts.
//
// Loaders never panic on malformed input and never skip a row silently: they
// return a *ParseError naming the file, the line or record, and the problem.
package dataset
